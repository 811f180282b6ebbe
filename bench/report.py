#!/usr/bin/env python3
"""Writes docs/benchmarks.md and one SVG bar chart per workload from drydb_bench's JSON output.

Called by scripts/bench.sh; standard library only. Every figure is a median (and best) over the
interleaved repetitions of the run, in ns per query (the counter sec_per_query: wall time over
all threads' queries). Ratios are peer / drydb: above 1, drydb is that many times faster.

  python3 bench/report.py RESULTS.json --out docs --command "scripts/bench.sh ..."
      [--compiler "g++ 12.2"] [--callgrind FILE] [--csv-size FILE] [--python FILE]
"""

import argparse
import datetime
import html
import json
import math
import os
import platform
import re
import statistics
import subprocess

# Display order and colours of the stores.
STORES = ["drydb", "vector", "std_map", "btree_map", "flat_hash_map", "marisa", "hat_trie",
          "sqlite_fair", "sqlite_default", "sqlite", "lmdb", "rocksdb", "os_floor"]
STORE_LABELS = {
    "drydb": "drydb",
    "drydb_mf": "drydb, miss filter",
    "drydb_mem": "drydb, in memory",
    "drydb_pread": "drydb, pread",
    "drydb_sharded": "drydb, 8 shards",
    "vector": "vector (lower_bound)",
    "std_map": "std::map",
    "btree_map": "absl::btree_map",
    "flat_hash_map": "absl::flat_hash_map",
    "marisa": "marisa-trie",
    "hat_trie": "HAT-trie",
    "sqlite_fair": "SQLite fair",
    "sqlite_default": "SQLite default",
    "sqlite": "SQLite",
    "lmdb": "LMDB",
    "rocksdb": "RocksDB*",
    "os_floor": "OS floor (open, mmap, 4 pages, munmap)",
}
# The in-memory baselines (no storage engine) share one colour.
IN_MEMORY = ["vector", "std_map", "btree_map", "flat_hash_map", "marisa", "hat_trie"]
COLOURS = {"drydb": "#d95f02", **{s: "#7570b3" for s in IN_MEMORY}}
PEER_COLOUR = "#1b9e77"

# Workloads in report order: (name, title, what one query is).
WORKLOADS = [
    ("FindByKey", "Get, same key (10,000 rows)", "1 query = a get of key 123 (1 op = 1,000 gets)"),
    ("RandomKeys", "Get, random keys (10,000 rows)",
     "1 query = a get; 1 op = 1,000 keys of the original's LCG, re-seeded every op"),
    ("RandomKeysNoRepeat", "Get, random keys, no repeat (10,000 rows)",
     "1 query = a get; the LCG's seed carried from op to op"),
    ("Parallel", "Get, one hot key, threads",
     "1 query = a get of key 123 on every thread; ns per query over all threads (1/throughput)"),
    ("ParallelSpread", "Get, spread keys, threads",
     "1 query = a get; thread t reads keys (t*1000 + 7i) mod 10,000; ns per query over all threads"),
    ("Range", "Range of 100 rows (10,000 rows)",
     "1 query = rows 2,000..2,099 read in order, every value's bytes folded"),
    ("Count", "Count of 8,000 rows (10,000 rows)",
     "1 query = the number of rows in 1,000..8,999 (peers without O(log n) counts walk them)"),
    ("OpenAndFirstRead", "Open and first read (10,000 rows)",
     "1 query = open the file, get key 123, close (file already in the OS cache)"),
    ("RandomKeys_1M", "Get, random keys (1,000,000 rows)", "as RandomKeys, keys mod 1,000,000"),
    ("RandomKeysNoRepeat_1M", "Get, random keys, no repeat (1,000,000 rows)",
     "as RandomKeysNoRepeat, keys mod 1,000,000"),
    ("Range_1M", "Range of 100 rows (1,000,000 rows)", "1 query = rows 500,000..500,099"),
    ("StringKeys_100k", "Get, 16-byte text keys (100,000 rows, 100-byte values)",
     "1 query = a get; 1,000 keys from the LCG per op"),
    ("Build_1M_sorted", "Build 1,000,000 rows, sorted input",
     "1 query = one row of a durable build (13-byte values), input already in memory"),
    ("Build_1M_shuffled", "Build 1,000,000 rows, shuffled input", "as above, keys in random order"),
]


