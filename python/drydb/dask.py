"""Sharded datasets built by Dask (docs/sharding.md): from a Dask DataFrame to a published
generation of a dataset folder.

    import dask.dataframe as dd
    from drydb.dask import build_dataset

    rows = dd.read_json("users-*.jsonl", lines=True)
    generation = build_dataset(rows, "datasets/users", key="id", key_encoding="int64", shards=16)
    with drydb.open_dataset("datasets/users") as ds:
        ds.table("rows").get(42)

The input is read and parsed once and held in the cluster's memory (persist=True); each row's
shard is computed from its key column in C++ (_drydb.shard_numbers: the library's encoding and
partition function, no Python call per row). A task per input partition cuts it into its rows of
each shard, and each shard task takes its piece of every partition (up to SPLIT_PIECES
partitions times shards; beyond, Dask's shuffle moves the rows, one output partition per
shard). Each shard task builds its shard through the columnar path (TableBuilder.append_columns,
in batches of BATCH_ROWS rows, under the builder's memory budget, so a large shard spills sorted
runs to disk rather than growing), under a temporary name renamed into place, so a retried task
never leaves a second copy; then the client checks the shards (every one present, disjoint and
in order, rows adding up to the input, unique indexes unique across shards), reports their sizes
and skew, and writes the manifest and publishes the generation through the library's own writer
(drydb.write_manifest, drydb.publish_generation).

A path or glob of JSON Lines files is read a file per partition by drydb.read_json_lines
(simdjson, in C++; task drydb-read-json-lines), its int and bool columns nullable in every
partition (Int64, "boolean"), so that a file with a missing value and one without agree.

Dask's task names say which stage runs (the dashboard and the progress bar group by them):
drydb-read-json-lines, drydb-count, drydb-sample, drydb-split and drydb-piece (or drydb-route and
Dask's shuffle), drydb-index-keys, drydb-build-shard.
"""

import datetime
import errno
import glob
import logging
import operator
import os
import time
import uuid
import warnings

import msgpack

from . import _drydb
from . import _json_lines
from ._columns import _column

__all__ = ["build_dataset", "sample_splits", "ShardSizeWarning"]

SHARD_FILE = "shard-{:05d}.drydb"
# The column that routes rows to their shards: Dask's shuffle (rearrange_by_column) sends each
# row to the output partition this column of it gives.
ROUTE = "_partitions"
# Input partitions times shards up to which the build cuts each partition into its pieces of
# each shard itself (a task per partition, a getitem task per piece) rather than run Dask's
# shuffle: as many tasks as the task shuffle's one stage (32 partitions and shards at most)
# would make. Beyond it the shuffle's stages keep the scheduler's tasks fewer than
# partitions * shards.
SPLIT_PIECES = 32 * 32
# Rows a shard task appends per append_columns call: the batch's converted columns (strings of
# object columns copied to UTF-8, packed rows) stay small beside the builder's budget, and the
# call's fixed cost (about 20 us a column) is spread over many rows.
BATCH_ROWS = 1 << 16
# Records of the first JSON Lines file read for the input frame's columns and dtypes (its meta).
META_ROWS = 1000
# JSON Lines input that Dask's read_json reads instead of read_json_lines (which reads local,
# uncompressed files).
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4", ".snappy")

logger = logging.getLogger(__name__)


class ShardSizeWarning(UserWarning):
    """A shard of a new generation is over build_dataset's max_shard_bytes (it is published)."""


def sample_splits(encoded_keys, shards):
    """S - 1 split keys for `shards` range shards from a sample of encoded keys: the keys at even
    positions of the sorted distinct sample (bytes order, as drydb sorts; empty keys left out).
    Fewer distinct keys than shards give fewer splits (the last shards then stay empty)."""
    import numpy
    keys = [bytes(memoryview(k)) for k in encoded_keys]  # bytes-like only (bytes(3) is 3 zeros)
    lengths = numpy.fromiter(map(len, keys), dtype="i8", count=len(keys))
    return _drydb.range_splits([(b"".join(keys), lengths)], shards)


def _plain(v):
    """A field as a plain Python object: numpy's scalars (pandas gives them) as int, float...;
    a datetime (pandas.Timestamp too) as MessagePack's timestamp."""
    if isinstance(v, datetime.datetime):
        return _timestamp(v)
    return v.item() if hasattr(v, "item") and not isinstance(v, (bytes, str)) else v


