"""drydb: build immutable key/value files once, then read them fast.

    import drydb

    builder = drydb.Builder()
    items = builder.create_table("items")            # bytes keys, memcmp order
    items.append(b"key1", b"value1")
    builder.build("items.drydb")

    with drydb.open("items.drydb") as db:
        items = db.table("items")
        items.get(b"key1")                           # b"value1", or None
        for key, value in items.range(b"key1", b"key3"):
            ...

Keys are typed by their table's key encoding: int for "int64", bytes (or str, as UTF-8) for
"bytes", uuid.UUID for "uuid_v7", str for "ulid". Values are bytes (memoryviews with
copy=False, MessagePack-decoded with decode="msgpack"). Errors are drydb.Error subclasses, one
per library error code; an absent key is never an error, except for table[key] (KeyError).
Sharded datasets (docs/sharding.md) open with drydb.open_dataset (drydb.follow_dataset to follow
their CURRENT generation under load), and build with Dask through drydb.dask.build_dataset. See
docs/python.md.
"""

from ._drydb import (  # noqa: F401  (the package's API)
    BadMagicError,
    Builder,
    CorruptionError,
    Cursor,
    Database,
    Dataset,
    DatasetCursor,
    DatasetIndex,
    DatasetIndexRange,
    DatasetRange,
    DatasetTable,
    DuplicateKeyError,
    DuplicateNameError,
    Error,
    Index,
    IndexRange,
    InvalidArgumentError,
    InvalidStateError,
    IoError,
    KeyTooLongError,
    LiveDataset,
    NotFoundError,
    OutOfMemoryError,
    Range,
    Table,
    TableBuilder,
    TruncatedError,
    UnknownEncodingError,
    UnknownFilterError,
    UnsupportedVersionError,
    Value,
    ValueTooLargeError,
    WrongKeyTypeError,
    diff,
    follow_dataset,
    open,
    open_bytes,
    open_dataset,
)

from ._columns import append_columns as _append_columns, build_from_frame  # noqa: F401
from ._json_lines import read_json_lines  # noqa: F401

TableBuilder.append_columns = _append_columns

__all__ = [name for name in dir() if not name.startswith("_")]
