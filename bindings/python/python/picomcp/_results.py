"""What handlers return, converted to the protocol's content blocks and values.

Conversion only: the core server layer checks structured content against the
``outputSchema``, writes it also as JSON text, drops what the negotiated revision lacks
and shapes the result.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
from typing import Any

__all__ = ["Audio", "EmbeddedResource", "Image", "ResourceLink", "ToolResult", "jsonable"]


def _b64(data: bytes | str) -> str:
    if isinstance(data, str):
        return data  # already base64
    return base64.b64encode(bytes(data)).decode("ascii")


def _guess_mime(path: str, default: str) -> str:
    import mimetypes
    return mimetypes.guess_type(path)[0] or default


class Image:
    """An image content block from ``bytes`` (or a file ``path``)."""

    def __init__(self, data: bytes | None = None, mime_type: str | None = None, *,
                 path: str | None = None) -> None:
        if path is not None:
            with open(path, "rb") as f:
                data = f.read()
            mime_type = mime_type or _guess_mime(path, "image/png")
        if data is None:
            raise ValueError("Image needs data or path")
        self.data = data
        self.mime_type = mime_type or "image/png"

    kind = "image"

    def block(self) -> dict:
        return {"type": self.kind, "data": _b64(self.data), "mimeType": self.mime_type}


class Audio(Image):
    """An audio content block from ``bytes`` (or a file ``path``)."""

    kind = "audio"

    def __init__(self, data: bytes | None = None, mime_type: str | None = None, *,
                 path: str | None = None) -> None:
        super().__init__(data, mime_type or (_guess_mime(path, "audio/wav") if path
                                             else "audio/wav"), path=path)


class EmbeddedResource:
    """A resource embedded in a result: ``text`` or ``blob`` (bytes) at ``uri``."""

    def __init__(self, uri: str, text: str | None = None, *, blob: bytes | None = None,
                 mime_type: str | None = None) -> None:
        self.uri, self.text, self.blob, self.mime_type = uri, text, blob, mime_type

    def contents(self) -> dict:
        out: dict = {"uri": self.uri}
        if self.mime_type:
            out["mimeType"] = self.mime_type
        if self.blob is not None:
            out["blob"] = _b64(self.blob)
        else:
            out["text"] = self.text or ""
        return out

    def block(self) -> dict:
        return {"type": "resource", "resource": self.contents()}


class ResourceLink:
    """A link to a resource the client may read (2025-06-18 and later)."""

    def __init__(self, uri: str, name: str, *, description: str | None = None,
                 mime_type: str | None = None, title: str | None = None) -> None:
        self.uri, self.name = uri, name
        self.description, self.mime_type, self.title = description, mime_type, title

    def block(self) -> dict:
        out = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for k, v in (("description", self.description), ("mimeType", self.mime_type),
                     ("title", self.title)):
            if v is not None:
                out[k] = v
        return out


class ToolResult:
    """A whole tool result, when a handler wants to set every part itself."""

    def __init__(self, content: list | Any = None, structured: Any = None, *,
                 is_error: bool = False, meta: dict | None = None) -> None:
        self.content, self.structured, self.is_error, self.meta = \
            content, structured, is_error, meta


_BLOCK_TYPES = frozenset(("text", "image", "audio", "resource", "resource_link"))


def jsonable(value: Any) -> Any:
    """A dataclass, pydantic model, ``Enum``, tuple or set as plain JSON values."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)  # pydantic
    if callable(dump):
        return dump(mode="json")
    raise TypeError("cannot convert %s to JSON" % type(value).__name__)


def _json(value: Any) -> str:
    """Compact JSON text, as the core writes structured content."""
    return json.dumps(jsonable(value), ensure_ascii=False, separators=(",", ":"))


def is_structured(value: Any) -> bool:
    """A value that becomes ``structuredContent``: a dict (not a content block), a
    dataclass or a pydantic model."""
    if isinstance(value, dict):
        return value.get("type") not in _BLOCK_TYPES
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)) or \
        callable(getattr(value, "model_dump", None))


def block(item: Any, mime_type: str | None = None) -> dict:
    """One content block for one item of a returned value."""
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, (Image, EmbeddedResource, ResourceLink)):
        return item.block()
    if isinstance(item, dict) and item.get("type") in _BLOCK_TYPES:
        return item  # already a block
    if isinstance(item, (bytes, bytearray, memoryview)):
        mime = mime_type or "application/octet-stream"
        if mime.startswith("image/"):
            return Image(bytes(item), mime).block()
        if mime.startswith("audio/"):
            return Audio(bytes(item), mime).block()
        return {"type": "resource", "resource": {
            "uri": "data:", "mimeType": mime, "blob": _b64(bytes(item))}}
    return {"type": "text", "text": _json(item)}


def tool_result(value: Any, mime_type: str | None = None) -> tuple:
    """``(content, structured, is_error, meta)`` for a typed tool's return value:
    ``str`` text; ``None`` no content; a dict, dataclass or model structured content (also
    sent as JSON text by the core); a list or tuple one block per item; ``Image``,
    ``Audio``, ``EmbeddedResource``, ``ResourceLink`` their block; ``bytes`` a block of
    ``mime_type``; a number or bool its JSON text; ``ToolResult`` as given."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}], None, False, None
    if value is None:
        return [], None, False, None
    if isinstance(value, ToolResult):
        content = value.content
        if content is not None and not isinstance(content, list):
            content = [content]
        return ([block(c, mime_type) for c in content] if content is not None else None,
                jsonable(value.structured) if value.structured is not None else None,
                value.is_error, value.meta)
    if is_structured(value):
        return None, jsonable(value), False, None
    if isinstance(value, (list, tuple)):
        return [block(v, mime_type) for v in value], None, False, None
    return [block(value, mime_type)], None, False, None


def read_contents(body: Any, uri: str, mime_type: str | None) -> list:
    """A resource handler's return value as ``contents``: ``str`` text, ``bytes`` a base64
    blob, an ``EmbeddedResource`` as is, a list of contents as given, and anything else
    (dict, dataclass, model, number) its JSON text."""
    if isinstance(body, list) and all(isinstance(b, dict) for b in body):
        return body
    if isinstance(body, EmbeddedResource):
        return [body.contents()]
    item: dict = {"uri": uri}
    if isinstance(body, (bytes, bytearray, memoryview)):
        if mime_type:
            item["mimeType"] = mime_type
        item["blob"] = _b64(bytes(body))
    elif isinstance(body, str):
        if mime_type:
            item["mimeType"] = mime_type
        item["text"] = body
    else:
        item["mimeType"] = mime_type or "application/json"
        item["text"] = _json(body)
    return [item]


def prompt_messages(out: Any) -> list:
    """A prompt's return value as messages: a ``str`` is one user message, a list holds
    messages (dicts) or strings (user messages), a dict with ``messages`` is a result."""
    if isinstance(out, dict):
        out = out.get("messages", [])
    if isinstance(out, str):
        out = [out]
    msgs = []
    for m in out:
        if isinstance(m, dict) and "role" in m:
            msgs.append(m)
        else:
            msgs.append({"role": "user", "content": block(m)})
    return msgs
