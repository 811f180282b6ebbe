"""drydb's Python package beside what a Python user would pick instead: dict, the standard
library's sqlite3, python-lmdb and plyvel (LevelDB), on 1M rows of two key shapes.

    /usr/bin/python3 bench/python_bench.py --package build/bench/python/python/package \
        [--rows 1000000] [--rounds 5] [--out FILE.md]

Measures, per store: a get of a random present key (a Python loop of gets), get_many of the same
keys (drydb; python-lmdb's Cursor.getmulti), a 100-row range from a random start, and a build of
the rows from Python. Rounds are interleaved across stores (each store's data touched just
before its timing) and the median of the rounds is reported. The other stores get their best
case: keys already encoded to bytes, read-only transactions and cursors opened once.
Writes a Markdown section (for docs/benchmarks.md) to --out, and prints it.
"""

import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

import pybench

VALUE_BYTES = 32
SAMPLE = 100_000  # keys per timed get loop
RANGES = 5_000  # 100-row ranges per timed loop


def int_key_bytes(k):
    """An int64 key as bytes that sort as the integers do (sign bit flipped, big-endian)."""
    return ((k + (1 << 63)) & ((1 << 64) - 1)).to_bytes(8, "big")


def make_shape(name, rows, rng):
    """Sorted (python_key, bytes_key) pairs and drydb's key encoding for a shape."""
    if name == "random int64":
        keys = sorted(set(rng.randrange(-(2**62), 2**62) for _ in range(rows + rows // 100)))[:rows]
        keys.sort()
        return [(k, int_key_bytes(k)) for k in keys], "int64"
    # URL-like text: shared prefixes, 30-60 bytes.
    hosts = ["https://example.com/", "https://www.example.org/shop/", "http://cdn.example.net/a/"]
    keys = set()
    while len(keys) < rows:
        keys.add("%s%s/%08d" % (rng.choice(hosts), rng.choice(["items", "users", "p"]),
                                rng.randrange(10**8)))
    keys = sorted(k.encode() for k in keys)
    return [(k, k) for k in keys], "bytes"


def loop(fn, args):
    for a in args:
        fn(a)


def timed(fn, ops):
    """ns per operation of fn(), which runs `ops` operations and keeps none of their results (as
    a service answering requests would not: keeping them would time the allocator)."""
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / ops * 1e9  # ns per op


class Stores:
    """The stores holding one shape's rows, and their queries."""

    def __init__(self, drydb, shape_rows, encoding, values, workdir):
        self.drydb = drydb
        self.rows = shape_rows
        self.values = values
        self.dir = workdir
        py_keys = [k for k, _ in shape_rows]
        byte_keys = [b for _, b in shape_rows]
        self.py_keys, self.byte_keys, self.encoding = py_keys, byte_keys, encoding
        self.build_seconds = {}

        # What any load from Python pays: iterating the rows (each key and value object touched).
        start = time.perf_counter()
        for _ in zip(py_keys, values):
            pass
        self.build_seconds["(iterating the rows alone)"] = time.perf_counter() - start

        # drydb
        path = os.path.join(workdir, "bench.drydb")
        start = time.perf_counter()
        b = drydb.Builder()
        t = b.create_table("t", encoding)
        t.append_many(zip(py_keys, values))
        self.appended_seconds = time.perf_counter() - start
        b.build(path)
        self.build_seconds["drydb"] = time.perf_counter() - start
        self.db = drydb.open(path)
        self.table = self.db.table("t")
        self.db_mmap = drydb.open(path, storage="mmap")
        self.table_mmap = self.db_mmap.table("t")

        # dict
        self.dict = dict(zip(py_keys, values))

        # python-lmdb: sorted keys appended, as its fastest load.
        import lmdb
        start = time.perf_counter()
        self.lmdb = lmdb.open(os.path.join(workdir, "lmdb"), map_size=8 << 30, subdir=True,
                              sync=False, metasync=False, writemap=True, readahead=False)
        with self.lmdb.begin(write=True) as txn:
            txn.cursor().putmulti(zip(byte_keys, values), append=True)
        self.lmdb.sync(True)
        self.build_seconds["python-lmdb"] = time.perf_counter() - start
        self.lmdb_txn = self.lmdb.begin(buffers=False)
        self.lmdb_cursor = self.lmdb_txn.cursor()

        # sqlite3: a WITHOUT ROWID table, opened read-only and immutable.
        sqlite_path = os.path.join(workdir, "bench.sqlite")
        start = time.perf_counter()
        con = sqlite3.connect(sqlite_path)
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("CREATE TABLE t (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        con.executemany("INSERT INTO t VALUES (?, ?)", zip(byte_keys, values))
        con.commit()
        con.close()
        self.build_seconds["sqlite3"] = time.perf_counter() - start
        self.sqlite = sqlite3.connect("file:%s?immutable=1" % sqlite_path, uri=True)
        self.sqlite_cur = self.sqlite.cursor()

        # plyvel (LevelDB), when installed.
        self.plyvel = None
        try:
            import plyvel
        except ImportError:
            plyvel = None
        if plyvel is not None:
            start = time.perf_counter()
            ldb = plyvel.DB(os.path.join(workdir, "leveldb"), create_if_missing=True)
            with ldb.write_batch() as wb:
                for k, v in zip(byte_keys, values):
                    wb.put(k, v)
            ldb.close()
            self.build_seconds["plyvel"] = time.perf_counter() - start
            self.plyvel = plyvel.DB(os.path.join(workdir, "leveldb"))

    def close(self):
        self.db.close()
        self.db_mmap.close()
        self.lmdb_txn.abort()
        self.lmdb.close()
        self.sqlite.close()
        if self.plyvel is not None:
            self.plyvel.close()

    # Each returns ns per operation for the sample given.
    def get(self, store, idx):
        if store.startswith("drydb"):
            t = self.table if store == "drydb" else self.table_mmap
            keys = [self.py_keys[i] for i in idx]
            return timed(lambda: loop(t.get, keys), len(keys))
        if store == "dict":
            keys = [self.py_keys[i] for i in idx]
            return timed(lambda: loop(self.dict.get, keys), len(keys))
        keys = [self.byte_keys[i] for i in idx]
        if store == "python-lmdb":
            return timed(lambda: loop(self.lmdb_txn.get, keys), len(keys))
        if store == "sqlite3":
            ex = self.sqlite_cur.execute
            q = "SELECT v FROM t WHERE k = ?"
            return timed(lambda: loop(lambda k: ex(q, (k,)).fetchone(), keys), len(keys))
        if store == "plyvel":
            return timed(lambda: loop(self.plyvel.get, keys), len(keys))
        raise KeyError(store)

    def get_many(self, store, idx):
        if store.startswith("drydb"):
            t = self.table if store == "drydb" else self.table_mmap
            keys = [self.py_keys[i] for i in idx]
            return timed(lambda: t.get_many(keys), len(keys))
        if store == "python-lmdb":
            keys = [self.byte_keys[i] for i in idx]
            cur = self.lmdb_cursor
            return timed(lambda: cur.getmulti(keys), len(keys))
        return None

    def range100(self, store, starts):
        n = len(starts)
        if store.startswith("drydb"):
            t = self.table if store == "drydb" else self.table_mmap
            bounds = [(self.py_keys[i], self.py_keys[i + 99]) for i in starts]
            rng = t.range
            return timed(lambda: loop(lambda ab: list(rng(*ab)), bounds), n)
        if store == "python-lmdb":
            keys = [self.byte_keys[i] for i in starts]
            cur = self.lmdb_cursor

            def run():
                for k in keys:
                    cur.set_range(k)
                    out = []
                    for kv in cur.iternext():
                        out.append(kv)
                        if len(out) == 100:
                            break
            return timed(run, n)
        if store == "sqlite3":
            keys = [self.byte_keys[i] for i in starts]
            ex = self.sqlite_cur.execute
            q = "SELECT k, v FROM t WHERE k >= ? ORDER BY k LIMIT 100"
            return timed(lambda: loop(lambda k: ex(q, (k,)).fetchall(), keys), n)
        if store == "plyvel":
            keys = [self.byte_keys[i] for i in starts]
            db = self.plyvel

            def run():
                for k in keys:
                    out = []
                    for kv in db.iterator(start=k):
                        out.append(kv)
                        if len(out) == 100:
                            break
            return timed(run, n)
        return None


def main():
    args = pybench.arguments(__doc__, rounds=5, cli=False, package_required=False).parse_args()
    pybench.use_package(args.package)
    import drydb

    rng = random.Random(12345)
    stores = ["drydb", "drydb (mmap)", "dict", "python-lmdb", "sqlite3", "plyvel"]
    shapes = ["random int64", "URL-like text"]
    results = {}  # (shape, measure, store) -> [ns...]
    builds = {}  # (shape, store) -> seconds
    appended = {}  # shape -> seconds drydb's append_many took, of its build
    for shape in shapes:
        rows, encoding = make_shape(shape, args.rows, rng)
        values = [rng.randbytes(VALUE_BYTES) for _ in range(len(rows))]
        workdir = tempfile.mkdtemp(prefix="drydb-pybench-")
        try:
            s = Stores(drydb, rows, encoding, values, workdir)
            for store, seconds in s.build_seconds.items():
                builds[(shape, store)] = seconds
            appended[shape] = s.appended_seconds
            present = [st for st in stores if st != "plyvel" or s.plyvel is not None]
            for _ in range(args.rounds):
                idx = [rng.randrange(len(rows)) for _ in range(SAMPLE)]
                starts = [rng.randrange(len(rows) - 100) for _ in range(RANGES)]
                for store in present:
                    # Touch this store's pages just before its timings (the machine reclaims
                    # pages idle for about a minute).
                    s.get(store, idx[:20000])
                    results.setdefault((shape, "get", store), []).append(s.get(store, idx))
                    many = s.get_many(store, idx)
                    if many is not None:
                        results.setdefault((shape, "get_many", store), []).append(many)
                    r = s.range100(store, starts)
                    if r is not None:
                        results.setdefault((shape, "range100", store), []).append(r)
            s.close()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in results.items()}
    lines = ["## Python package", "",
             "`bench/python_bench.py` (run by `scripts/bench.sh`): drydb's Python package on %s "
             "rows of %d-byte values, beside `dict`, the standard library's `sqlite3` (a `WITHOUT "
             "ROWID` table opened `immutable=1`), python-lmdb %s and plyvel (LevelDB), with "
             "Debian's `/usr/bin/python3` %s. Times are medians of %d interleaved rounds, in ns per "
             "operation (per key for get and get_many, per range of 100 rows); drydb opens files "
             "with its default `storage=\"pread\"` unless marked `mmap`. The other stores are given "
             "their keys already encoded as bytes." % (
                 f"{args.rows:,}", VALUE_BYTES, __import__("lmdb").__version__,
                 sys.version.split()[0], args.rounds), ""]
    for shape in shapes:
        lines += ["### %s keys" % shape, "",
                  "| store | get | get_many (per key) | 100-row range | build (rows/s) |",
                  "|---|--:|--:|--:|--:|"]
        for store in stores + ["(iterating the rows alone)"]:
            if (shape, "get", store) not in med and (shape, store) not in builds:
                continue
            cells = [store]
            for measure in ["get", "get_many", "range100"]:
                v = med.get((shape, measure, store))
                cells.append("%.0f" % v if v is not None else "")
            b = builds.get((shape, store))
            cells.append(f"{args.rows / b:,.0f}" if b else "")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        g = lambda m, st: med.get((shape, m, st))
        ratios = [
            ("get at least 2x faster than python-lmdb", g("get", "python-lmdb") / g("get", "drydb"), 2),
            ("get at least 5x faster than sqlite3", g("get", "sqlite3") / g("get", "drydb"), 5),
            ("get_many at least 5x the throughput of a loop of get",
             g("get", "drydb") / g("get_many", "drydb"), 5),
            ("a 100-row range at least 2x faster than python-lmdb's cursor",
             g("range100", "python-lmdb") / g("range100", "drydb"), 2),
            ("a build at least 2x faster than python-lmdb's putmulti with append",
             builds[(shape, "python-lmdb")] / builds[(shape, "drydb")], 2)]
        lines += ["Targets (drydb with its default storage): " + "; ".join(
            "%s: %.2fx (%s)" % (what, got, "met" if got >= want else "missed")
            for what, got, want in ratios) + ".", ""]
        ms = lambda seconds: "%.0f ms" % (seconds * 1e3)
        lines += [
            "Where the time goes: a loop of `dict.get` over the same keys takes %.0f ns a key (the "
            "loop, the call, the key object, the table's cache misses): the floor of any "
            "store's get from Python; drydb's own lookup adds %.0f ns (%.0f with `mmap`), "
            "python-lmdb's %.0f. get_many saves the call per key but still reads each key object "
            "and makes and keeps a bytes object per value. A range makes a tuple, a key and a "
            "value object per row, as python-lmdb's cursor does. Of drydb's build (%s), "
            "`append_many` takes %s, of which iterating the rows in Python alone is %s; the "
            "rest (%s) sorts, writes and syncs the file; python-lmdb's whole load takes %s." % (
                g("get", "dict"), g("get", "drydb") - g("get", "dict"),
                g("get", "drydb (mmap)") - g("get", "dict"), g("get", "python-lmdb") - g("get", "dict"),
                ms(builds[(shape, "drydb")]), ms(appended[shape]),
                ms(builds[(shape, "(iterating the rows alone)")]),
                ms(builds[(shape, "drydb")] - appended[shape]), ms(builds[(shape, "python-lmdb")])), ""]
    pybench.report(lines, args.out)


if __name__ == "__main__":
    main()
