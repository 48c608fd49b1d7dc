"""JSON Schemas from Python signatures, and arguments back to the declared types.

Only *describes*: the core validates every call against the schema made here before a
handler runs, so the converters below can trust the shape of what they get (an
``integer`` is an ``int``, a ``required`` property is present, ...). They only build the
Python values the signature asks for (a dataclass, an ``Enum``, a pydantic model, a
``tuple``).

Supported: ``int``, ``float``, ``str``, ``bool``, ``None``, ``Optional``/``X | None``,
unions, ``list[T]``, ``set[T]``, ``dict[str, T]``, ``tuple[...]``, ``Literal``, ``Enum``,
``TypedDict``, dataclasses, ``Annotated[T, Field(...)]`` or ``Annotated[T, "a
description"]``, defaults, ``Any``, and pydantic models when pydantic is installed.
Anything else is a ``TypeError`` at decoration time that names the parameter.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import sys
import types
import typing
from typing import Any, Callable

__all__ = ["Field", "Signature", "describe", "schema_of"]

_MISSING = inspect.Parameter.empty


class Field:
    """Extra JSON Schema for a parameter: ``Annotated[int, Field(ge=1, description=...)]``.

    ``default`` is the parameter's default when the signature has none."""

    _KEYS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum",
             "lt": "exclusiveMaximum", "min_length": None, "max_length": None,
             "pattern": "pattern", "description": "description", "title": "title",
             "examples": "examples", "multiple_of": "multipleOf"}

    def __init__(self, default: Any = _MISSING, *, description: str | None = None,
                 title: str | None = None, ge: float | None = None, le: float | None = None,
                 gt: float | None = None, lt: float | None = None,
                 min_length: int | None = None, max_length: int | None = None,
                 pattern: str | None = None, examples: list | None = None,
                 multiple_of: float | None = None) -> None:
        self.default = default
        self.options = {k: v for k, v in dict(
            description=description, title=title, ge=ge, le=le, gt=gt, lt=lt,
            min_length=min_length, max_length=max_length, pattern=pattern,
            examples=examples, multiple_of=multiple_of).items() if v is not None}

    def apply(self, schema: dict) -> dict:
        out = dict(schema)
        for k, v in self.options.items():
            if k in ("min_length", "max_length"):
                kind = out.get("type")
                word = {"string": "Length", "array": "Items", "object": "Properties"}.get(
                    kind, "Length")
                out[("min" if k == "min_length" else "max") + word] = v
            else:
                out[self._KEYS[k]] = v
        return out


def _pydantic_base():
    mod = sys.modules.get("pydantic")
    return getattr(mod, "BaseModel", None) if mod is not None else None


def _is_model(tp: Any) -> bool:
    base = _pydantic_base()
    return base is not None and isinstance(tp, type) and issubclass(tp, base)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__") \
        and hasattr(tp, "__annotations__")


def _hints(tp: Any) -> dict:
    return typing.get_type_hints(tp, include_extras=True)


_UNION_TYPES = (typing.Union,) + ((types.UnionType,) if hasattr(types, "UnionType") else ())


def _meta_schema(meta: Any, schema: dict) -> dict:
    """One ``Annotated`` extra: our ``Field``, pydantic's ``FieldInfo``, or a description."""
    if isinstance(meta, Field):
        return meta.apply(schema)
    if isinstance(meta, str):
        return dict(schema, description=meta)
    if type(meta).__name__ == "FieldInfo":  # pydantic.Field(...)
        out = dict(schema)
        if getattr(meta, "description", None):
            out["description"] = meta.description
        for m in getattr(meta, "metadata", []):
            for attr, key in (("ge", "minimum"), ("le", "maximum"), ("gt", "exclusiveMinimum"),
                              ("lt", "exclusiveMaximum"), ("min_length", "minLength"),
                              ("max_length", "maxLength"), ("pattern", "pattern")):
                v = getattr(m, attr, None)
                if v is not None:
                    out[key] = v
        return out
    return schema