def parse_name(run_name):
    """'Parallel/drydb/real_time/threads:2' -> ('Parallel', 'drydb', 2)."""
    parts = run_name.split("/")
    threads = None
    for p in parts[2:]:
        m = re.fullmatch(r"threads:(\d+)", p)
        if m:
            threads = int(m.group(1))
    return parts[0], parts[1], threads


def load(paths):
    """The runs of every JSON file in paths (the suite's, then the 100M shapes' runs), and the
    context of the first that has one."""
    benchmarks, context = [], {}
    for path in paths:
        with open(path) as f:
            text = f.read()
        # A filter that matched no benchmark (--filter Python, say) leaves an empty file.
        data = json.loads(text) if text.strip() else {"benchmarks": []}
        benchmarks += data["benchmarks"]
        context = context or data.get("context", {})
    runs = {}  # (workload, threads) -> store -> {"ns": [...], "file_bytes": [...], ...}
    errors = {}
    for b in benchmarks:
        if b.get("run_type") != "iteration":
            continue
        # Benchmarks outside the <workload>/<store> suite (FilterColdScan, which the README's
        # page-filter section reports) carry no sec_per_query.
        if "sec_per_query" not in b and not b.get("error_occurred"):
            continue
        workload, store, threads = parse_name(b["run_name"])
        key = (workload, threads)
        if b.get("error_occurred"):
            errors.setdefault(key, {})[store] = b.get("error_message", "error")
            continue
        r = runs.setdefault(key, {}).setdefault(
            store, {"ns": [], "cpu_ns": [], "file_bytes": [], "rows_per_second": []})
        ns = b["sec_per_query"] * 1e9
        r["ns"].append(ns)
        # CPU time per query (over all threads): wall time scaled by the CPU the run got.
        if b.get("real_time"):
            r["cpu_ns"].append(ns * b["cpu_time"] / b["real_time"])
        for c in ("file_bytes", "rows_per_second"):
            if c in b:
                r[c].append(b[c])
    return context, runs, errors


def med(values):
    return statistics.median(values) if values else None


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.3g} ns"


def fmt_ratio(r):
    if r is None:
        return "–"
    return f"{r:.3g}×" if r < 100 else f"{r:,.0f}×"


def workload_key_name(workload, threads):
    return workload if threads is None else f"{workload}_t{threads}"


def ordered_stores(stores):
    return sorted(stores, key=lambda s: (STORES.index(s) if s in STORES else len(STORES), s))


# --- SVG --------------------------------------------------------------------------------------


def svg_chart(title, subtitle, groups):
    """groups: [(heading or None, [(store, median_ns, best_ns)])] -> a horizontal bar chart on a
    log axis, each group's bars under its heading."""
    left, right, top, bar_h, gap, head_h = 170, 90, 56, 22, 8, 24
    width = 760
    plot_w = width - left - right
    height = top + sum((head_h if h else 0) + len(rows) * (bar_h + gap) for h, rows in groups) + 40
    values = [v for _, rows in groups for _, m, b in rows for v in (m, b) if v]
    lo = 10 ** math.floor(math.log10(min(values)))
    hi = 10 ** math.ceil(math.log10(max(values)))
    if hi <= lo:
        hi = lo * 10

    def x(v):
        return left + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="20" font-size="15" font-weight="bold">{html.escape(title)}</text>',
        f'<text x="10" y="38" fill="#555555">{html.escape(subtitle)}</text>',
    ]
    axis_y = height - 40
    decade = lo
    while decade <= hi * 1.0001:
        gx = x(decade)
        out.append(f'<line x1="{gx:.1f}" y1="{top - 4}" x2="{gx:.1f}" y2="{axis_y}" '
                   f'stroke="#dddddd"/>')
        out.append(f'<text x="{gx:.1f}" y="{axis_y + 14}" text-anchor="middle" '
                   f'fill="#555555">{html.escape(fmt_ns(decade))}</text>')
        decade *= 10
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{axis_y + 30}" text-anchor="middle" '
               f'fill="#555555">ns per query, log scale; bar = median, tick = best</text>')
    y = top
    for heading, rows in groups:
        if heading:
            out.append(f'<text x="10" y="{y + head_h * 0.65:.1f}" font-weight="bold">'
                       f'{html.escape(heading)}</text>')
            y += head_h
        for store, m, b in rows:
            colour = COLOURS.get(store, PEER_COLOUR)
            out.append(f'<text x="{left - 8}" y="{y + bar_h * 0.7:.1f}" text-anchor="end">'
                       f'{html.escape(STORE_LABELS.get(store, store))}</text>')
            out.append(f'<rect x="{left}" y="{y}" width="{max(x(m) - left, 1):.1f}" '
                       f'height="{bar_h}" fill="{colour}"/>')
            if b:
                out.append(f'<line x1="{x(b):.1f}" y1="{y - 2}" x2="{x(b):.1f}" '
                           f'y2="{y + bar_h + 2}" stroke="#000000" stroke-width="2"/>')
            out.append(f'<text x="{x(m) + 6:.1f}" y="{y + bar_h * 0.7:.1f}">'
                       f'{html.escape(fmt_ns(m))}</text>')
            y += bar_h + gap
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- targets (design.md §5 and the benchmark issue) ------------------------------------------


