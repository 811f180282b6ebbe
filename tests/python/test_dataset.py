"""Sharded datasets from Python without Dask: shards built with the package and the dataset
functions (shard_of, describe_shard, write_manifest, publish_generation), read back with
drydb.open_dataset against a model, and generations published and rolled back."""

import os

import pytest

import drydb
from conftest import Model, eventually


def build_generation(root, rows, splits, key_encoding="bytes", tag=b"", indexes=()):
    """Writes and publishes a new generation of `rows` ((key, value) pairs) in len(splits) + 1
    range shards, with `indexes` ((name, unique, key_encoding, key function) each) on its
    table; returns its number."""
    shards = len(splits) + 1
    generation = drydb._drydb.next_generation(root)
    folder = os.path.join(root, drydb._drydb.generation_folder(generation))
    os.makedirs(folder)
    described = []
    for i in range(shards):
        b = drydb.Builder(page_size=512)
        t = b.create_table("t", key_encoding)
        t.append_many((k, v + tag) for k, v in rows
                      if drydb._drydb.shard_of("range-v1", splits, shards,
                                               drydb._drydb.encode_key(k, key_encoding)) == i)
        for name, unique, encoding, key in indexes:
            t.add_index(name, unique=unique, key_encoding=encoding, key=key)
        path = os.path.join(folder, "shard-%d.drydb" % i)
        b.build(path)
        described.append(drydb._drydb.describe_shard(path))
    manifest = {"dataset": "d", "generation": generation,
                "tables": [{"name": "t", "key_encoding": key_encoding,
                            "indexes": [{"name": n, "unique": u, "key_encoding": e}
                                        for n, u, e, _ in indexes],
                            "partitioning": {"function": "range-v1", "splits": splits}}],
                "shards": described}
    drydb._drydb.write_manifest(folder, manifest)
    drydb._drydb.publish_generation(root, generation)
    return generation


def test_dataset_answers_as_one_table(tmp_path, rng):
    rows = [(i * 3 - 5000, b"v%d" % i) for i in range(4000)]
    splits = [drydb._drydb.encode_key(k, "int64") for k in (-3000, 0, 1, 9000)]  # the last 2 shards empty
    gen = build_generation(str(tmp_path), rows, splits, "int64")
    model = Model(rows)
    with drydb.open_dataset(tmp_path) as ds:
        assert ds.generation == gen and ds.shard_count == 5
        t = ds.table("t")
        assert len(t) == len(rows) and t.key_encoding == "int64"
        for k, v in rows[::7]:
            assert t[k] == v and k in t and t.get(k) == v
        for k in [-10**9, -4999, 2, 10**9]:
            assert t.get(k) is None and k not in t
            with pytest.raises(KeyError):
                t[k]
        for _ in range(300):
            a, b = sorted(rng.randint(-6000, 14000) for _ in range(2))
            for se, ee, rev in [(False, False, False), (True, False, True), (False, True, False)]:
                want = model.range(a, b, se, ee, rev)
                r = t.range(a, b, start_exclusive=se, end_exclusive=ee, reverse=rev)
                assert len(r) == len(want) and list(r) == want
                assert t.count_range(a, b, start_exclusive=se, end_exclusive=ee) == len(want)
        assert list(t.range(reverse=True)) == model.rows[::-1]
        assert t.shard_of(-3001) == 0 and t.shard_of(-3000) == 1 and t.shard_of(10**6) == 4
        # A cursor crosses the shards (the empty ones too) as one table's would.
        c = t.cursor()
        assert isinstance(c, drydb.DatasetCursor) and not c.valid
        walked, ok = [], c.first()
        while ok:
            walked.append((c.key, c.value, c.rank))
            ok = c.next()
        assert walked == [(k, v, i) for i, (k, v) in enumerate(model.rows)]
        walked, ok = [], c.last()
        while ok:
            walked.append(c.key)
            ok = c.prev()
        assert walked == [k for k, _ in reversed(model.rows)]
        for _ in range(200):
            k = rng.randint(-6000, 14000)
            keys = [r[0] for r in model.rows if r[0] >= k]
            assert c.seek(k) == bool(keys) and (not keys or (c.key, c.rank) == (keys[0], len(rows) - len(keys)))
            assert c.seek_exact(k) == (bool(keys) and keys[0] == k)
        assert not c.seek(10**9) and not c.valid
        with pytest.raises(drydb.InvalidStateError):
            c.key
        manifest = ds.manifest()
        assert [s["tables"][0]["rows"] for s in manifest["shards"]] == [
            sum(1 for k, _ in rows if lo <= k < hi)
            for lo, hi in [(-2**63, -3000), (-3000, 0), (0, 1), (1, 9000), (9000, 2**63)]]


