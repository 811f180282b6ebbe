"""The Python API beyond the queries: building (append_many, index functions that raise,
compression, options), errors as exceptions of the right class, lifetimes and closing, MessagePack
decoding and typed keys."""

import gc
import os
import uuid

import msgpack
import pytest

import drydb
from conftest import BOUNDED_WAIT, join_all


def small_db(tmp_path, **builder_options):
    b = drydb.Builder(**builder_options)
    t = b.create_table("items")
    t.append_many((b"k%03d" % i, b"value %d" % i) for i in range(300))
    n = b.create_table("numbers", "int64")
    n.append(-5, "minus five")  # a str value is stored as UTF-8
    n.append(2**63 - 1, bytearray(b"max"))
    n.append(-(2**63), memoryview(b"min"))
    path = tmp_path / "small.drydb"
    b.build(path)
    return path


def test_build_and_read_back(tmp_path):
    path = small_db(tmp_path)
    with drydb.open(path) as db:
        assert [t.name for t in db.tables()] == ["items", "numbers"]
        items = db.table("items")
        assert items.get(b"k007") == b"value 7"
        assert items.get("k007") == b"value 7"  # str keys are UTF-8 bytes
        numbers = db.table("numbers")
        assert list(numbers.range()) == [(-(2**63), b"min"), (-5, b"minus five"), (2**63 - 1, b"max")]
        info = db.info()
        assert info["page_size"] == 4096
        assert [(t["name"], t["rows"], t["key_encoding"]) for t in info["tables"]] == [
            ("items", 300, "bytes"), ("numbers", 3, "int64")]
        db.verify()
    assert db.closed


def test_info_counts_the_descent_index_once_gets_made_it(tmp_path):
    b = drydb.Builder(page_size=512)
    b.create_table("ids", "int64").append_many((i * 3, b"v%d" % i) for i in range(20000))
    path = tmp_path / "ids.drydb"
    b.build(path)
    with drydb.open(path) as db:
        ids = db.table("ids")
        (before,) = db.info()["tables"]
        assert before["depth"] >= 3 and before["descent_index_bytes"] == 0
        for i in range(20000):
            assert ids.get(i * 3) == b"v%d" % i
        (after,) = db.info()["tables"]
        assert after["descent_index_bytes"] >= 8 * after["leaf_pages"] + 16 * after["internal_pages"]
        assert ids.get(3) == b"v1" and ids.get(4) is None


@pytest.mark.parametrize("options", [
    {"compression": "zstd"}, {"compression": "zstd", "zstd_level": 19, "zstd_dictionary": 4096},
    {"compression": "lz4"}, {"page_size": 512}, {"page_size": 65536}])
def test_builder_options(tmp_path, options):
    path = small_db(tmp_path, **options)
    for storage in ["pread", "mmap", "memory"]:
        with drydb.open(path, storage=storage, cache_bytes=1 << 16) as db:
            assert list(db.table("items").range(b"k100", b"k102")) == [
                (b"k100", b"value 100"), (b"k101", b"value 101"), (b"k102", b"value 102")]
            db.verify()


def test_bad_builder_options():
    with pytest.raises(drydb.InvalidArgumentError, match="compression 'gzip'"):
        drydb.Builder(compression="gzip")
    with pytest.raises(drydb.InvalidArgumentError, match="zstd_level 99"):
        drydb.Builder(compression="zstd", zstd_level=99)
    with pytest.raises(drydb.InvalidArgumentError, match="zstd_dictionary needs"):
        drydb.Builder(compression="lz4", zstd_dictionary=1024)
    # At most 32 MiB, checked before anything is allocated for it (it used to fail with
    # "cannot create std::vector larger than max_size()").
    for size in (99999999999999, (32 << 20) + 1):
        with pytest.raises(
            drydb.InvalidArgumentError,
            match=f"zstd_dictionary {size} is over the maximum of 33554432 bytes \\(32 MiB\\)",
        ):
            drydb.Builder(compression="zstd", zstd_dictionary=size)
    drydb.Builder(compression="zstd", zstd_dictionary=32 << 20)
    with pytest.raises(drydb.InvalidArgumentError):
        drydb.Builder(page_size=1000)
    with pytest.raises(drydb.UnknownEncodingError):
        drydb.Builder().create_table("t", "float")
    b = drydb.Builder()
    b.create_table("t")
    with pytest.raises(drydb.DuplicateNameError):
        b.create_table("t")


