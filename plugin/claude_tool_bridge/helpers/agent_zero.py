"""The glue between Agent Zero and the plugin: the only plugin module that imports Agent Zero.

What it imports from Agent Zero, each inside the function that uses it and guarded:
`helpers.print_style` (log lines), `helpers.plugins` (the plugin's saved settings),
`helpers.notification` (one notification when the plugin cannot work). The logic on top of
the wheel is `turns.Bridge`, reached through `bridge()`; `install` (standard library only)
puts the wheel in place.

Which hook decides about a finished reply is chosen by what the running Agent Zero has,
never by its version string:

- no `Agent.call_chat_model_turn` (v1.x): `_functions/agent/Agent/call_chat_model/end`;
- otherwise (v2.6 and the newest): `_functions/agent/Agent/call_chat_model_turn/end`.

Both run inside Agent Zero's model call, before the message loop has looked at the reply:
the stream-end events (where the newest core's `_infection_check` plugin starts its safety
check on the streamed text), `message_loop_result` (`_05_leaked_tool_call`,
`_context_doctor`), history and tool extraction all see the reply that runs, also after a
silent re-ask (the re-ask streams through the same callbacks).

The web UI's log is the exception: Agent Zero fills it only from the text as it streams in
(`handle_response_stream` and the `response_stream` extensions: the step's heading and
thoughts, the answer item). When the bridge wrote the reply that runs (a translation, prose
sent through `response`), `show_reply_that_runs`, called at `response_stream_end`, hands that
reply to `handle_response_stream` once, the way a streamed JSON reply would have reached it;
before a re-ask the step is put back as it was when the turn began and an answer item the
dropped reply made is set aside, so the dropped reply is never shown as the answer (see
"the UI log" below).

Errors: every function here that Agent Zero calls (the hooks below, the settings hooks,
the stream callback the plugin wraps) catches whatever the plugin's own code raises, whatever
odd object it was handed, prints one line (each different failure once per process) and
leaves the reply and the call as they were. Only what Agent Zero's own code raises passes
through unchanged: its stream callback and its model call during a re-ask
(`InterventionException` when the user intervenes, `HandledException`, a provider error),
since the message loop's control flow belongs to Agent Zero.
"""

from __future__ import annotations

import html
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from usr.plugins.claude_tool_bridge.helpers import install

if TYPE_CHECKING:
    from usr.plugins.claude_tool_bridge.helpers.turns import Bridge, Settled

PLUGIN_NAME = "claude_tool_bridge"
PLUGIN_DIR = Path(__file__).resolve().parent.parent
LOG_PREFIX = f"[{PLUGIN_NAME}]"
IMPORT_RETRY_S = 30.0

# Decisions not worth a line: replies the bridge had nothing to do with.
QUIET = frozenset({("untouched", "no_call"), ("untouched", "json_request_present")})

_logged: set[str] = set()


# ---------------------------------------------------------------- log lines, notifications


def say(message: str, error: bool = False) -> None:
    """One line in Agent Zero's console (`docker logs`, or the terminal running it)."""
    try:
        from helpers.print_style import PrintStyle

        style = PrintStyle(font_color="red" if error else "#85C1E9", padding=False)
        style.print(f"{LOG_PREFIX} {message}")
    except Exception:
        print(f"{LOG_PREFIX} {message}", file=sys.stderr if error else sys.stdout, flush=True)


def log_once(key: str, message: str, error: bool = True) -> None:
    """Prints `message` the first time `key` is seen in this process."""
    if key in _logged:
        return
    _logged.add(key)
    say(message, error=error)


def _log_error(where: str, exc: BaseException, outcome: str = "reply left unchanged") -> None:
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        at = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        text = plain(f"{type(exc).__name__}: {exc}")
    except Exception:  # noqa: BLE001 - an exception whose str() fails
        at, text = "?", type(exc).__name__
    log_once(f"{where}:{type(exc).__name__}:{at}", f"{where} failed, {outcome}: {text} ({at})")


_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]+")


