"""TableBuilder.append_columns over Arrow data: arrays, record batches and streams through the
Arrow PyCapsule interface, made here with ctypes as the Arrow C data and C stream interfaces
specify them (no pyarrow). Every struct the producer hands out must be released exactly once,
whatever the append did; its buffers are overwritten when released, so a read after release
shows as wrong values."""

import collections
import ctypes
import gc
import struct

import msgpack
import numpy as np
import pytest

import drydb

# --- The C data and C stream interfaces' structs ---------------------------------------------


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


class ArrowArrayStream(ctypes.Structure):
    pass


SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
StreamRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
GetSchema = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                             ctypes.POINTER(ArrowSchema))
GetNext = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                           ctypes.POINTER(ArrowArray))
# const char* return: an address of a buffer the stream keeps (ctypes cannot return c_char_p).
GetLastError = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(ArrowArrayStream))

ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", SchemaRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ArrayRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArrayStream._fields_ = [
    ("get_schema", GetSchema),
    ("get_next", GetNext),
    ("get_last_error", GetLastError),
    ("release", StreamRelease),
    ("private_data", ctypes.c_void_p),
]

# --- A producer: structs with release callbacks, counted by their private_data token ---------

# token -> (Producer, the buffers its release poisons); a stream's token -> its StreamState.
# The callbacks are module-level, so they outlive every struct that points at them.
_LIVE = {}
_STREAM_STATES = {}
_TOKENS = iter(range(1, 1 << 62))


def _mark_released(address, cls):
    """Sets the release member of the struct at `address` to NULL, as a release must."""
    ctypes.c_void_p.from_address(address + cls.release.offset).value = None


def _release(ptr, cls):
    s = ptr.contents
    producer, payload = _LIVE[s.private_data]
    try:
        producer.released[s.private_data] += 1
        # A base struct's release releases its children and dictionary (the spec's rule).
        for i in range(s.n_children if cls is not ArrowArrayStream else 0):
            child = s.children[i].contents
            if child.release:
                child.release(s.children[i])
        if cls is not ArrowArrayStream and s.dictionary and s.dictionary.contents.release:
            s.dictionary.contents.release(s.dictionary)
        for buf in payload:  # poisoned: a read after release gives garbage
            ctypes.memset(buf, 0xEE, ctypes.sizeof(buf))
    except Exception as e:  # noqa: BLE001  (a callback must not raise into C)
        producer.errors.append(repr(e))
    _mark_released(ctypes.addressof(s), cls)


_release_schema = SchemaRelease(lambda p: _release(p, ArrowSchema))
_release_array = ArrayRelease(lambda p: _release(p, ArrowArray))
_release_stream = StreamRelease(lambda p: _release(p, ArrowArrayStream))


class Producer:
    """Makes Arrow structs and counts their releases: released[token] for every issued token."""

    def __init__(self):
        self.issued = {}
        self.released = collections.Counter()
        self.errors = []
        self.keep = []

    def _token(self, what, payload=()):
        token = next(_TOKENS)
        self.issued[token] = what
        _LIVE[token] = (self, list(payload))
        return token

    def schema(self, fmt, name="", children=(), dictionary=None):
        s = ArrowSchema()
        s.format = fmt.encode()
        s.name = name.encode()
        s.flags = 2  # nullable
        s.n_children = len(children)
        if children:
            ptrs = (ctypes.POINTER(ArrowSchema) * len(children))(*map(ctypes.pointer, children))
            s.children = ctypes.cast(ptrs, ctypes.POINTER(ctypes.POINTER(ArrowSchema)))
            self.keep.append(ptrs)
        if dictionary is not None:
            s.dictionary = ctypes.pointer(dictionary)
        s.private_data = self._token("schema %r %r" % (fmt, name))
        s.release = _release_schema
        self.keep.append((s, children, dictionary))
        return s

    def array(self, length, buffers, children=(), offset=0, null_count=0, n_buffers=None):
        """An ArrowArray over `buffers` (bytes, or None for NULL), owned by this producer."""
        a = ArrowArray()
        a.length, a.offset, a.null_count = length, offset, null_count
        owned = [None if b is None else (ctypes.c_uint8 * max(len(b), 1)).from_buffer_copy(
            b.ljust(1, b"\0")) for b in buffers]
        pointers = (ctypes.c_void_p * max(len(owned), 1))(
            *[None if b is None else ctypes.addressof(b) for b in owned])
        a.n_buffers = len(owned) if n_buffers is None else n_buffers
        a.buffers = ctypes.cast(pointers, ctypes.POINTER(ctypes.c_void_p))
        a.n_children = len(children)
        if children:
            ptrs = (ctypes.POINTER(ArrowArray) * len(children))(*map(ctypes.pointer, children))
            a.children = ctypes.cast(ptrs, ctypes.POINTER(ctypes.POINTER(ArrowArray)))
            self.keep.append(ptrs)
        payload = [b for b in owned if b is not None]
        a.private_data = self._token("array of %d" % length, payload)
        a.release = _release_array
        self.keep.append((a, owned, pointers, children))
        return a

    def check_released(self):
        gc.collect()
        assert not self.errors
        wrong = {what: self.released[t] for t, what in self.issued.items()
                 if self.released[t] != 1}
        assert not wrong, "released other than once: %r" % wrong