def _timestamp(v):
    """A datetime as MessagePack's timestamp (extension type -1), in UTC: a naive datetime is
    taken as UTC; a pandas.Timestamp keeps its nanoseconds."""
    nanos = getattr(v, "value", None)  # pandas.Timestamp: nanoseconds since the epoch, UTC
    if isinstance(nanos, int):
        return msgpack.Timestamp.from_unix_nano(nanos)
    if v.tzinfo is None:
        v = v.replace(tzinfo=datetime.timezone.utc)
    return msgpack.Timestamp.from_datetime(v)


def _is_missing(v):
    """None, NaN, NaT or pandas.NA (the nullable dtypes' missing value, whose truth value raises)."""
    import pandas
    if v is None or v is pandas.NA or v is pandas.NaT:
        return True
    try:
        return bool(v != v)  # NaN
    except (TypeError, ValueError):
        return False


def _key_series(s):
    """A key column as append_columns takes it: uuid.UUID objects (uuid_v7 keys as drydb.encode_key
    takes them) as their text, the rest as it is."""
    if s.dtype == object and len(s) and isinstance(s.iloc[0], uuid.UUID):
        return s.map(lambda u: str(u) if isinstance(u, uuid.UUID) else u)
    return s


def _key_column(frame, key, key_encoding, where):
    """The key column of a pandas frame for the C++ side, after the checks whose messages serve
    pandas users best: a row without a key (None, NaN, NaT, pandas.NA), and int64 keys that
    pandas made floats. `where` names the partition in messages."""
    s = frame[key]
    missing = s.isna().to_numpy()
    if missing.any():
        raise _drydb.InvalidArgumentError("a row has no key (column %r, row %d of %s)"
                                          % (key, int(missing.argmax()), where))
    if key_encoding == "int64" and getattr(s.dtype, "kind", "O") == "f":
        raise _drydb.WrongKeyTypeError(
            "column %r holds floats, not int64 keys (pandas stores an int column with a missing "
            "value as floats; give it the nullable Int64 dtype)" % (key,))
    return _column(_key_series(s))


def _missing_column(dtype, n):
    """n missing values of a column of `dtype` (a dtype read_json_lines gives, nullable)."""
    import numpy
    import pandas
    dtype = str(dtype)
    if dtype == "Int64":
        return pandas.arrays.IntegerArray(numpy.zeros(n, dtype="i8"), numpy.ones(n, dtype=bool))
    if dtype == "boolean":
        return pandas.arrays.BooleanArray(numpy.zeros(n, dtype=bool), numpy.ones(n, dtype=bool))
    if dtype == "float64":
        return numpy.full(n, numpy.nan)
    return numpy.full(n, None, dtype=object)


def _read_json_lines_file(path, meta):
    """One input partition: the JSON Lines file at `path`, int and bool columns nullable; the
    columns of `meta` first, in its order (one the file lacks, or has no value of: all
    missing, of meta's dtype), then those the file has beyond them."""
    frame = _json_lines._read(path, nullable=True)
    for name in meta.columns:
        dtype = meta.dtypes[name]
        if name not in frame.columns or (dtype != object and frame[name].dtype == object
                                         and frame[name].isna().all()):
            frame[name] = _missing_column(dtype, len(frame))
    order = list(meta.columns) + [c for c in frame.columns if c not in meta.columns]
    return frame if order == list(frame.columns) else frame[order]


def _json_lines_input(source, build_id):
    """A Dask DataFrame of the JSON Lines files `source` names (a path or glob), a partition per
    file read by a task of its own (drydb-read-json-lines); its meta from the first META_ROWS
    records of the first file that has one."""
    import dask
    import dask.dataframe as dd
    files = sorted(glob.glob(source, recursive=True)) if glob.has_magic(source) else [source]
    if not files:
        raise FileNotFoundError(errno.ENOENT, "no file matches", source)
    for path in files:
        head = _json_lines._read(path, nrows=META_ROWS, nullable=True)
        if len(head.columns):
            break
    meta = head.iloc[:0]
    parts = [dask.delayed(_read_json_lines_file, pure=False)(
                 path, meta, dask_key_name="drydb-read-json-lines-%s-%d" % (build_id, i))
             for i, path in enumerate(files)]
    # A file whose column holds other types than the first lines (floats or text where they
    # had ints) gives its partition another dtype: Dask is not asked to check (verify_meta),
    # and append_columns takes each piece in its own types (Dask's shuffle, past
    # SPLIT_PIECES, concatenates a shard's pieces to their common dtype first). The partitions'
    # own tasks are named as the reads, so that Dask's fusing of a read into its partition keeps
    # the name (not "drydb-read-json-lines-from-delayed").
    return dd.from_delayed(parts, meta=meta, verify_meta=False, prefix="drydb-read-json-lines")