def targets(runs):
    """[(target, measured on wall-time medians, the same on CPU-time medians, met)]; met is
    judged on wall time, None for a row that only informs."""

    def ns(workload, store, threads=None, metric="ns"):
        r = runs.get((workload, threads), {}).get(store)
        return med(r[metric]) if r and r[metric] else None

    def extra(workload, store, counter):
        r = runs.get((workload, None), {}).get(store)
        return med(r[counter]) if r and r[counter] else None

    rows = []

    def ratio(num, den, metric):
        n, d = ns(*num, metric=metric), ns(*den, metric=metric)
        return n / d if n and d else None

    def add(label, num, den, want, at_most, unit):
        wall, cpu = ratio(num, den, "ns"), ratio(num, den, "cpu_ns")
        if wall is None:
            return
        ok = wall <= want if at_most else wall >= want

        def text(r):
            if r is None:
                return "–"
            if unit == "faster" and r < 1:
                return f"{fmt_ratio(1 / r)} slower"
            return f"{fmt_ratio(r)} {unit}"

        rows.append((label, text(wall), text(cpu), ok))

    def faster(label, workload, peer, want):
        add(label, (workload, peer), (workload, "drydb"), want, False, "faster")

    def at_most(label, workload, base, want):
        add(label, (workload, "drydb"), (workload, base), want, True, "its time")

    at_most("get 10k RandomKeys ≤ 1.5× lower_bound's time", "RandomKeys", "vector", 1.5)
    faster("get 10k RandomKeys ≥ 10× faster than LMDB", "RandomKeys", "lmdb", 10)
    faster("get 10k RandomKeys ≥ 25× faster than SQLite fair", "RandomKeys", "sqlite_fair", 25)
    faster("get 10k RandomKeys ≥ 50× faster than RocksDB*", "RandomKeys", "rocksdb", 50)
    faster("get 10k NoRepeat ≥ 2× faster than lower_bound", "RandomKeysNoRepeat", "vector", 2)
    faster("get 10k NoRepeat ≥ 5× faster than LMDB", "RandomKeysNoRepeat", "lmdb", 5)
    faster("get 1M NoRepeat no slower than lower_bound", "RandomKeysNoRepeat_1M", "vector", 1)
    faster("get 1M NoRepeat ≥ 4× faster than LMDB", "RandomKeysNoRepeat_1M", "lmdb", 4)
    at_most("100-row range ≤ 3× the vector walk's time", "Range", "vector", 3)
    faster("100-row range ≥ 5× faster than LMDB", "Range", "lmdb", 5)
    faster("100-row range ≥ 25× faster than SQLite fair", "Range", "sqlite_fair", 25)
    faster("100-row range ≥ 50× faster than RocksDB*", "Range", "rocksdb", 50)
    add("count of 8,000 rows ≤ 3× one get (RandomKeys)", ("Count", "drydb"), ("RandomKeys", "drydb"),
        3, True, "a get")
    faster("count ≥ 1000× faster than SQLite fair", "Count", "sqlite_fair", 1000)
    faster("count ≥ 1000× faster than LMDB", "Count", "lmdb", 1000)
    for w in ("Parallel", "ParallelSpread"):
        one, two = ns(w, "drydb", 1), ns(w, "drydb", 2)
        if one and two:
            base1, base2 = ns(w, "vector", 1), ns(w, "vector", 2)
            note = f" (vector: {fmt_ratio(base1 / base2)})" if base1 and base2 else ""
            rows.append((f"{w}: 2 threads ≥ 1.8× one thread's throughput",
                         f"{fmt_ratio(one / two)}{note}", "–", one / two >= 1.8))
    for peer in ("sqlite_default", "sqlite_fair", "lmdb"):
        faster(f"open + first read ≥ 5× faster than {STORE_LABELS[peer]}", "OpenAndFirstRead", peer, 5)
    add("open + first read ≤ 1.3× the OS floor (open, mmap, 4 page reads, munmap, close)",
        ("OpenAndFirstRead", "drydb"), ("OpenAndFirstRead", "os_floor"), 1.3, True, "the floor")
    faster("build 1M sorted ≥ 3× faster than SQLite", "Build_1M_sorted", "sqlite", 3)
    faster("build 1M sorted ≥ 1.5× faster than LMDB (MDB_APPEND)", "Build_1M_sorted", "lmdb", 1.5)
    faster("build 1M shuffled no slower than LMDB", "Build_1M_shuffled", "lmdb", 1)
    d, s = extra("Build_1M_sorted", "drydb", "file_bytes"), extra("Build_1M_sorted", "sqlite", "file_bytes")
    if d and s:
        rows.append(("file (1M rows) no larger than SQLite's", f"{d / 1e6:.2f} MB vs {s / 1e6:.2f} MB",
                     "–", d <= s))
    return rows


