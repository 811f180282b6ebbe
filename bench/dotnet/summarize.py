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
    ap.add_argument("--capi-entry",
                    help="drydb_capi_entry_bench's JSON (bench/capi_entry_bench.cpp): the same gets "
                         "called from C, entered with clean and with dirty upper vector state")
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
    if args.capi_entry:
        md += capi_entry_section(args.capi_entry, rows.get(("Overhead", "dense_10k"), {}))
    with open(args.out, "w") as f:
        f.write("\n".join(md))


def capi_entry_section(path, overhead):
    """The C caller's gets beside the package's: the package's get as a multiple of the C call's
    time, and the C call entered as .NET's JIT may leave the vector registers."""
    with open(path) as f:
        report = json.load(f)
    medians = {}
    for b in report["benchmarks"]:
        if b.get("aggregate_name") == "median":
            # Per query: the benchmark's iteration is 1,000 gets.
            medians[b["run_name"]] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]] / 1000
    md = ["### The C API's entry from a caller that uses AVX", "",
          "The same gets (dense_10k, random keys) through `drydb_table_get` called from C",
          "(`drydb_capi_entry_bench`, bench/capi_entry_bench.cpp), entered with clean vector state and",
          "with the upper halves of the vector registers dirty, as .NET's JIT and code built for AVX",
          "leave them; the C API clears that state at entry (vzeroupper), so both must take the same",
          "time. Median CPU time per get.", "",
          "| call | time per get |", "|---|--:|"]
    names = [("CApiGet/clean", "drydb_table_get, clean entry"),
             ("CApiGet/dirty_upper", "drydb_table_get, dirty upper vector state"),
             ("CApiGetCopy/clean", "drydb_table_get_copy (holds the database for the call)"),
             ("TrivialCall/clean", "a trivial C call"),
             ("TrivialCall/dirty_upper", "a trivial C call, dirty upper vector state")]
    for key, label in names:
        if key in medians:
            md.append(f"| {label} | {fmt_time(medians[key])} |")
    md.append("")
    clean = medians.get("CApiGet/clean")
    if clean and "PublicGet" in overhead:
        md += [f"The package's `Get` ({fmt_time(overhead['PublicGet'][0])}, above) takes "
               f"{overhead['PublicGet'][0] / clean:.2f}× the C caller's clean get.", ""]
    return md


if __name__ == "__main__":
    main()