def _where(partition_info):
    return "input partition %d" % partition_info["number"] if partition_info else "the input"


def _count(frame, number):
    return len(frame)


def _sample_keys(frame, number, key, key_encoding, frac):
    """The encoded keys of a random `frac` of the rows of input partition `number`, as one bytes
    object and their lengths (a list of many small bytes objects costs distributed a frame
    each: 4 s for 100,000 keys)."""
    import numpy
    if frac < 1:
        frame = frame[[key]].sample(frac=frac, random_state=number)  # the key column's rows only
    if not len(frame):
        return b"", numpy.zeros(0, dtype="i8")
    keys = _drydb.encode_keys(_key_column(frame, key, key_encoding, "input partition %d" % number),
                              key_encoding, name=str(key))
    return b"".join(keys), numpy.fromiter(map(len, keys), dtype="i8", count=len(keys))


def _shard_numbers(frame, key, key_encoding, function, splits, shards, where):
    """Each row's shard (an int32 array), computed in C++ from the frame's key column."""
    import numpy
    column = _key_column(frame, key, key_encoding, where)
    return numpy.frombuffer(_drydb.shard_numbers(column, key_encoding, function, splits, shards,
                                                 name=str(key)), dtype="i4")


def _split(frame, number, key, key_encoding, function, splits, shards):
    """Input partition `number` cut into its rows of each shard: a list of `shards` frames in
    shard order (empty ones too), each row's shard computed in C++ from its key. The shard tasks
    take their pieces of every partition (the split path: no Dask shuffle, no routing column)."""
    import numpy
    if not len(frame):
        return [frame] * shards
    numbers = _shard_numbers(frame, key, key_encoding, function, splits, shards,
                             "input partition %d" % number)
    ends = numpy.cumsum(numpy.bincount(numbers, minlength=shards)).tolist()
    if (numbers[1:] < numbers[:-1]).any():  # else in shard order already (keys sorted)
        # Rows in shard order, each shard's in their input order: a stable sort, a radix sort
        # for 16-bit numbers (a shard number is below 65536).
        frame = frame.take(numpy.argsort(numbers.astype("u2"), kind="stable"))
    return [frame.iloc[start:end] for start, end in zip([0] + ends[:-1], ends)]


def _route(frame, key, key_encoding, function, splits, shards, partition_info=None):
    """The frame with a column ROUTE: each row's shard, computed in C++ from its key (the shuffle
    path, for inputs of more partitions and shards than SPLIT_PIECES allows)."""
    import numpy
    if ROUTE in frame.columns:
        # A column of the input named so is renamed before; this one is a partition's own (a
        # JSON Lines member the input's meta lacks), and the routing column would overwrite it.
        raise _drydb.InvalidArgumentError(
            "%s has a column %r that the input's columns lack: it is the name of the shuffle's "
            "column, and the build would lose it" % (_where(partition_info), ROUTE))
    if len(frame):
        numbers = _shard_numbers(frame, key, key_encoding, function, splits, shards,
                                 _where(partition_info))
    else:
        numbers = numpy.zeros(0, dtype="i4")
    return frame.assign(**{ROUTE: numbers})


def _rows(frame):
    """The row dict of each row of a pandas frame (its index, the routing column, is not a
    field), missing fields left out."""
    columns = list(frame.columns)
    for record in frame.itertuples(index=False, name=None):
        yield {c: _plain(v) for c, v in zip(columns, record) if not _is_missing(v)}


def _index_values(frame, spec, key):
    """The index key `spec` gives each row of a pandas frame (None: the row is left out): a
    "column" spec's column, vectorised; a "key" callable called per row with (key, row dict)."""
    if "key" in spec:
        return [spec["key"](row[key], row) for row in _rows(frame)]
    column = spec["column"]
    if column not in frame.columns:
        return [None] * len(frame)
    s = frame[column]
    return s.astype(object).where(s.notna(), None).tolist()


