"""drydb.read_json_lines against json.loads of each line, the model: random records of members
of every kind (ints, int64's edges, uint64 and larger, floats, bools, strings with escapes and
multi-byte UTF-8, nulls, nested objects and arrays, members missing from some records), each
column's type and values; blank lines, CRLF line ends, a last line without a newline, lines
longer than the reader's buffer, lines only json.loads reads, columns= and nrows=, members named
twice, and errors naming the file and line. Then drydb.dask.build_dataset of a glob of JSON Lines
files, read through it: the stored records are the files' records."""

import json
import math
import random

import pytest

pandas = pytest.importorskip("pandas")

import drydb  # noqa: E402

if not hasattr(drydb, "read_json_lines") or not hasattr(drydb._drydb, "_read_json_lines"):
    pytest.skip("drydb built without simdjson", allow_module_level=True)

INT64 = (-2**63, 2**63 - 1)


def kind_of(v):
    """The kind of a member's value as the reader types columns (None: missing)."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int" if INT64[0] <= v <= INT64[1] else "bigint"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    return "nested"


def same(a, b):
    """a == b with types compared too (True is not 1, 1 is not 1.0), NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float) and a == 0:
        return math.copysign(1, a) == math.copysign(1, b)
    return a == b


def expected_frame_check(frame, records, columns=None):
    """Checks `frame` against the records json.loads gave: columns in first-appearance order
    (or `columns`), each one's dtype from the kinds of its values, each value."""
    if columns is None:
        columns = []
        for r in records:
            columns += [k for k in r if k not in columns]
    assert list(frame.columns) == columns
    assert len(frame) == len(records)
    assert isinstance(frame.index, pandas.RangeIndex)
    for name in columns:
        values = [r.get(name) for r in records]
        kinds = {kind_of(v) for v in values} - {None}
        missing = any(v is None for v in values)
        column = frame[name]
        if kinds == {"int"}:
            assert str(column.dtype) == ("Int64" if missing else "int64"), name
            got = [None if m else int(v) for v, m in zip(column.to_numpy(dtype="i8", na_value=0),
                                                           column.isna())]
            assert got == values, name
        elif "float" in kinds and kinds <= {"int", "float"}:
            assert str(column.dtype) == "float64", name
            for v, g in zip(values, column.tolist()):
                assert math.isnan(g) if v is None else same(float(v), g), (name, v, g)
        elif kinds == {"bool"}:
            assert str(column.dtype) == ("boolean" if missing else "bool"), name
            assert [None if pandas.isna(g) else bool(g) for g in column.tolist()] == values, name
        else:
            assert column.dtype == object, name
            got = column.tolist()
            for v, g in zip(values, got):
                assert same(v, g), (name, v, g)


def random_string(rng):
    alphabet = "ab \"\\/\b\f\n\r\t\x01\x1f\x7féü€ключ日本\U0001f600\u2028"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def random_value(rng, kind, depth=0):
    if kind == "int":
        return rng.choice([0, -1, 1, INT64[0], INT64[1], rng.randrange(-10**6, 10**6),
                           rng.randrange(*INT64)])
    if kind == "float":
        return rng.choice([0.5, -0.0, 1e300, -2.5e-300, rng.uniform(-1e6, 1e6), 3.0])
    if kind == "uint64":
        return rng.randrange(2**63, 2**64)
    if kind == "bigint":
        return rng.choice([2**64, -2**63 - 1, 10**30, -(10**25)])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "str":
        return random_string(rng)
    if kind == "nested":
        if depth > 3 or rng.random() < 0.3:
            return random_value(rng, rng.choice(["int", "float", "str", "bool", "null"]), depth + 1)
        if rng.random() < 0.5:
            return [random_value(rng, "nested", depth + 1) for _ in range(rng.randrange(4))]
        return {random_string(rng): random_value(rng, "nested", depth + 1)
                for _ in range(rng.randrange(4))}
    if kind == "null":
        return None
    raise AssertionError(kind)


# Each member name's kinds of values: most columns of one type, as real files have.
PROFILES = {
    "id": ["int"], "ints": ["int"], "floats": ["float"], "ints and floats": ["int", "float"],
    "flag": ["bool"], "text": ["str"], "ключ \"q\"": ["str"], "nested": ["nested"],
    "u64": ["uint64"], "u64 and ints": ["uint64", "int"], "bigint": ["bigint", "int"],
    "bool and int": ["bool", "int"], "mixed": ["int", "str", "float", "bool", "nested"],
    "nulls": ["null"],
}


