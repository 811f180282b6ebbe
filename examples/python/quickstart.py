"""drydb from Python: build a file with two tables and an index, then query it.

    /usr/bin/python3 examples/python/quickstart.py [FOLDER]

(tests/python/test_examples.py runs it.) Writes FOLDER/items.drydb (a temporary folder without
FOLDER) and prints what the queries found.
"""

import sys
import tempfile
import uuid
from pathlib import Path

import drydb


def main(folder):
    path = Path(folder) / "items.drydb"

    # Build once: rows in any order, the builder sorts them.
    builder = drydb.Builder(compression="zstd")
    items = builder.create_table("items")  # bytes keys, in byte order
    items.append_many([
        (b"apple", b"fruit:red"),
        (b"apricot", b"fruit:orange"),
        (b"basil", b"herb:green"),
        (b"banana", b"fruit:yellow"),
    ])
    # A secondary index: called with each row's key and value at build time.
    items.add_index("kind", key=lambda key, value: value.split(b":")[0])
    orders = builder.create_table("orders", "int64")  # int keys, in numeric order
    orders.append(-1, b"refund")
    orders.append(20261202, b"order of the day")
    sessions = builder.create_table("sessions", "uuid_v7")
    session = uuid.UUID("0190a3b4-5c6d-7e8f-9012-3456789abcde")
    sessions.append(session, b"alice")
    builder.build(path)

    # Then read, from as many threads as you like.
    with drydb.open(path) as db:
        items = db.table("items")
        print(items.get(b"apple"))  # b'fruit:red'
        print(items.get(b"cherry"))  # None: absence is not an error
        print(b"basil" in items, len(items))  # True 4
        print(list(items.range(b"apricot", b"banana")))  # both ends included
        print([key for key, _ in items.prefix(b"ap", reverse=True)])  # [b'apricot', b'apple']
        print(items.count_range(b"b", None))  # 2: rows from b"b" to the end
        print([key for key, _ in items.index("kind").get_all(b"fruit")])  # primary-key order
        print(items.get_many([b"apple", b"kiwi", b"basil"]))  # one call for many keys
        orders = db.table("orders")
        print(orders[20261202], list(orders.range(None, 0)))  # int keys
        print(db.table("sessions")[session])  # uuid.UUID keys
        cursor = items.cursor()
        cursor.seek(b"b")
        print(cursor.key, cursor.value)  # b'banana' b'fruit:yellow'


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as folder:
            main(folder)
