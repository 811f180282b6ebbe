"""Files written by Python read by the drydb tool, and files the tool built read by Python."""

import json
import subprocess
import uuid

import drydb


def run(cli, *args, input=None):
    return subprocess.run([cli, *args], input=input, capture_output=True, check=False)


def test_python_file_read_by_the_tool(tmp_path, cli):
    b = drydb.Builder(page_size=1024, compression="zstd")
    t = b.create_table("people", "int64")
    t.append_many((i, b"person %d" % i) for i in range(-50, 1000))
    t.add_index("by_tail", key=lambda k, v: v[-1:])
    u = b.create_table("ids", "uuid_v7")
    u.append(uuid.UUID("0190a3b4-0000-7000-8000-000000000001"), b"first")
    path = tmp_path / "py.drydb"
    b.build(path)
    assert run(cli, "verify", str(path)).returncode == 0
    got = run(cli, "get", str(path), "-t", "people", "--", "-7")
    assert (got.returncode, got.stdout) == (0, b"person -7\n")
    assert run(cli, "get", str(path), "-t", "people", "5000").returncode == 1
    got = run(cli, "count", str(path), "-t", "people", "-x", "by_tail", "3", "3")
    assert got.stdout.strip() == str(sum(1 for i in range(-50, 1000) if str(i).endswith("3"))).encode()
    got = run(cli, "get", str(path), "-t", "ids", "0190a3b4-0000-7000-8000-000000000001")
    assert got.stdout == b"first\n"
    # The dump holds every row as Python wrote it.
    dump = run(cli, "dump", str(path), "-t", "people")
    assert dump.returncode == 0
    rows = [json.loads(line) for line in dump.stdout.splitlines()]
    keyed = [r for r in rows if "key" in r and "value" in r]
    assert [(r["key"], r["value"]) for r in keyed] == [(i, "person %d" % i) for i in range(-50, 1000)]


def test_tool_file_read_by_python(tmp_path, cli):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "name": "n%d" % i, "group": "g%d" % (i % 3)}) + "\n"
                           for i in range(200)))
    path = tmp_path / "tool.drydb"
    built = run(cli, "build", str(path), "-i", str(src), "-k", "id", "--key-encoding", "int64",
                "--index", "group=group", "-q")
    assert built.returncode == 0, built.stderr
    with drydb.open(path) as db:
        (table,) = db.tables()
        assert len(table) == 200
        decoded = db.table(table.name, decode="msgpack")
        value = decoded[17]
        assert value["name"] == "n17" and value["group"] == "g2"
        ix = decoded.index("group")
        assert [k for k, _ in ix.get_all("g1")] == [i for i in range(200) if i % 3 == 1]
        db.verify()


def test_tool_csv_rows_decode_as_dicts(tmp_path, cli):
    # A CSV built by the tool stores rows of a column list (the key column nil, standing for the
    # key's text); decode="msgpack" gives them back as the dicts they stand for.
    src = tmp_path / "in.csv"
    src.write_text("id,name,score\n" + "".join("%d,n%d,%d\n" % (i, i, i * 10) for i in range(50)))
    path = tmp_path / "csv.drydb"
    built = run(cli, "build", str(path), "-i", str(src), "-k", "id", "--key-encoding", "int64", "-q")
    assert built.returncode == 0, built.stderr
    with drydb.open(path) as db:
        (table,) = db.tables()
        assert table.columns == ["id", "name", "score"]
        assert db.info()["tables"][0]["columns"] == ["id", "name", "score"]
        decoded = db.table(table.name, decode="msgpack")
        assert decoded[17] == {"id": "17", "name": "n17", "score": "170"}
        assert [v["name"] for _, v in decoded.range(3, 5)] == ["n3", "n4", "n5"]