@pytest.fixture
def producer():
    p = Producer()
    yield p
    p.check_released()


# --- Capsules (the PyCapsule interface) --------------------------------------------------------

_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, _CapsuleDestructor]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.c_void_p]

_CAPSULE_NAMES = {name: ctypes.create_string_buffer(name)
                  for name in (b"arrow_schema", b"arrow_array", b"arrow_array_stream", b"other")}
_STRUCTS = {b"arrow_schema": ArrowSchema, b"arrow_array": ArrowArray,
            b"arrow_array_stream": ArrowArrayStream, b"other": ArrowSchema}


def _destroy_capsule(capsule):
    # The spec's destructor: release the struct unless its consumer did (or moved it).
    name = _PyCapsule_GetName(capsule)
    s = _STRUCTS[name].from_address(_PyCapsule_GetPointer(capsule, name))
    if s.release:
        s.release(ctypes.pointer(s))


_destroy_capsule_c = _CapsuleDestructor(_destroy_capsule)


def capsule(s, name):
    return _PyCapsule_New(ctypes.addressof(s), ctypes.addressof(_CAPSULE_NAMES[name]),
                          _destroy_capsule_c)


class ArrowObject:
    """An Arrow array or record batch: each __arrow_c_array__ call exports fresh structs."""

    def __init__(self, make):
        self.make = make  # () -> (ArrowSchema, ArrowArray)
        self.exports = 0

    def __arrow_c_array__(self, requested_schema=None):
        assert requested_schema is None
        self.exports += 1
        schema, array = self.make()
        return capsule(schema, b"arrow_schema"), capsule(array, b"arrow_array")


@GetSchema
def _get_schema(stream, out):
    return _STREAM_STATES[stream.contents.private_data].get_schema(out)


@GetNext
def _get_next(stream, out):
    return _STREAM_STATES[stream.contents.private_data].get_next(out)


@GetLastError
def _get_last_error(stream):
    return ctypes.addressof(_STREAM_STATES[stream.contents.private_data].last_error)


def _move(source, out, cls):
    """Moves `source` into the consumer's struct at `out`: a bitwise copy, the source marked
    released without its callback (the C data interface's "moving an array")."""
    ctypes.memmove(out, ctypes.addressof(source), ctypes.sizeof(cls))
    _mark_released(ctypes.addressof(source), cls)


