"""Columnar builds from Python: TableBuilder.append_columns and drydb.build_from_frame on a pandas
DataFrame, beside `drydb build` of the same rows written as JSON Lines, in one process each.

    /usr/bin/python3 bench/frame_build_bench.py --package build/release/python/package \\
        --cli build/release/tools/drydb/drydb [--rows 1000000] [--rounds 5] [--out FILE.md]

The frame: `rows` rows {"id": int64 in a random order, "qty": int64, "price": float64,
"name": str of 10 characters}. Measured per round, interleaved: the append_columns call alone
(rows per second of append time), a whole build_from_frame to a file, and `drydb build` of the
JSON Lines file (the same records, int64 keys). Every timed build writes its file to the same
folder; the frame and the JSON Lines file are read once before each round so that their pages
are resident. Medians are reported.
"""

import json
import os
import statistics
import tempfile
import time

import pybench


def main():
    args = pybench.arguments(__doc__, rounds=5).parse_args()
    pybench.use_package(args.package)
    import numpy
    import pandas

    import drydb

    n = args.rows
    rng = numpy.random.default_rng(7)
    ids = rng.permutation(n).astype(numpy.int64)
    frame = pandas.DataFrame({
        "id": ids,
        "qty": (ids * 7919) % 1000,
        "price": rng.random(n) * 100,
        "name": pandas.Series(["user %05d" % (i % 100000) for i in ids], dtype=object),
    })
    with tempfile.TemporaryDirectory(prefix="drydb-frame-bench-") as folder:
        jsonl = os.path.join(folder, "rows.jsonl")
        with open(jsonl, "w") as f:
            for record in frame.itertuples(index=False):
                f.write(json.dumps({"id": int(record.id), "qty": int(record.qty),
                                    "price": float(record.price), "name": record.name}) + "\n")
        append_s, frame_s, cli_s = [], [], []
        for _ in range(args.rounds):
            # Touch the inputs: the VM reclaims pages idle for a minute.
            frame.memory_usage(deep=True).sum()
            with open(jsonl, "rb") as f:
                while f.read(1 << 20):
                    pass
            b = drydb.Builder()
            t = b.create_table("rows", "int64")
            start = time.perf_counter()
            t.append_columns("id", columns=frame)
            append_s.append(time.perf_counter() - start)
            del b, t

            start = time.perf_counter()
            drydb.build_from_frame(frame, os.path.join(folder, "frame.drydb"), key="id")
            frame_s.append(time.perf_counter() - start)

            cli_s.append(pybench.time_cli_build(args.cli, os.path.join(folder, "cli.drydb"), jsonl))
        sizes = {name: os.path.getsize(os.path.join(folder, name))
                 for name in ("frame.drydb", "cli.drydb")}

    a, f, c = (statistics.median(x) for x in (append_s, frame_s, cli_s))
    lines = [
        "| %s rows | median s | rows/s |" % format(n, ","),
        "|---|--:|--:|",
        "| `append_columns` (the call alone) | %.3f | %s |" % (a, format(int(n / a), ",")),
        "| `build_from_frame` (append, sort, write) | %.3f | %s |" % (f, format(int(n / f), ",")),
        "| `drydb build` of the rows as JSON Lines | %.3f | %s |" % (c, format(int(n / c), ",")),
        "",
        "build_from_frame / drydb build: %.2fx the speed; files %s and %s bytes (column-list rows "
        "against MessagePack maps)." % (c / f, format(sizes["frame.drydb"], ","),
                                        format(sizes["cli.drydb"], ",")),
    ]
    pybench.report(lines, args.out)


if __name__ == "__main__":
    main()