def _index_keys(frame, spec, key):
    """The encoded index keys `spec` gives the rows of a pandas frame (uniqueness is of encoded
    keys: "x" and b"x" are one key), rows it leaves out left out; for the unique check."""
    import pandas
    encoding = spec.get("key_encoding", "bytes")
    if "column" in spec:
        if spec["column"] not in frame.columns:
            return pandas.Series([], dtype=object)
        s = frame[spec["column"]].dropna()
        if not len(s):
            return pandas.Series([], dtype=object)
        try:
            return pandas.Series(_drydb.encode_keys(_column(s), encoding, name=str(spec["column"])),
                                 dtype=object)
        except (TypeError, ValueError):
            pass  # a column of mixed types (str and bytes): key by key, as the builder does
        return pandas.Series([_drydb.encode_key(_plain(v), encoding) for v in s], dtype=object)
    out = [None if k is None else _drydb.encode_key(k, encoding)
           for k in _index_values(frame, spec, key)]
    return pandas.Series([k for k in out if k is not None], dtype=object)


def _index_function(pieces, spec, key, key_encoding):
    """add_index's function for `spec` over the rows of a shard (its pieces, each in the types it
    was appended in): its index keys computed before the build (_index_values), looked up by
    primary key. For int64 and bytes tables the function is a dict's own get (called get(key,
    value); every key is in it), so no Python code runs per row; other encodings look up the
    encoded key."""
    lookup = {}
    for frame in pieces:
        values = _index_values(frame, spec, key)
        keys = _key_series(frame[key])
        if key_encoding == "int64":
            lookup.update(zip(keys.tolist(), values))
        elif len(keys):
            encoded = _drydb.encode_keys(_column(keys), key_encoding, name=str(key))
            lookup.update(zip(encoded, values))
    if key_encoding in ("int64", "bytes"):
        return lookup.get
    return lambda k, v: lookup.get(_drydb.encode_key(k, key_encoding))


def _append_rows(t, frame, key, key_encoding):
    """Appends a batch that the columnar path does not take (object columns of lists, dicts or
    mixed types) row by row, each packed in Python as an array of the table's column list."""
    position = list(frame.columns).index(key)
    for record in frame.itertuples(index=False, name=None):
        fields = [None if _is_missing(v) else _plain(v) for v in record]
        while fields and fields[-1] is None:
            fields.pop()
        k = fields[position]
        if key_encoding == "uuid_v7" and isinstance(k, str):
            k = uuid.UUID(k)  # _key_series made it text
        t.append(k, msgpack.packb(fields, use_bin_type=True))


def _shard_columns(pieces):
    """The pieces of a shard with one column list: the union of theirs in order of appearance
    (as a concatenation gives it; a piece's missing columns all missing)."""
    columns, seen = [], set()
    for piece in pieces:
        for c in piece.columns:
            if c not in seen:
                seen.add(c)
                columns.append(c)
    return [p if list(p.columns) == columns else p.reindex(columns=columns) for p in pieces]


def _build_shard(pieces, number, folder, table, key, value, key_encoding, indexes, options,
                 shuffled=False, hidden=None):
    """Builds shard `number` of the generation in `folder` from its rows: `pieces`, a frame from
    each input partition (the split path), or the shard's one partition of Dask's shuffle
    (shuffled: with the routing column ROUTE, no field, and the input's own ROUTE column, if any,
    renamed `hidden`); returns its manifest entry and how many rows it took."""
    import drydb

    if shuffled:
        pieces = [p.drop(columns=ROUTE) for p in pieces]
        if hidden is not None:
            pieces = [p.rename(columns={hidden: ROUTE}) for p in pieces]
    pieces = _shard_columns(pieces)
    builder = drydb.Builder(**options)
    t = builder.create_table(table, key_encoding)
    if value is None:
        # Declared whatever the rows: every shard has the input's column list, an empty one too.
        t.set_columns([str(c) for c in pieces[0].columns], key_column=str(key))
    rows = 0
    for frame in pieces:
        column = frame[key]
        keys = _key_series(column)
        if keys is not column:
            frame = frame.assign(**{key: keys})
        for start in range(0, len(frame), BATCH_ROWS):
            batch = frame.iloc[start:start + BATCH_ROWS]
            if value is not None:
                t.append_columns(batch[key], values=batch[value])
            else:
                try:
                    t.append_columns(str(key), columns=batch)
                except (TypeError, ValueError):
                    # Nothing of the batch was appended; what the row path cannot take either
                    # raises from it.
                    _append_rows(t, batch, key, key_encoding)
            rows += len(batch)
    for spec in indexes:
        # Index functions see the rows as given (uuid.UUID keys too), each piece in its types.
        t.add_index(spec["name"], unique=spec.get("unique", False),
                    key_encoding=spec.get("key_encoding", "bytes"),
                    key=_index_function(pieces, spec, key, key_encoding))
    final = os.path.join(folder, SHARD_FILE.format(number))
    # Builder.build writes a temporary file beside `final` and renames it: a task that is run
    # again replaces the file whole, never leaving two.
    builder.build(final)
    described = _drydb.describe_shard(final)
    return described, rows


