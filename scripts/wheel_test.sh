#!/usr/bin/env bash
# The Python package as a wheel, the way a Dask cluster's workers get it (docs/python.md, "A wheel
# for a cluster's workers"): builds the wheel with Debian's interpreter (pyproject.toml, setup.py:
# nothing fetched), self-contained as scripts/shipped.sh builds the extension (zstd, lz4, xxHash
# and simdjson from scripts/deps.sh and the C++ runtime linked in; scripts/check_shipped.py
# checks the extension in the wheel), installs it offline into a fresh virtual environment that
# sees Debian's packages, and runs a program outside the checkout with that environment's python
# and the system's copies of those libraries hidden (scripts/hide_system_libs.sh): it builds a
# file, reads it back and checks that drydb came from the environment. Then, in a second fresh
# environment, the docs' InstallWheel plugin installs the wheel on a LocalCluster of two worker
# processes on 127.0.0.1, which then run drydb.dask.build_dataset.
#
#   scripts/wheel_test.sh
#
# CMake's build stays in build/wheel/ (setup.py), so a second run compiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset PYTHONPATH

bash scripts/deps.sh linux-x64
export DRYDB_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$root/build/deps/linux-x64 -DDRYDB_STATIC_RUNTIME=ON${DRYDB_CMAKE_ARGS:+ $DRYDB_CMAKE_ARGS}"
"$python" -m pip wheel --no-build-isolation --no-deps --no-index -w "$work/dist" .
wheels=("$work"/dist/drydb-*.whl)
if [ ${#wheels[@]} -ne 1 ]; then
  echo "wheel_test.sh: expected one wheel, got ${wheels[*]}" >&2
  exit 1
fi
wheel=${wheels[0]}
mkdir "$work/unpacked"
"$python" -m zipfile -e "$wheel" "$work/unpacked"
"$python" scripts/check_shipped.py --exports '^PyInit__drydb$' "$work"/unpacked/drydb/_drydb*.so

# 1. pip install in a fresh environment, then a program run from outside the checkout.
"$python" -m venv --system-site-packages "$work/env"
"$work/env/bin/python" -m pip install -q --no-index "$wheel"
mkdir "$work/run"
cat >"$work/run/quickstart.py" <<'PY'
import sys
from pathlib import Path

import drydb
import drydb.dask  # noqa: F401  (its dependencies, msgpack among them, import too)

# The installed package, not a source tree's.
assert Path(drydb.__file__).is_relative_to(sys.prefix), drydb.__file__

builder = drydb.Builder(compression="zstd")
items = builder.create_table("items")
items.append_many([(b"apple", b"fruit:red"), (b"basil", b"herb:green"),
                   (b"apricot", b"fruit:orange"), (b"banana", b"fruit:yellow")])
items.add_index("kind", key=lambda key, value: value.split(b":")[0])
orders = builder.create_table("orders", "int64")
for i in range(10_000):
    orders.append(i * 7, b"order %d" % i)
builder.build("items.drydb")

with drydb.open("items.drydb") as db:
    items = db.table("items")
    assert items.get(b"apple") == b"fruit:red"
    assert items.get(b"cherry") is None
    assert list(items.range(b"apricot", b"banana")) == [(b"apricot", b"fruit:orange"),
                                                        (b"banana", b"fruit:yellow")]
    assert [k for k, _ in items.index("kind").get_all(b"fruit")] == [b"apple", b"apricot",
                                                                      b"banana"]
    orders = db.table("orders")
    assert len(orders) == 10_000 and orders[7 * 1234] == b"order 1234"
    assert orders.count_range(0, 699) == 100
print("wheel_test.sh: the installed wheel builds and reads a file")
PY
(cd "$work/run" && bash "$root/scripts/hide_system_libs.sh" "$work/env/bin/python" quickstart.py)

# 2. The docs' plugin installs the wheel on running workers whose environment lacks drydb.
"$python" -m venv --system-site-packages "$work/cluster-env"
mkdir "$work/cluster"
cat >"$work/cluster/cluster.py" <<'PY'
import importlib.util
import sys
from pathlib import Path

docs, wheel = sys.argv[1], sys.argv[2]
# The plugin as docs/python.md defines it, defined here in __main__ (shipped by value).
text = Path(docs).read_text()
block = next(b for b in text.split("```python\n") if "class InstallWheel(NannyPlugin)" in b)
exec(compile(block[:block.index("```")], docs, "exec"))


def on_worker():
    # Runs in each worker: the package it imports, and a file it builds and reads with it.
    import os
    import tempfile

    import drydb
    with tempfile.TemporaryDirectory() as folder:
        builder = drydb.Builder()
        builder.create_table("t", "int64").append(1, b"one")
        builder.build(os.path.join(folder, "t.drydb"))
        with drydb.open(os.path.join(folder, "t.drydb")) as db:
            assert db.table("t")[1] == b"one"
    return drydb.__file__


if __name__ == "__main__":
    from distributed import Client, LocalCluster

    assert importlib.util.find_spec("drydb") is None, "drydb is there before the plugin ran"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.register_worker_plugin(InstallWheel(wheel), nanny=True)  # noqa: F821 (the docs')
        files = client.run(on_worker)
        assert len(files) == 2, files
        for file in files.values():
            assert Path(file).is_relative_to(sys.prefix), file

        # The client shares the workers' environment here: it has drydb now too.
        import dask.dataframe as dd
        import pandas

        import drydb
        from drydb.dask import build_dataset
        rows = dd.from_pandas(pandas.DataFrame({"id": range(1000),
                                                "name": ["n%d" % i for i in range(1000)]}),
                              npartitions=4)
        assert build_dataset(rows, "ds", key="id", key_encoding="int64", shards=3,
                             client=client) == 1
        with drydb.open_dataset("ds") as ds:
            assert ds.shard_count == 3
            table = ds.table("rows", decode="msgpack")
            assert len(table) == 1000 and table.get(999)["name"] == "n999"
    print("wheel_test.sh: InstallWheel installed the wheel on 2 workers, which built a dataset")
PY
# Restarting a worker fails its heartbeat in flight, which distributed logs as an error with two
# tracebacks: its logs are quiet here; what fails reaches the client as an exception.
(cd "$work/cluster" && DASK_LOGGING__DISTRIBUTED=critical \
  "$work/cluster-env/bin/python" cluster.py "$root/docs/python.md" "$wheel")