# --- key shapes (bench/shapes.h) ---------------------------------------------------------------

SHAPES = [("dense_1M", "dense ids 0..N-1"), ("random_1M", "uniform random int64"),
          ("clustered_1M", "clustered timestamps"), ("url_1M", "URL-like text (26-byte prefix)"),
          ("names", "Unicode character names"), ("words", "English words"),
          ("dense_16M", "dense ids, 16M"),
          ("random_16M", "uniform random int64, 16M"), ("clustered_16M", "clustered timestamps, 16M"),
          ("dense_100M", "dense ids, 100M"), ("random_100M", "uniform random int64, 100M"),
          ("clustered_100M", "clustered timestamps, 100M")]
SHAPE_WORKLOADS = ["Get", "GetMany", "Miss", "Scan", "Count"]
SHAPE_STORES = ["drydb", "drydb_mf", "drydb_mem", "drydb_pread", "drydb_sharded", "vector", "btree_map",
                "flat_hash_map", "marisa", "hat_trie", "lmdb", "rocksdb", "sqlite_fair"]
# drydb_mf: the same tables with a miss filter of 10 bits per key, point lookups only.
# drydb_mem: drydb's files opened with StorageKind::memory (read whole into huge-page memory).
# drydb_pread: drydb's files opened with StorageKind::pread (its 64 MiB page cache); 100M only.
# drydb_sharded: the same rows as a dataset of 8 range shards (ShardedDatabase), no GetMany.
# flat_hash_map, marisa, hat_trie: point lookups only (a hash has no order; marisa lists keys in
# its own order; the HAT-trie has no ordered search); marisa and hat_trie: text shapes only.
SHAPE_POINT_ONLY = {"drydb_mf", "flat_hash_map", "marisa", "hat_trie"}
TEXT_SHAPES = ("url_1M", "names", "words")


def is_shape_workload(name):
    return any(name.startswith(w + "_") for w in SHAPE_WORKLOADS)


