"""Many Python threads reading one database: the GIL is released around get_many, counts, range
chunks and verify, and every thread gets the answers a single thread gets. Closing the database
while they read makes their next calls raise InvalidStateError, never crash."""

import random
import threading

import pytest

import drydb
from conftest import BOUNDED_WAIT, join_all


def build(n=20000):
    b = drydb.Builder(page_size=1024)
    t = b.create_table("t", "int64")
    t.append_many((i * 7, b"value %d" % i) for i in range(n))
    return b.build_bytes(), n


def test_parallel_readers_agree():
    data, n = build()
    db = drydb.open_bytes(data)
    t = db.table("t")
    errors = []

    def reader(seed):
        rng = random.Random(seed)
        try:
            for _ in range(30):
                keys = [rng.randrange(n * 7) for _ in range(500)]
                want = [b"value %d" % (k // 7) if k % 7 == 0 else None for k in keys]
                assert t.get_many(keys) == want
                lo = rng.randrange(n * 7)
                hi = lo + rng.randrange(2000)
                want = range((lo + 6) // 7 * 7, min(hi, (n - 1) * 7) + 1, 7)
                assert t.count_range(lo, hi) == len(want)
                assert [k for k, _ in t.range(lo, hi)] == list(want)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=reader, args=(s,)) for s in range(8)]
    verifier = threading.Thread(target=db.verify)
    for th in threads + [verifier]:
        th.start()
    join_all(threads + [verifier])
    assert errors == []


@pytest.mark.parametrize("storage", ["pread", "mmap"])
def test_close_while_reading(tmp_path, storage):
    data, n = build()
    path = tmp_path / "t.drydb"
    path.write_bytes(data)
    db = drydb.open(path, storage=storage)
    t = db.table("t")
    outcomes = []
    start = threading.Barrier(5, timeout=BOUNDED_WAIT)

    def reader():
        start.wait()
        rows = 0
        try:
            while True:
                assert len(t.get_many(range(0, 7000, 7))) == 1000
                rows += sum(1 for _ in t.range(0, 3500))
        except drydb.InvalidStateError:
            outcomes.append(rows)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for th in threads:
        th.start()
    start.wait()
    db.close()
    join_all(threads)
    assert len(outcomes) == 4  # every reader stopped on InvalidStateError


def test_one_range_iterator_stepped_by_many_threads():
    data, n = build()
    t = drydb.open_bytes(data).table("t")
    it = iter(t.range())
    got = [[] for _ in range(4)]

    def take(out):
        for row in it:
            out.append(row[0])

    threads = [threading.Thread(target=take, args=(g,)) for g in got]
    for th in threads:
        th.start()
    join_all(threads)
    # Every row handed out once, to one of the threads, each thread's rows in order.
    keys = sorted(k for g in got for k in g)
    assert keys == [i * 7 for i in range(n)]
    for g in got:
        assert g == sorted(g)
