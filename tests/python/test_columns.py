"""Columnar appends from Python (TableBuilder.append_columns, drydb.build_from_frame): every NumPy
and pandas dtype they take stores the field a model of the row gives (nulls left out), keys of
every encoding and form, buffers and strided arrays, whole values; `drydb dump` of a frame build
shows the records `drydb build` makes of the same rows as JSON Lines; bad input raises one error
naming the column and the first bad row, and appends nothing. (Arrow arrays and streams:
test_arrow_columns.py.)"""

import array
import datetime
import json
import subprocess

import msgpack
import numpy
import pandas
import pytest

import drydb

UTC = datetime.timezone.utc


def read_rows(data, table="rows"):
    """{key: fields} of a built table, each value a MessagePack array decoded (timestamps as
    datetimes)."""
    db = drydb.open_bytes(data)
    out = {}
    for key, value in db.table(table).range():
        out[key] = msgpack.unpackb(bytes(value), timestamp=3)
    return out


def missing(v):
    return v is None or v is pandas.NA or v is pandas.NaT or (isinstance(v, float) and v != v)


def expected_row(frame, i, key_column=None):
    """The stored row of frame row i: each field as a plain value, None for a null, the array
    cut after its last present field (never before the key column)."""
    fields = []
    for name in frame.columns:
        v = frame[name].iloc[i]
        if missing(v):
            fields.append(None)
        elif isinstance(v, pandas.Timestamp):
            v = v.tz_convert("UTC") if v.tzinfo else v.tz_localize("UTC")
            fields.append(v.to_pydatetime(warn=False))
        elif hasattr(v, "item"):
            fields.append(v.item())
        else:
            fields.append(v)
    keep = len(fields)
    while keep > 0 and fields[keep - 1] is None and keep - 1 != key_column:
        keep -= 1
    return fields[:keep]