class StreamState:
    def __init__(self, producer, make_schema, make_chunks, fail=None):
        self.producer, self.make_schema, self.chunks = producer, make_schema, list(make_chunks)
        self.fail = fail  # (call, errno, message): that call fails
        self.last_error = ctypes.create_string_buffer(256)
        self.given = 0

    def _failing(self, call):
        if self.fail and self.fail[0] == call:
            self.last_error.value = self.fail[2].encode()
            return self.fail[1]
        return 0

    def get_schema(self, out):
        if code := self._failing("get_schema"):
            return code
        _move(self.make_schema(), out, ArrowSchema)
        return 0

    def get_next(self, out):
        if self.given == len(self.chunks):
            ctypes.memset(out, 0, ctypes.sizeof(ArrowArray))  # the end: release NULL
            return 0
        if self.given == 1 and (code := self._failing("get_next")):
            return code
        chunk = self.chunks[self.given]()
        self.given += 1
        _move(chunk, out, ArrowArray)
        return 0


class ArrowStream:
    """An Arrow stream (a table, a chunked array): each __arrow_c_stream__ call exports a fresh
    ArrowArrayStream of fresh chunks."""

    def __init__(self, producer, make_schema, make_chunks, fail=None):
        self.args = producer, make_schema, make_chunks, fail
        self.states = []

    def __arrow_c_stream__(self, requested_schema=None):
        assert requested_schema is None
        state = StreamState(*self.args)
        self.states.append(state)
        s = ArrowArrayStream()
        s.get_schema, s.get_next, s.get_last_error = _get_schema, _get_next, _get_last_error
        s.private_data = self.args[0]._token("stream", ())
        _STREAM_STATES[s.private_data] = state
        s.release = _release_stream
        self.args[0].keep.append(s)
        return capsule(s, b"arrow_array_stream")


# --- Arrow arrays from Python values ------------------------------------------------------------

STRUCT_CODE = {"c": "b", "C": "B", "s": "h", "S": "H", "i": "i", "I": "I", "l": "q", "L": "Q",
               "f": "f", "g": "d", "tdD": "i", "tdm": "q"}
# A non-null padding value per format (padding rows alternate with nulls).
PAD = {"b": True, "f": 99.0, "g": 99.0, "u": "PAD", "U": "PAD", "z": b"PAD", "Z": b"PAD"}


def code_of(fmt):
    return "q" if fmt.startswith("ts") else STRUCT_CODE.get(fmt)


def bitmap(bits):
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def padding(fmt, n):
    value = PAD.get(fmt, b"P" * int(fmt[2:]) if fmt.startswith("w:") else 99)
    return [None if i % 3 == 1 else value for i in range(n)]


def buffers_of(fmt, values):
    """The buffers of `values` (None for null) laid out as format `fmt` gives them."""
    bits = bitmap([v is not None for v in values])
    if fmt == "n":
        return []
    if fmt == "b":
        return [bits, bitmap([bool(v) for v in values])]
    if fmt in ("u", "U", "z", "Z"):
        data, offsets = b"", [0]
        for v in values:
            data += b"\xab\xcd" if v is None else (v.encode() if isinstance(v, str) else v)
            offsets.append(len(data))
        return [bits, struct.pack("<%d%s" % (len(offsets), "i" if fmt in "uz" else "q"), *offsets),
                data]
    if fmt.startswith("w:"):
        width = int(fmt[2:])
        return [bits, b"".join(b"\xee" * width if v is None else v for v in values)]
    garbage = 77.0 if fmt in "fg" else 77
    return [bits, struct.pack("<%d%s" % (len(values), code_of(fmt)),
                              *[garbage if v is None else v for v in values])]


def make_array(p, fmt, values, offset=0):
    """An ArrowArray of `values` from physical position `offset` (padding before it)."""
    physical = padding(fmt, offset) + list(values)
    if fmt == "n":
        return p.array(len(values), [], offset=offset, null_count=len(values))
    return p.array(len(values), buffers_of(fmt, physical), offset=offset,
                   null_count=sum(v is None for v in values))


def arrow_array(p, fmt, values, offset=0, name=""):
    return ArrowObject(lambda: (p.schema(fmt, name), make_array(p, fmt, values, offset)))