def test_build_errors():
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    with pytest.raises(drydb.WrongKeyTypeError) as e:
        t.append("text", b"v")
    assert isinstance(e.value, TypeError) and e.value.code == "wrong_key_type"
    b = drydb.Builder()
    t = b.create_table("t")
    t.append(b"a", b"1")
    t.append(b"a", b"2")
    with pytest.raises(drydb.DuplicateKeyError, match="'a'"):
        b.build_bytes()
    with pytest.raises(drydb.InvalidStateError):
        b.build_bytes()  # a builder builds once
    b = drydb.Builder()
    t = b.create_table("t")
    with pytest.raises(TypeError):
        t.append(b"k", 5)
    with pytest.raises(TypeError, match="pairs"):
        t.append_many([b"not a pair"])
    b = drydb.Builder(page_size=512)
    t = b.create_table("t")
    with pytest.raises(drydb.KeyTooLongError):
        t.append(b"x" * 1000, b"")


class Refused(Exception):
    pass


def test_an_index_function_that_raises_fails_the_build_with_its_exception(tmp_path):
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    t.append_many((i, b"%d" % i) for i in range(100))

    def key(k, v):
        if k == 42:
            raise Refused("no 42")
        return v

    t.add_index("by_value", unique=True, key=key)
    target = tmp_path / "t.drydb"
    target.write_bytes(b"previous")
    with pytest.raises(Refused, match="no 42") as e:
        b.build(target)
    assert any("the index function failed for row '42'" in n for n in e.value.__notes__)
    assert target.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["t.drydb"]


def test_index_function_results_are_checked():
    b = drydb.Builder()
    t = b.create_table("t")
    t.append(b"a", b"1")
    t.add_index("n", key_encoding="int64", key=lambda k, v: "not an int")
    with pytest.raises(drydb.WrongKeyTypeError):
        b.build_bytes()
    with pytest.raises(TypeError):
        drydb.Builder().create_table("t").add_index("x", key=5)
    b = drydb.Builder()
    t = b.create_table("t")
    t.append(b"a", b"1")
    t.append(b"b", b"1")
    t.add_index("u", unique=True, key=lambda k, v: v)
    with pytest.raises(drydb.DuplicateKeyError):
        b.build_bytes()


def test_index_functions_get_typed_keys():
    b = drydb.Builder()
    seen = []
    for enc, key in [("int64", -7), ("uuid_v7", uuid.UUID(int=5)), ("ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAV")]:
        t = b.create_table(enc, enc)
        t.append(key, b"v")
        t.add_index("i", key=lambda k, v: seen.append(k))
    drydb.open_bytes(b.build_bytes())
    assert seen == [-7, uuid.UUID(int=5), "01ARZ3NDEKTSV4RRFFQ69G5FAV"]


def test_query_errors(tmp_path):
    db = drydb.open(small_db(tmp_path))
    with pytest.raises(drydb.NotFoundError, match="items") as e:
        db.table("nope")  # the message names the tables there are
    assert isinstance(e.value, LookupError) and e.value.code == "not_found"
    with pytest.raises(drydb.NotFoundError):
        db.table("items").index("nope")
    numbers = db.table("numbers")
    for bad in ["5", b"5", 5.0, None, True, uuid.UUID(int=1)]:
        with pytest.raises(drydb.WrongKeyTypeError):
            numbers.get(bad)
    with pytest.raises(drydb.InvalidArgumentError, match="outside int64"):
        numbers.get(2**63)
    with pytest.raises(drydb.WrongKeyTypeError):
        db.table("items").get(5)
    with pytest.raises(drydb.WrongKeyTypeError):
        db.table("items").get_many([b"k001", 5])
    with pytest.raises(drydb.InvalidArgumentError):
        db.table("items", decode="json")
    with pytest.raises(drydb.InvalidArgumentError):
        drydb.open(tmp_path / "small.drydb", storage="floppy")


