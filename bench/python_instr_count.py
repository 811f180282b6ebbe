"""A fixed mix of queries through the Python package, for callgrind's instruction count of the
binding layer: gets, counts, short ranges and prefixes over an int64 table and a bytes table of
20,000 rows each. Callgrind cannot toggle on a Python function, so the per-pass count is the
difference of two whole-process runs:

    PYTHONHASHSEED=0 valgrind --tool=callgrind /usr/bin/python3 bench/python_instr_count.py PACKAGE_DIR 3
    PYTHONHASHSEED=0 valgrind --tool=callgrind /usr/bin/python3 bench/python_instr_count.py PACKAGE_DIR 1

(the first total minus the second, halved; the fixed hash seed makes the counts repeat). PACKAGE_DIR holds the built package (the build
tree's python/package); the database is written once to FOLDER (default: the system's temp
folder) and reused."""

import os
import sys
import tempfile


def build(drydb, path):
    builder = drydb.Builder()
    ints = builder.create_table("ints", "int64")
    text = builder.create_table("text", "bytes")
    for i in range(20000):
        ints.append(i, b"v%012d" % i)
        text.append("key%08d" % i, b"v%012d" % i)
    builder.build(path)


def one_pass(ints, text):
    """2,858 rounds of: a get, a count of 51 rows, a 3-row range, a prefix's first row."""
    n = 0
    for i in range(0, 20000, 7):
        n += len(ints.get(i))
        n += ints.count_range(i, i + 50)
        for _key, _value in ints.range(i, i + 3):
            n += 1
        for _key, _value in text.prefix("key0000%d" % (i % 10)):
            n += 1
            break
    return n


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python_instr_count.py PACKAGE_DIR PASSES [FOLDER]")
    sys.path.insert(0, sys.argv[1])
    import drydb

    folder = sys.argv[3] if len(sys.argv) == 4 else tempfile.gettempdir()
    path = os.path.join(folder, "python_instr_count.drydb")
    if not os.path.exists(path):
        build(drydb, path)
    with drydb.open(path) as db:
        ints, text = db.table("ints"), db.table("text")
        total = 0
        for _ in range(int(sys.argv[2])):
            total = one_pass(ints, text)
        print(total)


if __name__ == "__main__":
    main()