def make_struct(p, fields, length, offset=0, child_offset=0, valid=None):
    """A struct array (a record batch) of fields [(name, fmt, values)], sliced at `offset` (its
    children at offset + child_offset of their own); `valid` gives the struct's own nulls."""
    children = []
    for _, fmt, values in fields:
        physical = padding(fmt, offset) + list(values)
        child = make_array(p, fmt, physical, offset=child_offset)
        children.append(child)
    buffers = [None]
    null_count = 0
    if valid is not None:
        buffers = [bitmap([i % 2 == 0 for i in range(offset)] + list(valid))]
        null_count = sum(not v for v in valid)
    return p.array(length, buffers, children=children, offset=offset, null_count=null_count)


def struct_schema(p, fields):
    return p.schema("+s", "", [p.schema(fmt, name) for name, fmt, _ in fields])


def record_batch(p, fields, offset=0, child_offset=0, valid=None):
    length = len(fields[0][2])
    return ArrowObject(lambda: (struct_schema(p, fields),
                                make_struct(p, fields, length, offset, child_offset, valid)))


def record_batch_stream(p, fields_per_chunk, offsets=None, fail=None):
    offsets = offsets or [0] * len(fields_per_chunk)
    chunks = [(lambda f=f, o=o: make_struct(p, f, len(f[0][2]), o, child_offset=o % 5))
              for f, o in zip(fields_per_chunk, offsets)]
    return ArrowStream(p, lambda: struct_schema(p, fields_per_chunk[0]), chunks, fail)


# --- What a row holds ---------------------------------------------------------------------------

TIME_UNITS = {"s": 10**9, "m": 10**6, "u": 10**3, "n": 1}


def expected(fmt, v):
    """A value of format `fmt` as msgpack.unpackb(..., timestamp=0) gives it back."""
    if v is None:
        return None
    if fmt.startswith("ts"):
        return msgpack.Timestamp.from_unix_nano(v * TIME_UNITS[fmt[2]])
    if fmt == "tdD":
        return msgpack.Timestamp(v * 86400, 0)
    if fmt == "tdm":
        return msgpack.Timestamp.from_unix_nano(v * 10**6)
    return v


def row(fields):
    """A row as stored: the fields in order, the nulls at its end left out."""
    fields = list(fields)
    while fields and fields[-1] is None:
        fields.pop()
    return fields


def get(db_table, key):
    return msgpack.unpackb(bytes(db_table.get(key)), timestamp=0, raw=False)


def open_table(builder, table="t"):
    return drydb.open_bytes(builder.build_bytes()).table(table)


# --- Every accepted format, with nulls and slices -----------------------------------------------

ACCEPTED = [
    ("b", [True, None, False, True, False, None, True, True, False, True]),
    ("c", [-128, 127, None, 0, -1]),
    ("C", [0, 255, None, 7]),
    ("s", [-32768, 32767, None, 5]),
    ("S", [0, 65535, None, 9]),
    ("i", [-2**31, 2**31 - 1, None, 3]),
    ("I", [0, 2**32 - 1, None, 4]),
    ("l", [-2**63, 2**63 - 1, None, 6]),
    ("L", [0, 2**64 - 1, None, 2**63]),
    ("f", [1.5, -2.25, None, 0.0]),
    ("g", [3.141592653589793, -1e300, None, 0.1]),
    ("u", ["", "héllo", None, "x" * 40]),
    ("U", ["a", None, "", "zz"]),
    ("z", [b"\x00\xff", b"", None, b"bin"]),
    ("Z", [None, b"big", b"\x01"]),
    ("w:3", [b"abc", None, b"\x00\x00\x00", b"x\x00y"]),
    ("w:0", [b"", None, b""]),
    ("tss:", [0, -1, None, 1_700_000_000]),
    ("tsm:UTC", [1_700_000_000_123, -1, None]),
    ("tsu:Europe/Paris", [1_700_000_000_123_456, None, -1]),
    ("tsn:", [1_700_000_000_123_456_789, -1, None]),
    ("tdD", [0, 19_000, None, -1]),
    ("tdm", [86_400_000, None, -1]),
    ("n", [None, None, None]),
]