def random_records(rng, n):
    names = list(PROFILES)
    records = []
    for i in range(n):
        chosen = [name for name in names if rng.random() < 0.8]
        if rng.random() < 0.1:
            rng.shuffle(chosen)
        r = {}
        for name in chosen:
            kind = rng.choice(PROFILES[name])
            r[name] = None if rng.random() < 0.05 else random_value(rng, kind)
        r["id"] = i
        records.append(r)
    return records


def write_lines(path, records, rng):
    """The records as JSON Lines: random spacing, escaping and line ends, blank lines between,
    no newline after the last."""
    with open(path, "wb") as f:
        for i, r in enumerate(records):
            line = json.dumps(r, ensure_ascii=rng.random() < 0.5,
                              separators=rng.choice([(",", ":"), (", ", ": "), (" ,", " : ")]))
            if rng.random() < 0.1:
                line = " \t" + line + "  "
            f.write(line.encode())
            if i + 1 < len(records):
                f.write(rng.choice([b"\n", b"\n", b"\r\n", b"\n\n", b"\n \t\r\n"]))


def model(path):
    with open(path, encoding="utf-8", newline="") as f:
        return [json.loads(line) for line in f.read().split("\n") if line.strip(" \t\r")]


@pytest.mark.parametrize("seed", range(6))
def test_random_records_against_json_loads(tmp_path, seed):
    rng = random.Random(seed)
    records = random_records(rng, rng.choice([1, 7, 300, 5000]))
    path = str(tmp_path / "r.jsonl")
    write_lines(path, records, rng)
    assert model(path) == records
    frame = drydb.read_json_lines(path)
    expected_frame_check(frame, records)
    # columns=: only those, in that order; a name no record has is a column of None.
    wanted = rng.sample(list(PROFILES), 4) + ["absent"]
    part = drydb.read_json_lines(path, columns=wanted)
    expected_frame_check(part, records, wanted)
    assert part["absent"].tolist() == [None] * len(records)
    # nrows=: the first records, typed by them alone.
    n = rng.randrange(len(records) + 2)
    expected_frame_check(drydb.read_json_lines(path, nrows=n), records[:n])


def test_column_types(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"i": 1, "f": 1.5, "if": 1, "b": true, "s": "x", "n": [1], "u": 18446744073709551615}\n'
                    '{"i": 2, "f": 2.0, "if": 2.5, "b": false, "s": "y", "n": {"a": null}, "u": 3}\n')
    frame = drydb.read_json_lines(path)
    assert [str(t) for t in frame.dtypes] == ["int64", "float64", "float64", "bool", "object",
                                               "object", "object"]
    assert frame["if"].tolist() == [1.0, 2.5]
    assert frame["n"].tolist() == [[1], {"a": None}]
    assert frame["u"].tolist() == [2**64 - 1, 3]
    # The numbers are the reader's own buffers, writable NumPy arrays.
    assert frame["i"].to_numpy().flags.writeable
    # A missing member and null are both missing: nullable Int64 and "boolean", NaN, None.
    path.write_text('{"i": 1, "f": 1.5, "b": true, "s": "x"}\n{"i": null, "f": null}\n')
    frame = drydb.read_json_lines(path)
    assert [str(t) for t in frame.dtypes] == ["Int64", "float64", "boolean", "object"]
    assert frame["i"].isna().tolist() == [False, True] and frame["i"][0] == 1
    assert frame["b"].isna().tolist() == [False, True]
    assert math.isnan(frame["f"][1]) and frame["s"].tolist() == ["x", None]
    # A column no record gives a value: objects, all None.
    path.write_text('{"a": null}\n{}\n')
    frame = drydb.read_json_lines(path)
    assert list(frame.columns) == ["a"] and frame["a"].tolist() == [None, None]


