"""drydb/_drydb.pyi against the extension it describes: every public function, class, method and
property of drydb._drydb has a stub, every stub names something the module has, and every stubbed
function and method takes the parameters its binding takes (names, which have defaults, which are
keyword-only), so that the hand-kept stubs cannot drift from the bindings (a renamed or new
binding, or a renamed, added or removed argument, fails here).

A stub class's members are its own and those of the stub classes it derives from (private,
`_`-prefixed, `@type_check_only` bases that exist only in the stubs, to write shared members
once)."""

import ast
import inspect
import os
import re
import types

import drydb
from drydb import _drydb

STUBS = os.path.join(os.path.dirname(drydb.__file__), "_drydb.pyi")
# Attributes of instances, which their class does not show: stubbed, not checked against it.
INSTANCE_ATTRIBUTES = {("Error", "code")}


def stub_tree():
    return ast.parse(open(STUBS, encoding="utf-8").read())


def stub_classes(tree):
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def base_names(node):
    """The names of a class's bases as written, `_Rows` for `_Rows` and `_Queries[Range]` alike."""
    out = []
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            out.append(base.id)
    return out


def stub_members(classes, name):
    """{member name: [its ast.FunctionDef, one per @overload] or None for an attribute} of the stub
    class `name`, with what it inherits from the stub classes it derives from; a member the class
    defines hides its bases' (left to right, depth first, as Python's MRO for these simple trees)."""
    node = classes[name]
    own = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own.setdefault(item.name, []).append(item)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if (name, item.target.id) not in INSTANCE_ATTRIBUTES:
                own[item.target.id] = None
    out = {}
    for base in base_names(node):
        if base in classes:
            for member, defs in stub_members(classes, base).items():
                out.setdefault(member, defs)
    out.update(own)
    return out


def stub_names():
    """({name: set of member names} for each public class of the stubs, and the module's functions
    and constants under ""; the stubs' type aliases, assignments of a typing form such as
    `KeyIn = Union[...]` or `_T = TypeVar(...)`). Names with a leading underscore are private and
    left out."""
    tree = stub_tree()
    classes = stub_classes(tree)
    out, aliases = {"": set()}, set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[""].add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[""].add(node.target.id)
        elif isinstance(node, ast.Assign):
            aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ClassDef):
            out[node.name] = set(stub_members(classes, node.name))
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


def test_private_stub_classes_are_stub_only_bases():
    for name, node in stub_classes(stub_tree()).items():
        if not name.startswith("_"):
            continue
        decorators = {ast.unparse(d) for d in node.decorator_list}
        assert decorators & {"type_check_only", "typing.type_check_only"}, (
            "%s: a private stub class is a base for the stubs alone: decorate it "
            "@type_check_only" % name)
        assert not hasattr(_drydb, name), (
            "%s: a stub-only base is named as something drydb._drydb has" % name)


# ---- parameters ---------------------------------------------------------------------------------

# A parameter as both sides are compared: its name, kind and whether a call may leave it out.
POSITIONAL, KEYWORD_ONLY, POSITIONAL_ONLY, VAR_POSITIONAL, VAR_KEYWORD = (
    "positional", "keyword-only", "positional-only", "*args", "**kwargs")