def _check_removals(path, folder, max_removed_fraction):
    """Refuses the generation in `folder` when, against the generation live at `path`, it would
    remove more than max_removed_fraction of a table's rows (a table it lacks loses them all)."""
    live = _drydb.current_generation(path)
    if live == 0:
        return  # the first generation: nothing to lose
    compared = _drydb.diff(os.path.join(path, _drydb.generation_folder(live)), folder,
                           index_entries=False)
    for t in compared["tables"]:
        if t["in_old"] and t["removed"] > max_removed_fraction * t["old_rows"]:
            raise _drydb.InvalidStateError(
                "table %r: the new generation would remove %d of the %d rows of generation %d "
                "(%.1f%%; max_removed_fraction is %g); not published"
                % (t["name"], t["removed"], t["old_rows"], live,
                   100.0 * t["removed"] / t["old_rows"], max_removed_fraction))


def _report(shard_results, generation, max_shard_bytes):
    """The shards' sizes and skew (the largest shard's bytes over their mean) as a dict; a
    ShardSizeWarning for each shard over max_shard_bytes."""
    sizes = [d["bytes"] for d, _ in shard_results]
    rows = [d["tables"][0]["rows"] for d, _ in shard_results]
    mean_bytes = sum(sizes) / len(sizes)
    mean_rows = sum(rows) / len(rows)
    report = {
        "generation": generation,
        "rows": sum(rows),
        "bytes": sum(sizes),
        "shards": [{"file": d["file"], "bytes": b, "rows": r}
                   for (d, _), b, r in zip(shard_results, sizes, rows)],
        "largest_bytes": max(sizes),
        "mean_bytes": mean_bytes,
        "skew": max(sizes) / mean_bytes if mean_bytes else 1.0,
        "row_skew": max(rows) / mean_rows if mean_rows else 1.0,
    }
    if max_shard_bytes is not None:
        for s in report["shards"]:
            if s["bytes"] > max_shard_bytes:
                warnings.warn(ShardSizeWarning(
                    "generation %d: %s is %d bytes (%d rows), over max_shard_bytes %d; the "
                    "largest of the %d shards is %.2f times their mean (skew)"
                    % (generation, s["file"], s["bytes"], s["rows"], max_shard_bytes,
                       len(sizes), report["skew"])), stacklevel=4)
    logger.info("generation %d: %d rows in %d shards, %d bytes; largest shard %d bytes, %.2f "
                "times the mean (skew)", generation, report["rows"], len(sizes), report["bytes"],
                report["largest_bytes"], report["skew"])
    return report


def _finish(input_rows, duplicates, shard_results, unique_specs, shards, folder, generation, path,
            keep, manifest, max_removed_fraction, max_shard_bytes):
    """The finalizer: publishes only a complete, consistent generation; returns the report."""
    if len(shard_results) != shards:
        raise _drydb.InvalidStateError("%d of %d shards were built" % (len(shard_results), shards))
    built_rows = sum(rows for _, rows in shard_results)
    stored_rows = sum(d["tables"][0]["rows"] for d, _ in shard_results)
    if built_rows != input_rows or stored_rows != input_rows:
        raise _drydb.InvalidStateError(
            "the shards hold %d rows (built from %d); the input has %d" % (stored_rows, built_rows, input_rows))
    for spec, n in zip(unique_specs, duplicates):
        if n:
            raise _drydb.DuplicateKeyError("unique index %r: %d index keys are given by more than one row"
                                           % (spec["name"], n))
    for i, (described, _) in enumerate(shard_results):
        if described["file"] != SHARD_FILE.format(i):
            raise _drydb.InvalidStateError("shard %d is the file %s" % (i, described["file"]))
    report = _report(shard_results, generation, max_shard_bytes)
    manifest["shards"] = [d for d, _ in shard_results]
    # One writer of manifests: the library's, which checks every rule (shards disjoint and in
    # order for range partitioning) before it writes.
    _drydb.write_manifest(folder, manifest)
    if max_removed_fraction is not None:
        _check_removals(path, folder, max_removed_fraction)
    published = _drydb.publish_generation(path, generation, keep)
    # Live from here: what failed after (an old generation not removed) is logged and kept in
    # the report ("warnings"), never raised: not as a Python warning either, which the warnings
    # filter ("-W error") could turn into an exception, so that the caller would take the live
    # generation for a failed build.
    report["warnings"] = ["generation %d is live, but %s" % (generation, message)
                          for message in published["warnings"]]
    for message in report["warnings"]:
        logger.warning("%s", message)
    return report


