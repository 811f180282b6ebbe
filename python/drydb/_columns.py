"""Columnar appends: TableBuilder.append_columns and append_values, and build_from_frame.

The C++ side (python/src/columns.cpp) reads NumPy arrays, (values, mask) pairs, Arrow arrays and
streams and buffers; this module turns pandas objects and lists into NumPy arrays first, with
vectorised calls only (no Python code runs per row).
"""

import os
import sys

from . import _drydb


def _is_pandas(obj, *names):
    t = type(obj)
    return t.__module__.split(".")[0] == "pandas" and (not names or t.__name__ in names)


def _is_arrow(obj):
    return hasattr(obj, "__arrow_c_array__") or hasattr(obj, "__arrow_c_stream__")


def _column(obj):
    """A column as the C++ side reads it: pandas Series and Index as NumPy arrays (nullable
    dtypes as (values, mask) pairs, time zones as UTC), lists as NumPy arrays, a pair as a
    (values, mask) pair, the rest as is."""
    if _is_pandas(obj, "Series", "Index", "DatetimeIndex", "RangeIndex", "Int64Index",
                  "UInt64Index", "Float64Index", "CategoricalIndex"):
        import numpy
        import pandas
        dtype = obj.dtype
        if isinstance(dtype, pandas.CategoricalDtype):
            obj = obj.astype(dtype.categories.dtype) if not obj.isna().any() else obj.astype(object)
            dtype = obj.dtype
        if isinstance(dtype, pandas.DatetimeTZDtype):
            values = obj.dt.tz_convert("UTC").dt.tz_localize(None) if hasattr(obj, "dt") \
                else obj.tz_convert("UTC").tz_localize(None)
            return numpy.asarray(values)
        if isinstance(dtype, numpy.dtype):
            return numpy.asarray(obj)
        # An extension dtype: nullable integers, floats and booleans as values and a mask;
        # strings and the rest as objects (pandas.NA is a null there).
        numpy_dtype = getattr(dtype, "numpy_dtype", None)
        if numpy_dtype is not None and numpy_dtype.kind in "iufb":
            mask = numpy.asarray(obj.isna(), dtype=bool)
            values = obj.to_numpy(dtype=numpy_dtype, na_value=numpy_dtype.type(0))
            return values, mask
        return obj.to_numpy(dtype=object)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.ma.MaskedArray):
        # A masked array's masked values are nulls, as a (values, mask) pair's; they are filled
        # first where a value there could make the column fail (an object column's, a date's).
        mask = numpy.ma.getmaskarray(obj)
        values = numpy.ma.getdata(obj)
        if obj.dtype.kind in "OM" and mask.any():
            values = values.copy()
            values[mask] = None if obj.dtype.kind == "O" else numpy.datetime64("NaT")
        return values, mask
    if isinstance(obj, tuple) and len(obj) == 2:
        return _column(obj[0]), _column(obj[1])  # (values, mask): the mask's true values are nulls
    if isinstance(obj, (list, tuple)):
        import numpy
        array = numpy.asarray(obj)
        return array if array.dtype.kind != "U" else numpy.asarray(obj, dtype=object)
    return obj


def _named_columns(columns):
    """[(name, column)] of a pandas DataFrame or a mapping; an Arrow object as it is."""
    if _is_pandas(columns, "DataFrame"):
        return [(str(name), _column(columns[name])) for name in columns.columns]
    if hasattr(columns, "items") and not _is_arrow(columns):
        return [(str(name), _column(c)) for name, c in columns.items()]
    if _is_arrow(columns):
        return columns
    raise TypeError("columns is a %s: it is a pandas DataFrame, a dict of columns, or an Arrow "
                    "struct array, record batch or stream" % type(columns).__name__)


def append_columns(self, keys, values=None, *, columns=None):
    """Appends a batch of rows given as columns, in one call: no Python code per row.

    keys: the key column (a NumPy array, pandas Series or Index, Arrow array or stream, buffer
      or list; a NumPy masked array's masked values are nulls), or the name of one of `columns`.
    columns: the fields, a pandas DataFrame, a dict of name -> column, or an Arrow struct array,
      record batch or stream (__arrow_c_array__ / __arrow_c_stream__). Each row is stored as a
      MessagePack array of the table's column list (set_columns; a table with neither a list nor
      rows takes the columns' names, and the key's column as its key column); a null (None,
      NaN, NaT, pandas.NA, a mask or Arrow's validity) leaves the field out.
    values: instead of columns, one column of whole values (bytes or str; a null is b"").

    The batch is checked whole first: a bad one raises (naming the column and the first bad
    row) and appends nothing. Returns the number of rows appended.
    """
    if (values is None) == (columns is None):
        raise _drydb.InvalidArgumentError("append_columns takes values or columns (one of them)")
    key_name = getattr(keys, "name", None) if not isinstance(keys, str) else keys
    key_name = "key" if key_name is None else str(key_name)
    if values is not None:
        if isinstance(keys, str):
            raise _drydb.InvalidArgumentError("with values, keys is a column, not a name")
        return self._append_values(_column(keys), key_name, _column(values))
    named = _named_columns(columns)
    return self._append_columns(None if isinstance(keys, str) else _column(keys), key_name, named)


def build_from_frame(frame, path, *, key, table="rows", key_encoding=None, chunk_rows=1 << 20,
                     **builder_options):
    """Builds the drydb file at `path` from a pandas DataFrame (or anything append_columns takes
    as columns) in one call: one table whose key is the column `key` (int64 keys for an integer
    column, bytes keys otherwise, unless key_encoding says), its rows the frame's columns (the
    key's column among them). builder_options go to drydb.Builder (page_size, compression...).
    The frame goes in batches of chunk_rows rows. Returns the number of rows."""
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        # Checked before anything is built: a count below 1 would append no batch at all (an
        # empty file) or fail in range().
        raise _drydb.InvalidArgumentError(
            "chunk_rows is %r: it is the number of rows appended at a time, an int of 1 or more"
            % (chunk_rows,))
    if key_encoding is None:
        key_encoding = "bytes"
        if _is_pandas(frame, "DataFrame"):
            if key not in frame.columns:
                raise _drydb.InvalidArgumentError(
                    "no key column %r in %r" % (key, [str(c) for c in frame.columns]))
            kind = getattr(frame[key].dtype, "kind", "O")
            if kind in "iu":
                key_encoding = "int64"
    builder = _drydb.Builder(**builder_options)
    t = builder.create_table(table, key_encoding)
    rows = 0
    if _is_pandas(frame, "DataFrame") and len(frame) > chunk_rows:
        for start in range(0, len(frame), chunk_rows):
            rows += t.append_columns(key, columns=frame.iloc[start:start + chunk_rows])
    else:
        rows += t.append_columns(key, columns=frame)
    builder.build(os.fspath(path))
    return rows