def stub_parameters(fn, method):
    """[(name, kind, has_default)] of a stub's def, without self for a method."""
    a = fn.args
    positional = a.posonlyargs + a.args
    first_default = len(positional) - len(a.defaults)
    out = [(p.arg, POSITIONAL_ONLY if i < len(a.posonlyargs) else POSITIONAL, i >= first_default)
           for i, p in enumerate(positional)]
    if a.vararg:
        out.append((a.vararg.arg, VAR_POSITIONAL, True))
    out += [(p.arg, KEYWORD_ONLY, d is not None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append((a.kwarg.arg, VAR_KEYWORD, True))
    static = any(ast.unparse(d) == "staticmethod" for d in fn.decorator_list)
    return out[1:] if method and not static else out


def split_top_level(text, separator):
    """`text` cut at each `separator` outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parameters_of_text(inside):
    """[(name, kind, has_default)] of a signature's text between its parentheses, as pybind11
    writes it (`self: drydb._drydb.Table, start: object = None, *, reverse: bool = False`) or as
    a docstring's first line does (`key, default=None, *, copy=True`); self is left out."""
    out, kind = [], POSITIONAL
    for part in (p.strip() for p in split_top_level(inside, ",")):
        if not part:
            continue
        if part == "*":
            kind = KEYWORD_ONLY
        elif part == "/":
            out = [(n, POSITIONAL_ONLY if k == POSITIONAL else k, d) for n, k, d in out]
        else:
            m = re.match(r"(\*{0,2})([A-Za-z_]\w*)", part)
            assert m, "no parameter name in %r" % part
            stars, name = m.groups()
            if stars == "*":
                out.append((name, VAR_POSITIONAL, True))
                kind = KEYWORD_ONLY
            elif stars == "**":
                out.append((name, VAR_KEYWORD, True))
            else:
                out.append((name, kind, len(split_top_level(part, "=")) > 1))
    return [p for p in out if p[0] != "self"]


def signature_inside(line, name):
    """The text between the parentheses of `name(...) -> ...`, or None if `line` is not that."""
    if not line.startswith(name + "("):
        return None
    depth = 0
    for i in range(len(name), len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return line[len(name) + 1:i]
    return None


def binding_signatures(obj, name):
    """The parameter lists a binding takes (several for a pybind11 overload set), without self,
    or [] when it shows none: from inspect where it knows (Python functions, a
    __text_signature__), else from pybind11's __doc__, whose first line is the signature."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        kinds = {inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL,
                 inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
                 inspect.Parameter.POSITIONAL_ONLY: POSITIONAL_ONLY,
                 inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
                 inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD}
        return [[(p.name, kinds[p.kind], p.default is not p.empty or kinds[p.kind].startswith("*"))
                 for p in sig.parameters.values() if p.name != "self"]]
    lines = (getattr(obj, "__doc__", None) or "").splitlines()
    if len(lines) > 1 and lines[1] == "Overloaded function.":
        found = [signature_inside(re.sub(r"^\d+\. ", "", line), name)
                 for line in lines if re.match(r"\d+\. ", line)]
        return [parameters_of_text(f) for f in found if f is not None]
    inside = signature_inside(lines[0], name) if lines else None
    return [] if inside is None else [parameters_of_text(inside)]


def merged(signatures):
    """One table of parameters for a set of signatures (a stub's @overloads, a binding's overload
    set): {name: (kind, optional)} and the order names first appear in. A parameter is optional
    where it has a default or where some signature leaves it out."""
    table, order, kinds = {}, [], {}
    for sig in signatures:
        for name, kind, has_default in sig:
            if name not in table:
                order.append(name)
                table[name] = has_default
            else:
                table[name] = table[name] or has_default
            kinds.setdefault(name, set()).add(kind)
    for name in table:
        if any(name not in {n for n, _, _ in sig} for sig in signatures):
            table[name] = True
    return {n: (" or ".join(sorted(kinds[n])), table[n]) for n in table}, order


def parameter_drift(where, stub_sigs, binding_sigs):
    """What differs between a stub's parameters and its binding's, one message a difference. A
    special method's positional-only parameters count as positional: Python's operators (t[key],
    key in t) pass them by position whatever the signature, and a fast binding takes them only
    so."""
    if re.fullmatch(r"(\w+\.)?__\w+__", where):
        stub_sigs, binding_sigs = (
            [[(n, POSITIONAL if k == POSITIONAL_ONLY else k, d) for n, k, d in sig] for sig in sigs]
            for sigs in (stub_sigs, binding_sigs))
    (stub, stub_order), (bound, bound_order) = merged(stub_sigs), merged(binding_sigs)
    problems = []
    for name in bound_order:
        if name not in stub:
            problems.append("%s: parameter '%s' of the binding is not in the stub" % (where, name))
    for name in stub_order:
        if name not in bound:
            problems.append("%s: parameter '%s' of the stub is not in the binding" % (where, name))
    for name in (n for n in bound_order if n in stub):
        (bound_kind, bound_optional), (stub_kind, stub_optional) = bound[name], stub[name]
        if bound_kind != stub_kind:
            problems.append("%s: parameter '%s' is %s in the binding, %s in the stub"
                            % (where, name, bound_kind, stub_kind))
        if bound_optional != stub_optional:
            problems.append("%s: parameter '%s' %s a default in the binding, %s in the stub"
                            % (where, name, *(("has", "not") if bound_optional else
                                              ("has no", "one"))))
    common = [n for n in bound_order if n in stub]
    if not problems and common != [n for n in stub_order if n in bound]:
        problems.append("%s: the parameters are in order %s in the binding, %s in the stub"
                        % (where, common, [n for n in stub_order if n in bound]))
    return problems


def stubbed_callables():
    """(where, [stub defs], binding) for every stubbed function of the module and every stubbed
    method of a class the module has, properties left out."""
    tree = stub_tree()
    classes = stub_classes(tree)
    functions = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
    for name, defs in sorted(functions.items()):
        if hasattr(_drydb, name):
            yield name, defs, getattr(_drydb, name), False
    for cls_name in sorted(n for n in classes if not n.startswith("_")):
        cls = getattr(_drydb, cls_name, None)
        if not inspect.isclass(cls):
            continue
        for member, defs in sorted(stub_members(classes, cls_name).items()):
            if defs is None:
                continue
            if any(ast.unparse(d) == "property" or ast.unparse(d).endswith(".setter")
                   for fn in defs for d in fn.decorator_list):
                continue
            bound = vars(cls).get(member)
            if bound is None and member.startswith("__"):
                continue  # an object's own (__init__, __repr__...): the name test checks the rest
            yield "%s.%s" % (cls_name, member), defs, bound, True


def test_every_stub_takes_the_parameters_of_its_binding():
    problems, checked = [], 0
    for where, defs, bound, method in stubbed_callables():
        if bound is None:
            continue  # named in the stubs only: the name test reports it
        if isinstance(bound, (staticmethod, classmethod)):
            bound = bound.__func__
        binding = binding_signatures(bound, where.rsplit(".", 1)[-1])
        if not binding:
            problems.append("%s: the binding shows no signature to check the stub against" % where)
            continue
        problems += parameter_drift(where, [stub_parameters(fn, method) for fn in defs], binding)
        checked += 1
    assert not problems, "_drydb.pyi differs from the bindings:\n  " + "\n  ".join(problems)
    assert checked > 50, "only %d functions and methods checked" % checked


def test_a_pybind11_overload_set_reads_as_its_signatures():
    # No binding of drydb._drydb is overloaded today: this keeps the reading of one checked.
    doc = ("seek(*args, **kwargs)\nOverloaded function.\n\n"
           "1. seek(self: drydb._drydb.Cursor, key: int) -> bool\n\n"
           "2. seek(self: drydb._drydb.Cursor, key: Tuple[int, str], *, exact: bool = False, "
           "note: str = 'a, b') -> bool\n")
    binding = binding_signatures(types.SimpleNamespace(__doc__=doc), "seek")
    assert binding == [[("key", POSITIONAL, False)],
                       [("key", POSITIONAL, False), ("exact", KEYWORD_ONLY, True),
                        ("note", KEYWORD_ONLY, True)]]
    assert not parameter_drift("Cursor.seek", [[("key", POSITIONAL, False)],
                                               [("key", POSITIONAL, False),
                                                ("exact", KEYWORD_ONLY, True),
                                                ("note", KEYWORD_ONLY, False)]], binding)
    assert parameter_drift("Cursor.seek", [[("key", POSITIONAL, False)]], binding) == [
        "Cursor.seek: parameter 'exact' of the binding is not in the stub",
        "Cursor.seek: parameter 'note' of the binding is not in the stub"]