@pytest.mark.parametrize("offset", [0, 3, 13])
@pytest.mark.parametrize("fmt,values", ACCEPTED, ids=[f for f, _ in ACCEPTED])
def test_each_accepted_format_as_a_column(producer, fmt, values, offset):
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    column = arrow_array(producer, fmt, values, offset)
    keys = np.arange(len(values), dtype=np.int64)
    assert t.append_columns(keys, columns={"v": column}) == len(values)
    assert column.exports == 1
    got = open_table(b)
    for i, v in enumerate(values):
        assert get(got, i) == row([expected(fmt, v)]), (fmt, i)


def test_a_record_batch_of_every_format(producer):
    n = 4
    fields = [("id", "l", [10, 11, 12, 13])]
    for k, (fmt, values) in enumerate(ACCEPTED):
        fields.append(("f%d" % k, fmt, (values * n)[:n]))
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    assert t.append_columns("id", columns=record_batch(producer, fields, offset=5,
                                                       child_offset=2)) == n
    got = open_table(b)
    for i in range(n):
        assert get(got, 10 + i) == row(expected(fmt, values[i]) for _, fmt, values in fields)


def test_null_count_and_the_validity_bitmap(producer):
    # null_count 0: no nulls, whatever a bitmap says; -1 (not counted): the bitmap says; no
    # bitmap: no nulls.
    values = struct.pack("<4i", 1, 2, 3, 4)
    cases = [(0, b"\x00", [[1], [2], [3], [4]]), (-1, b"\x05", [[1], [], [3], []]),
             (-1, b"\x0f", [[1], [2], [3], [4]]), (0, None, [[1], [2], [3], [4]])]
    for null_count, bits, rows in cases:
        b = drydb.Builder()
        t = b.create_table("t", "int64")
        column = ArrowObject(lambda: (producer.schema("i"),
                                      producer.array(4, [bits, values], null_count=null_count)))
        t.append_columns(np.arange(4), columns={"v": column})
        got = open_table(b)
        assert [get(got, i) for i in range(4)] == rows


def test_arrow_keys_of_each_kind(producer):
    # int64 keys from every integer format; bytes keys from text and binary, sliced.
    for fmt in ("c", "S", "i", "L"):
        b = drydb.Builder()
        t = b.create_table("t", "int64")
        t.append_columns(arrow_array(producer, fmt, [1, 2, 3], offset=3),
                         columns={"v": np.array([1.0, 2.0, 3.0])})
        assert get(open_table(b), 2) == [2.0]
    for fmt, keys in (("u", ["a", "bb", "ccc"]), ("U", ["x", "", "z"]),
                      ("z", [b"\x00", b"\xff", b"k"]), ("w:2", [b"ab", b"cd", b"ef"])):
        b = drydb.Builder()
        t = b.create_table("t", "bytes")
        t.append_columns(arrow_array(producer, fmt, keys, offset=11), columns={"v": [1, 2, 3]})
        got = open_table(b)
        for i, k in enumerate(keys):
            assert get(got, k.encode() if isinstance(k, str) else k) == [i + 1]


def test_a_null_key_is_refused(producer):
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    with pytest.raises(drydb.InvalidArgumentError, match="null"):
        t.append_columns(arrow_array(producer, "l", [1, None, 3]), columns={"v": [1, 2, 3]})
    assert t.rows == 0


# --- Struct arrays: the struct's own nulls, slices ---------------------------------------------


@pytest.mark.parametrize("offset,child_offset", [(0, 0), (9, 0), (3, 6), (0, 17)])
def test_struct_nulls_make_every_field_null(producer, offset, child_offset):
    fields = [("id", "l", [1, 2, 3, 4, 5, 6]),
              ("name", "u", ["a", None, "c", "d", "e", "f"]),
              ("flag", "b", [True, False, None, True, False, True]),
              ("at", "tsu:", [1, 2, 3, None, 5, 6])]
    valid = [True, True, False, True, False, True]
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    t.append_columns(arrow_array(producer, "l", [1, 2, 3, 4, 5, 6]),
                     columns=record_batch(producer, fields[1:], offset, child_offset, valid))
    got = open_table(b)
    for i in range(6):
        want = [None if not valid[i] else expected(fmt, vals[i]) for _, fmt, vals in fields[1:]]
        assert get(got, i + 1) == row(want)


