"""Sharded datasets built by Dask (docs/sharding.md): from a Dask DataFrame to a published
generation of a dataset folder.

    import dask.dataframe as dd
    from drydb.dask import build_dataset

    rows = dd.read_json("users-*.jsonl", lines=True)
    generation = build_dataset(rows, "datasets/users", key="id", key_encoding="int64", shards=16)
    with drydb.open_dataset("datasets/users") as ds:
        ds.table("rows").get(42)

The rows are shuffled to their shards by Dask with fixed divisions (one output partition per
shard, empty shards included); each partition builds its shard through the drydb package, under
a temporary name renamed into place, so a retried task never leaves a second copy; then the
client checks the shards (every one present, disjoint and in order, rows adding up to the input,
unique indexes unique across shards) and writes the manifest and publishes the generation
through the library's own writer (drydb.write_manifest, drydb.publish_generation).
"""

import datetime
import os
import warnings

import msgpack

from . import _drydb

__all__ = ["build_dataset", "sample_splits"]

SHARD_FILE = "shard-{:05d}.drydb"


def sample_splits(encoded_keys, shards):
    """S - 1 split keys for `shards` range shards from a sample of encoded keys: the keys at even
    positions of the sorted distinct sample (bytes order, as drydb sorts). Fewer distinct keys
    than shards give fewer splits (the last shards then stay empty)."""
    distinct = sorted(set(k for k in encoded_keys if k))
    splits = []
    for i in range(1, shards):
        if not distinct:
            break
        k = distinct[min(len(distinct) - 1, i * len(distinct) // shards)]
        if not splits or k > splits[-1]:
            splits.append(k)
    return splits


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


def _encode_key(k, column, encoding):
    """A row's key encoded, with a clear error for a missing one."""
    if _is_missing(k):
        raise _drydb.InvalidArgumentError("a row has no key (column %r)" % (column,))
    k = _plain(k)
    if encoding == "int64" and isinstance(k, float):
        raise _drydb.WrongKeyTypeError(
            "column %r holds floats, not int64 keys (pandas stores an int column with a missing "
            "value as floats; give it the nullable Int64 dtype)" % (column,))
    return _drydb.encode_key(k, encoding)


def _index_key_of(spec, key, row):
    if "key" in spec:
        return spec["key"](key, row)
    return row.get(spec["column"])


def _rows(frame):
    """The row dict of each row of a pandas frame (its index, the routing column, is not a
    field), missing fields left out."""
    columns = list(frame.columns)
    for record in frame.itertuples(index=False, name=None):
        yield {c: _plain(v) for c, v in zip(columns, record) if not _is_missing(v)}


def _index_keys(frame, spec, key):
    """The encoded index keys `spec` gives the rows of a pandas frame (uniqueness is of encoded
    keys: "x" and b"x" are one key), None for rows it leaves out."""
    import pandas
    encoding = spec.get("key_encoding", "bytes")
    out = []
    for row in _rows(frame):
        k = _index_key_of(spec, row[key], row)
        out.append(None if k is None else _drydb.encode_key(k, encoding))
    return pandas.Series(out, dtype=object)


def _shards_of(encoded, function, splits, shards):
    """The shard of each encoded key of a pandas Series: a binary search of the split keys for
    range-v1 (bytes compare as drydb orders encoded keys), the hash for xxh3-64-mod-v1."""
    import bisect
    if function == "range-v1":
        return encoded.map(lambda k: bisect.bisect_right(splits, k))
    return encoded.map(lambda k: _drydb.shard_of(function, splits, shards, k))


def _build_shard(frame, number, folder, table, key, value, key_encoding, indexes, options):
    """Builds shard `number` of the generation in `folder` from its partition `frame`; returns
    its manifest entry and how many rows it took."""
    import drydb

    builder = drydb.Builder(**options)
    t = builder.create_table(table, key_encoding)
    index_keys = [dict() for _ in indexes]
    rows = 0
    for row in _rows(frame):
        k = row[key]
        if value is not None:
            v = row.get(value, b"")
        else:
            v = msgpack.packb({c: x for c, x in row.items()}, use_bin_type=True)
        t.append(k, v)
        # By encoded key: the builder calls index functions with the key as the table's encoding
        # gives it back (bytes for a str key of a bytes table).
        encoded = _drydb.encode_key(k, key_encoding)
        for spec, keys in zip(indexes, index_keys):
            keys[encoded] = _index_key_of(spec, k, row)
        rows += 1
    for spec, keys in zip(indexes, index_keys):
        t.add_index(spec["name"], unique=spec.get("unique", False),
                    key_encoding=spec.get("key_encoding", "bytes"),
                    key=lambda k, v, keys=keys: keys.get(_drydb.encode_key(k, key_encoding)))
    final = os.path.join(folder, SHARD_FILE.format(number))
    # Builder.build writes a temporary file beside `final` and renames it: a task that is run
    # again replaces the file whole, never leaving two.
    builder.build(final)
    described = _drydb.describe_shard(final)
    return described, rows


def _is_missing(v):
    """None, NaN, NaT or pandas.NA (the nullable dtypes' missing value, whose truth value raises)."""
    import pandas
    if v is None or v is pandas.NA or v is pandas.NaT:
        return True
    try:
        return bool(v != v)  # NaN
    except (TypeError, ValueError):
        return False


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


def _finish(results, n_checks, unique_specs, shards, folder, generation, path, keep, manifest,
            max_removed_fraction):
    """The finalizer: publishes only a complete, consistent generation."""
    input_rows = results[0]
    duplicates = results[1:n_checks]
    shard_results = results[n_checks:]
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
    manifest["shards"] = [d for d, _ in shard_results]
    # One writer of manifests: the library's, which checks every rule (shards disjoint and in
    # order for range partitioning) before it writes.
    _drydb.write_manifest(folder, manifest)
    if max_removed_fraction is not None:
        _check_removals(path, folder, max_removed_fraction)
    published = _drydb.publish_generation(path, generation, keep)
    # Live from here: what failed after (an old generation not removed) is told, not raised.
    for message in published["warnings"]:
        warnings.warn("generation %d is live, but %s" % (generation, message), RuntimeWarning,
                      stacklevel=3)


def build_dataset(data, path, *, key, value=None, table="rows", key_encoding="bytes", shards=None,
                  shard_bytes=None, partitioning="range", splits=None, indexes=(), name=None,
                  page_size=4096, compression=None, sample_size=100_000, keep=2, retries=2,
                  client=None, max_removed_fraction=None):
    """Builds a new generation of the dataset at `path` from `data` and publishes it; returns its
    number.

    data: a Dask DataFrame, or a path or glob of JSON Lines (``*.jsonl``) or CSV files that Dask
      reads. Each row's `key` column is its key (of `key_encoding`); `value` names the column
      stored as the row's value (bytes or str), else the row's fields are stored as a MessagePack
      map.
    shards: the number of shards; or shard_bytes, a target size per shard (estimated from the
      input's size in memory); default 1 per input partition.
    partitioning: "range" (split keys from a sample of `sample_size` keys, or `splits`, encoded
      keys given) or "hash" (XXH3-64 of the encoded key, for point lookups only).
    indexes: dicts of "name", "unique" (default False), "key_encoding" (default "bytes") and
      either "column" (the row's field) or "key" (a callable(key, row) -> index key or None).
    retries: how often Dask runs a failed task again.
    max_removed_fraction: when set (0 to 1), the finalizer compares the new generation with the
      live one (drydb.diff) and refuses to publish it, raising InvalidStateError, when it would
      remove more than that fraction of a table's rows.
    """
    import dask
    import dask.dataframe as dd

    if isinstance(data, (str, os.PathLike)):
        source = os.fspath(data)
        if source.endswith((".csv", ".tsv")) or ".csv" in source:
            data = dd.read_csv(source, sep="\t" if source.endswith(".tsv") else ",")
        else:
            data = dd.read_json(source, lines=True)
    if key not in data.columns:
        raise _drydb.InvalidArgumentError("no key column %r in %r" % (key, list(data.columns)))
    if max_removed_fraction is not None and not 0 <= max_removed_fraction <= 1:
        raise _drydb.InvalidArgumentError(
            "max_removed_fraction is a fraction from 0 to 1, not %r" % (max_removed_fraction,))
    if partitioning not in ("range", "hash"):
        raise _drydb.InvalidArgumentError("partitioning is 'range' or 'hash', not %r" % (partitioning,))
    function = "range-v1" if partitioning == "range" else "xxh3-64-mod-v1"
    os.makedirs(path, exist_ok=True)

    def run(*graphs):
        if client is not None:
            return client.gather(client.compute(list(graphs), retries=retries))
        return dask.compute(*graphs, retries=retries)

    # Every key encoded as drydb orders it, for the splits and the routing.
    encoded = data[key].map_partitions(
        lambda s: s.map(lambda k: _encode_key(k, key, key_encoding)), meta=(key, object))
    if shards is None:
        if shard_bytes:
            total = run(data.memory_usage_per_partition(deep=True).sum())[0]
            shards = max(1, int(-(-total // shard_bytes)))
        else:
            shards = data.npartitions
    if not 1 <= shards <= 65536:
        raise _drydb.InvalidArgumentError("a dataset has 1 to 65536 shards, not %d" % shards)
    if function == "range-v1":
        if splits is None:
            rows_total = run(encoded.count())[0]
            frac = min(1.0, sample_size / max(1, rows_total))
            sample = run(encoded.sample(frac=frac, random_state=0))[0]
            splits = sample_splits(sample.tolist(), shards)
            shards = len(splits) + 1
        else:
            splits = [bytes(s) for s in splits]
            if len(splits) != shards - 1:
                raise _drydb.InvalidArgumentError(
                    "%d shards take %d split keys, not %d" % (shards, shards - 1, len(splits)))
    else:
        splits = []
    _drydb.shard_of(function, splits, shards, b"")  # checks the partitioning before any work

    # The shuffle: each row to the partition of its shard, fixed divisions 0 .. S - 1, by a
    # routing column that becomes the index (no field of the rows), named apart from every
    # column of the input.
    route = "_shard"
    while route in data.columns:
        route = "_" + route
    frame = data.assign(**{route: encoded.map_partitions(
        _shards_of, function, splits, shards, meta=(route, "i8"))})
    frame = frame.set_index(route, divisions=list(range(shards)) + [shards - 1], drop=True,
                            sorted=False)
    parts = frame.to_delayed()
    if len(parts) != shards:
        raise _drydb.InvalidStateError("the shuffle gave %d partitions for %d shards" % (len(parts), shards))

    # The generation's number and folder, claimed by an exclusive mkdir: two builds never share one.
    generation = _drydb.claim_generation(path)
    folder = os.path.join(path, _drydb.generation_folder(generation))
    options = {"page_size": page_size, "compression": compression}
    index_specs = list(indexes)
    built = [dask.delayed(_build_shard, pure=False)(part, i, folder, table, key, value, key_encoding,
                                                     index_specs, options)
             for i, part in enumerate(parts)]
    checks = [data[key].count()]
    unique_specs = [spec for spec in index_specs if spec.get("unique")]
    for spec in unique_specs:
        # Unique across every shard: no index key given by two rows of the whole input.
        keys = data.map_partitions(_index_keys, spec, key, meta=(spec["name"], object))
        checks.append((keys.dropna().value_counts() > 1).sum())
    try:
        _finish(run(*checks, *built), len(checks), unique_specs, shards, folder, generation, path,
                keep, {
                    "dataset": name or os.path.basename(os.path.abspath(path)),
                    "generation": generation,
                    "tables": [{
                        "name": table, "key_encoding": key_encoding,
                        "indexes": [{"name": s["name"], "unique": bool(s.get("unique", False)),
                                     "key_encoding": s.get("key_encoding", "bytes")}
                                    for s in index_specs],
                        "partitioning": {"function": function, "splits": splits}}],
                }, max_removed_fraction)
    except BaseException:
        # Not published: the claimed folder and whatever shards it holds go (its number is free
        # for the next claim), under the dataset's lock and only if no publish can have named it
        # (publish raises only when CURRENT did not move).
        try:
            _drydb.discard_generation(path, generation)
        except _drydb.Error:
            pass  # the build's own error says more; the folder stays for a later look
        raise
    return generation