def schema_of(tp: Any) -> dict:
    """The JSON Schema of a type annotation; ``TypeError`` when it has none."""
    if tp is Any or tp is object:
        return {}
    if tp is None or tp is type(None):
        return {"type": "null"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"type": "string"}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        schema = schema_of(args[0])
        for meta in args[1:]:
            schema = _meta_schema(meta, schema)
        return schema
    if origin in _UNION_TYPES:
        others = [a for a in args if a is not type(None)]
        parts = [schema_of(a) for a in others]
        if len(others) < len(args):
            parts.append({"type": "null"})
        return parts[0] if len(parts) == 1 else {"anyOf": parts}
    if origin is typing.Literal:
        values = list(args)
        return {"enum": values}
    if origin in (list, set, frozenset, typing.Sequence) or tp in (list, set, frozenset):
        item = schema_of(args[0]) if args else {}
        out = {"type": "array", "items": item}
        if origin in (set, frozenset):
            out["uniqueItems"] = True
        return out
    if origin is tuple or tp is tuple:
        if not args or (len(args) == 2 and args[1] is Ellipsis):
            return {"type": "array", "items": schema_of(args[0]) if args else {}}
        return {"type": "array", "prefixItems": [schema_of(a) for a in args],
                "minItems": len(args), "maxItems": len(args)}
    if origin in (dict, typing.Mapping) or tp is dict:
        if args and args[0] is not str:
            raise TypeError("dict keys must be str (JSON object keys), not %r" % (args[0],))
        return {"type": "object", "additionalProperties": schema_of(args[1]) if args else {}}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        values = [m.value for m in tp]
        return {"enum": values, "title": tp.__name__}
    if _is_model(tp):
        schema = tp.model_json_schema()
        return schema
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = _hints(tp)
        props, required = {}, []
        for f in dataclasses.fields(tp):
            props[f.name] = schema_of(hints.get(f.name, Any))
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            elif f.default is not dataclasses.MISSING and _jsonable(f.default):
                props[f.name] = dict(props[f.name], default=f.default)
        return _object(props, required, tp.__name__)
    if _is_typeddict(tp):
        hints = _hints(tp)
        props = {k: schema_of(v) for k, v in hints.items()}
        required = sorted(getattr(tp, "__required_keys__", hints.keys()))
        return _object(props, [k for k in hints if k in required], tp.__name__)
    raise TypeError("no JSON Schema for %r" % (tp,))


def _object(props: dict, required: list, title: str | None = None) -> dict:
    out: dict = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if title:
        out["title"] = title
    return out


def _jsonable(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str)) or (
        isinstance(v, (list, tuple)) and all(_jsonable(x) for x in v)) or (
        isinstance(v, dict) and all(isinstance(k, str) and _jsonable(x) for k, x in v.items()))


# ---- conversion of validated JSON values to the declared types ----

def _identity(v: Any) -> Any:
    return v


