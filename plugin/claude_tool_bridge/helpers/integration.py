"""The glue between Agent Zero and the bridge: the only plugin module that imports Agent Zero.

Each extension file calls one function here. Every function catches everything: on any
error the reply is left as it is (Agent Zero behaves as without the plugin) and the error
is printed once.

Which hook rewrites the finished reply is chosen by what the running Agent Zero has, never
by its version string:

- `Agent.call_chat_model_turn` absent (v1.x): `_functions/agent/Agent/call_chat_model/end`;
- present, and the core has no `message_loop_result` extension point (v2.6):
  `_functions/agent/Agent/call_chat_model_turn/end`;
- the core has `extensions/python/message_loop_result/` (newest): that point, in a file
  that sorts before the core's `_05_leaked_tool_call` and `_context_doctor`'s `_10_`.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Any

import time

bridge: Any = None
_IMPORT_ERROR: Exception | None = None
_import_tried_at = float("-inf")
IMPORT_RETRY_S = 30.0


def _import_bridge() -> None:
    """Imports the logic module (which needs the wheel); retried now and then while the
    wheel is missing, so a wheel installed later is picked up without a restart."""
    global bridge, _IMPORT_ERROR, _import_tried_at
    _import_tried_at = time.monotonic()
    try:
        from usr.plugins.claude_tool_bridge.helpers import bridge as module
    except ImportError as error:  # the wheel is not installed (yet)
        _IMPORT_ERROR = error
    else:
        bridge, _IMPORT_ERROR = module, None


_import_bridge()

PLUGIN_NAME = "claude_tool_bridge"
LOG_PREFIX = "[claude_tool_bridge]"

_logged: set[str] = set()
_catalogs: Any = None
_loop_result_point: bool | None = None


# ---------------------------------------------------------------- logging


def _print(message: str, error: bool = False) -> None:
    try:
        from helpers.print_style import PrintStyle

        style = PrintStyle(font_color="red" if error else "#85C1E9", padding=False)
        style.print(f"{LOG_PREFIX} {message}")
    except Exception:
        print(f"{LOG_PREFIX} {message}", file=sys.stderr if error else sys.stdout)


def log_once(key: str, message: str, error: bool = True) -> None:
    """Prints `message` the first time `key` is seen in this process."""
    if key in _logged:
        return
    _logged.add(key)
    _print(message, error=error)


def _log_error(where: str, exc: BaseException) -> None:
    frames = traceback.extract_tb(exc.__traceback__)
    at = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    log_once(
        f"{where}:{type(exc).__name__}:{at}",
        f"{where} failed, reply left unchanged: {type(exc).__name__}: {exc} ({at})",
    )


def _available() -> bool:
    if bridge is None and time.monotonic() - _import_tried_at >= IMPORT_RETRY_S:
        _import_bridge()
    if bridge is None:
        log_once(
            "import",
            f"the claude_tool_bridge wheel is not importable ({_IMPORT_ERROR}); the plugin "
            "stays inactive until it is installed (Agent Zero installs the bundled wheel at "
            "startup: restart it).",
        )
        return False
    return True


# ---------------------------------------------------------------- Agent Zero access


def _load_settings(agent: Any) -> dict[str, Any]:
    saved: Any = None
    try:
        from helpers.plugins import get_plugin_config

        saved = get_plugin_config(PLUGIN_NAME, agent=agent)
    except Exception as exc:
        _log_error("reading the plugin settings", exc)
    return bridge.merge_settings(saved, bridge.default_settings())


def _config(agent: Any, state: Any) -> Any:
    return bridge.refresh_config(
        state,
        lambda: _load_settings(agent),
        on_warning=lambda w: log_once(f"setting:{w}", f"settings: {w}"),
    )


def _catalog_cache() -> Any:
    global _catalogs
    if _catalogs is None:
        _catalogs = bridge.CatalogCache()
    return _catalogs


def _agent_label(agent: Any) -> str:
    return str(getattr(agent, "agent_name", "") or "agent")


def core_has_loop_result_point() -> bool:
    """Whether the running core has the `message_loop_result` extension point (newest)."""
    global _loop_result_point
    if _loop_result_point is None:
        try:
            import helpers.extension as extension_module

            root = Path(extension_module.__file__).resolve().parent.parent
            _loop_result_point = (root / "extensions" / "python" / "message_loop_result").is_dir()
        except Exception:
            _loop_result_point = False
    return _loop_result_point


def _report(agent: Any, decision: Any) -> None:
    if decision is None or decision.outcome == "untouched" and decision.reason in (
        "no_call",
        "json_request_present",
    ):
        return
    tool = ""
    request = decision.request
    if isinstance(request, dict) and request.get("tool_name"):
        tool = f" -> {request['tool_name']}"
    _print(f"{_agent_label(agent)}: {decision.outcome} ({decision.reason}){tool}")


# ---------------------------------------------------------------- hooks


async def chat_model_call_before(agent: Any, call_data: Any) -> None:
    """Sets the provider stop strings and wraps the response callback for early stop."""
    if agent is None or not isinstance(call_data, dict) or not _available():
        return
    try:
        state = bridge.state_of(agent)
        config = _config(agent, state)
        bridge.begin(state, config, call_data, _catalog_cache().get)
    except Exception as exc:
        _log_error("chat_model_call_before", exc)
        try:
            bridge.state_of(agent).turn = None
        except Exception:
            pass


async def _finish(agent: Any, result: Any, method: str) -> Any:
    """Decides about `result` (asking again on a discard); returns what to hand on."""
    state = bridge.state_of(agent)
    if state.reasking:
        return result  # the end hook of our own re-ask: the outer hook decides
    turn = bridge.take_turn(state)
    if turn is None:
        return result
    catalog = turn.catalog if turn.catalog is not None else _catalog_cache().get(turn.prompt_text)

    async def ask_again() -> Any:
        call = getattr(agent, method)
        return await call(**turn.call)

    settled, decision = await bridge.settle(state, turn, result, catalog, ask_again)
    _report(agent, decision)
    return settled


async def call_chat_model_end(agent: Any, data: Any) -> None:
    """v1.x: `Agent.call_chat_model` returned `(response, reasoning)`."""
    if agent is None or not isinstance(data, dict) or not _available():
        return
    if hasattr(type(agent), "call_chat_model_turn"):
        return  # v2.6 and newer rewrite elsewhere; this is another caller's call
    if data.get("exception") is not None:
        bridge.state_of(agent).turn = None
        return
    original = data.get("result")
    try:
        if not isinstance(original, tuple):
            return
        data["result"] = await _finish(agent, original, "call_chat_model")
    except Exception as exc:
        data["result"] = original
        _log_error("call_chat_model end", exc)


async def call_chat_model_turn_end(agent: Any, data: Any) -> None:
    """v2.6: `Agent.call_chat_model_turn` returned an `LLMResult`."""
    if agent is None or not isinstance(data, dict) or not _available():
        return
    if core_has_loop_result_point():
        return  # newest: message_loop_result decides
    if data.get("exception") is not None:
        bridge.state_of(agent).turn = None
        return
    result = data.get("result")
    await _finish_llm_result(agent, result, "call_chat_model_turn end")


async def message_loop_result(agent: Any, result_data: Any) -> None:
    """Newest: `result_data["llm_result"]` before the core's and `_context_doctor`'s hooks."""
    if agent is None or not isinstance(result_data, dict) or not _available():
        return
    if result_data.get("skip_default_processing"):
        bridge.state_of(agent).turn = None
        return
    await _finish_llm_result(agent, result_data.get("llm_result"), "message_loop_result")


async def _finish_llm_result(agent: Any, result: Any, where: str) -> None:
    if result is None or isinstance(result, tuple):
        return
    before = _snapshot(result)
    try:
        settled = await _finish(agent, result, "call_chat_model_turn")
        if settled is not result:
            bridge.adopt_result(result, settled)
    except Exception as exc:
        _restore(result, before)
        _log_error(where, exc)


def _snapshot(result: Any) -> dict[str, Any]:
    names = getattr(type(result), "__dataclass_fields__", None) or getattr(result, "__dict__", {})
    snap: dict[str, Any] = {}
    for name in list(names):
        try:
            value = getattr(result, name)
        except Exception:
            continue
        if name == "output_items" and isinstance(value, list):
            value = [(item, dict(getattr(item, "data", {}) or {})) for item in value]
        snap[name] = value
    return snap


def _restore(result: Any, snap: dict[str, Any]) -> None:
    for name, value in snap.items():
        try:
            if name == "output_items" and isinstance(value, list):
                items = []
                for item, data in value:
                    if isinstance(getattr(item, "data", None), dict):
                        item.data.clear()
                        item.data.update(data)
                    items.append(item)
                value = items
            setattr(result, name, value)
        except Exception:
            pass