def test_the_key_column_of_a_record_batch(producer):
    # keys named among the columns: the table's column list takes the batch's names, the key
    # column the key's; a text key column stores nil where it equals the key.
    fields = [("name", "u", ["ann", "bob", "cy"]), ("id", "l", [7, 8, 9])]
    b = drydb.Builder()
    t = b.create_table("t", "bytes")
    assert t.append_columns("name", columns=record_batch(producer, fields)) == 3
    got = open_table(b)
    assert get(got, b"bob") == [None, 8]


# --- Streams --------------------------------------------------------------------------------


def chunked_fields():
    chunks = []
    base = 0
    for n in (5, 0, 9, 4):
        ids = list(range(base, base + n))
        base += n
        chunks.append([
            ("id", "l", ids),
            ("b", "b", [None if i % 4 == 1 else i % 3 == 0 for i in ids]),
            ("i", "i", [None if i % 5 == 2 else -i for i in ids]),
            ("g", "g", [i / 4 for i in ids]),
            ("u", "u", [None if i % 3 == 2 else "s%d" % i for i in ids]),
            ("U", "U", ["L%d" % i for i in ids]),
            ("z", "z", [b"\x00" * (i % 3) if i % 7 else None for i in ids]),
            ("w", "w:2", [bytes([i, i + 1]) for i in ids]),
            ("ts", "tsm:", [None if i == 3 else i * 1000 + 1 for i in ids]),
            ("d", "tdD", [i - 5 for i in ids]),
            ("n", "n", [None for _ in ids]),
        ])
    return chunks


def test_a_chunked_stream_is_joined(producer):
    chunks = chunked_fields()
    stream = record_batch_stream(producer, chunks, offsets=[0, 3, 11, 7])
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    assert t.append_columns("id", columns=stream) == 18
    assert len(stream.states) == 1 and stream.states[0].given == len(chunks)
    got = open_table(b)
    for chunk in chunks:
        for r in range(len(chunk[0][2])):
            want = [expected(fmt, values[r]) for _, fmt, values in chunk]
            assert get(got, chunk[0][2][r]) == row(want)


def test_a_stream_of_one_chunk_and_a_chunked_column(producer):
    one = record_batch_stream(producer, chunked_fields()[2:3], offsets=[6])
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    assert t.append_columns("id", columns=one) == 9
    # A chunked array (a stream of plain arrays) as one column: chunks sliced, with nulls.
    parts = [["a", None, "c"], [], ["d", "e"], [None]]
    column = ArrowStream(producer, lambda: producer.schema("u", "x"),
                         [(lambda v=v, o=o: make_array(producer, "u", v, o))
                          for v, o in zip(parts, (0, 2, 5, 9))])
    u = b.create_table("u", "int64")
    assert u.append_columns(np.arange(6), columns={"x": column}) == 6
    got = open_table(b, "u")
    assert [get(got, i) for i in range(6)] == [["a"], [], ["c"], ["d"], ["e"], []]


def test_an_empty_stream_appends_nothing(producer):
    fields = [("id", "l", []), ("name", "u", []), ("w", "w:4", []), ("d", "tdD", []),
              ("flag", "b", []), ("n", "n", [])]
    stream = ArrowStream(producer, lambda: struct_schema(producer, fields), [])
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    assert t.append_columns("id", columns=stream) == 0
    assert len(open_table(b)) == 0


def test_a_stream_error_raises_its_message(producer):
    stream = record_batch_stream(producer, chunked_fields(), fail=("get_next", 5, "disk on fire"))
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    with pytest.raises(OSError, match="disk on fire") as raised:
        t.append_columns("id", columns=stream)
    assert raised.value.errno == 5
    failing = ArrowStream(producer, lambda: struct_schema(producer, chunked_fields()[0]), [],
                          fail=("get_schema", 22, "no schema today"))
    with pytest.raises(OSError, match="no schema today"):
        t.append_columns("id", columns=failing)
    assert t.rows == 0


