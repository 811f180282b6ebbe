"""drydb.read_json_lines: a JSON Lines file as a pandas DataFrame, parsed in C++.

The C++ side (python/src/json_lines.cpp) parses the file with simdjson, the GIL released, and
hands each column back as NumPy arrays: numbers and bools as the buffers it filled, strings and
nested values as object arrays. This module only wraps them in pandas' types.
"""

import os

from . import _drydb


def read_json_lines(path, *, columns=None, nrows=None):
    """The records of the JSON Lines file at `path` (one JSON object per line; blank lines
    skipped; a line ending in CRLF, and a last line without a newline, are read too) as a pandas
    DataFrame, one column per member name, in the order the names first appear (or in the order
    of `columns`, which reads only those members: a name no record has is a column of None).
    Each column's type is inferred over the whole file (absent members and null are missing):

    - integers only (within int64): int64, or pandas' nullable Int64 when one is missing;
    - numbers with a fraction or exponent (integers beside them too): float64, NaN for missing;
    - bools only: bool, or pandas' nullable "boolean" when one is missing;
    - strings only: object, str values and None for missing;
    - anything else (integers past int64, objects, arrays, mixed types): object, each value as
      json.loads gives it (int, float, bool, str, dict, list, None).

    Each line is read as json.loads reads it: a line simdjson refuses (an integer past 64 bits,
    NaN, a lone surrogate escape) is given to json.loads, and one neither reads raises
    drydb.InvalidArgumentError naming the file, the line and the reason; so does a line that
    is not an object. A member named twice in a record keeps its last value. nrows: read only
    the first nrows records. A file that cannot be read raises OSError (FileNotFoundError...).
    """
    if columns is not None:
        if isinstance(columns, (str, bytes)):
            raise TypeError("columns is a list of names, not %r" % (columns,))
        columns = [str(c) for c in columns]
    if nrows is not None and nrows < 0:
        raise _drydb.InvalidArgumentError("nrows is a count of records, not %r" % (nrows,))
    return _read(path, columns=columns, nrows=nrows)


def _read(path, *, columns=None, nrows=None, nullable=False):
    """read_json_lines without its argument checks; nullable=True: int64 and bool columns as
    Int64 and "boolean" even with no value missing (the values shared, a mask of no nulls
    added), as drydb.dask makes every input partition."""
    if not hasattr(_drydb, "_read_json_lines"):
        raise NotImplementedError("this drydb was built without simdjson: no read_json_lines")
    import numpy
    import pandas

    rows, parsed = _drydb._read_json_lines(os.fsencode(path), columns, nrows)
    data = {}
    for name, kind, values, mask in parsed:
        if mask is None and nullable and kind in ("int64", "bool"):
            mask = numpy.zeros(len(values), dtype=bool)
        if mask is not None:
            values = (pandas.arrays.IntegerArray(values, mask) if kind == "int64"
                      else pandas.arrays.BooleanArray(values, mask))
        data[name] = values
    return pandas.DataFrame(data, index=pandas.RangeIndex(rows), columns=list(data))
