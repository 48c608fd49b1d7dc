"""Drift check: ``picomcp/_native.pyi`` must describe the compiled ``picomcp._native``.

The stub is parsed with ``ast`` (never imported); the runtime side is read with
``inspect`` (pyo3 sets ``__text_signature__`` from each ``#[pyo3(signature = ...)]``).
"""

from __future__ import annotations

import ast
import inspect
import types
from pathlib import Path

import pytest

import picomcp
import picomcp._native as native

# The stub in the source tree is the one to check; the installed copy must equal it.
SOURCE_STUB = Path(__file__).resolve().parents[1] / "python" / "picomcp" / "_native.pyi"
INSTALLED_STUB = Path(picomcp.__file__).with_name("_native.pyi")
STUB_PATH = SOURCE_STUB if SOURCE_STUB.is_file() else INSTALLED_STUB
# Dunders that count as part of the module's interface.
PUBLIC_DUNDERS = {"__version__"}
CONSTRUCTORS = ("__new__", "__init__")


def public(name: str) -> bool:
    return not name.startswith("_") or name in PUBLIC_DUNDERS


@pytest.fixture(scope="module")
def stub() -> ast.Module:
    assert STUB_PATH.is_file(), "no stub: %s" % STUB_PATH
    return ast.parse(STUB_PATH.read_text(encoding="utf-8"), filename=str(STUB_PATH))