def test_lines_and_members(tmp_path):
    path = tmp_path / "t.jsonl"
    # Empty files, and files of blank lines only: no rows, no columns.
    for text in [b"", b"\n", b"\r\n \t\n\n"]:
        path.write_bytes(text)
        frame = drydb.read_json_lines(path)
        assert len(frame) == 0 and list(frame.columns) == []
    path.write_bytes(b"")
    assert list(drydb.read_json_lines(path, columns=["a"]).columns) == ["a"]
    # Records without members count as rows.
    path.write_bytes(b"{}\n{}\n")
    assert len(drydb.read_json_lines(path)) == 2
    # CRLF, and a last line without a newline.
    path.write_bytes(b'{"a": 1}\r\n\r\n{"a": 2}\r\n{"a": 3}')
    assert drydb.read_json_lines(path)["a"].tolist() == [1, 2, 3]
    # A member named twice: its last value, in its first place (as json.loads).
    path.write_bytes(b'{"a": 1, "b": "x", "a": 2}\n{"b": "y", "a": 3, "b": "z"}\n')
    frame = drydb.read_json_lines(path)
    assert list(frame.columns) == ["a", "b"]
    assert frame.to_dict("records") == [{"a": 2, "b": "x"}, {"a": 3, "b": "z"}]
    assert str(frame["a"].dtype) == "int64"
    # Lines simdjson refuses that json.loads reads: as json.loads reads them, beside the rest.
    path.write_bytes(b'{"a": 1, "big": 123456789012345678901234567890}\n'
                     b'{"a": NaN, "s": "\\ud800", "inf": 1e999}\n{"a": 2.5, "s": "ok"}\n')
    frame = drydb.read_json_lines(path)
    want = model(str(path))
    expected_frame_check(frame, want)
    assert frame["big"][0] == 123456789012345678901234567890 and frame["s"][1] == "\ud800"
    assert frame["inf"][1] == math.inf
    # Lines longer than the reader's 1 MiB buffer, and many lines across its refills.
    long_text = "x" * (3 << 20)
    records = [{"i": i, "s": long_text if i % 40 == 7 else "s%d" % i} for i in range(200)]
    records += [{"i": i, "s": "short"} for i in range(200, 60_000)]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    frame = drydb.read_json_lines(path)
    assert frame["i"].tolist() == list(range(60_000))
    assert frame["s"].tolist() == [r["s"] for r in records]
    assert drydb.read_json_lines(path, nrows=3)["s"].tolist() == ["s0", "s1", "s2"]


def test_errors_name_the_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    for text, line, reason in [
            (b'{"a": 1}\n\n{"a": [1 2]}\n{"a": 3}\n', 3, "Expecting ',' delimiter"),
            (b'{"a": 1}\n{"a": 1} x\n', 2, "Extra data"),
            (b'{"a": 1}\r\n[1, 2]\r\n', 2, "not a JSON object"),
            (b'"text"\n', 1, "not a JSON object"),
            (b'{"a": 1}\n{"a": "\xff"}\n', 2, "utf-8"),
            (b'{"a": "unterminated\n', 1, "Unterminated string"),
            (b'{"a": 1,}', 1, "Expecting property name")]:
        path.write_bytes(text)
        with pytest.raises(drydb.InvalidArgumentError) as e:
            drydb.read_json_lines(path)
        assert isinstance(e.value, ValueError)
        message = str(e.value)
        assert message.startswith("%s, line %d" % (path, line)), message
        assert reason in message, message
    # A bad line past nrows is not read.
    path.write_bytes(b'{"a": 1}\n{"a": \n')
    assert drydb.read_json_lines(path, nrows=1)["a"].tolist() == [1]
    with pytest.raises(FileNotFoundError) as e:
        drydb.read_json_lines(tmp_path / "absent.jsonl")
    assert e.value.filename == str(tmp_path / "absent.jsonl")
    with pytest.raises(IsADirectoryError):
        drydb.read_json_lines(tmp_path)
    with pytest.raises(drydb.InvalidArgumentError):
        drydb.read_json_lines(path, columns=["a", "a"])
    with pytest.raises(TypeError):
        drydb.read_json_lines(path, columns="a")


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
def test_dask_build_from_json_lines_files(tmp_path, request, scheduler, rows_path):
    # build_dataset given a glob of JSON Lines files reads each with read_json_lines (a task per
    # file): files whose columns differ (a column with a null in one file only, floats where
    # the first file had ints, a column only a later file has, nested values) build, and every
    # record reads back as json.loads gives it, missing members left out. On the split path
    # each file's piece keeps its own types; through Dask's shuffle a shard's pieces are joined
    # to their common dtype, so "score" reads back as floats.
    pytest.importorskip("dask")
    import dask
    import distributed
    from dask.utils import key_split
    from drydb.dask import build_dataset

    rng = random.Random(3)
    folder = tmp_path / "in"
    folder.mkdir()
    records = []
    for f in range(4):
        rows = []
        for i in range(f * 1000, (f + 1) * 1000):
            r = {"id": (i * 7919) % 4000, "name": "user %d" % i, "score": i % 100}
            if f == 1 and i % 10 == 0:
                r["score"] = None
            if f == 2:
                r["score"] = i % 100 + 0.5
            if f == 3:
                r["extra"] = [i, {"k": "v"}] if i % 2 else "text"
            if rng.random() < 0.1:
                del r["name"]
            rows.append(r)
        records += rows
        (folder / ("part-%d.jsonl" % f)).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "ignored.txt").write_text("not JSON")
    root = str(tmp_path / "ds")
    stats = {}
    if scheduler == "threads":
        with dask.config.set(scheduler="threads"):
            build_dataset(str(folder / "part-*.jsonl"), root, key="id", key_encoding="int64",
                          shards=3, stats=stats)
    else:
        client = request.getfixturevalue("client")
        with distributed.get_task_stream(client) as ts:
            build_dataset(str(folder / "part-*.jsonl"), root, key="id", key_encoding="int64",
                          shards=3, stats=stats, client=client)
        kinds = {key_split(task["key"]) for task in ts.data}
        moved = "drydb-split" if rows_path == "split" else "drydb-route"
        assert {"drydb-read-json-lines", moved, "drydb-build-shard"} <= kinds, kinds
    assert stats["rows"] == len(records)
    with drydb.open_dataset(root) as ds:
        t = ds.table("rows", decode="msgpack")
        assert len(t) == len(records)
        for r in records:
            want = {k: v for k, v in r.items() if v is not None}
            got = t[r["id"]]
            assert got == want, (got, want)
            exact = want.keys() if rows_path == "split" else want.keys() - {"score"}
            assert all(type(got[k]) is type(want[k]) for k in exact), got
            if rows_path == "shuffle":
                assert "score" not in got or type(got["score"]) is float


