"""Sharded datasets from Python without Dask: shards built with the package and the dataset
functions (shard_of, describe_shard, write_manifest, publish_generation), read back with
drydb.open_dataset against a model, and generations published and rolled back."""

import os

import pytest

import drydb
from conftest import Model


def build_generation(root, rows, splits, key_encoding="bytes", tag=b""):
    """Writes and publishes a new generation of `rows` ((key, value) pairs) in len(splits) + 1
    range shards; returns its number."""
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
        path = os.path.join(folder, "shard-%d.drydb" % i)
        b.build(path)
        described.append(drydb._drydb.describe_shard(path))
    manifest = {"dataset": "d", "generation": generation,
                "tables": [{"name": "t", "key_encoding": key_encoding, "indexes": [],
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
        manifest = ds.manifest()
        assert [s["tables"][0]["rows"] for s in manifest["shards"]] == [
            sum(1 for k, _ in rows if lo <= k < hi)
            for lo, hi in [(-2**63, -3000), (-3000, 0), (0, 1), (1, 9000), (9000, 2**63)]]


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