def converter(tp: Any) -> Callable[[Any], Any]:
    """A function from a JSON value (already valid for ``schema_of(tp)``) to ``tp``."""
    if tp in (Any, object, str, bool, int, None, type(None)):
        return _identity
    if tp is float:
        return float
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return converter(args[0])
    if origin is typing.Literal:
        return _identity
    if origin in _UNION_TYPES:
        others = [a for a in args if a is not type(None)]
        convs = [(a, converter(a)) for a in others]
        if all(c is _identity or c is float for _, c in convs):
            return lambda v: float(v) if float in others and isinstance(v, int) \
                and int not in others and not isinstance(v, bool) else v

        def union(v: Any) -> Any:
            if v is None:
                return None
            for a, c in convs:
                if _matches(a, v):
                    return c(v)
            return v
        return union
    if origin in (list, set, frozenset, typing.Sequence) or tp in (list, set, frozenset):
        item = converter(args[0]) if args else _identity
        kind = origin or tp
        kind = list if kind is typing.Sequence else kind
        if item is _identity and kind is list:
            return _identity
        return lambda v: kind(item(x) for x in v)
    if origin is tuple or tp is tuple:
        if not args or (len(args) == 2 and args[1] is Ellipsis):
            item = converter(args[0]) if args else _identity
            return lambda v: tuple(item(x) for x in v)
        convs_t = [converter(a) for a in args]
        return lambda v: tuple(c(x) for c, x in zip(convs_t, v))
    if origin in (dict, typing.Mapping) or tp is dict:
        val = converter(args[1]) if args else _identity
        if val is _identity:
            return _identity
        return lambda v: {k: val(x) for k, x in v.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp
    if _is_model(tp):
        return tp.model_validate
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = _hints(tp)
        fields = {f.name: converter(hints.get(f.name, Any)) for f in dataclasses.fields(tp)}
        return lambda v: tp(**{k: fields[k](x) if k in fields else x for k, x in v.items()})
    if _is_typeddict(tp):
        hints = _hints(tp)
        fields = {k: converter(t) for k, t in hints.items()}
        return lambda v: {k: fields[k](x) if k in fields else x for k, x in v.items()}
    return _identity


def _matches(tp: Any, v: Any) -> bool:
    """Whether a JSON value could be of the type (to pick a union member)."""
    origin = typing.get_origin(tp) or tp
    if origin is typing.Annotated:
        return _matches(typing.get_args(tp)[0], v)
    if origin in (bool,):
        return isinstance(v, bool)
    if origin is int:
        return isinstance(v, int) and not isinstance(v, bool)
    if origin is float:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if origin is str:
        return isinstance(v, str)
    if origin in (list, tuple, set, frozenset):
        return isinstance(v, list)
    if origin is typing.Literal:
        return v in typing.get_args(tp)
    if isinstance(origin, type) and issubclass(origin, enum.Enum):
        return v in [m.value for m in origin]
    return isinstance(v, dict)


def from_text(tp: Any) -> Callable[[str], Any]:
    """A function from a URI template variable (text) to ``tp`` (``ValueError`` if not)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return from_text(typing.get_args(tp)[0])
    if tp is bool:
        return lambda s: {"true": True, "false": False}[s.lower()]
    if tp in (int, float):
        return tp
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return lambda s: tp(s) if s in [m.value for m in tp] else tp(int(s))
    return _identity


# ---- signatures ----

_DOC_ARG = re.compile(r"^\s*:param\s+(?:\S+\s+)?(\w+):\s*(.*)$")


def _docstring(fn: Callable) -> tuple[str | None, dict]:
    """The description (text before the argument section) and per-argument descriptions
    from a Google-style ``Args:`` section or reST ``:param x:`` lines."""
    doc = inspect.getdoc(fn)
    if not doc:
        return None, {}
    lines = doc.splitlines()
    head: list = []
    args: dict = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _DOC_ARG.match(line)
        if m:
            args[m.group(1)] = m.group(2).strip()
        elif line.strip() in ("Args:", "Arguments:", "Parameters:"):
            i += 1
            last = None
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                m2 = re.match(r"^\s+(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", lines[i])
                indent = len(lines[i]) - len(lines[i].lstrip())
                if m2 and (last is None or indent <= last[1]):
                    last = (m2.group(1), indent)
                    args[last[0]] = m2.group(2).strip()
                elif last is not None and lines[i].strip():
                    args[last[0]] = (args[last[0]] + " " + lines[i].strip()).strip()
                i += 1
            continue
        elif line.strip() in ("Returns:", "Raises:", "Yields:", "Examples:"):
            break
        elif not args:
            head.append(line)
        i += 1
    text = "\n".join(head).strip()
    return text or None, args


def _resolved_hints(fn: Callable, what: str) -> dict:
    """The type hints of ``fn``; an annotation that does not resolve (a class local to a
    function, under ``from __future__ import annotations``) is an error naming it."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:
        pass
    hints = {}
    ns = getattr(fn, "__globals__", {})
    for p in inspect.signature(fn).parameters.values():
        ann = p.annotation
        if isinstance(ann, str):
            try:
                ann = eval(ann, ns)  # noqa: S307 - the function's own annotation
            except Exception as e:
                raise TypeError("%s: cannot resolve the annotation of parameter %r: %s"
                                % (what, p.name, e)) from None
        if ann is not _MISSING:
            hints[p.name] = ann
    return hints


class Signature:
    """What a typed handler's signature says: its ``inputSchema``, the name of its
    ``Context`` parameter, and how to turn checked arguments into its call."""

    def __init__(self, fn: Callable, context_type: type, what: str,
                 text_vars: bool = False) -> None:
        hints = _resolved_hints(fn, what)
        self.description, docs = _docstring(fn)
        self.context: str | None = None
        self.params: list = []  # (name, convert)
        self.var_kw = False
        self.fill: dict = {}  # defaults given as Field(default): passed explicitly
        props: dict = {}
        required: list = []
        defs: dict = {}
        for p in inspect.signature(fn).parameters.values():
            tp = hints.get(p.name, Any if p.annotation is _MISSING else p.annotation)
            if tp is context_type or (isinstance(tp, type) and issubclass(tp, context_type)):
                self.context = p.name
                continue
            if p.kind == p.VAR_KEYWORD:
                self.var_kw = True
                continue
            if p.kind in (p.VAR_POSITIONAL, p.POSITIONAL_ONLY):
                raise TypeError("%s: parameter %r cannot be passed by name" % (what, p.name))
            try:
                schema = schema_of(tp)
            except TypeError as e:
                raise TypeError("%s: cannot describe parameter %r: %s"
                                % (what, p.name, e)) from None
            default = p.default
            if default is _MISSING and typing.get_origin(tp) is typing.Annotated:
                for meta in typing.get_args(tp)[1:]:
                    if isinstance(meta, Field) and meta.default is not _MISSING:
                        default = meta.default
            if isinstance(default, Field):
                schema = default.apply(schema)
                default = default.default
                if default is not _MISSING:
                    self.fill[p.name] = default  # Python would pass the Field itself
            elif type(default).__name__ == "FieldInfo":  # x: int = pydantic.Field(3, ge=1)
                schema = _meta_schema(default, schema)
                default = _MISSING if default.is_required() else default.default
                if default is not _MISSING:
                    self.fill[p.name] = default
            if p.name in docs and "description" not in schema:
                schema = dict(schema, description=docs[p.name])
            if default is _MISSING:
                required.append(p.name)
            elif _jsonable(default) and default is not None:
                schema = dict(schema, default=default)
            defs.update(schema.pop("$defs", {})) if "$defs" in schema else None
            props[p.name] = schema
            conv = from_text(tp) if text_vars else converter(tp)
            self.params.append((p.name, conv, default))
        self.schema = {"type": "object", "properties": props}
        if required:
            self.schema["required"] = required
        if defs:  # pydantic models' definitions, where their "#/$defs/..." refs point
            self.schema["$defs"] = defs
        self.required = required
        self.names = frozenset(name for name, _, _ in self.params)
        self.identity = all(c is _identity for _, c, _ in self.params)

    def kwargs(self, arguments: dict, ctx: Any) -> dict:
        """The keyword arguments of the call: ``arguments`` converted, ``ctx`` injected,
        defaults (``None`` ones included) left to Python."""
        if self.identity and arguments.keys() <= self.names:
            kw = dict(arguments)
        else:
            kw = {}
            for name, conv, _ in self.params:
                if name in arguments:
                    kw[name] = conv(arguments[name])
            if self.var_kw:  # **kwargs takes what the schema did not name
                for k, v in arguments.items():
                    kw.setdefault(k, v)
        for name, value in self.fill.items():
            kw.setdefault(name, value)
        if self.context is not None:
            kw[self.context] = ctx
        return kw


def describe(fn: Callable, context_type: type, what: str, text_vars: bool = False) -> Signature:
    return Signature(fn, context_type, what, text_vars)


def output_schema(fn: Callable) -> tuple[dict | None, Any]:
    """The ``outputSchema`` a return annotation implies (objects only: a dataclass,
    ``TypedDict``, pydantic model or ``dict[str, T]``), and the annotation."""
    try:
        ret = typing.get_type_hints(fn, include_extras=True).get("return", _MISSING)
    except Exception:
        return None, _MISSING
    base = typing.get_args(ret)[0] if typing.get_origin(ret) is typing.Annotated else ret
    origin = typing.get_origin(base)
    if _is_model(base) or _is_typeddict(base) or (
            dataclasses.is_dataclass(base) and isinstance(base, type)) or \
            (origin is dict and typing.get_args(base)[:1] == (str,)):
        try:
            return schema_of(ret), ret
        except TypeError:
            return None, ret
    return None, ret
