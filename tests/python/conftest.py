"""Shared pieces of the drydb Python tests: key generators per encoding and a sorted-list model."""

import bisect
import os
import random
import shutil
import sys
import time
import uuid

import pytest

ULID_DIGITS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32, in byte order


def random_key(encoding, rng):
    """A random key of `encoding`, as the Python API takes and gives it."""
    if encoding == "int64":
        return rng.choice([rng.randint(-(2**63), 2**63 - 1), rng.randint(-1000, 1000)])
    if encoding == "uuid_v7":
        return uuid.UUID(int=rng.getrandbits(128))
    if encoding == "ulid":
        return rng.choice("01234567") + "".join(rng.choice(ULID_DIGITS) for _ in range(25))
    # bytes: short keys over a small alphabet with shared prefixes, NUL bytes and high bytes.
    n = rng.choice([0, 1, 2, 3, 5, 8, 12])
    return bytes(rng.choice(b"\x00\x01ab\xfe\xff") for _ in range(n))


class Model:
    """A table as a sorted list of (key, value); keys of every encoding sort as drydb orders them."""

    def __init__(self, rows):
        self.rows = sorted(rows)
        self.keys = [k for k, _ in self.rows]

    def range(self, start, end, start_exclusive, end_exclusive, reverse):
        lo = 0 if start is None else (
            bisect.bisect_right(self.keys, start) if start_exclusive else bisect.bisect_left(self.keys, start))
        hi = len(self.keys) if end is None else (
            bisect.bisect_left(self.keys, end) if end_exclusive else bisect.bisect_right(self.keys, end))
        out = self.rows[lo:hi] if lo < hi else []
        return out[::-1] if reverse else out


@pytest.fixture
def cli():
    """The drydb tool built beside the package (DRYDB_CLI, set by ctest), or skip."""
    path = os.environ.get("DRYDB_CLI") or shutil.which("drydb")
    if not path:
        pytest.skip("the drydb tool was not built")
    return path


@pytest.fixture
def rng():
    return random.Random(20261202)


@pytest.fixture(params=["split", "shuffle"])
def rows_path(request, monkeypatch):
    """The two ways drydb.dask.build_dataset takes rows to their shards: its own split (each
    input partition cut by one task), or, past SPLIT_PIECES partitions times shards, Dask's
    shuffle, here taken whatever the input's size."""
    if request.param == "shuffle":
        import drydb.dask
        monkeypatch.setattr(drydb.dask, "SPLIT_PIECES", 0)
    return request.param


# The bound of every wait in the tests: far above what a working build needs, so that a hang
# fails its test instead of the suite's run.
BOUNDED_WAIT = 60


def join_all(threads, timeout=BOUNDED_WAIT):
    """Joins `threads` within `timeout` seconds in all; asserts that every one has ended."""
    deadline = time.monotonic() + timeout
    for th in threads:
        th.join(max(0.0, deadline - time.monotonic()))
    alive = [th.name for th in threads if th.is_alive()]
    assert not alive, "threads still running after %d s: %s" % (timeout, alive)


def eventually(condition, what, timeout=BOUNDED_WAIT):
    """Polls `condition` until it holds, for at most `timeout` seconds; asserts that it came to
    hold (`what` says what was awaited)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within %d s: %s" % (timeout, what)
        time.sleep(0.01)


@pytest.fixture(scope="module")
def client():
    """A Dask cluster of 2 worker processes on 127.0.0.1 for a module's tests; the workers import
    drydb and the test helpers from the same places as this process."""
    distributed = pytest.importorskip("distributed")
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = os.pathsep.join([here] + [p for p in sys.path if p])
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