def test_chunks_that_disagree_with_the_schema(producer):
    good = chunked_fields()[0]
    fewer = good[:3]
    stream = ArrowStream(producer, lambda: struct_schema(producer, good),
                         [lambda: make_struct(producer, good, 5),
                          lambda: make_struct(producer, fewer, 5)])
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    with pytest.raises(ValueError, match="children"):
        t.append_columns("id", columns=stream)
    # A chunk of the schema's field count whose child has the wrong buffers for its format.
    wrong = ArrowStream(producer, lambda: struct_schema(producer, good[:2]),
                        [lambda: make_struct(producer, good[:2], 5),
                         lambda: producer.array(5, [None], children=[
                             make_array(producer, "l", range(5)),
                             make_array(producer, "u", ["a"] * 5)])])
    with pytest.raises(ValueError, match="buffers"):
        t.append_columns("id", columns=wrong)
    assert t.rows == 0


class Both:
    """An object with both methods: the array is taken, the stream never asked for."""

    def __init__(self, array):
        self.array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self.array.__arrow_c_array__(requested_schema)

    def __arrow_c_stream__(self, requested_schema=None):
        raise AssertionError("the stream was asked for")


def test_the_array_is_preferred_to_the_stream(producer):
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    t.append_columns(np.arange(2), columns={"v": Both(arrow_array(producer, "i", [4, 5]))})
    assert get(open_table(b), 1) == [5]


# --- Refusals -----------------------------------------------------------------------------------

REFUSED = [
    ("e", "half float"), ("vu", "string view"), ("vz", "binary view"), ("d:10,2", "decimal"),
    ("d:40,2,256", "decimal"), ("tts", "time of day"), ("ttn", "time of day"),
    ("tDs", "duration"), ("tiM", "interval"), ("+l", "list"), ("+L", "large list"),
    ("+vl", "list view"), ("+w:2", "fixed-size list"), ("+m", "map"),
    ("+ud:0,1", "dense union"), ("+us:0", "sparse union"), ("+r", "run-end encoded"),
    ("+s", "struct in a struct"), ("x", "unknown"),
]


@pytest.mark.parametrize("fmt,kind", REFUSED, ids=[f for f, _ in REFUSED])
def test_refused_formats_name_the_column(producer, fmt, kind):
    bad_child = producer.schema(fmt, "x")
    batch = ArrowObject(lambda: (producer.schema("+s", "", [producer.schema("l", "id"),
                                                            bad_child]),
                                 producer.array(2, [None], children=[
                                     make_array(producer, "l", [1, 2]),
                                     producer.array(2, [None, b"\0" * 16])])))
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    message = "column 'x': Arrow format '%s' (%s) is not one drydb takes" % (fmt, kind)
    with pytest.raises(TypeError) as raised:
        t.append_columns("id", columns=batch)
    assert str(raised.value) == message
    assert t.rows == 0


def test_dictionary_arrays_are_refused(producer):
    column = ArrowObject(lambda: (producer.schema("i", "x", dictionary=producer.schema("u")),
                                  make_array(producer, "i", [0, 1])))
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    # An array's messages name its Arrow field (the import knows no other name).
    with pytest.raises(TypeError, match=r"column 'x': Arrow format 'i' \(dictionary-encoded"):
        t.append_columns(np.arange(2), columns={"v": column})
    # In a stream too, where nothing is read past the schema.
    stream = ArrowStream(producer, lambda: producer.schema("+s", "", [
        producer.schema("l", "id"), producer.schema("s", "x", dictionary=producer.schema("u"))]),
        [lambda: make_struct(producer, [("id", "l", [1]), ("x", "s", [0])], 1)])
    with pytest.raises(TypeError, match="column 'x'.*dictionary"):
        t.append_columns("id", columns=stream)


# --- Malformed arrays ---------------------------------------------------------------------------


