"""drydb/_drydb.pyi against the extension it describes: every public function, class, method and
property of drydb._drydb has a stub, and every stub names something the module has, so that the
hand-kept stubs cannot drift from the bindings (a renamed or new binding fails here)."""

import ast
import inspect
import os

import drydb
from drydb import _drydb

STUBS = os.path.join(os.path.dirname(drydb.__file__), "_drydb.pyi")
# Attributes of instances, which their class does not show: stubbed, not checked against it.
INSTANCE_ATTRIBUTES = {("Error", "code")}


def stub_names():
    """({name: set of member names} for each class of the stubs, and the module's functions and
    constants under ""; the stubs' type aliases, assignments of a typing form such as
    `KeyIn = Union[...]` or `_T = TypeVar(...)`). Names with a leading underscore are private
    and left out."""
    tree = ast.parse(open(STUBS, encoding="utf-8").read())
    out, aliases = {"": set()}, set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[""].add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[""].add(node.target.id)
        elif isinstance(node, ast.Assign):
            aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    if (node.name, item.target.id) not in INSTANCE_ATTRIBUTES:
                        members.add(item.target.id)
            out[node.name] = members
            out[""].add(node.name)
    return {k: {n for n in v if not n.startswith("_")} for k, v in out.items()}, aliases


def module_names():
    """The same for the extension module itself."""
    out = {"": set()}
    for name, obj in vars(_drydb).items():
        if name.startswith("_"):
            continue
        out[""].add(name)
        if inspect.isclass(obj) and obj.__module__.startswith("drydb"):
            out[name] = {n for n in vars(obj) if not n.startswith("_")}
    return out


def test_every_binding_has_a_stub_and_every_stub_a_binding():
    (stubs, aliases), module = stub_names(), module_names()
    # The aliases (KeyIn, KeyOut...) are types for annotations, not bindings.
    missing = sorted(module[""] - stubs[""])
    extra = sorted(stubs[""] - module[""])
    assert not missing, "bindings without a stub in _drydb.pyi: %s" % missing
    assert not extra, "stubs of nothing in drydb._drydb: %s" % extra
    assert not aliases & module[""], "type aliases named as bindings: %s" % (aliases & module[""])
    for cls in sorted(set(module) - {""}):
        missing = sorted(module[cls] - stubs[cls])
        extra = sorted(stubs[cls] - module[cls])
        assert not missing, "%s: members without a stub: %s" % (cls, missing)
        assert not extra, "%s: stubs of members it lacks: %s" % (cls, extra)