def shape_section(runs, errors, svg_dir):
    """Per shape: ns per query of every workload and store, each workload's chart across the
    shapes (into svg_dir), the file sizes, and the targets."""

    def ns(workload, shape, store):
        r = runs.get((f"{workload}_{shape}", None), {}).get(store)
        return med(r["ns"]) if r and r["ns"] else None

    def size(shape, store):
        r = runs.get((f"Get_{shape}", None), {}).get(store)
        return med(r["file_bytes"]) if r and r["file_bytes"] else None

    def best(workload, shape, store):
        r = runs.get((f"{workload}_{shape}", None), {}).get(store)
        return min(r["ns"]) if r and r["ns"] else None

    present = [(s, t) for s, t in SHAPES if any(ns(w, s, "drydb") for w in SHAPE_WORKLOADS)]
    if not present:
        return []
    # The words shape joined the suite after some runs: its sentence only where the run has it.
    words = ("the words: every word of Debian's wamerican, about 104,000; "
             if any(s == "words" for s, _ in present) else "")
    md = ["## Key shapes", "",
          "1,000,000 rows per shape (the names: every character name of Debian's unicode-data, about",
          f"35,000; {words}the integer shapes also at 16,000,000 and 100,000,000), 13-byte values, 4 KiB",
          "pages (bench/shapes.h). The 100M-row shapes run apart, one per process, in drydb (mapped,",
          "and through its page cache: pread), the vector and LMDB only. Get: every key once, in",
          "random order (at 100M, a random 16.8M of the keys);",
          "Miss: absent keys between present ones (dense: outside the range); Scan: 100",
          "rows from a present key; Count: a range of 8,000 rows. ns per query, medians; SQLite in its",
          "fair setup. In-memory baselines (bench/map_store.h, id_store.h): absl::btree_map walks its",
          "rows for a count; absl::flat_hash_map, marisa-trie and the HAT-trie answer gets and misses",
          "only, the last two on the text shapes only.", ""]
    for w in SHAPE_WORKLOADS:
        stores = [s for s in SHAPE_STORES if w in ("Get", "GetMany", "Miss") or s not in SHAPE_POINT_ONLY]
        md += [f"### {w}", "", "| shape | " + " | ".join(STORE_LABELS[s] for s in stores) + " |",
               "|---|" + "--:|" * len(stores)]
        for shape, title in present:
            md.append(f"| {title} | " + " | ".join(fmt_ns(ns(w, shape, st)) for st in stores) + " |")
        md.append("")
        groups = [(title, [(st, ns(w, shape, st), best(w, shape, st)) for st in stores
                           if ns(w, shape, st)]) for shape, title in present]
        groups = [(title, rows) for title, rows in groups if rows]
        if groups:
            svg_name = f"shapes_{w}.svg"
            with open(os.path.join(svg_dir, svg_name), "w") as f:
                f.write(svg_chart(f"{w}, every key shape", "ns per query, per shape and store",
                                  groups))
            md += [f"![{w}, every key shape](bench/{svg_name})", ""]
    # Stores with files of their own (drydb_mem and drydb_pread read drydb's).
    sized = [s for s in SHAPE_STORES if s not in IN_MEMORY and s not in ("drydb_mem", "drydb_pread")]
    md += ["### File size", "", "| shape | " + " | ".join(STORE_LABELS[s] for s in sized) + " |",
           "|---|" + "--:|" * len(sized)]
    for shape, title in present:
        md.append(f"| {title} | " + " | ".join(
            f"{size(shape, st) / 1e6:.2f} MB" if size(shape, st) else "–"
            for st in sized) + " |")
    md.append("")

    # The targets of the key-shape issues, per shape: (label, numerator, denominator, bound,
    # at_most[, the shapes it applies to]). A ratio is numerator / denominator of the medians; a
    # bound may depend on the shape (a function of it).
    int_shapes = tuple(s for s, _ in SHAPES if s not in TEXT_SHAPES)
    checks = [
        ("integers: get ≥ 2× faster than lower_bound", ("Get", "vector"), ("Get", "drydb"), 2, False,
         int_shapes),
        ("text: get ≥ 1.5× faster than lower_bound", ("Get", "vector"), ("Get", "drydb"), 1.5, False,
         TEXT_SHAPES),
        ("get ≥ 3× faster than LMDB", ("Get", "lmdb"), ("Get", "drydb"), 3, False),
        ("miss, with a filter, ≥ 2× faster than RocksDB* (bloom)", ("Miss", "rocksdb"), ("Miss", "drydb_mf"), 2,
         False),
        ("miss, without one, ≥ 2× faster than LMDB", ("Miss", "lmdb"), ("Miss", "drydb"), 2, False),
        ("scan ≤ 1.5× the vector walk", ("Scan", "drydb"), ("Scan", "vector"), 1.5, True),
        ("scan ≥ 3× faster than LMDB", ("Scan", "lmdb"), ("Scan", "drydb"), 3, False),
        ("count ≤ 3× a get", ("Count", "drydb"), ("Get", "drydb"), 3, True),
        ("get_many ≥ 2× the throughput of single gets (3× from 16M)", ("Get", "drydb"), ("GetMany", "drydb"),
         lambda shape: 3 if shape.endswith(("_16M", "_100M")) else 2, False),
        ("in memory: integers: get ≥ 2× faster than lower_bound", ("Get", "vector"), ("Get", "drydb_mem"), 2,
         False, int_shapes),
        ("in memory: text: get ≥ 1.5× faster than lower_bound", ("Get", "vector"), ("Get", "drydb_mem"), 1.5,
         False, TEXT_SHAPES),
        ("in memory: get ≥ 3× faster than LMDB", ("Get", "lmdb"), ("Get", "drydb_mem"), 3, False),
        ("in memory: scan ≥ 3× faster than LMDB", ("Scan", "lmdb"), ("Scan", "drydb_mem"), 3, False),
        ("8 shards: get ≤ 1.2× one file's", ("Get", "drydb_sharded"), ("Get", "drydb"), 1.2, True),
        ("8 shards: count ≤ 3× one file's", ("Count", "drydb_sharded"), ("Count", "drydb"), 3, True),
        ("text: get ≥ 2× faster than absl::btree_map", ("Get", "btree_map"), ("Get", "drydb"), 2, False,
         TEXT_SHAPES),
        ("text: get ≤ 2.5× absl::flat_hash_map's time", ("Get", "drydb"), ("Get", "flat_hash_map"), 2.5,
         True, TEXT_SHAPES),
    ]
    md += ["### Targets per shape", "",
           "Ratios of medians from this run; \"faster\" rows read peer ÷ drydb, the others drydb ÷ base.", "",
           "| target | " + " | ".join(t for _, t in present) + " |", "|---|" + "--:|" * len(present)]
    for label, (wn, sn), (wd, sd), bound, at_most, *applies in checks:
        cells = []
        for shape, _ in present:
            if applies and shape not in applies[0]:
                cells.append("–")
                continue
            a, b = ns(wn, shape, sn), ns(wd, shape, sd)
            if not a or not b:
                cells.append("–")
                continue
            r = a / b
            limit = bound(shape) if callable(bound) else bound
            ok = r <= limit if at_most else r >= limit
            cells.append(f"{fmt_ratio(r)}" + ("" if ok else " **no**"))
        md.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for shape, _ in present:
        d, r = size(shape, "drydb"), size(shape, "rocksdb")
        text = shape in TEXT_SHAPES
        if not text or not d or not r:
            cells.append("–")
        else:
            cells.append(f"{d / r:.2f}×" + ("" if d <= 1.1 * r else " **no**"))
    md.append("| text: file ≤ 1.1× RocksDB's | " + " | ".join(cells) + " |")
    md.append("")
    failed = [(w, st, e) for (w, _), by_store in sorted(errors.items()) if is_shape_workload(w)
              for st, e in sorted(by_store.items())]
    if failed:
        md += ["Benchmarks that failed (no figure above):", ""]
        md += [f"- `{w}/{st}`: {e}" for w, st, e in failed]
        md.append("")
    return md