def _shuffle(data, key, key_encoding, function, splits, shards, client, build_id):
    """The shuffle path: each row to the partition of its shard by Dask's shuffle, the shard's
    number computed in C++ into the column it takes output partitions from (ROUTE); a column of
    the input of that name goes under another name (returned) through it, and back in the shard
    task. Returns the shuffle's partitions (delayed), one per shard."""
    import numpy
    from dask.dataframe.shuffle import rearrange_by_column
    hidden = None
    routed = data
    if ROUTE in data.columns:
        hidden = "_" + ROUTE
        while hidden in data.columns:
            hidden = "_" + hidden
        routed = data.rename(columns={ROUTE: hidden})
    meta = routed._meta.assign(**{ROUTE: numpy.zeros(len(routed._meta), dtype="i4")})
    # Not checked against the meta (enforce_metadata): a JSON Lines file may have columns the
    # meta, from the first file's first records, lacks; they go through to the shards.
    routed = routed.map_partitions(_route, hidden if key == ROUTE else key, key_encoding, function,
                                   splits, shards, meta=meta, enforce_metadata=False,
                                   token="drydb-route-" + build_id)
    routed = rearrange_by_column(routed, ROUTE, npartitions=shards, ignore_index=True,
                                 shuffle="tasks" if client is not None else None)
    parts = routed.to_delayed()
    if len(parts) != shards:
        raise _drydb.InvalidStateError("the shuffle gave %d partitions for %d shards" % (len(parts), shards))
    return parts, hidden


class _Runner:
    """Runs graphs on the client (or the local scheduler without one), with Dask's progress bar
    when asked: distributed.progress for a client, dask.diagnostics.ProgressBar locally."""

    def __init__(self, client, retries, progress):
        self.client, self.retries, self.progress = client, retries, progress

    def compute(self, *graphs):
        import dask
        if self.client is not None:
            futures = self.client.compute(list(graphs), retries=self.retries)
            if self.progress:
                import distributed
                distributed.progress(futures)
            return self.client.gather(futures)
        if self.progress:
            from dask.diagnostics import ProgressBar
            with ProgressBar():
                return dask.compute(*graphs, retries=self.retries)
        return dask.compute(*graphs, retries=self.retries)

    def persist(self, data):
        import dask
        if self.client is not None:
            import distributed
            data = self.client.persist(data, retries=self.retries)
            if self.progress:
                distributed.progress(data)
            # Read whole before the next stage, which would wait for it anyway: the stage's time
            # (stats["seconds"]["persist"]) is then its own.
            distributed.wait(data)
            return data
        if self.progress:
            from dask.diagnostics import ProgressBar
            with ProgressBar():
                return dask.persist(data, retries=self.retries)[0]
        return dask.persist(data, retries=self.retries)[0]


def _current_client():
    """The distributed Client dask.compute would run on (the default one, unless Dask's config
    names another scheduler), or None."""
    try:
        from distributed import default_client
        client = default_client()
    except (ImportError, ValueError):
        return None
    import dask.base
    return client if dask.base.get_scheduler() == client.get else None