def malformed_cases(p):
    yield "buffers", lambda: (p.schema("u"), p.array(2, [None, struct.pack("<3i", 0, 1, 2)]))
    yield "buffers", lambda: (p.schema("i"), p.array(2, [None, b"\0" * 8, b""]))
    yield "has 1 buffer", lambda: (p.schema("+s", "", [p.schema("i", "v")]),
                              p.array(1, [None, None], children=[make_array(p, "i", [1])]))
    yield "values buffer is NULL", lambda: (p.schema("i"), p.array(2, [None, None]))
    yield "values buffer is NULL", lambda: (p.schema("b"), p.array(2, [None, None]))
    yield "offsets buffer is NULL", lambda: (p.schema("z"), p.array(2, [None, None, b"ab"]))
    yield "data buffer is NULL", lambda: (p.schema("u"),
                                          p.array(2, [None, struct.pack("<3i", 0, 1, 2), None]))
    yield "no validity", lambda: (p.schema("i"), p.array(2, [None, b"\0" * 8], null_count=1))
    yield "offset -1", lambda: (p.schema("i"), p.array(2, [None, b"\0" * 8], offset=-1))
    yield "no children", lambda: (p.schema("i"), p.array(1, [None, b"\0" * 4],
                                                         children=[make_array(p, "i", [1])]))
    yield "children", lambda: (p.schema("+s", "", [p.schema("i", "v"), p.schema("i", "w")]),
                               p.array(1, [None], children=[make_array(p, "i", [1])]))
    # A child shorter than its struct reads.
    yield "struct reads up to 3", lambda: (p.schema("+s", "", [p.schema("i", "v")]),
                                           p.array(2, [None], offset=1,
                                                   children=[make_array(p, "i", [1, 2])]))
    yield "has no width", lambda: (p.schema("w:x"), p.array(1, [None, b"abc"]))


def test_malformed_arrays_raise_value_error(producer):
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    for match, make in malformed_cases(producer):
        with pytest.raises(ValueError, match=match):
            t.append_columns(np.arange(2), columns={"v": ArrowObject(make)})
    assert t.rows == 0


def test_a_released_array_and_wrong_capsules(producer):
    def released():
        schema, array = producer.schema("i"), make_array(producer, "i", [1, 2])
        array.release(ctypes.pointer(array))
        return schema, array

    b = drydb.Builder()
    t = b.create_table("t", "int64")
    with pytest.raises(ValueError, match="released"):
        t.append_columns(np.arange(2), columns={"v": ArrowObject(released)})

    class WrongName:
        def __arrow_c_array__(self, requested_schema=None):
            return (capsule(producer.schema("i"), b"other"),
                    capsule(make_array(producer, "i", [1, 2]), b"arrow_array"))

    class NotAPair:
        def __arrow_c_array__(self, requested_schema=None):
            return capsule(producer.schema("i"), b"arrow_schema")

    with pytest.raises(TypeError, match="arrow_schema"):
        t.append_columns(np.arange(2), columns={"v": WrongName()})
    with pytest.raises(TypeError, match="pair"):
        t.append_columns(np.arange(2), columns={"v": NotAPair()})


def test_every_struct_is_released_once_after_a_failed_append(producer):
    # The checks happen in the fixture; here the builder refuses the batch itself (a column of
    # another length), after the import kept every capsule and chunk.
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    stream = ArrowStream(producer, lambda: producer.schema("i", "v"),
                         [lambda: make_array(producer, "i", [1, None]),
                          lambda: make_array(producer, "i", [3, 4, 5], offset=2)])
    with pytest.raises(drydb.InvalidArgumentError, match="5 rows"):
        t.append_columns(np.arange(3), columns={"v": stream})
    with pytest.raises(drydb.InvalidArgumentError):
        t.append_columns(arrow_array(producer, "l", [1, 2]),
                         columns=record_batch(producer, [("v", "u", ["a", "b", "c"])]))
    assert t.rows == 0


def test_an_unnamed_array_in_messages(producer):
    b = drydb.Builder()
    t = b.create_table("t", "int64")
    with pytest.raises(TypeError) as raised:
        t.append_columns(np.arange(2), columns={"v": ArrowObject(
            lambda: (producer.schema("vu"), producer.array(0, [None, b"", b""])))})
    assert str(raised.value) == \
        "an unnamed column: Arrow format 'vu' (string view) is not one drydb takes"