def test_dask_task_names_and_meta(tmp_path, monkeypatch):
    pytest.importorskip("dask")
    import dask
    from drydb import dask as drydb_dask
    from drydb.dask import build_dataset

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_text("")  # no record: the meta comes from the next file
    (folder / "b.jsonl").write_text('{"id": 1, "ok": true, "n": 2}\n')
    (folder / "c.jsonl").write_text('{"id": 2, "n": null, "late": "x"}\n')
    frame = drydb_dask._json_lines_input(str(folder / "*.jsonl"), "0" * 32)
    assert [str(t) for t in frame.dtypes] == ["Int64", "boolean", "Int64"]
    assert frame.npartitions == 3
    from dask.utils import key_split
    assert {key_split(k) for k in dict(frame.__dask_graph__())} >= {"drydb-read-json-lines"}
    parts = dask.compute(*frame.to_delayed(), scheduler="sync")
    assert [list(p.columns) for p in parts] == [["id", "ok", "n"], ["id", "ok", "n"],
                                                ["id", "ok", "n", "late"]]
    assert [str(t) for t in parts[2].dtypes] == ["Int64", "boolean", "Int64", "object"]
    assert parts[2]["ok"].isna().all() and parts[2]["n"].isna().all()
    with pytest.raises(FileNotFoundError):
        drydb_dask._json_lines_input(str(folder / "*.none"), "0" * 32)
    # A member named as the shuffle's routing column that the meta lacks is a field like any
    # other on the split path; Dask's shuffle would overwrite it with its routing column, so
    # that path refuses it, naming the partition and the column.
    (folder / "d.jsonl").write_text('{"id": 3, "_partitions": 7}\n')
    for shards, root in [(2, tmp_path / "split"), (1, tmp_path / "one")]:
        with dask.config.set(scheduler="sync"):
            build_dataset(str(folder / "*.jsonl"), str(root), key="id", key_encoding="int64",
                          shards=shards)
        with drydb.open_dataset(str(root)) as ds:
            t = ds.table("rows", decode="msgpack")
            assert t[3] == {"id": 3, "_partitions": 7}
            assert t[2] == {"id": 2, "late": "x"} and t[1] == {"id": 1, "ok": True, "n": 2}
    monkeypatch.setattr(drydb_dask, "SPLIT_PIECES", 0)
    with pytest.raises(drydb.InvalidArgumentError,
                       match="input partition 3 has a column '_partitions' that the input's"):
        with dask.config.set(scheduler="sync"):
            build_dataset(str(folder / "*.jsonl"), str(tmp_path / "shuffled"), key="id",
                          key_encoding="int64", shards=2, retries=0)