def every_dtype_frame(n, rng):
    ids = numpy.arange(n, dtype=numpy.int64) * 7 - 50
    rng.shuffle(ids)
    holes = rng.random(n) < 0.2

    def with_holes(values):
        return [None if h else v for v, h in zip(values, holes)]

    frame = pandas.DataFrame({
        "id": ids,
        "i8": numpy.arange(n, dtype=numpy.int8),
        "u16": numpy.arange(n, dtype=numpy.uint16) * 300,
        "i32": -numpy.arange(n, dtype=numpy.int32) * 70000,
        "u64": numpy.arange(n, dtype=numpy.uint64) + numpy.uint64(2**63),
        "f64": numpy.where(holes, numpy.nan, rng.random(n) * 1e6),
        "f32": numpy.arange(n, dtype=numpy.float32) / 4,
        "flag": numpy.arange(n) % 3 == 0,
        "name": pandas.Series(with_holes(["n%d \u00e9\U0001f600" % i for i in range(n)]), dtype=object),
        "blob": pandas.Series(with_holes([b"\x00\xff" * (i % 4) for i in range(n)]), dtype=object),
        "when": pandas.to_datetime(with_holes([1_600_000_000_123_456_789 + i * 10**9 for i in range(n)])),
        "zoned": pandas.date_range("2026-03-29", periods=n, freq="37min", tz="Europe/Paris"),
        "count": pandas.array(with_holes(list(range(n))), dtype="Int64"),
        "ok": pandas.array(with_holes([i % 2 == 0 for i in range(n)]), dtype="boolean"),
        "label": pandas.array(with_holes(["L%d" % (i % 5) for i in range(n)]), dtype="string"),
        "kind": pandas.Categorical(["a", "b", "c"] * (n // 3) + ["a"] * (n % 3)),
    })
    return frame


def test_every_dtype_stores_the_fields_a_model_gives(rng):
    frame = every_dtype_frame(300, numpy.random.default_rng(7))
    b = drydb.Builder(page_size=512)
    t = b.create_table("rows", "int64")
    # Three batches, the last a slice of the frame (its arrays are views at an offset).
    assert t.append_columns("id", columns=frame.iloc[:100]) == 100
    assert t.columns == tuple(frame.columns)
    assert t.append_columns(frame["id"].iloc[100:200], columns=frame.iloc[100:200]) == 100
    assert t.append_columns("id", columns=frame.iloc[200:]) == 100
    assert t.rows == 300
    rows = read_rows(b.build_bytes())
    assert len(rows) == 300
    for i in range(300):
        assert rows[int(frame["id"].iloc[i])] == expected_row(frame, i, key_column=0), i


def test_dump_of_a_frame_build_shows_the_records_of_a_json_lines_build(tmp_path, cli):
    frame = pandas.DataFrame({
        "id": [3, 1, 2, -7, 40],
        "score": [9.5, numpy.nan, 8.0, 1e300, -0.25],
        "name": ["a", None, "c", "\u00fcn\u00ef", ""],
        "n": pandas.array([1, None, 3, -200, 2**40], dtype="Int64"),
        "flag": [True, False, True, False, True],
        "big": numpy.array([2**63, 0, 1, 2, 2**64 - 1], dtype=numpy.uint64),
    })
    assert drydb.build_from_frame(frame, tmp_path / "frame.drydb", key="id") == 5
    with open(tmp_path / "rows.jsonl", "w") as f:
        for record in frame.to_dict("records"):
            f.write(json.dumps({k: (v.item() if hasattr(v, "item") else v)
                                for k, v in record.items() if not missing(v)}) + "\n")
    subprocess.run([cli, "build", "-q", "-i", str(tmp_path / "rows.jsonl"), "-t", "rows", "-k", "id",
                    "--key-encoding", "int64", str(tmp_path / "jsonl.drydb")], check=True)

    def records(name):
        out = subprocess.run([cli, "dump", str(tmp_path / name)], check=True, capture_output=True,
                             text=True).stdout.splitlines()
        return [json.loads(line) for line in out[1:-1]]  # the rows, without header and trailer

    from_frame, from_json = records("frame.drydb"), records("jsonl.drydb")
    assert len(from_frame) == 5
    assert from_frame == from_json
    assert all("msgpack" in r["value"] for r in from_frame)


@pytest.mark.parametrize("encoding,keys,get", [
    ("int64", numpy.array([5, -3], dtype=numpy.int32), [5, -3]),
    ("int64", pandas.Series([2**62, 0], dtype="uint64"), [2**62, 0]),
    ("int64", [7, 8], [7, 8]),
    ("bytes", numpy.array([b"k1", b"k22"]), [b"k1", b"k22"]),       # NumPy "S": zeros trimmed
    ("bytes", numpy.array(["\u00e9", "ab"]), ["\u00e9", "ab"]),     # NumPy "U": as UTF-8
    ("bytes", pandas.Series(["x", "y"]), [b"x", b"y"]),
    ("bytes", ["p", "q"], [b"p", b"q"]),
    ("uuid_v7", ["0190a5f4-7c3e-7b1a-8c2d-3e4f5a6b7c8d", "0190a5f4-7c3e-7b1a-8c2d-3e4f5a6b7c8e"],
     ["0190a5f4-7c3e-7b1a-8c2d-3e4f5a6b7c8d", "0190a5f4-7c3e-7b1a-8c2d-3e4f5a6b7c8e"]),
])
def test_keys_of_every_encoding_and_form(encoding, keys, get):
    import uuid
    b = drydb.Builder()
    t = b.create_table("rows", encoding)
    assert t.append_columns(keys, columns={"v": numpy.array([1, 2])}) == 2
    table = drydb.open_bytes(b.build_bytes()).table("rows")
    for k in get:
        k = uuid.UUID(k) if encoding == "uuid_v7" else k
        assert table.get(k) is not None, k


def test_buffers_strided_arrays_and_masks():
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    t.set_columns(["a", "b", "c", "d"], key_column="a")
    wide = numpy.arange(20, dtype=numpy.int64).reshape(10, 2)
    masked = (numpy.array([1.5, 2.5, 3.5]), numpy.array([False, True, False]))
    assert t.append_columns(array.array("q", [1, 2, 3]),
                            columns={"b": wide[:3, 1], "c": memoryview(array.array("d", [0.5, 1.0, 2.0])),
                                     "d": masked}) == 3
    # A broadcast array (stride 0) repeats its one value.
    assert t.append_columns(numpy.array([4, 5]),
                            columns={"b": numpy.broadcast_to(numpy.array([7]), (2,)),
                                     "d": numpy.broadcast_to(numpy.array([b"s"]), (2,))}) == 2
    rows = read_rows(b.build_bytes())
    assert rows == {1: [None, 1, 0.5, 1.5], 2: [None, 3, 1.0], 3: [None, 5, 2.0, 3.5],
                    4: [None, 7, None, b"s"], 5: [None, 7, None, b"s"]}


def test_append_values_takes_whole_values():
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    assert t.append_columns(numpy.array([1, 2, 3]), values=[b"one", None, b"three"]) == 3
    table = drydb.open_bytes(b.build_bytes()).table("rows")
    assert [table.get(k) for k in (1, 2, 3)] == [b"one", b"", b"three"]


def test_build_from_frame_in_chunks_with_text_keys(tmp_path):
    frame = pandas.DataFrame({"name": ["k%03d" % i for i in range(100)], "n": numpy.arange(100)})
    assert drydb.build_from_frame(frame, tmp_path / "f.drydb", key="name", chunk_rows=7,
                                  page_size=512, compression="lz4") == 100
    with drydb.open(tmp_path / "f.drydb") as db:
        t = db.table("rows")
        assert t.key_encoding == "bytes"
        assert len(t) == 100
        # The key column stands for the key: nil in the row, the key's text when decoded.
        assert bytes(t.get("k042")) == b"\x92\xc0\x2a"
        assert db.table("rows", decode="msgpack").get("k042") == {"name": "k042", "n": 42}


def refused(t, error, words, *args, **kwargs):
    with pytest.raises(error) as raised:
        t.append_columns(*args, **kwargs)
    for w in words:
        assert w in str(raised.value), (w, str(raised.value))
    assert t.rows == 0


def test_bad_input_names_the_column_and_row_and_appends_nothing():
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    t.set_columns(["id", "x"], key_column="id")
    refused(t, drydb.InvalidArgumentError, ["'id'", "row 2", "null"],
            pandas.Series([1, 2, None], dtype="Int64", name="id"), columns={"x": [1, 2, 3]})
    refused(t, drydb.WrongKeyTypeError, ["'id'", "floats"],
            pandas.Series([1.0, 2.0], name="id"), columns={"x": [1, 2]})
    refused(t, TypeError, ["'key'", "floats"], numpy.array([1.5]), columns={"x": [1]})
    refused(t, drydb.InvalidArgumentError, ["'x'", "row 1", "str", "int"],
            numpy.array([1, 2]), columns={"x": numpy.array([1, "two"], dtype=object)})
    refused(t, drydb.InvalidArgumentError, ["'x'", "row 0", "outside int64"],
            numpy.array([1]), columns={"x": numpy.array([2**70], dtype=object)})
    refused(t, drydb.InvalidArgumentError, ["'x'", "3 rows", "2"],
            numpy.array([1, 2]), columns={"x": [1, 2, 3]})
    refused(t, TypeError, ["'x'", "m8"],
            numpy.array([1]), columns={"x": numpy.array([1], dtype="timedelta64[s]")})
    refused(t, TypeError, ["'x'", "2 dimensions"],
            numpy.array([1]), columns={"x": numpy.zeros((1, 2))})
    refused(t, drydb.InvalidArgumentError, ["'y'", "not in the table's column list"],
            numpy.array([1]), columns={"y": [1]})
    refused(t, TypeError, ["'x'", "datetime"],
            numpy.array([1]), columns={"x": numpy.array([datetime.datetime.now()], dtype=object)})
    refused(t, drydb.InvalidArgumentError, ["values or columns"], numpy.array([1]))
    # The builder goes on.
    assert t.append_columns(numpy.array([1, 2]), columns={"x": ["a", "b"]}) == 2
    assert read_rows(b.build_bytes()) == {1: [None, "a"], 2: [None, "b"]}


def test_a_table_takes_its_column_list_once():
    b = drydb.Builder()
    t = b.create_table("rows")
    t.append(b"k", msgpack.packb([1]))
    with pytest.raises(drydb.InvalidArgumentError, match="no column list"):
        t.append_columns(["a"], columns={"v": [1]})
    with pytest.raises(drydb.InvalidStateError):
        t.set_columns(["v"])
    dup = b.create_table("dup")
    with pytest.raises(drydb.DuplicateNameError):
        dup.set_columns(["v", "v"])
    assert dup.columns == ()
    dup.set_columns(["v"])
    assert dup.columns == ("v",)
    b.build_bytes()  # the builder was never failed


def test_an_int_a_float_column_cannot_hold_is_the_rows_error():
    # PyLong_AsDouble's OverflowError used to be left set: the rows were appended, then Python
    # raised SystemError, and a later build stored -1.0 for the int.
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    t.set_columns(["id", "x"], key_column="id")
    refused(t, drydb.InvalidArgumentError, ["'x'", "row 2", "too large for a float64"],
            numpy.array([1, 2, 3, 4]),
            columns={"x": numpy.array([1.5, 2.5, 10**400, 4.5], dtype=object)})
    # An int too long for str() (sys.get_int_max_str_digits) is named by its size.
    refused(t, drydb.InvalidArgumentError, ["'x'", "row 0", "outside int64", "bits"],
            numpy.array([1]), columns={"x": numpy.array([10**5000], dtype=object)})
    refused(t, drydb.InvalidArgumentError, ["'x'", "row 1", "too large for a float64", "bits"],
            numpy.array([1, 2]), columns={"x": numpy.array([0.5, -10**5000], dtype=object)})
    # No Python error was left pending: the builder goes on, and builds what it then took.
    assert t.append_columns(numpy.array([1, 2]),
                            columns={"x": numpy.array([1.5, 2**60], dtype=object)}) == 2
    assert read_rows(b.build_bytes()) == {1: [None, 1.5], 2: [None, float(2**60)]}


def test_a_masked_arrays_masked_values_are_nulls():
    ma = numpy.ma
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    t.set_columns(["id", "f", "i", "s", "o", "d"], key_column="id")
    assert t.append_columns(numpy.array([1, 2, 3]), columns={
        "f": ma.array([1.5, 2.5, 3.5], mask=[False, True, False]),
        "i": ma.array([7, 8, 9], mask=[True, False, False]),
        "s": ma.array([b"x", b"y", b"z"], mask=[False, False, True]),
        # Masked values that the column could not hold are not read.
        "o": ma.array([1, "bad", 3], dtype=object, mask=[False, True, False]),
        "d": ma.array(numpy.array([0, 2**62, 1], dtype="datetime64[D]"),
                      mask=[False, True, False]),
    }) == 3
    day = datetime.timedelta(days=1)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=UTC)
    assert read_rows(b.build_bytes()) == {
        1: [None, 1.5, None, b"x", 1, epoch],
        2: [None, None, 8, b"y"],
        3: [None, 3.5, 9, None, 3, epoch + day],
    }
    # A masked key is a null key: refused.
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    refused(t, drydb.InvalidArgumentError, ["'key'", "row 1", "null"],
            ma.array([1, 2], mask=[False, True]), columns={"v": [1, 2]})


def test_datetime64_days_past_int64_seconds_are_refused():
    # days * 86400 used to wrap silently to another date.
    limit = (2**63 - 1) // 86400
    b = drydb.Builder()
    t = b.create_table("rows", "int64")
    t.set_columns(["id", "d"], key_column="id")
    for days in (limit + 1, -limit - 1, 2**62):
        refused(t, drydb.InvalidArgumentError, ["'d'", "row 1", "datetime64[D]", str(days)],
                numpy.array([1, 2]), columns={"d": numpy.array([0, days], dtype="datetime64[D]")})
    # The bounds themselves are stored exactly.
    assert t.append_columns(numpy.array([1, 2]),
                            columns={"d": numpy.array([limit, -limit], dtype="datetime64[D]")}) == 2
    table = drydb.open_bytes(b.build_bytes()).table("rows")
    got = [msgpack.unpackb(bytes(table.get(k)), timestamp=0)[1] for k in (1, 2)]
    assert [(ts.seconds, ts.nanoseconds) for ts in got] == [(limit * 86400, 0),
                                                            (-limit * 86400, 0)]


@pytest.mark.parametrize("chunk_rows", [0, -1, True, 2.5, "10"])
def test_build_from_frame_refuses_a_chunk_rows_below_one(tmp_path, chunk_rows):
    # -1 used to build an empty file, 0 to raise range()'s bare ValueError.
    frame = pandas.DataFrame({"id": [1, 2, 3], "v": [1.0, 2.0, 3.0]})
    with pytest.raises(drydb.InvalidArgumentError) as raised:
        drydb.build_from_frame(frame, tmp_path / "f.drydb", key="id", chunk_rows=chunk_rows)
    assert isinstance(raised.value, ValueError)
    assert "chunk_rows is %r" % (chunk_rows,) in str(raised.value)
    assert "an int of 1 or more" in str(raised.value)
    assert not (tmp_path / "f.drydb").exists()
    assert drydb.build_from_frame(frame, tmp_path / "f.drydb", key="id", chunk_rows=1) == 3


def test_a_key_column_reads_back_as_the_type_it_was_given(tmp_path):
    # A bytes key column used to be stored as nil, then read back as the key's text: b"a" as
    # 'a', b"\xff\xfe" as the text '\\xff\\xfe'.
    cases = [
        (pandas.DataFrame({"k": [b"a", b"\xff\xfe", b""], "v": [1, 2, 3]}),
         [b"a", b"\xff\xfe", b""]),
        (pandas.DataFrame({"k": ["a", "\u00e9", "z"], "v": [1, 2, 3]}), ["a", "\u00e9", "z"]),
        (pandas.DataFrame({"k": [5, -1, 2**40], "v": [1, 2, 3]}), [5, -1, 2**40]),
    ]
    for n, (frame, keys) in enumerate(cases):
        path = tmp_path / ("f%d.drydb" % n)
        drydb.build_from_frame(frame, path, key="k")
        with drydb.open(path) as db:
            t = db.table("rows", decode="msgpack")
            for key, v in zip(keys, frame["v"]):
                got = t.get(key)
                assert got == {"k": key, "v": int(v)}, (key, got)
                assert type(got["k"]) is type(key)
            assert sorted((row["v"] for _, row in t.range())) == [1, 2, 3]
    # Text keys still go as nil (the key's text), as before.
    with drydb.open(tmp_path / "f1.drydb") as db:
        assert bytes(db.table("rows").get("a")) == b"\x92\xc0\x01"


def test_diff_compares_a_frame_build_and_a_json_lines_build_by_their_records(tmp_path, cli):
    # The same 300 rows built from a frame (rows stored as arrays of a column list) and by
    # `drydb build` from JSON Lines (rows stored as maps) dump as the same records: diff used to
    # call every row changed and exit 1.
    n = 300
    rng = numpy.random.default_rng(3)
    frame = pandas.DataFrame({
        "id": numpy.arange(n, dtype=numpy.int64) * 3 - 100,
        "score": rng.normal(size=n),
        "name": ["name %d \u00e9" % i if i % 11 else None for i in range(n)],
        "n": pandas.array([i * 1000 if i % 7 else None for i in range(n)], dtype="Int64"),
        "flag": numpy.arange(n) % 3 == 0,
    })
    assert drydb.build_from_frame(frame, tmp_path / "frame.drydb", key="id") == n

    def write_json_lines(path, frame):
        with open(path, "w") as f:
            for record in frame.to_dict("records"):
                f.write(json.dumps({k: (v.item() if hasattr(v, "item") else v)
                                    for k, v in record.items() if not missing(v)}) + "\n")

    def cli_build(name, jsonl):
        subprocess.run([cli, "build", "-q", "-i", str(jsonl), "-t", "rows", "-k", "id",
                        "--key-encoding", "int64", str(tmp_path / name)], check=True)

    write_json_lines(tmp_path / "rows.jsonl", frame)
    cli_build("jsonl.drydb", tmp_path / "rows.jsonl")

    def dump_rows(name):
        out = subprocess.run([cli, "dump", str(tmp_path / name)], check=True, capture_output=True,
                             text=True).stdout.splitlines()
        return out[1:-1]  # without header and trailer

    assert dump_rows("frame.drydb") == dump_rows("jsonl.drydb")
    for old, new in [("frame.drydb", "jsonl.drydb"), ("jsonl.drydb", "frame.drydb")]:
        d = drydb.diff(str(tmp_path / old), str(tmp_path / new))
        assert not d["differs"], d
        t = d["tables"][0]
        assert (t["changed"], t["unchanged"], t["added"], t["removed"]) == (0, n, 0, 0)
        assert t["columns_changed"] and not t["differs"]
        run = subprocess.run([cli, "diff", "--stat", str(tmp_path / old), str(tmp_path / new)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run
        assert '"changed":0,"unchanged":%d,' % n in run.stdout

    # One field of one row changed: that row, and only it, is changed.
    edited = frame.copy()
    edited.loc[5, "name"] = "other"
    write_json_lines(tmp_path / "edited.jsonl", edited)
    cli_build("edited.drydb", tmp_path / "edited.jsonl")
    d = drydb.diff(str(tmp_path / "frame.drydb"), str(tmp_path / "edited.drydb"))
    assert d["differs"]
    assert (d["tables"][0]["changed"], d["tables"][0]["unchanged"]) == (1, n - 1)
    run = subprocess.run([cli, "diff", "--keys", str(tmp_path / "frame.drydb"),
                          str(tmp_path / "edited.drydb")], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == '{"table":"rows","change":"changed","key":%d}' % (
        int(frame["id"][5]))