def plain(text: str, limit: int = 400) -> str:
    """`text` as one plain line: terminal escape sequences and control characters (what
    pip's output may carry) become spaces, and it is cut to `limit` characters."""
    line = " ".join(_CONTROL.sub(" ", str(text)).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def report_inactive(reason: str, fix: str) -> None:
    """The plugin cannot work: one line in the log and, where Agent Zero has notifications,
    one notification; both once per process, whoever notices first (the startup hook or the
    first turn). Agent Zero then runs exactly as without the plugin. The text may quote pip's
    output: it is made one plain line, and HTML-escaped for the notification (Agent Zero
    renders a notification's message as HTML)."""
    if "inactive" in _logged:
        return
    _logged.add("inactive")
    reason, fix = plain(reason, 1000), plain(fix, 400)
    say(f"inactive, Agent Zero runs as without this plugin: {reason}. To fix: {fix}.", error=True)
    try:
        from helpers.notification import (
            NotificationManager,
            NotificationPriority,
            NotificationType,
        )

        NotificationManager.send_notification(
            type=NotificationType.WARNING,
            priority=NotificationPriority.HIGH,
            message=html.escape(f"{reason}. To fix: {fix}."),
            title="Claude Tool Bridge is inactive",
            detail="",
            display_time=30,
            group=PLUGIN_NAME,
            id=f"{PLUGIN_NAME}_inactive",
        )
    except Exception:
        pass  # a version without notifications: the log line is all there is


# ---------------------------------------------------------------- the wheel-backed logic

_bridge: Bridge | None = None
_import_tried_at = float("-inf")


def bridge() -> Bridge | None:
    """The wheel-backed logic, or None while the wheel cannot be imported (or is not the
    plugin's version). The import is tried at first use and again every `IMPORT_RETRY_S`
    seconds, so a wheel installed later (the startup hook installs it) is picked up
    without a restart."""
    global _bridge, _import_tried_at
    if _bridge is not None:
        return _bridge
    now = time.monotonic()
    if now - _import_tried_at < IMPORT_RETRY_S:
        return None
    _import_tried_at = now
    try:
        from usr.plugins.claude_tool_bridge.helpers import turns
    except Exception as error:  # noqa: BLE001 - ImportError, or a wheel that fails to load
        report_inactive(
            f"the claude_tool_bridge wheel cannot be imported in {sys.executable} "
            f"({type(error).__name__}: {error})",
            "restart Agent Zero: at startup the plugin installs its wheel (bundled, else from "
            "the package index) and says here if that fails",
        )
        return None
    try:
        wanted = install.plugin_version(PLUGIN_DIR)
        have = str(getattr(turns.ctb, "__version__", ""))
        if wanted and have != wanted:
            report_inactive(
                f"claude-tool-bridge {have} is installed, the plugin needs {wanted}",
                f"restart Agent Zero (the plugin installs its version at startup), or run "
                f"`{sys.executable} -m pip install claude-tool-bridge=={wanted}`",
            )
            return None
        _bridge = turns.Bridge()
    except Exception as error:  # noqa: BLE001
        report_inactive(
            f"the claude_tool_bridge wheel does not work in {sys.executable} "
            f"({type(error).__name__}: {error})",
            "reinstall the plugin, or run it with the wheel of its own version",
        )
        return None
    return _bridge


# ---------------------------------------------------------------- settings


def _load_settings(agent: Any) -> Any:
    """The plugin's settings as Agent Zero hands them over (through `settings_for_display`,
    the `get_plugin_config` hook): every key, saved values over the defaults. Settings
    Agent Zero cannot read (a broken `config.json`) leave the bridge off: they may say
    `enabled: false`."""
    try:
        from helpers.plugins import get_plugin_config

        return get_plugin_config(PLUGIN_NAME, agent=agent)
    except Exception as exc:
        _log_error("reading the plugin settings", exc, "the bridge is off until they can be read")
        from usr.plugins.claude_tool_bridge.helpers.turns import Unreadable

        return Unreadable(f"{type(exc).__name__}: {plain(str(exc), 200)}")


def _setting_warning(warning: str) -> None:
    log_once(f"setting:{warning}", f"settings: {warning}")


def settings_for_display(saved: Any) -> Any:
    """The `get_plugin_config` hook: every key, the saved values laid over the defaults by
    the Rust core. Without the wheel, what Agent Zero read, unchanged."""
    return _settings_through_core(
        "get_plugin_config", lambda handle: handle.settings_for_display(saved), saved
    )


def settings_to_store(settings: Any) -> Any:
    """The `save_plugin_config` hook: only the keys that differ from the defaults, so that a
    later release's new defaults reach every key the user left alone. Without the wheel,
    the settings unchanged."""
    return _settings_through_core(
        "save_plugin_config", lambda handle: handle.settings_to_store(settings), settings
    )


def settings_view(
    settings: Any, loaded: bool = False, project_name: str = "", agent_profile: str = ""
) -> dict[str, Any]:
    """The plugin's API for its settings screen (`api/settings.py`): what `settings` (what
    the screen got from Agent Zero: a saved config.json as it is, or the defaults file)
    amount to, as `settings_for_display` gives it: `{"ok": True, "data": ...}`. When they
    are what the screen `loaded` and Agent Zero cannot read the saved settings of that scope
    at all (the screen then got nothing), the answer is what the bridge runs with: off, and
    why. Without the wheel, or when that fails, `{"ok": False, "error": ...}`: the screen
    then says it shows the file as it is."""
    try:
        handle = bridge()
        if handle is None:
            return {
                "ok": False,
                "error": "the claude_tool_bridge wheel is not installed in this Agent Zero's "
                "Python (see the log)",
            }
        if loaded:
            unreadable = _unreadable_settings(project_name, agent_profile)
            if unreadable is not None:
                settings = unreadable
        shown, warnings = handle.settings_for_display(settings)
        for warning in warnings:
            _setting_warning(warning)
        return {"ok": True, "data": shown}
    except Exception as exc:  # noqa: BLE001
        _log_error("showing the settings", exc, "the screen shows the file as it is")
        return {"ok": False, "error": f"the settings could not be read ({type(exc).__name__})"}


def _unreadable_settings(project_name: str, agent_profile: str) -> Any:
    """`Unreadable` when Agent Zero cannot read the plugin's saved settings of that scope (a
    broken `config.json`), else None."""
    try:
        from helpers.plugins import get_plugin_config

        get_plugin_config(PLUGIN_NAME, project_name=project_name, agent_profile=agent_profile)
        return None
    except Exception as exc:  # noqa: BLE001 - what a turn would find: the bridge is off
        from usr.plugins.claude_tool_bridge.helpers.turns import Unreadable

        return Unreadable(f"{type(exc).__name__}: {plain(str(exc), 200)}")


def _settings_through_core(
    hook: str, convert: Callable[[Bridge], tuple[Any, list[str]]], settings: Any
) -> Any:
    """What `convert` makes of the settings, its warnings shown; `settings` unchanged when
    the wheel is missing or `convert` fails (the failure printed once)."""
    try:
        handle = bridge()
        if handle is None:
            return settings
        converted, warnings = convert(handle)
        for warning in warnings:
            _setting_warning(warning)
        return converted
    except Exception as exc:
        _log_error(hook, exc, "the settings are handed on as read")
        return settings


# ---------------------------------------------------------------- hooks


async def chat_model_call_before(agent: Any, call_data: Any) -> None:
    """Sets the provider stop strings and wraps the response callback for early stop. On any
    failure the call goes out as Agent Zero made it."""
    try:
        if agent is None or not isinstance(call_data, dict):
            return
        handle = bridge()
        if handle is None:
            return
    except Exception as exc:
        _log_error("chat_model_call_before", exc)
        return
    saved = _save_call(call_data)
    try:
        turn = handle.start_turn(agent, call_data, lambda: _load_settings(agent), _setting_warning)
        if turn is not None:
            _remember_log(agent)
    except Exception as exc:
        _log_error("chat_model_call_before", exc, "the model call is left as Agent Zero made it")
        _restore_call(call_data, saved)
        try:
            handle.drop_turn(agent)
        except Exception:  # noqa: BLE001 - an agent that takes no attributes
            pass


def _save_call(call_data: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    """What `chat_model_call_before` may change: the callback, the model's kwargs dict (and
    its content: a model that refuses a new dict has it changed in place)."""
    try:
        model = call_data.get("model")
        kwargs = getattr(model, "kwargs", None)
        content = dict(kwargs) if isinstance(kwargs, dict) else None
        return call_data.get("response_callback"), model, kwargs, content
    except Exception:  # noqa: BLE001
        return call_data.get("response_callback"), None, None, None


def _restore_call(call_data: dict[str, Any], saved: tuple[Any, Any, Any, Any]) -> None:
    callback, model, kwargs, content = saved
    try:
        call_data["response_callback"] = callback
        if model is None or not isinstance(kwargs, dict) or content is None:
            return
        if kwargs != content:
            kwargs.clear()
            kwargs.update(content)
        if getattr(model, "kwargs", None) is not kwargs:
            model.kwargs = kwargs
    except Exception as exc:  # noqa: BLE001
        _log_error("restoring the model call", exc, "it may carry the bridge's stop strings")


async def call_chat_model_end(agent: Any, data: Any) -> None:
    """v1.x: `Agent.call_chat_model` returned `(response, reasoning)`."""
    try:
        if agent is None or not isinstance(data, dict):
            return
        if hasattr(type(agent), "call_chat_model_turn"):
            return  # v2.6 and newer decide in call_chat_model_turn; this is another caller
    except Exception as exc:
        _log_error("call_chat_model end", exc)
        return
    await _end(agent, data, "call_chat_model", "call_chat_model end")


async def call_chat_model_turn_end(agent: Any, data: Any) -> None:
    """v2.6 and the newest: `Agent.call_chat_model_turn` returned an `LLMResult`."""
    if agent is None or not isinstance(data, dict):
        return
    await _end(agent, data, "call_chat_model_turn", "call_chat_model_turn end")


async def _end(agent: Any, data: dict[str, Any], method: str, where: str) -> None:
    try:
        handle = bridge()
        if handle is None:
            return
        if data.get("exception") is not None:
            handle.drop_turn(agent)
            return
        original = data.get("result")
        is_tuple = isinstance(original, tuple)  # may raise: `__class__` of an odd object
    except Exception as exc:
        _log_error(where, exc)
        return
    if is_tuple:
        data["result"] = await _decide(handle, agent, original, method, where, mutable=False)
    elif original is not None:
        await _decide(handle, agent, original, method, where, mutable=True)


async def _decide(
    handle: Bridge, agent: Any, result: Any, method: str, where: str, mutable: bool
) -> Any:
    """Decides about `result`, asking again on a discard. An `LLMResult` (`mutable`) is
    rewritten in place (the message loop holds it); a v1.x tuple is returned anew. Only what
    Agent Zero's own model call raises during a re-ask leaves this function."""
    try:
        before = _snapshot(result) if mutable else None
    except Exception as exc:
        # What cannot be put back is not touched.
        _log_error(where, exc)
        try:
            handle.drop_turn(agent)
        except Exception:  # noqa: BLE001
            pass
        return result
    raised_by_agent_zero: list[BaseException] = []
    try:
        turn = handle.take_turn(agent)
        if turn is None:
            return result

        async def ask_again() -> Any:
            _rewind_log(agent)
            try:
                return await getattr(agent, method)(**turn.call)
            except BaseException as exc:
                raised_by_agent_zero.append(exc)
                raise

        settled = await handle.settle(agent, turn, result, ask_again, _agent_label(agent))
        handed = settled.result
        if mutable and handed is not result:
            _adopt(result, handed)
            handed = result
    except Exception as exc:
        if raised_by_agent_zero and exc is raised_by_agent_zero[-1]:
            raise  # Agent Zero's own: its message loop decides what happens next
        if before is not None:
            _restore(result, before)
        _log_error(where, exc)
        return result
    _report(agent, settled, where)
    _to_show(agent, settled.rewritten)
    return handed


def _adopt(target: Any, source: Any) -> None:
    """Makes the object `target` carry what `source` carries (the re-asked result)."""
    fields = getattr(type(source), "__dataclass_fields__", None)
    names = list(fields) if fields else list(getattr(source, "__dict__", {}))
    for name in names:
        try:
            setattr(target, name, getattr(source, name))
        except Exception:
            pass


def _agent_label(agent: Any) -> str:
    try:
        return plain(str(getattr(agent, "agent_name", "") or "agent"), 60)
    except Exception:  # noqa: BLE001
        return "agent"


def _tool_of(decision: Any) -> str:
    """The tool a decision runs: its call's (a translation), or the `response` tool a prose
    answer is sent through (no call the model wrote: only the request Agent Zero gets names
    it); "" for any other decision."""
    call = getattr(decision, "call", None)
    if isinstance(call, dict) and isinstance(call.get("name"), str):
        return call["name"]
    request = getattr(decision, "request", None) if decision.outcome == "prose" else None
    name = request.get("tool_name") if isinstance(request, dict) else None
    return name if isinstance(name, str) else ""


def _report(agent: Any, settled: Settled, where: str) -> None:
    """One line per decision of the turn, discards included (each re-ask with its cause),
    one per cause switched off. Never raises: the reply is already decided."""
    try:
        from usr.plugins.claude_tool_bridge.helpers.turns import BACKOFF_TURNS

        label = _agent_label(agent)
        asked = 0
        for decision in settled.decisions:
            if (decision.outcome, decision.reason) in QUIET:
                continue
            tool = f" -> {_tool_of(decision)}" if _tool_of(decision) else ""
            again = ""
            if decision.outcome == "discard" and asked < len(settled.reasks):
                asked += 1
                again = f", asked again (re-ask {asked} of this turn, cause: {decision.reason})"
            say(f"{label}: {decision.outcome} ({decision.reason}){tool}{again}")
        for cause in settled.switched_off:
            say(
                f"{label}: re-asks for `{cause}` did not pay off; it is switched off for the "
                f"next {BACKOFF_TURNS} turns of this conversation"
            )
        if settled.error is not None:
            _log_error(where, settled.error, "the re-asked reply goes on unchanged")
        if settled.left_alone:
            log_once(
                f"left:{settled.left_alone}",
                f"{label}: a reply that came with {settled.left_alone} is left to Agent Zero "
                "(said once)",
                error=False,
            )
    except Exception as exc:  # noqa: BLE001
        _log_error("reporting a decision", exc, "the decision stands")


# ---------------------------------------------------------------- the UI log
#
# Agent Zero's web UI reads the chat log (`agent.context.log`): per loop iteration a step item
# (`loop_data.params_temporary["log_item_generating"]`, made at `before_main_llm_call` and
# titled "A0: Calling LLM...") and, for a `response` request, an answer item
# (`params_temporary["log_item_response"]`, sharing the step's id; the `response` tool marks
# it finished, which ends the step group). Both are filled only from the streamed text. The
# bridge keeps, per agent, what it needs to show the reply that runs instead:

UI_ATTR = "_claude_tool_bridge_ui"


@dataclass
class _Shown:
    """The log of one loop iteration whose reply the bridge decides about."""

    loop_data: Any
    iteration: Any
    # The step item, and what it showed when the turn began (put back before a re-ask).
    step: Any
    heading: Any
    content: Any
    kvps: Any
    # Answer items that dropped replies made while they streamed.
    dropped_answers: list[Any] = field(default_factory=list)
    # The reply that runs, when the bridge wrote it: shown at `response_stream_end`.
    reply: str | None = None


def _current(agent: Any) -> _Shown | None:
    """The record for the agent's current loop iteration, or None."""
    shown = getattr(agent, UI_ATTR, None)
    if not isinstance(shown, _Shown):
        return None
    loop_data = getattr(agent, "loop_data", None)
    if shown.loop_data is not loop_data or shown.iteration != getattr(loop_data, "iteration", None):
        return None
    return shown


def _params(shown: _Shown) -> dict[str, Any]:
    params = getattr(shown.loop_data, "params_temporary", None)
    return params if isinstance(params, dict) else {}


def _remember_log(agent: Any) -> None:
    """When a covered turn begins (not again for its re-asks): what the step item shows."""
    try:
        if _current(agent) is not None:
            return  # a re-ask of this iteration's turn
        loop_data = getattr(agent, "loop_data", None)
        params = getattr(loop_data, "params_temporary", None)
        step = params.get("log_item_generating") if isinstance(params, dict) else None
        kvps = getattr(step, "kvps", None)
        setattr(agent, UI_ATTR, _Shown(
            loop_data=loop_data,
            iteration=getattr(loop_data, "iteration", None),
            step=step,
            heading=getattr(step, "heading", None),
            content=getattr(step, "content", None),
            kvps=dict(kvps) if isinstance(kvps, dict) else {},
        ))
    except Exception as exc:  # noqa: BLE001 - an agent that takes no attributes
        _log_error("remembering the UI log", exc, "the log shows what streamed")


def _rewind_log(agent: Any) -> None:
    """Before a re-ask: the step shows again what it showed when the turn began, and an
    answer item the dropped reply made is set aside (the re-asked reply makes its own)."""
    try:
        shown = _current(agent)
        if shown is None:
            return
        if shown.step is not None:
            shown.step.update(heading=shown.heading, content=shown.content, kvps=dict(shown.kvps))
        answer = _params(shown).pop("log_item_response", None)
        if answer is not None:
            shown.dropped_answers.append(answer)
    except Exception as exc:  # noqa: BLE001
        _log_error("rewinding the UI log", exc, "the log may show the dropped reply")


def _to_show(agent: Any, reply: str | None) -> None:
    try:
        shown = _current(agent)
        if shown is not None:
            shown.reply = reply
    except Exception as exc:  # noqa: BLE001
        _log_error("showing the reply", exc, "the log shows what streamed")


async def show_reply_that_runs(agent: Any, loop_data: Any) -> None:
    """`response_stream_end` (after the model call, and after the newest core has handed its
    last streamed text to the log): the reply the bridge wrote goes through
    `handle_response_stream` as a streamed JSON reply would have, filling the step's heading,
    thoughts and tool, and the answer item of a `response`. An answer item a dropped reply
    made, and that the reply that runs did not take over, becomes a copy of the step, so it
    is never shown as the answer. What Agent Zero's own `handle_response_stream` raises (an
    intervention) passes through."""
    try:
        shown = _current(agent)
        if shown is None or shown.loop_data is not loop_data:
            return
        setattr(agent, UI_ATTR, None)
        reply = shown.reply
        handle = getattr(agent, "handle_response_stream", None) if reply else None
    except Exception as exc:  # noqa: BLE001
        _log_error("showing the reply", exc, "the log shows what streamed")
        return
    if handle is not None:
        await handle(reply)
    try:
        params = _params(shown)
        step = params.get("log_item_generating")
        for answer in shown.dropped_answers:
            if answer is params.get("log_item_response"):
                continue
            kvps = getattr(step, "kvps", None)
            answer.update(
                type="agent",
                heading=getattr(step, "heading", "") or "",
                content=getattr(step, "content", "") or "",
                kvps={k: v for k, v in kvps.items() if k != "step"} if isinstance(kvps, dict) else {},
            )
    except Exception as exc:  # noqa: BLE001
        _log_error("showing the reply", exc, "the log may show the dropped reply")


def _snapshot(result: Any) -> dict[str, Any]:
    """What the bridge may change on a result object, to put back should deciding fail:
    its fields, and the `data` of each output item. Raises when the object cannot be read
    that far; the caller then leaves it alone."""
    names = getattr(type(result), "__dataclass_fields__", None) or getattr(result, "__dict__", {})
    snap: dict[str, Any] = {}
    for name in list(names):
        if not isinstance(name, str):
            continue
        try:
            value = getattr(result, name)
        except Exception:  # noqa: BLE001 - a field that cannot be read is not written either
            continue
        if name == "output_items" and isinstance(value, list):
            items = []
            for item in value:
                data = getattr(item, "data", None)
                items.append((item, dict(data) if isinstance(data, dict) else None))
            value = items
        snap[name] = value
    return snap


def _restore(result: Any, snap: dict[str, Any]) -> None:
    for name, value in snap.items():
        try:
            if name == "output_items" and isinstance(value, list):
                items = []
                for item, data in value:
                    if data is not None and isinstance(getattr(item, "data", None), dict):
                        item.data.clear()
                        item.data.update(data)
                    items.append(item)
                value = items
            setattr(result, name, value)
        except Exception:  # noqa: BLE001 - best effort, field by field
            pass