def test_closed_dataset_refuses_queries(tmp_path):
    """After close(), every query of a dataset, its tables, indexes and cursors raises
    InvalidStateError; rows handed out before stay valid."""
    rows = [(i, b"v%d" % i) for i in range(300)]
    splits = [drydb._drydb.encode_key(k, "int64") for k in (100, 200)]
    build_generation(str(tmp_path), rows, splits, "int64",
                     indexes=[("by_value", True, "bytes", lambda k, v: v)])
    ds = drydb.open_dataset(tmp_path)
    t = ds.table("t")
    ix = t.index("by_value")
    cursor = t.cursor()
    assert cursor.first()
    it = iter(t.range(10, 20))
    first = next(it)
    ds.close()
    assert ds.closed
    for call in [lambda: ds.table("t"), lambda: ds.tables(), lambda: ds.manifest(),
                 lambda: t.get(1), lambda: t[1], lambda: 1 in t, lambda: len(t),
                 lambda: t.shard_of(1), lambda: t.range(), lambda: t.count_range(),
                 lambda: t.prefix(b""), lambda: t.cursor(), lambda: t.index("by_value"),
                 lambda: t.indexes(), lambda: ix.get(b"v1"), lambda: ix.range(),
                 lambda: cursor.next(), lambda: cursor.key]:
        with pytest.raises(drydb.InvalidStateError):
            call()
    assert first == (10, b"v10")


def test_dataset_indexes_merge_the_shards(tmp_path, rng):
    """A non-unique index whose keys recur in every shard and a unique one answer as one index
    over all the rows: entries in (index key, primary key) order, both directions."""
    rows = [(i * 7 - 3000, b"v%d" % i) for i in range(3000)]
    splits = [drydb._drydb.encode_key(k, "int64") for k in (-1000, 0, 5000, 99999)]  # last empty
    indexes = [("by_tail", False, "bytes", lambda k, v: v[-1:]),
               ("by_value", True, "bytes", lambda k, v: v)]
    build_generation(str(tmp_path), rows, splits, "int64", indexes=indexes)
    by_tail = sorted((v[-1:], k, v) for k, v in rows)
    with drydb.open_dataset(tmp_path) as ds:
        t = ds.table("t")
        assert sorted(ix.name for ix in t.indexes()) == ["by_tail", "by_value"]
        tail = t.index("by_tail")
        assert len(tail) == len(rows) and not tail.unique
        assert list(tail.range()) == [(k, v) for _, k, v in by_tail]
        assert list(tail.range(reverse=True)) == [(k, v) for _, k, v in reversed(by_tail)]
        for d in b"0123456789":
            want = [(k, v) for ik, k, v in by_tail if ik == bytes([d])]
            assert tail.get(bytes([d])) == want[0]  # the first row by primary key
            assert list(tail.get_all(bytes([d]))) == want
            assert tail.count_range(bytes([d]), b"9") == sum(
                1 for ik, _, _ in by_tail if bytes([d]) <= ik <= b"9")
        assert list(tail.range(b"3", b"5", start_exclusive=True)) == [
            (k, v) for ik, k, v in by_tail if b"3" < ik <= b"5"]
        value = t.index("by_value")
        assert value.unique and value.get(b"v42") == (42 * 7 - 3000, b"v42")
        assert value.get(b"nope") is None
        assert list(value.prefix(b"v299", reverse=True)) == sorted(
            ((k, v) for k, v in rows if v.startswith(b"v299")), key=lambda r: r[1], reverse=True)
        with pytest.raises(drydb.NotFoundError):
            t.index("nope")