# --- the report ---------------------------------------------------------------------------------


def machine():
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "unknown"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                    break
    except OSError:
        pass
    return cpu, os.cpu_count(), mem, f"{platform.system()} {platform.release()}"


def package_version(name):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def caches(context):
    out = []
    for c in context.get("caches", []):
        size = c["size"] / 1024
        size = f"{size / 1024:.0f} MiB" if size >= 1024 else f"{size:.0f} KiB"
        name = f"L{c['level']}{'d' if c['type'] == 'Data' else 'i' if c['type'] == 'Instruction' else ''}"
        out.append(f"{name} {size}" + (f" shared by {c['num_sharing']}" if c["num_sharing"] > 1 else ""))
    return ", ".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+", help="drydb_bench's JSON output, one file per run")
    ap.add_argument("--out", required=True, help="folder for benchmarks.md and bench/*.svg")
    ap.add_argument("--command", required=True, help="the command that produced the results")
    ap.add_argument("--compiler", default="")
    ap.add_argument("--callgrind", default="", help="file of 'store workload instructions' lines")
    ap.add_argument("--csv-size", default="", help="the Markdown table scripts/csv_size.sh printed")
    ap.add_argument("--python", default="", help="the Markdown section bench/python_bench.py wrote")
    ap.add_argument("--dask", default="", help="the Markdown section bench/dask_build_bench.py wrote")
    ap.add_argument("--dotnet", default="", help="the Markdown section bench/dotnet/summarize.py wrote")
    ap.add_argument("--shipped", default="",
                    help="hand-measured Markdown on the shipped library (bench/shipped_library.md)")
    ap.add_argument("--notes", default="",
                    help="hand-written Markdown on the key-shape targets, shown after their table")
    ap.add_argument("--seconds", type=int, default=0, help="how long the benchmark run took")
    ap.add_argument("--commit", default="", help="the source tree measured (git describe)")
    args = ap.parse_args()

    context, runs, errors = load(args.results)
    svg_dir = os.path.join(args.out, "bench")
    os.makedirs(svg_dir, exist_ok=True)
    for old in os.listdir(svg_dir):  # charts of workloads no longer in the run
        if old.endswith(".svg"):
            os.remove(os.path.join(svg_dir, old))
    cpu, cores, mem, system = machine()
    reps = max((len(s["ns"]) for w in runs.values() for s in w.values()), default=0)
    date = context.get("date", datetime.datetime.now().isoformat(timespec="seconds"))

    md = [
        "# drydb benchmarks",
        "",
        "<!-- Generated by scripts/bench.sh from drydb_bench's JSON output: do not edit by hand. -->",
        "",
        "drydb against SQLite, LMDB and RocksDB (each in its fastest fair read-only setup, described in",
        "its source under `bench/`) and against in-memory baselines, on the C# DryDB's reference",
        "workload: int64 keys 0..N-1, 13-byte values `val%010d`, 4 KiB pages; 10,000 rows, and",
        "1,000,000 for the `_1M` workloads. Every loop's answers are checksummed and checked.",
        "",
        "## How this was measured",
        "",
        f"- Date: {date}",
        f"- Machine: {cpu}, {cores} cores ({caches(context) or 'caches unknown'}), {mem} RAM, {system}; "
        "load average at start "
        f"{', '.join(f'{x:.2f}' for x in context.get('load_avg', [])) or 'unknown'} "
        "(a shared machine: other builds ran beside this one)",
        f"- Compiler: {args.compiler or 'unknown'}; drydb built Release (-O3), mmap storage",
        f"- Google Benchmark {package_version('libbenchmark-dev')} (Debian's, itself built "
        f"{context.get('library_build_type', 'unknown')}: that affects only its loop around each op "
        "of 100-1,000 queries)",
        f"- Peers: SQLite {context.get('sqlite', '–')}, {context.get('lmdb', 'LMDB –')}, "
        f"RocksDB {context.get('rocksdb', '–')}",
        f"- In-memory baselines: abseil {package_version('libabsl-dev')}, marisa-trie "
        f"{package_version('libmarisa-dev')}, HAT-trie {package_version('libhat-trie-dev')} (Debian's)",
        f"- Command: `{args.command}`" + (f", at commit {args.commit}" if args.commit else ""),
        f"- {reps} repetitions per benchmark, randomly interleaved; tables give the median and the best "
        "(lowest) repetition of ns per query (wall time; with threads, wall time over every thread's "
        "queries, i.e. 1 / throughput).",
        "- Ratio = the store's median ÷ drydb's median: above 1, drydb is that many times faster; below "
        "1, slower.",
        "- CPU = CPU time per query (median; over all threads): where it is well below the wall time, "
        "the run shared its cores with other work.",
        "- **\\* RocksDB is Debian's librocksdb 7.8.3, built with assertions enabled** (it imports "
        "`__assert_fail`); a release build of RocksDB would be somewhat faster than shown.",
        "",
        "Rerun with the command above"
        + (f" (the benchmarks ran in {args.seconds // 60} minutes here, then the CSV sizes and "
           "callgrind counts)" if args.seconds else "")
        + ", or a part of it with `scripts/bench.sh --filter Range`.",
        "",
    ]

    trows = targets(runs)
    if trows:
        md += ["## Targets (design.md §5)", "",
               "Judged on the wall-time medians; the same ratio on CPU-time medians beside it, as this",
               "shared machine's wall times carry the other builds' load.", "",
               "| target | measured (wall) | by CPU time | met |", "|---|---|---|:-:|"]
        for label, wall, cpu, ok in trows:
            met = "–" if ok is None else ("yes" if ok else "**no**")
            md.append(f"| {label} | {wall} | {cpu} | {met} |")
        md += ["", "Two-thread scaling on a 2-core machine shared with other builds is bounded by the",
               "cores free at the time; the vector baseline's scaling in the same run shows that bound.",
               "The count target compares with RandomKeys, a get of a random key.", ""]

    if args.callgrind and os.path.exists(args.callgrind):
        md += ["## Instructions per query (callgrind)", "",
               "`valgrind --tool=callgrind` over a fixed number of queries (bench/instr_count.cpp), "
               "10,000 rows (1,000,000 for get_random_1M); the LCG and the checksum are counted for both.",
               "",
               "| workload | drydb | vector | drydb ÷ vector |", "|---|--:|--:|--:|"]
        counts = {}
        with open(args.callgrind) as f:
            for line in f:
                p = line.split()
                if len(p) == 3:
                    counts[(p[0], p[1])] = float(p[2])
        for w in ("get_random", "get_same", "range", "count", "get_bytes", "seek_key", "seek_rank",
                  "index_get", "get_random_1M"):
            d, v = counts.get(("drydb", w)), counts.get(("vector", w))
            if d and v:
                md.append(f"| {w} | {d:,.0f} | {v:,.0f} | {d / v:.2f} |")
        md.append("")

    md += shape_section(runs, errors, svg_dir)
    if md[-1:] == [""] and args.notes and os.path.exists(args.notes) and any(
            is_shape_workload(w) for w, _ in runs):
        with open(args.notes) as f:
            md += [line.rstrip("\n") for line in f]
        md.append("")

    if args.csv_size and os.path.exists(args.csv_size):
        md += ["## File size of a table built from CSV", "",
               "`scripts/csv_size.sh`: one generated CSV built by `drydb build` and imported by "
               "`sqlite3 .import` into a `WITHOUT ROWID` table, then vacuumed. drydb's rows of a "
               "column list take the field bytes, a one-byte array header, one byte per string "
               "field's header and a nil for the key column; what remains above SQLite is each "
               "row's 8-byte key head and 2-byte record offset, which the in-page search reads, "
               "where SQLite keeps an integer key as a varint of 1 to 4 bytes.", ""]
        with open(args.csv_size) as f:
            md += [line.rstrip("\n") for line in f if line.strip()]
        md.append("")

    for section in (args.python, args.dask, args.dotnet, args.shipped):
        if section and os.path.exists(section):
            with open(section) as f:
                md += [line.rstrip("\n") for line in f]
            md.append("")

    md += ["## Results", ""]
    keys = []
    for name, _, _ in WORKLOADS:
        threads = sorted({t for (w, t) in list(runs) + list(errors) if w == name}, key=lambda t: t or 0)
        keys += [(name, t) for t in threads]
    known = {name for name, _, _ in WORKLOADS}
    keys += sorted(k for k in set(runs) | set(errors)
                   if k[0] not in known and not is_shape_workload(k[0]))
    info = {name: (title, what) for name, title, what in WORKLOADS}
    for key in keys:
        name, threads = key
        title, what = info.get(name, (name, ""))
        if threads is not None:
            title = f"{title}: {threads}"
        stores = runs.get(key, {})
        errs = errors.get(key, {})
        d = med(stores["drydb"]["ns"]) if "drydb" in stores else None
        is_build = name.startswith("Build")
        md += [f"### {title} (`{workload_key_name(name, threads)}`)", "", what, ""]
        head = "| store | median | best | ratio | CPU |"
        sep = "|---|--:|--:|--:|--:|"
        if is_build:
            head += " rows/s | file |"
            sep += "--:|--:|"
        md += [head, sep]
        chart_rows = []
        for s in ordered_stores(set(stores) | set(errs)):
            if s in errs:
                md.append(f"| {STORE_LABELS.get(s, s)} | error: {errs[s]} | | | |" + (" | |" if is_build else ""))
                continue
            m, b = med(stores[s]["ns"]), min(stores[s]["ns"])
            ratio = fmt_ratio(m / d) if d and s != "drydb" else ("1×" if s == "drydb" else "–")
            row = (f"| {STORE_LABELS.get(s, s)} | {fmt_ns(m)} | {fmt_ns(b)} | {ratio} | "
                   f"{fmt_ns(med(stores[s]['cpu_ns']))} |")
            if is_build:
                rps, fb = med(stores[s]["rows_per_second"]), med(stores[s]["file_bytes"])
                row += f" {rps / 1e6:.2f} M |" if rps else " – |"
                row += f" {fb / 1e6:.2f} MB |" if fb else " – |"
            md.append(row)
            chart_rows.append((s, m, b))
        if chart_rows:
            svg_name = f"{workload_key_name(name, threads)}.svg"
            with open(os.path.join(svg_dir, svg_name), "w") as f:
                f.write(svg_chart(title, what, [(None, chart_rows)]))
            md += ["", f"![{title}](bench/{svg_name})", ""]
        else:
            md.append("")

    with open(os.path.join(args.out, "benchmarks.md"), "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
