"""The texts of chat messages, read one way for every host.

A message is a mapping (``{"role": ..., "content": ...}``, as the OpenAI, Anthropic and
Responses APIs send them) or an object (LiteLLM's pydantic messages, LangChain's messages as
Agent Zero hands them over). Its content is a string or a list of parts: strings, text parts
(``{"type": "text", "text": ...}`` and the other ``text``-carrying parts), and the parts that
hold what a tool returned (Anthropic ``tool_result`` and ``document`` blocks, Responses
``function_call_output`` items), read inside. Image and other parts without text add nothing.

The LiteLLM callback (``claude_tool_bridge.litellm``) and the Agent Zero plugin both read
messages through these functions, so a text one of them finds in a message, the other finds
too. Standard library only.

>>> from claude_tool_bridge.messages import content_texts, role_of, text_of
>>> content = [{"type": "text", "text": "Here:"},
...            {"type": "tool_result", "content": [{"type": "text", "text": "42"}]}]
>>> content_texts(content)
['Here:', '42']
>>> text_of(content)
'Here:\\n42'
>>> role_of({"role": "user", "content": content})
'user'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["content_of", "content_texts", "field_of", "role_of", "text_of"]

# LangChain's message types for the roles the APIs name.
_LANGCHAIN_ROLES = {"human": "user", "ai": "assistant"}

# Parts whose text is what a tool returned: read inside.
_OUTPUT_PARTS = ("function_call_output", "custom_tool_call_output")


_MISSING = object()


def field_of(obj: Any, name: str) -> Any:
    """A field of a mapping or an attribute of an object; None when missing.

    A pydantic model's field is read where pydantic keeps it, without its slow path for a
    missing attribute: a stream's events are read many times each."""
    if type(obj) is dict:
        return obj.get(name)
    extra = getattr(obj, "__pydantic_extra__", _MISSING)
    if extra is not _MISSING:
        if extra and name in extra:
            return extra[name]
        fields = getattr(obj, "__dict__", None)
        if fields is not None and name in fields:
            return fields[name]
        # not a field: a property or a class attribute, if anything
        return getattr(obj, name, None) if hasattr(type(obj), name) else None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def role_of(message: Any) -> str | None:
    """The role of a message: a mapping's ``role``; an object's ``role``, else its LangChain
    ``type`` with ``human`` read as ``user`` and ``ai`` as ``assistant``. None when it has
    none."""
    if isinstance(message, Mapping):
        role = message.get("role")
        return role if isinstance(role, str) else None
    role = getattr(message, "role", None)
    if isinstance(role, str):
        return role
    kind = getattr(message, "type", None)
    if not isinstance(kind, str):
        return None
    return _LANGCHAIN_ROLES.get(kind, kind)


def content_of(message: Any) -> Any:
    """The content of a message (a string, a list of parts, or None)."""
    return field_of(message, "content")


def content_texts(content: Any, out: list[str] | None = None) -> list[str]:
    """The non-empty texts of a message's content, in order: the string itself, or each
    part's text, with a ``tool_result`` block's content, a ``document`` block's source and a
    ``function_call_output`` item's output read inside. Appends to `out` when given, and
    returns the list."""
    if out is None:
        out = []
    if isinstance(content, str):
        if content:
            out.append(content)
        return out
    if not isinstance(content, (list, tuple)):
        return out
    for part in content:
        if isinstance(part, str):
            if part:
                out.append(part)
            continue
        kind = field_of(part, "type")
        text = field_of(part, "text")
        if isinstance(text, str) and text:
            out.append(text)
        if kind == "tool_result":
            content_texts(field_of(part, "content"), out)
        elif kind == "document":
            source = field_of(part, "source")
            data = field_of(source, "data") if source is not None else None
            if isinstance(data, str) and data:
                out.append(data)
            content_texts(field_of(source, "content") if source is not None else None, out)
        elif kind in _OUTPUT_PARTS:
            content_texts(field_of(part, "output"), out)
    return out


def text_of(content: Any, separator: str = "\n") -> str:
    """The texts of a message's content (see `content_texts`) joined by `separator`."""
    return separator.join(content_texts(content))