def test_errors_of_a_damaged_shard_name_its_file(tmp_path):
    """Each leaf of shard 1 damaged in turn: the error that meets it, at open (a first or last
    leaf, which the open reads) or in a query, names the shard's file."""
    root = str(tmp_path)
    rows = [(b"key/%05d" % i, b"value %d" % i) for i in range(3000)]
    gen = build_generation(root, rows, [b"key/01000", b"key/02000"])
    shard = os.path.join(root, "gen-%d" % gen, "shard-1.drydb")
    with open(shard, "rb") as f:
        original = f.read()
    met = set()
    for at in range(512, len(original) - 511, 512):
        if original[at + 8] != 1:  # a leaf page
            continue
        bad = bytearray(original)
        bad[at + 256] ^= 0x5A
        with open(shard, "wb") as f:
            f.write(bad)
        where = "%s: table 't', page %d: checksum mismatch" % (shard, at // 512)
        try:
            ds = drydb.open_dataset(root)
        except drydb.CorruptionError as e:
            assert where in str(e)
            met.add("open")
            continue
        with ds:
            t = ds.table("t")
            with pytest.raises(drydb.CorruptionError) as e:
                list(t.range())
            assert where in str(e.value)
            with pytest.raises(drydb.CorruptionError) as e:
                for k, _ in rows:
                    t.get(k)
            assert where in str(e.value)
            met.add("query")
    assert met == {"open", "query"}


def test_generations_publish_and_roll_back(tmp_path):
    root = str(tmp_path)
    rows = [(b"k%03d" % i, b"v") for i in range(100)]
    g1 = build_generation(root, rows, [b"k050"], tag=b"1")
    g2 = build_generation(root, rows, [b"k020", b"k080"], tag=b"2")
    assert (g1, g2) == (1, 2)
    with drydb.open_dataset(root) as ds:
        assert ds.generation == 2 and ds.table("t")[b"k001"] == b"v2"
    assert drydb._drydb.rollback_generation(root) == 1
    with drydb.open_dataset(root) as ds:
        assert ds.generation == 1 and ds.shard_count == 2 and ds.table("t")[b"k001"] == b"v1"
    assert drydb._drydb.next_generation(root) == 3  # never 2 again
    with pytest.raises(drydb.NotFoundError):
        drydb.open_dataset(tmp_path / "gen-1").table("nope")
    with pytest.raises(drydb.IoError):
        drydb.open_dataset(tmp_path / "nowhere")


def test_follow_dataset_swaps_generations_under_pins(tmp_path):
    root = str(tmp_path)
    rows = [(b"k%03d" % i, b"v") for i in range(100)]
    build_generation(root, rows, [b"k050"], tag=b"1")
    live = drydb.follow_dataset(root)
    assert live.generation == 1 and live.refresh() is False
    old = live.pin()
    old_table = old.table("t")
    assert old.generation == 1 and old_table[b"k001"] == b"v1"
    build_generation(root, rows, [b"k020", b"k080"], tag=b"2")
    assert live.refresh() is True and live.generation == 2
    new = live.pin()
    assert new.generation == 2 and new.shard_count == 3 and new.table("t")[b"k099"] == b"v2"
    # The old generation stays pinned, and readable, while anything taken from it lives.
    assert live.retired == 1
    assert list(old_table.range(b"k010", b"k012")) == [(b"k%03d" % i, b"v1") for i in (10, 11, 12)]
    del old, old_table
    live.refresh()
    assert live.retired == 0
    # A rollback is followed too, by the watcher.
    assert drydb._drydb.rollback_generation(root) == 1
    live.watch(0.01)
    eventually(lambda: live.generation == 1, "the watcher follows the rollback")
    live.stop_watching()
    assert live.generation == 1 and live.watch_error is None
    with live.pin() as ds:
        assert ds.table("t")[b"k001"] == b"v1"
    # Only a dataset folder is followed; a generation that does not open is not served.
    with pytest.raises(drydb.InvalidArgumentError):
        drydb.follow_dataset(tmp_path / "gen-1")
    gen = build_generation(root, rows, [b"k050"], tag=b"3")
    os.remove(os.path.join(root, "gen-%d" % gen, "shard-1.drydb"))
    with pytest.raises(drydb.IoError):
        live.refresh()
    assert live.generation == 1
    live.watch(0.01)
    eventually(lambda: live.watch_error is not None, "the watcher reports the missing shard")
    live.stop_watching()
    assert "shard 1" in live.watch_error


def test_diff_of_files_and_datasets(tmp_path):
    rows = [(b"k%04d" % i, b"v%d" % i) for i in range(500)]

    def build_file(path, rows, page_size=4096, compression=None, extra=False):
        b = drydb.Builder(page_size=page_size, compression=compression)
        t = b.create_table("t")
        t.append_many(rows)
        t.add_index("first", unique=False, key_encoding="bytes", key=lambda k, v: v[:2])
        if extra:
            b.create_table("extra", "int64").append(1, b"one")
        b.build(path)
        return str(path)

    old = build_file(tmp_path / "old.drydb", rows)
    # How the bytes are stored does not count.
    same = build_file(tmp_path / "same.drydb", rows, page_size=512, compression="zstd")
    d = drydb.diff(old, same)
    assert not d["differs"]
    assert [(t["name"], t["unchanged"], t["differs"]) for t in d["tables"]] == [("t", 500, False)]
    # 10 removed, 5 changed, 3 added; a table only in NEW.
    edited = [(k, b"w" + v if i % 100 == 7 else v) for i, (k, v) in enumerate(rows) if i % 50 != 3]
    edited += [(b"z%d" % i, b"new") for i in range(3)]
    new = build_file(tmp_path / "new.drydb", sorted(edited), extra=True)
    d = drydb.diff(old, new)
    assert d["differs"]
    t, extra = d["tables"]
    assert (t["name"], t["old_rows"], t["new_rows"]) == ("t", 500, 493)
    assert (t["added"], t["removed"], t["changed"], t["unchanged"]) == (3, 10, 5, 485)
    ix = t["indexes"][0]
    assert ix["name"] == "first" and ix["in_old"] and ix["in_new"] and not ix["shape_changed"]
    assert (ix["old_entries"], ix["new_entries"]) == (500, 493)
    assert ix["added"] == 3 + 5 and ix["removed"] == 10 + 5
    assert (extra["name"], extra["in_old"], extra["in_new"], extra["new_rows"], extra["added"]) == (
        "extra", False, True, 1, 1)
    assert drydb.diff(old, new, tables=["extra"])["tables"][0]["name"] == "extra"
    assert drydb.diff(old, new, index_entries=False)["tables"][0]["indexes"][0]["added"] == 0
    # A dataset of the same rows (its folder, a generation folder, a manifest) equals the file.
    root = str(tmp_path / "ds")
    os.makedirs(root)
    generation = build_generation(root, rows, [b"k0100", b"k0300"],
                                  indexes=[("first", False, "bytes", lambda k, v: v[:2])])
    folder = os.path.join(root, drydb._drydb.generation_folder(generation))
    for side in (root, folder, os.path.join(folder, "manifest.json")):
        assert not drydb.diff(old, side)["differs"]
    assert drydb.diff(root, new)["tables"][0]["removed"] == 10
    # Errors: a missing build, an unknown table.
    with pytest.raises(drydb.IoError):
        drydb.diff(old, str(tmp_path / "missing.drydb"))
    with pytest.raises(drydb.NotFoundError, match="nope"):
        drydb.diff(old, new, tables=["nope"])
