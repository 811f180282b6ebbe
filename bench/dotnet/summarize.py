#!/usr/bin/env python3
"""Writes the Markdown section of docs/benchmarks.md for the .NET benchmarks from BenchmarkDotNet's
full JSON reports (bench/dotnet/Drydb.Benchmarks, JsonExporter.Full): per workload, the median
time per query of each store and shape, the bytes each allocates per query, and each store's
time as a multiple of drydb's."""
import argparse
import glob
import json
import os

STORES = [("Drydb", "drydb"), ("DrydbAsync", "drydb (async)"), ("Lmdb", "LightningDB"),
          ("RocksDb", "RocksDB"), ("Sqlite", "SQLite (immutable, prepared)"),
          ("PublicGet", "Get (the package)"), ("CApiGet", "drydb_table_get called directly"),
          ("TrivialCall", "a trivial C call"), ("TrivialCallNoTransition", "a trivial C call, no GC transition")]
WORKLOADS = [
    ("FindByKey", "Get, one key again and again (FindByKey)"),
    ("RandomKeys", "Get, present keys in random order (RandomKeys)"),
    ("ParallelSpread", "Get, 8 threads of spread keys, 10,000 rows (ParallelSpread)"),
    ("Range100", "Range of 100 rows"),
    ("Count8000", "Count of 8,000 rows"),
    ("OpenAndFirstRead", "Open the file and read one key, 10,000 rows (OpenAndFirstRead)"),
]


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.3g} ns"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("results", nargs="+",
                    help="BenchmarkDotNet's results folders (a later one's figures replace an earlier one's)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", required=True)
    args = ap.parse_args()
    rows = {}  # (workload, shape) -> store -> (median ns, bytes per op)
    paths = [p for folder in args.results for p in sorted(glob.glob(os.path.join(folder, "*-report-full.json")))]
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        for b in report["Benchmarks"]:
            shape = b.get("Parameters", "").replace("Shape=", "") or "dense_10k"
            stats = b.get("Statistics") or {}
            if "Median" not in stats:
                continue
            memory = b.get("Memory") or {}
            rows.setdefault((b["Type"], shape), {})[b["Method"]] = (
                stats["Median"], memory.get("BytesAllocatedPerOperation", 0))
    md = ["## .NET package", "",
          "drydb's .NET package (`Drydb`) beside LightningDB (LMDB), RocksDB's .NET package and",
          "Microsoft.Data.Sqlite (immutable, statements prepared once), all from NuGet, in one",
          "BenchmarkDotNet run on .NET 10 (in-process, 3 warm-up and 7 measured iterations of 200 ms).",
          "Time per query, median; allocated bytes per query in brackets; in the last columns each",
          "store's time as a multiple of drydb's. Shapes as in the C++ suite above (1,000,000 rows,",
          "13-byte values, 4 KiB pages; dense_10k is the C# DryDB's own 10,000-row table).",
          f"Command: `{args.command}`.", ""]
    for workload, title in WORKLOADS + [("Overhead", "Where a get's time goes (dense_10k, random keys)")]:
        shapes = [s for (w, s) in rows if w == workload]
        if not shapes:
            continue
        stores = [(m, n) for m, n in STORES if any(m in rows[(workload, s)] for s in shapes)]
        others = [(m, n) for m, n in stores if m in ("Lmdb", "RocksDb", "Sqlite")]
        md += [f"### {title}", "",
               "| shape | " + " | ".join([n for _, n in stores] + [f"{n} ÷ drydb" for _, n in others]) + " |",
               "|---|" + "--:|" * (len(stores) + len(others))]
        order = ["dense_10k", "dense_1M", "random_1M", "clustered_1M", "url_1M", "names"]
        for shape in sorted(shapes, key=lambda s: order.index(s) if s in order else 99):
            cells = rows[(workload, shape)]
            line = [shape]
            for m, _ in stores:
                if m in cells:
                    ns, alloc = cells[m]
                    line.append(f"{fmt_time(ns)} ({alloc:.0f} B)")
                else:
                    line.append("")
            base = cells.get("Drydb", cells.get("PublicGet", (None, 0)))[0]
            for m, _ in others:
                line.append(f"{cells[m][0] / base:.1f}×" if base and m in cells else "")
            md.append("| " + " | ".join(line) + " |")
        md.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
