"""The Dask build of a sharded dataset (drydb.dask.build_dataset) on a LocalCluster of 2 worker
processes on 127.0.0.1, beside `drydb build` of one file in one process, from the same JSON Lines
rows: rows per second of each, and where the Dask build's time goes (its tasks' compute time by
kind, summed over the workers, from Dask's task stream, and the wall time of each of its stages,
from build_dataset's stats).

    /usr/bin/python3 bench/dask_build_bench.py --package build/release/python/package \\
        --cli build/release/tools/drydb/drydb [--rows 1000000] [--shards 8] [--rounds 3] \\
        [--split-pieces N] [--out FILE.md]

The input: `rows` records {"id": int, "name": str, "score": int} in a random order of their ids,
written as 8 JSON Lines files (Dask reads one partition per file) and, for `drydb build`, as one
file of the same lines. `drydb build` stores each record as a MessagePack map under its int64
id, the Dask build as a MessagePack array of the table's column list (format 2.3; the same
record to a reader). Rounds alternate the two builds; the medians are reported. Writes a
Markdown section to --out, and prints it.
"""

import collections
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

import pybench


def write_input(folder, rows, files):
    rng = random.Random(7)
    ids = list(range(rows))
    rng.shuffle(ids)
    parts = [open(os.path.join(folder, "part-%02d.jsonl" % i), "w") for i in range(files)]
    with open(os.path.join(folder, "all.jsonl"), "w") as whole:
        for n, i in enumerate(ids):
            line = json.dumps({"id": i, "name": "user %07d" % i, "score": (i * 7919) % 1000}) + "\n"
            whole.write(line)
            parts[n % files].write(line)
    for p in parts:
        p.close()


def time_dask_build(client, folder, shards, build_dataset, get_task_stream, key_split):
    root = os.path.join(folder, "ds")
    shutil.rmtree(root, ignore_errors=True)
    stats = {}
    with get_task_stream(client) as ts:
        start = time.perf_counter()
        build_dataset(os.path.join(folder, "part-*.jsonl"), root, key="id", key_encoding="int64",
                      shards=shards, client=client, stats=stats)
        seconds = time.perf_counter() - start
    by_kind = collections.Counter()
    for task in ts.data:
        for ss in task.get("startstops", ()):
            if ss["action"] == "compute":
                by_kind[key_split(task["key"])] += ss["stop"] - ss["start"]
    return seconds, by_kind, stats["seconds"]


def main():
    ap = pybench.arguments(__doc__, rounds=3)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--split-pieces", type=int,
                    help="drydb.dask.SPLIT_PIECES for the run (0: every build through Dask's "
                         "shuffle); default the module's")
    args = ap.parse_args()
    pybench.use_package(args.package)
    os.environ["PYTHONPATH"] = os.pathsep.join([os.path.abspath(args.package)] + sys.path[1:])

    import distributed
    from dask.utils import key_split
    from distributed import get_task_stream

    import drydb.dask
    from drydb.dask import build_dataset
    if args.split_pieces is not None:
        drydb.dask.SPLIT_PIECES = args.split_pieces  # read by build_dataset, on the client

    folder = tempfile.mkdtemp(prefix="drydb-dask-bench-")
    try:
        write_input(folder, args.rows, 8)
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=None)
        client = distributed.Client(cluster)
        one, dask_times, kinds, stages = [], [], [], []
        for _ in range(args.rounds):
            one.append(pybench.time_cli_build(args.cli, os.path.join(folder, "one.drydb"),
                                              os.path.join(folder, "all.jsonl")))
            seconds, by_kind, by_stage = time_dask_build(client, folder, args.shards, build_dataset,
                                                         get_task_stream, key_split)
            dask_times.append(seconds)
            kinds.append(by_kind)
            stages.append(by_stage)
        client.close()
        cluster.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    one_s, dask_s = statistics.median(one), statistics.median(dask_times)
    median = dask_times.index(sorted(dask_times)[len(dask_times) // 2])
    median_round, median_stages = kinds[median], stages[median]
    total = sum(median_round.values())
    lines = [
        "## Building a sharded dataset with Dask", "",
        "`/usr/bin/python3 bench/dask_build_bench.py --package %s --cli %s --rows %d --shards %d "
        "--rounds %d%s`: %s rows of JSON Lines (`id`, `name`, `score`, ids in random order), each "
        "stored under its int64 id (by `drydb build` as a MessagePack map, by the Dask build as a "
        "row of its column list); medians of %d alternated rounds." % (
            args.package, args.cli, args.rows, args.shards, args.rounds,
            "" if args.split_pieces is None else " --split-pieces %d" % args.split_pieces,
            format(args.rows, ","), args.rounds), "",
        "| build | seconds | rows/s |", "|---|--:|--:|",
        "| `drydb build`, one file, one process | %.2f | %s |" % (one_s, format(int(args.rows / one_s), ",")),
        "| `drydb.dask.build_dataset`, %d shards, LocalCluster of 2 worker processes | %.2f | %s |" % (
            args.shards, dask_s, format(int(args.rows / dask_s), ",")),
        "",
        "Where the Dask build's time goes (the round of median time): compute time of its tasks "
        "by kind, summed over both workers (%.1f s in all; the rest of the wall time is the "
        "scheduler, transfers between the workers and the client's own steps):" % total, "",
        "| task kind | compute seconds | share |", "|---|--:|--:|",
    ]
    for kind, s in median_round.most_common(10):
        lines.append("| `%s` | %.2f | %.0f%% |" % (kind, s, 100 * s / total if total else 0))
    lines += ["", "The same round's stages, wall time (`build_dataset(stats=...)`: prepare makes "
              "the input's graph; persist reads and parses the input once; count and sample find "
              "the split keys; build moves each row to its shard (the split, or Dask's shuffle "
              "with --split-pieces 0) and builds the shards; publish checks and publishes):", "",
              "| stage | seconds |", "|---|--:|"]
    for stage, s in median_stages.items():
        lines.append("| %s | %.2f |" % (stage, s))
    pybench.report(lines, args.out)


if __name__ == "__main__":
    main()
