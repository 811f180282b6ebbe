"""Every query of the Python API against a sorted-list model, over random tables of every key
encoding built with tiny pages (several tree levels): get, in, [], len, get_many, range with every
bound combination in both orders, count_range, prefix, cursor walks and secondary indexes."""

import itertools

import pytest

import drydb
from conftest import Model, random_key

ENCODINGS = ["bytes", "int64", "uuid_v7", "ulid"]


def build_table(encoding, rng, rows=600):
    keys = set()
    while len(keys) < rows:
        keys.add(random_key(encoding, rng))
    data = [(k, b"v%d:" % i + bytes(rng.randrange(256) for _ in range(rng.choice([0, 3, 40]))))
            for i, k in enumerate(keys)]
    b = drydb.Builder(page_size=512)
    t = b.create_table("t", encoding)
    # In any order: the builder sorts.
    t.append_many(data)
    # A non-unique index on the value's length (sparse: rows with empty tails are left out), and a
    # unique one on the value itself.
    t.add_index("by_len", key_encoding="int64",
                key=lambda k, v: None if v.endswith(b":") else len(v))
    t.add_index("by_value", unique=True, key=lambda k, v: v)
    return drydb.open_bytes(b.build_bytes()), Model(data)


def bounds(model, rng, encoding):
    """Bounds worth aiming at: None, keys present, keys absent (random), the ends."""
    out = [None, model.keys[0], model.keys[-1]]
    out += rng.sample(model.keys, 4)
    out += [random_key(encoding, rng) for _ in range(4)]
    return out


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_point_queries(encoding, rng):
    db, model = build_table(encoding, rng)
    t = db.table("t")
    assert len(t) == len(model.rows)
    assert t.key_encoding == encoding
    present = dict(model.rows)
    probes = model.keys + [random_key(encoding, rng) for _ in range(300)]
    for k in probes:
        want = present.get(k)
        assert t.get(k) == want
        assert t.get(k, b"absent") == (want if want is not None else b"absent")
        assert (k in t) == (want is not None)
        if want is None:
            with pytest.raises(KeyError):
                t[k]
        else:
            assert t[k] == want
            assert bytes(memoryview(t.get(k, copy=False))) == want
    assert t.get_many(probes) == [present.get(k) for k in probes]
    assert [None if v is None else bytes(v) for v in t.get_many(probes, copy=False)] == \
        [present.get(k) for k in probes]
    assert t.get_many([]) == []
    # A generator works as well as a list.
    assert t.get_many(k for k in probes[:50]) == [present.get(k) for k in probes[:50]]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_ranges_and_counts(encoding, rng):
    db, model = build_table(encoding, rng)
    t = db.table("t")
    bs = bounds(model, rng, encoding)
    for start, end in itertools.product(bs, bs):
        if start is not None and end is not None and start > end:
            # Bounds the wrong way round are a caller's mistake, not an empty range.
            with pytest.raises(drydb.InvalidArgumentError, match="is after its end"):
                t.range(start, end)
            with pytest.raises(ValueError):
                t.count_range(start, end, end_exclusive=True)
            continue
        for se, ee, rev in itertools.product([False, True], repeat=3):
            want = model.range(start, end, se, ee, rev)
            r = t.range(start, end, start_exclusive=se, end_exclusive=ee, reverse=rev)
            assert len(r) == len(want)
            assert r.reverse == rev
            assert list(r) == want
            assert list(r) == want  # a second iteration reads the rows again
            assert t.count_range(start, end, start_exclusive=se, end_exclusive=ee) == len(want)
    assert list(t.range()) == model.rows
    assert list(t.range(reverse=True)) == model.rows[::-1]
    # A partial iteration leaves the range usable.
    it = iter(t.range())
    assert next(it) == model.rows[0]
    assert list(t.range())[:3] == model.rows[:3]


def test_prefix(rng):
    db, model = build_table("bytes", rng)
    t = db.table("t")
    prefixes = [b"", b"a", b"ab", b"\x00", b"\xff\xff", b"zz"] + [k[:2] for k in rng.sample(model.keys, 5)]
    for p in prefixes:
        want = [row for row in model.rows if row[0].startswith(p)]
        assert list(t.prefix(p)) == want
        assert list(t.prefix(p, reverse=True)) == want[::-1]
        assert len(t.prefix(p)) == len(want)
    assert list(t.prefix("ab")) == [row for row in model.rows if row[0].startswith(b"ab")]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_cursor_walks(encoding, rng):
    db, model = build_table(encoding, rng)
    c = db.table("t").cursor()
    assert not c.valid
    seen = []
    ok = c.first()
    while ok:
        seen.append((c.key, c.value))
        assert c.rank == len(seen) - 1
        ok = c.next()
    assert seen == model.rows
    assert not c.valid
    seen = []
    ok = c.last()
    while ok:
        seen.append((c.key, c.value))
        ok = c.prev()
    assert seen == model.rows[::-1]
    for k in bounds(model, rng, encoding)[1:]:
        i = Model(model.rows).range(k, None, False, False, False)
        found = c.seek(k)
        assert found == bool(i)
        if i:
            assert (c.key, c.value) == i[0]
        assert c.seek_exact(k) == (k in dict(model.rows))
    with pytest.raises(drydb.InvalidStateError):
        c.last()
        c.next()
        c.key


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_indexes(encoding, rng):
    db, model = build_table(encoding, rng)
    t = db.table("t")
    by_len = t.index("by_len")
    by_value = t.index("by_value")
    assert not by_len.unique and by_value.unique
    assert sorted(ix.name for ix in t.indexes()) == ["by_len", "by_value"]
    # The model of an index: (index key, primary key, value), in index-key then primary-key order.
    entries = sorted((len(v), k, v) for k, v in model.rows if not v.endswith(b":"))
    assert len(by_len) == len(entries)
    lengths = sorted({e[0] for e in entries})
    for n in lengths + [0, 10**6]:
        rows = [(k, v) for m, k, v in entries if m == n]
        assert list(by_len.get_all(n)) == rows
        assert by_len.get(n) == (rows[0] if rows else None)
        assert by_len.count_range(n, n) == len(rows)
    for lo, hi in itertools.product([None] + lengths[:3], [None] + lengths[-3:]):
        for se, ee, rev in itertools.product([False, True], repeat=3):
            want = [(k, v) for m, k, v in entries
                    if (lo is None or (m > lo if se else m >= lo)) and
                    (hi is None or (m < hi if ee else m <= hi))]
            if rev:
                want = want[::-1]
            r = by_len.range(lo, hi, start_exclusive=se, end_exclusive=ee, reverse=rev)
            assert len(r) == len(want)
            assert list(r) == want
            assert by_len.count_range(lo, hi, start_exclusive=se, end_exclusive=ee) == len(want)
    for k, v in rng.sample(model.rows, 20):
        assert by_value.get(v) == (k, v)
    assert by_value.get(b"no such value") is None
    want = sorted((v, k) for k, v in model.rows if v.startswith(b"v1"))
    assert list(by_value.prefix(b"v1")) == [(k, v) for v, k in want]
    assert list(by_value.prefix(b"v1", reverse=True)) == [(k, v) for v, k in want][::-1]