def test_bad_files(tmp_path):
    with pytest.raises(drydb.IoError) as e:
        drydb.open(tmp_path / "missing.drydb")
    assert isinstance(e.value, OSError)
    (tmp_path / "text").write_bytes(b"hello, this is not a database" * 200)
    with pytest.raises(drydb.BadMagicError):
        drydb.open(tmp_path / "text")
    good = small_db(tmp_path).read_bytes()
    with pytest.raises(drydb.TruncatedError):
        drydb.open_bytes(good[: len(good) // 2])
    # A flipped byte inside a page: found by the first read of that page, or by verify().
    damaged = bytearray(good)
    damaged[4096 + 100] ^= 0xFF
    db = drydb.open_bytes(bytes(damaged))
    with pytest.raises(drydb.CorruptionError):
        db.verify()
    with pytest.raises(drydb.CorruptionError):
        list(db.table("items").range())
    with pytest.raises(drydb.Error):
        drydb.open_bytes(b"")


def test_close_and_lifetimes(tmp_path):
    db = drydb.open(small_db(tmp_path), storage="mmap")
    items = db.table("items")
    view = items.get(b"k001", copy=False)
    r = items.range(b"k010", b"k020")
    it = iter(r)
    first = next(it)
    cursor = items.cursor()
    assert cursor.seek(b"k005")
    db.close()
    assert db.closed
    for call in [lambda: db.table("items"), lambda: db.tables(), lambda: db.info(),
                 lambda: items.get(b"k001"), lambda: len(items), lambda: iter(r),
                 lambda: cursor.next(), lambda: cursor.key, lambda: items.range()]:
        with pytest.raises(drydb.InvalidStateError):
            call()
    # What was handed out before close() stays valid: the file stays mapped until it is gone.
    assert bytes(view) == b"value 1"
    assert first == (b"k010", b"value 10")
    assert len(list(it)) == 10
    del db, items, r, it, cursor
    gc.collect()
    assert bytes(view) == b"value 1"
    assert view.readonly
    with pytest.raises(TypeError):
        view[0] = 1


def test_open_bytes_keeps_its_bytes(tmp_path):
    data = small_db(tmp_path).read_bytes()
    db = drydb.open_bytes(bytearray(data))  # copied: a bytearray may change
    assert db.table("items").get(b"k001") == b"value 1"
    db = drydb.open_bytes(memoryview(data))
    table = db.table("items")
    del db, data
    gc.collect()
    assert table.get(b"k299") == b"value 299"


def test_msgpack_values():
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    t.append(1, msgpack.packb({"name": "Ann", "tags": ["a", "b"]}))
    t.append(2, msgpack.packb([1, 2.5, None, "ü"]))
    db = drydb.open_bytes(b.build_bytes())
    decoded = db.table("t", decode="msgpack")
    assert decoded.get(1) == {"name": "Ann", "tags": ["a", "b"]}
    assert decoded[2] == [1, 2.5, None, "ü"]
    assert list(decoded.range()) == [(1, {"name": "Ann", "tags": ["a", "b"]}), (2, [1, 2.5, None, "ü"])]
    assert decoded.get_many([2, 3]) == [[1, 2.5, None, "ü"], None]
    assert db.table("t").get(1) == msgpack.packb({"name": "Ann", "tags": ["a", "b"]})


def test_typed_keys_round_trip():
    b = drydb.Builder()
    u = b.create_table("u", "uuid_v7")
    ids = sorted(uuid.UUID(int=i * 2**100 + 7) for i in range(5))
    for i, k in enumerate(ids):
        u.append(k, b"%d" % i)
    ul = b.create_table("ul", "ulid")
    ul.append("01arz3ndektsv4rrffq69g5fav", b"lower case taken")
    with pytest.raises(drydb.InvalidArgumentError):
        ul.append("not a ulid", b"")
    db = drydb.open_bytes(b.build_bytes())
    assert [k for k, _ in db.table("u").range()] == ids
    assert db.table("u").get(ids[2]) == b"2"
    assert list(db.table("ul").range()) == [("01ARZ3NDEKTSV4RRFFQ69G5FAV", b"lower case taken")]
    assert db.table("ul").get("01ARZ3NDEKTSV4RRFFQ69G5FAV") == b"lower case taken"


def test_empty_table_and_empty_keys():
    b = drydb.Builder()
    b.create_table("empty")
    t = b.create_table("t")
    t.append(b"", b"empty key")
    t.append(b"\x00", b"")
    db = drydb.open_bytes(b.build_bytes())
    e = db.table("empty")
    assert len(e) == 0 and list(e.range()) == [] and e.get(b"") is None
    assert not e.cursor().first()
    t = db.table("t")
    assert t[b""] == b"empty key" and t[b"\x00"] == b""
    assert list(t.prefix(b"")) == [(b"", b"empty key"), (b"\x00", b"")]


def test_a_file_changed_under_a_pread_database_raises(tmp_path):
    # The default storage reads with pread: a file cut or rewritten in place while open is an
    # error of the queries that read the changed pages, never a crash of the interpreter.
    b = drydb.Builder(page_size=512)
    b.create_table("t", "int64").append_many((i, b"v" * 40) for i in range(5000))
    path = tmp_path / "t.drydb"
    b.build(path)
    data = path.read_bytes()
    db = drydb.open(path, cache_bytes=0)
    t = db.table("t")
    assert t[4999] == b"v" * 40
    with open(path, "r+b") as f:
        f.truncate(8192)
    with pytest.raises((drydb.TruncatedError, drydb.IoError)):
        list(t.range())
    damaged = bytearray(data)
    for at in range(4096, len(damaged) - 4096, 512):
        damaged[at + 100] ^= 0x5A
    path.write_bytes(bytes(damaged))  # the same size, rewritten in place
    with pytest.raises(drydb.CorruptionError):
        list(t.range())
    path.write_bytes(data)
    assert len(list(t.range())) == 5000


def test_a_file_loaded_into_memory_does_not_see_changes_after_open(tmp_path):
    # storage="memory" reads the whole file at open: cutting or rewriting it later changes
    # nothing the database answers.
    b = drydb.Builder(page_size=512)
    b.create_table("t", "int64").append_many((i, b"v" * 40) for i in range(5000))
    path = tmp_path / "t.drydb"
    b.build(path)
    db = drydb.open(path, storage="memory")
    with open(path, "r+b") as f:
        f.truncate(8192)
    assert list(db.table("t").range()) == [(i, b"v" * 40) for i in range(5000)]
    db.verify()
    with pytest.raises((drydb.TruncatedError, drydb.CorruptionError)):
        drydb.open(path, storage="memory")


def test_open_bytes_takes_any_buffer_in_its_logical_order(tmp_path):
    data = small_db(tmp_path).read_bytes()
    # A reversed view of reversed bytes, and every other byte of a doubled buffer: both are the
    # file's bytes in their logical order.
    backwards = memoryview(data[::-1])[::-1]
    assert drydb.open_bytes(backwards).table("items")[b"k002"] == b"value 2"
    doubled = bytes(b for pair in zip(data, data) for b in pair)
    assert drydb.open_bytes(memoryview(doubled)[::2]).table("items")[b"k002"] == b"value 2"


def test_one_builder_from_two_threads():
    import threading
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    t.append_many((i, b"x" * 100) for i in range(200_000))
    started = threading.Event()
    errors = []

    def key(k, v):
        started.set()
        return None

    t.add_index("slow", key=key)
    out = []
    builder = threading.Thread(target=lambda: out.append(b.build_bytes()))
    builder.start()
    assert started.wait(timeout=BOUNDED_WAIT)
    # While the build runs, every other call on the builder is refused.
    for call in [lambda: t.append(10**7, b"late"), lambda: b.build_bytes(),
                 lambda: b.create_table("u"), lambda: t.add_miss_filter()]:
        try:
            call()
        except drydb.InvalidStateError as e:
            errors.append(str(e))
    join_all([builder])
    assert len(out) == 1 and len(errors) == 4
    assert drydb.open_bytes(out[0]).table("t")[5] == b"x" * 100
    with pytest.raises(drydb.InvalidStateError):
        b.build_bytes()  # built once


def test_error_messages_and_paths_that_are_not_utf8(tmp_path):
    folder = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(folder)
    b = drydb.Builder()
    b.create_table("t").append(b"k", b"v")
    path = folder + b"/x.drydb"
    b.build(os.fsdecode(path))
    db = drydb.open(os.fsdecode(path))
    assert os.fsencode(db.path) == path
    assert "x.drydb" in repr(db)
    db.close()
    with pytest.raises(drydb.InvalidStateError):
        db.table("t")
    with pytest.raises(drydb.IoError):
        drydb.open(os.fsdecode(folder + b"/missing\xff.drydb"))


def test_get_copy_argument_errors_propagate():
    b = drydb.Builder()
    b.create_table("t").append(b"k", b"v")
    t = drydb.open_bytes(b.build_bytes()).table("t")

    class Bad:
        def __bool__(self):
            raise ZeroDivisionError("no truth")

    with pytest.raises(ZeroDivisionError):
        t.get(b"k", copy=Bad())
    with pytest.raises(TypeError):
        t.get(b"k", nope=1)
    with pytest.raises(TypeError):
        t.get()
    assert t.get(key=b"k", default=1) == b"v"


def test_msgpack_maps_with_integer_keys():
    b = drydb.Builder()
    b.create_table("t").append(b"k", msgpack.packb({1: "one", 2: "two"}))
    t = drydb.open_bytes(b.build_bytes()).table("t", decode="msgpack")
    assert t[b"k"] == {1: "one", 2: "two"}
