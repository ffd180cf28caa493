"""Translate Claude's native tool-call text into Agent Zero JSON tool requests.

The work is done in Rust (``claude_tool_bridge._native``); this package re-exports it. Beside
it: ``claude_tool_bridge.messages`` (the text of a chat message, read one way for every host)
and ``claude_tool_bridge.litellm`` (the LiteLLM callback, with the ``litellm`` extra).

>>> from claude_tool_bridge import Catalog, Config, Session
>>> session = Session(Config())
>>> plan = session.begin_turn("anthropic/claude-sonnet-4-5", [])
>>> isinstance(plan.stops, list)
True
"""

from __future__ import annotations

from ._native import (
    BridgeError,
    Catalog,
    Config,
    Decision,
    Echoes,
    MAX_ECHO_BYTES,
    Session,
    TurnPlan,
    __version__,
    first_call,
    loads,
    repair_json,
    translate,
    unframe,
)

__all__ = [
    "BridgeError",
    "Catalog",
    "Config",
    "Decision",
    "Echoes",
    "MAX_ECHO_BYTES",
    "Session",
    "TurnPlan",
    "__version__",
    "first_call",
    "loads",
    "repair_json",
    "translate",
    "unframe",
]