def build_dataset(data, path, *, key, value=None, table="rows", key_encoding="bytes", shards=None,
                  shard_bytes=None, partitioning="range", splits=None, indexes=(), name=None,
                  page_size=4096, compression=None, memory_budget=None, sample_size=100_000,
                  keep=2, retries=2, client=None, max_removed_fraction=None, persist=True,
                  progress=False, max_shard_bytes=None, stats=None):
    """Builds a new generation of the dataset at `path` from `data` and publishes it; returns its
    number.

    data: a Dask DataFrame, or a path or glob of JSON Lines (``*.jsonl``: a partition per file,
      read by drydb.read_json_lines) or CSV files (Dask's read_csv). Each row's `key` column is
      its key (of `key_encoding`); `value` names the column stored as the row's value (bytes or
      str), else each row is stored as a MessagePack array of the table's column list (the
      input's columns, the key's column as its key column), which decode="msgpack" reads back
      as a dict.
    shards: the number of shards; or shard_bytes, a target size per shard (estimated from the
      input's size in memory); default 1 per input partition.
    partitioning: "range" (split keys from a sample of `sample_size` keys, or `splits`, encoded
      keys given) or "hash" (XXH3-64 of the encoded key, for point lookups only).
    indexes: dicts of "name", "unique" (default False), "key_encoding" (default "bytes") and
      either "column" (the row's field) or "key" (a callable(key, row) -> index key or None,
      called once per row with the row as a dict).
    memory_budget: each shard task's drydb.Builder budget (default the Builder's): rows beyond
      it are sorted in runs spilled to the worker's temp folder.
    persist: hold the parsed input in the cluster's memory (client.persist) while the build
      runs, so that it is read once; False reads it again for each stage (the count and key
      sample, then the split).
    progress: show Dask's progress bar for each stage.
    max_shard_bytes: a ShardSizeWarning for each shard file larger than this (it is published).
    stats: a dict the build fills with its report: "generation", "rows", "bytes", "shards" (per
      shard "file", "bytes", "rows"), "largest_bytes", "mean_bytes", "skew" (largest / mean
      bytes), "row_skew", and "seconds": the wall time of each stage run ("prepare", "persist",
      "count", "sample", "build", "publish"); "warnings": what failed after the generation
      went live (an old generation that retention could not remove), also logged.
    retries: how often Dask runs a failed task again.
    max_removed_fraction: when set (0 to 1), the finalizer compares the new generation with the
      live one (drydb.diff) and refuses to publish it, raising InvalidStateError, when it would
      remove more than that fraction of a table's rows.
    """
    import dask
    import dask.dataframe as dd

    started = time.perf_counter()
    # Task names: "drydb-<stage>-<build>-<partition>"; Dask's key_split (its dashboard, progress
    # bars and task stream) groups them by stage.
    build_id = uuid.uuid4().hex
    if isinstance(data, (str, os.PathLike)):
        source = os.fspath(data)
        if source.endswith((".csv", ".tsv")) or ".csv" in source:
            data = dd.read_csv(source, sep="\t" if source.endswith(".tsv") else ",")
        elif ("://" in source or source.endswith(_COMPRESSED)
              or not hasattr(_drydb, "_read_json_lines")):
            data = dd.read_json(source, lines=True)
        else:
            data = _json_lines_input(source, build_id)
    if key not in data.columns:
        raise _drydb.InvalidArgumentError("no key column %r in %r" % (key, list(data.columns)))
    if value is not None and value not in data.columns:
        raise _drydb.InvalidArgumentError("no value column %r in %r" % (value, list(data.columns)))
    if max_removed_fraction is not None and not 0 <= max_removed_fraction <= 1:
        raise _drydb.InvalidArgumentError(
            "max_removed_fraction is a fraction from 0 to 1, not %r" % (max_removed_fraction,))
    if partitioning not in ("range", "hash"):
        raise _drydb.InvalidArgumentError("partitioning is 'range' or 'hash', not %r" % (partitioning,))
    function = "range-v1" if partitioning == "range" else "xxh3-64-mod-v1"
    options = {"page_size": page_size, "compression": compression}
    if memory_budget is not None:
        options["memory_budget"] = memory_budget
    os.makedirs(path, exist_ok=True)
    if client is None:
        client = _current_client()
    runner = _Runner(client, retries, progress)
    seconds = {}
    clock = started

    def stage(name):
        nonlocal clock
        now = time.perf_counter()
        seconds[name] = now - clock
        clock = now

    def per_partition(kind, function_, parts, *args):
        # function_(partition, its number, *args) on each partition.
        return [dask.delayed(function_, pure=False)(
                    part, i, *args, dask_key_name="drydb-%s-%s-%d" % (kind, build_id, i))
                for i, part in enumerate(parts)]

    stage("prepare")
    if persist:
        data = runner.persist(data)
        stage("persist")
    inputs = data.to_delayed()
    counts = per_partition("count", _count, inputs)
    lengths = None
    first = []
    if shards is None and shard_bytes:
        first.append(data.memory_usage_per_partition(deep=True).sum())
    if function == "range-v1" and splits is None:
        first += counts
    if first:
        got = runner.compute(*first)
        if shards is None and shard_bytes:
            shards = max(1, int(-(-got[0] // shard_bytes)))
            got = got[1:]
        if got:
            lengths = list(got)
        stage("count")
    if shards is None:
        shards = data.npartitions
    if not 1 <= shards <= 65536:
        raise _drydb.InvalidArgumentError("a dataset has 1 to 65536 shards, not %d" % shards)
    if function == "range-v1":
        if splits is None:
            frac = min(1.0, sample_size / max(1, sum(lengths)))
            samples = runner.compute(*per_partition("sample", _sample_keys, inputs, key,
                                                    key_encoding, frac))
            splits = _drydb.range_splits(samples, shards)
            shards = len(splits) + 1
            stage("sample")
        else:
            splits = [bytes(s) for s in splits]
            if len(splits) != shards - 1:
                raise _drydb.InvalidArgumentError(
                    "%d shards take %d split keys, not %d" % (shards, shards - 1, len(splits)))
    else:
        splits = []
    _drydb.shard_of(function, splits, shards, b"")  # checks the partitioning before any work

    if len(inputs) * shards <= SPLIT_PIECES:
        # The split path: each input partition cut into its pieces of each shard by one task,
        # each shard task given its piece of every partition (getitem tasks, the pieces moved
        # between workers as they are: no routing column, no concatenation).
        cut = [dask.delayed(_split, pure=False)(
                   part, i, key, key_encoding, function, splits, shards,
                   dask_key_name="drydb-split-%s-%d" % (build_id, i))
               for i, part in enumerate(inputs)]
        parts = [[dask.delayed(operator.getitem, pure=False)(
                      c, j, dask_key_name="drydb-piece-%s-%d-%d" % (build_id, i, j))
                  for i, c in enumerate(cut)] for j in range(shards)]
        shuffled, hidden = False, None
    else:
        parts, hidden = _shuffle(data, key, key_encoding, function, splits, shards, client,
                                 build_id)
        parts = [[p] for p in parts]
        shuffled = True

    # The generation's number and folder, claimed by an exclusive mkdir: two builds never share one.
    generation = _drydb.claim_generation(path)
    folder = os.path.join(path, _drydb.generation_folder(generation))
    index_specs = list(indexes)
    built = per_partition("build-shard", _build_shard, parts, folder, table, key, value,
                          key_encoding, index_specs, options, shuffled, hidden)
    checks = [] if lengths is not None else counts
    unique_specs = [spec for spec in index_specs if spec.get("unique")]
    for spec in unique_specs:
        # Unique across every shard: no index key given by two rows of the whole input.
        keys = data.map_partitions(_index_keys, spec, key, meta=(spec["name"], object),
                                   token="drydb-index-keys-" + build_id)
        checks.append((keys.value_counts() > 1).sum())
    try:
        results = runner.compute(*checks, *built)
        stage("build")
        n_counts = len(checks) - len(unique_specs)
        if lengths is None:
            lengths = results[:n_counts]
        report = _finish(sum(lengths), results[n_counts:len(checks)], results[len(checks):],
                         unique_specs, shards, folder, generation, path, keep, {
                             "dataset": name or os.path.basename(os.path.abspath(path)),
                             "generation": generation,
                             "tables": [{
                                 "name": table, "key_encoding": key_encoding,
                                 "indexes": [{"name": s["name"], "unique": bool(s.get("unique", False)),
                                              "key_encoding": s.get("key_encoding", "bytes")}
                                             for s in index_specs],
                                 "partitioning": {"function": function, "splits": splits}}],
                         }, max_removed_fraction, max_shard_bytes)
        stage("publish")
    except BaseException:
        # Not published: the claimed folder and whatever shards it holds go (its number is free
        # for the next claim), under the dataset's lock and only if no publish can have named it
        # (publish raises only when CURRENT did not move).
        try:
            _drydb.discard_generation(path, generation)
        except _drydb.Error:
            pass  # the build's own error says more; the folder stays for a later look
        raise
    if stats is not None:
        stats.update(report)
        stats["seconds"] = seconds
    return generation