def stub_names(tree: ast.Module) -> dict:
    """Top-level public names of the stub -> their node."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node
    return {k: v for k, v in out.items() if public(k)}


def stub_classes(tree: ast.Module) -> dict:
    return {k: v for k, v in stub_names(tree).items() if isinstance(v, ast.ClassDef)}


def decorator_names(fn: ast.FunctionDef) -> set:
    names = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Name):
            names.add(d.id)
        elif isinstance(d, ast.Attribute):
            names.add(d.attr)
    return names


def class_members(cls: ast.ClassDef) -> dict:
    """Members of a stub class -> ("property" | "method" | "attribute", node)."""
    out = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            decos = decorator_names(node)
            if node.name in out and decos & {"setter", "deleter"}:
                continue
            out[node.name] = ("property" if "property" in decos else "method", node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = ("attribute", node)
    return out


def runtime_module_names() -> set:
    return {n for n in dir(native) if public(n)}


def runtime_classes() -> dict:
    return {n: getattr(native, n) for n in runtime_module_names()
            if isinstance(getattr(native, n), type)}


def runtime_members(cls: type) -> dict:
    """Public members the class itself defines (inherited ones belong to the base)."""
    out = {}
    for name, obj in vars(cls).items():
        if not public(name):
            continue
        if isinstance(obj, (types.GetSetDescriptorType, types.MemberDescriptorType, property)):
            out[name] = "property"
        elif callable(obj):
            out[name] = "method"
        else:
            out[name] = "attribute"
    return out


def stub_params(fn: ast.FunctionDef, skip_first: bool = True) -> list:
    """(name, kind, has_default, default node) of a stub ``def``, ``self``/``cls`` dropped."""
    a = fn.args
    positional = a.posonlyargs + a.args
    pos_defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = []
    for i, (arg, default) in enumerate(zip(positional, pos_defaults)):
        kind = (inspect.Parameter.POSITIONAL_ONLY if i < len(a.posonlyargs)
                else inspect.Parameter.POSITIONAL_OR_KEYWORD)
        out.append((arg.arg, kind, default is not None, default))
    if a.vararg is not None:
        out.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL, False, None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, inspect.Parameter.KEYWORD_ONLY, default is not None, default))
    if a.kwarg is not None:
        out.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD, False, None))
    if skip_first:
        assert out and out[0][0] in ("self", "cls"), "%s: first parameter" % fn.name
        out = out[1:]
    return out


def runtime_params(obj, drop_self: bool) -> list | None:
    """(name, kind, has_default, default) from the runtime signature, or None without one."""
    if getattr(obj, "__text_signature__", None) is None:
        return None
    params = list(inspect.signature(obj).parameters.values())
    if drop_self and params and params[0].name in ("self", "cls", "type"):
        params = params[1:]
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty, p.default)
            for p in params]


def compare_signatures(where: str, runtime: list, stub: list) -> None:
    rt = [(n, k, d) for n, k, d, _ in runtime]
    st = [(n, k, d) for n, k, d, _ in stub]
    assert st == rt, "%s: stub %s != runtime %s" % (where, st, rt)
    # Defaults: where both sides show a literal value, it must be the same value.
    for (name, _, has, rdef), (_, _, _, sdef) in zip(runtime, stub):
        if not has or rdef is Ellipsis:
            continue  # the runtime shows `...` for a Rust expression default
        try:
            sval = ast.literal_eval(sdef)
        except ValueError:
            continue
        if sval is Ellipsis:
            continue
        assert sval == rdef and type(sval) is type(rdef), \
            "%s(%s=...): stub default %r != runtime default %r" % (where, name, sval, rdef)


# ---- the checks ----


def test_installed_stub_is_the_source_stub():
    assert INSTALLED_STUB.is_file(), "the wheel does not ship the stub"
    if SOURCE_STUB.is_file() and SOURCE_STUB != INSTALLED_STUB:
        assert INSTALLED_STUB.read_bytes() == SOURCE_STUB.read_bytes(), \
            "the installed stub is stale: rerun bindings/python/build.sh"


def test_module_names_match(stub):
    in_stub = set(stub_names(stub))
    at_runtime = runtime_module_names()
    assert in_stub - at_runtime == set(), "in the stub only"
    assert at_runtime - in_stub == set(), "in the module only"
    # pyo3 also builds __all__ from what the module adds.
    assert set(native.__all__) == at_runtime


def test_module_constants(stub):
    names = stub_names(stub)
    for name in runtime_module_names():
        value = getattr(native, name)
        if isinstance(value, type) or callable(value):
            continue
        node = names[name]
        assert isinstance(node, ast.AnnAssign), "%s: declare the constant with a type" % name
        annotation = ast.unparse(node.annotation)
        expected = {list: "list[str]", str: "str", int: "int"}.get(type(value))
        assert expected is not None, "%s: a constant of a new type %r" % (name, type(value))
        assert annotation == expected, "%s: %s != %s" % (name, annotation, expected)
        if isinstance(value, list):
            assert all(isinstance(v, str) for v in value)


def test_classes_and_bases_match(stub):
    classes = stub_classes(stub)
    rt = runtime_classes()
    assert set(classes) == set(rt)
    for name, cls in rt.items():
        node = classes[name]
        stub_bases = [ast.unparse(b) for b in node.bases] or ["object"]
        runtime_bases = [b.__name__ for b in cls.__bases__]
        assert stub_bases == runtime_bases, name


def test_final_marker_matches_subclassability(stub):
    for name, cls in runtime_classes().items():
        try:
            type("Sub", (cls,), {})
            subclassable = True
        except TypeError:
            subclassable = False
        is_final = "final" in {ast.unparse(d) for d in stub_classes(stub)[name].decorator_list}
        assert is_final == (not subclassable), name


@pytest.mark.parametrize("name", sorted(n for n, c in runtime_classes().items()))
def test_class_members_match(stub, name):
    cls = getattr(native, name)
    node = stub_classes(stub)[name]
    members = {k: v for k, v in class_members(node).items() if public(k)}
    stub_kinds = {k: kind for k, (kind, _) in members.items()}
    rt_kinds = runtime_members(cls)
    assert set(stub_kinds) - set(rt_kinds) == set(), "%s: in the stub only" % name
    assert set(rt_kinds) - set(stub_kinds) == set(), "%s: at runtime only" % name
    for member, kind in rt_kinds.items():
        stub_kind = "property" if stub_kinds[member] == "attribute" else stub_kinds[member]
        assert stub_kind == kind, "%s.%s: stub %s, runtime %s" % (
            name, member, stub_kinds[member], kind)


@pytest.mark.parametrize("name", sorted(n for n, c in runtime_classes().items()))
def test_method_signatures_match(stub, name):
    cls = getattr(native, name)
    members = class_members(stub_classes(stub)[name])
    checked = 0
    for member, kind in runtime_members(cls).items():
        if kind != "method":
            continue
        rt = runtime_params(getattr(cls, member), drop_self=True)
        if rt is None:
            continue
        _, fn = members[member]
        compare_signatures("%s.%s" % (name, member), rt, stub_params(fn))
        checked += 1
    if name == "Session":
        assert checked >= 20, "Session methods lost their text signatures?"


@pytest.mark.parametrize("name", sorted(n for n, c in runtime_classes().items()))
def test_constructor_matches(stub, name):
    cls = getattr(native, name)
    members = class_members(stub_classes(stub)[name])
    stub_ctor = [members[c][1] for c in CONSTRUCTORS if c in members]
    assert len(stub_ctor) <= 1, "%s: declare __new__ or __init__, not both" % name
    if issubclass(cls, BaseException):
        assert not stub_ctor, "%s: exceptions take BaseException's constructor" % name
        return
    runtime = runtime_params(cls, drop_self=False)  # the class's own text signature
    if runtime is None:
        try:
            cls()
        except TypeError as e:
            if "cannot create" not in str(e) and "No constructor" not in str(e):
                # Python 3.9 shows no text signature for a class: nothing to compare.
                pytest.skip("this Python hides %s's constructor signature: %s" % (name, e))
        else:
            # It has a constructor whose arguments are all optional (Python 3.9 shows no
            # text signature for a class): nothing to compare.
            assert stub_ctor, "%s: the stub lacks the constructor" % name
            pytest.skip("this Python hides %s's constructor signature" % name)
        # No #[new]: the class cannot be created from Python, and the stub says nothing.
        assert not stub_ctor, "%s: the stub declares a constructor pyo3 does not have" % name
        return
    assert stub_ctor, "%s: the stub lacks the constructor" % name
    compare_signatures("%s.%s" % (name, stub_ctor[0].name), runtime,
                       stub_params(stub_ctor[0]))


def test_rust_expression_defaults_match_the_limits(stub):
    """The stub spells out defaults the runtime shows as `...` (Limits::DEFAULT)."""
    ctor = class_members(stub_classes(stub)["Session"])["__new__"][1]
    defaults = {n: ast.literal_eval(d) for n, _, has, d in stub_params(ctor) if has}
    limits = native.Session("server", "s", "1").limits
    for key in ("max_line", "max_depth", "max_id_len"):
        assert defaults[key] == limits[key], key


def test_every_stub_definition_has_a_docstring(stub):
    missing = []
    for name, node in stub_classes(stub).items():
        if ast.get_docstring(node) is None:
            missing.append(name)
        for member, (_, fn) in class_members(node).items():
            if public(member) or member in CONSTRUCTORS:
                if isinstance(fn, ast.FunctionDef) and ast.get_docstring(fn) is None:
                    missing.append("%s.%s" % (name, member))
    assert not missing


def test_event_kinds_in_the_stub_cover_the_documented_ones(stub):
    """The `kind` Literal lists every kind the Rust doc comment names (plus "unknown")."""
    aliases = {n.targets[0].id if isinstance(n, ast.Assign) else n.target.id: n
               for n in stub.body
               if isinstance(n, (ast.Assign, ast.AnnAssign))}
    kinds = set(ast.literal_eval(e) for e in aliases["_EventKind"].value.slice.elts)
    documented = native.Event.kind.__doc__
    import re
    named = set(re.findall(r'`"([a-z_]+)"`', documented))
    assert named, documented
    assert kinds == named | {"unknown"}


def test_feature_names_in_the_stub_are_the_core_table(stub):
    """The `_Feature` Literal lists exactly `FEATURES`, in table order."""
    aliases = {n.targets[0].id if isinstance(n, ast.Assign) else n.target.id: n
               for n in stub.body
               if isinstance(n, (ast.Assign, ast.AnnAssign))}
    names = [ast.literal_eval(e) for e in aliases["_Feature"].value.slice.elts]
    assert names == native.FEATURES
