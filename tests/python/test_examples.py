"""examples/python/quickstart.py (docs/python.md's example) runs and prints what its comments say."""

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "quickstart.py"


def test_quickstart(tmp_path):
    out = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], capture_output=True,
                         text=True, check=True, env=dict(os.environ)).stdout.splitlines()
    assert out == [
        "b'fruit:red'",
        "None",
        "True 4",
        "[(b'apricot', b'fruit:orange'), (b'banana', b'fruit:yellow')]",
        "[b'apricot', b'apple']",
        "2",
        "[b'apple', b'apricot', b'banana']",
        "[b'fruit:red', None, b'herb:green']",
        "b'order of the day' [(-1, b'refund')]",
        "b'alice'",
        "b'banana' b'fruit:yellow'",
    ]
    assert (tmp_path / "items.drydb").exists()


def test_readme_python_block(tmp_path, monkeypatch):
    # The README's Python example runs as written, and its comments say what it gives.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("\n## Python\n"):]
    block = section[section.index("```python\n") + len("```python\n"):]
    block = block[:block.index("```")]
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    import drydb
    with drydb.open(tmp_path / "items.drydb") as db:
        items = db.table("items")
        for line in block.splitlines():
            if line.startswith("    items.") and "# " in line:
                expr, comment = line.strip().split("#", 1)
                want = comment.strip().split(";")[0]
                assert repr(eval(expr, {"items": items})) == want, line
