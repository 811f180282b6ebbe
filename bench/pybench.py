"""What the Python benches (python_bench.py, frame_build_bench.py, dask_build_bench.py) share:
their command line, the drydb package they import, and the Markdown section they print and write.
Imported from the bench's own folder (Python puts a script's folder first on sys.path)."""

import argparse
import os
import subprocess
import sys
import time


def arguments(doc, rounds, cli=True, package_required=True):
    """The parser a bench adds its own options to: --package (the folder holding the built drydb
    package), --cli (the drydb tool, when `cli`), --rows, --rounds (default `rounds`) and --out
    (a file for the Markdown section). Its description is the first paragraph of `doc`."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--package", required=package_required, default="",
                    help="the folder holding the built drydb package")
    if cli:
        ap.add_argument("--cli", required=True, help="the drydb tool")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--out", default="")
    return ap


def use_package(folder):
    """Makes `import drydb` find the package in `folder` before any installed one (none when
    `folder` is empty)."""
    if folder:
        sys.path.insert(0, os.path.abspath(folder))


def time_cli_build(cli, out, jsonl):
    """Seconds that `drydb build` (the tool `cli`) takes to write `out` from the JSON Lines file
    `jsonl`, each record under its `id` as an int64 key."""
    start = time.perf_counter()
    subprocess.run([cli, "build", out, "-i", jsonl, "--key", "id", "--key-encoding", "int64", "-q"],
                   check=True)
    return time.perf_counter() - start


def report(lines, out):
    """Prints the Markdown section `lines` and, when `out` names a file, writes it there too."""
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text)
