"""The plugin's logic on top of the wheel: settings, the tool catalog, per-agent state, turns.

Imports: the standard library and the `claude_tool_bridge` wheel. Nothing from Agent Zero:
everything Agent Zero-shaped is handed in by `agent_zero.py` (the only module that imports
Agent Zero), so this is tested with plain stand-ins. Importing this module fails while the
wheel is missing; `agent_zero.bridge()` handles that.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import claude_tool_bridge as ctb
from claude_tool_bridge.messages import content_of, content_texts, role_of

PLUGIN_NAME = "claude_tool_bridge"

SETTINGS_TTL_S = 5.0
CATALOG_TTL_S = 120.0
CATALOG_CACHE_MAX = 16
# A discard asks again at most this many times per turn (the Rust session also stops
# discarding after two in a row; this is only a hard cap on calls).
MAX_REASKS = 2
STATE_ATTR = "_claude_tool_bridge_state"

Clock = Callable[[], float]


# ---------------------------------------------------------------- settings
#
# The defaults live in the Rust core (`Config::default`); `Config.from_dict` lays saved
# settings over them, key by key, failing closed (an `enabled` that cannot be read is off, a
# `models` that cannot be read covers no model). Nothing here knows a default or merges by hand.

# Keys the settings screen shows that are no settings: what the last settings read warned
# about, and what re-asks the last conversation cost. Added by `settings_for_display`, taken
# out again before the settings are read or stored.
DISPLAY_KEYS = ("_warnings", "_reasks")


class Unreadable:
    """What `agent_zero` hands over when Agent Zero could not read the saved settings at all
    (a broken `config.json`): the bridge is then off, since a saved `enabled: false` may be
    in there."""

    def __init__(self, why: str) -> None:
        self.why = why


# A warning about the settings as a whole, not about one key.
WHOLE = ""

# A warning: the key it is about (`WHOLE` for the settings as a whole) and its line of text.
KeyedWarning = tuple[str, str]


def _off(why: str) -> tuple[ctb.Config, list[KeyedWarning]]:
    return ctb.Config.from_dict({"enabled": False}), [
        (WHOLE, f"the saved settings cannot be used ({why}); the bridge is off until they are fixed")
    ]


def config_from_settings(saved: Any) -> tuple[ctb.Config, list[KeyedWarning]]:
    """The config for what Agent Zero handed over (a saved `config.json`, possibly from an
    older version and lacking newer keys; the defaults file; or nothing), and the warnings,
    each with its key: unknown keys and unusable values (each falls back for its own key),
    or why settings that cannot be read at all leave the bridge off."""
    if saved is None:
        return ctb.Config(), []
    if isinstance(saved, Unreadable):
        return _off(saved.why)
    if isinstance(saved, dict) and any(key in saved for key in DISPLAY_KEYS):
        saved = {key: value for key, value in saved.items() if key not in DISPLAY_KEYS}
    try:
        config = ctb.Config.from_dict(saved)
    except Exception as error:  # noqa: BLE001 - not a mapping, or an odd one
        return _off(f"{type(error).__name__}: {error}")
    return config, [(str(key), str(text)) for key, text in config.warnings_by_key]


def texts(warnings: list[KeyedWarning]) -> list[str]:
    return [text for _, text in warnings]


def settings_to_store(settings: Any) -> tuple[dict[str, Any], list[str]]:
    """What to write to `config.json` when the settings screen saves: only the keys that
    differ from the defaults, so a later release's new defaults still reach the rest."""
    config, warnings = config_from_settings(settings)
    return config.overrides(), texts(warnings)


# ---------------------------------------------------------------- catalog


class CatalogCache:
    """Tool catalogs by the text the model was shown, each kept for `ttl` seconds."""

    def __init__(self, ttl: float = CATALOG_TTL_S, clock: Clock = time.monotonic):
        self.ttl = ttl
        self.clock = clock
        self._entries: dict[str, tuple[float, ctb.Catalog]] = {}
        self.builds = 0

    def get(self, prompt_text: str) -> ctb.Catalog:
        key = hashlib.blake2b(prompt_text.encode("utf-8", "replace"), digest_size=16).hexdigest()
        now = self.clock()
        hit = self._entries.get(key)
        if hit is not None and now - hit[0] < self.ttl:
            return hit[1]
        catalog = build_catalog(prompt_text)
        self.builds += 1
        if len(self._entries) >= CATALOG_CACHE_MAX:
            for old in [k for k, (t, _) in self._entries.items() if now - t >= self.ttl]:
                del self._entries[old]
            if len(self._entries) >= CATALOG_CACHE_MAX:
                self._entries.pop(next(iter(self._entries)))
        self._entries[key] = (now, catalog)
        return catalog


def build_catalog(prompt_text: str) -> ctb.Catalog:
    """Agent Zero's bundled tools, with what the prompt text teaches on top.

    The bundled definitions keep their types where the prompt only shows usage examples;
    the prompt adds MCP tools (with their schemas) and tools of plugins and newer versions.
    """
    catalog = ctb.Catalog.agent_zero()
    if prompt_text:
        try:
            catalog.extend(ctb.Catalog.from_text(prompt_text))
        except ValueError:
            pass
    return catalog


def prompt_text_of(messages: Any) -> str:
    """The system prompt text out of a LangChain-style message list (what the model saw): the
    texts of its system messages, read as every host reads them
    (`claude_tool_bridge.messages`), joined by blank lines."""
    if not isinstance(messages, (list, tuple)):
        return ""
    parts: list[str] = []
    for message in messages:
        if role_of(message) == "system":
            content_texts(content_of(message), parts)
    return "\n\n".join(parts)


# ---------------------------------------------------------------- what the agent received

# Characters of received text handed to the bridge per turn, newest first: a call copied
# from them is an echo, never a call. About a context window's worth of history.
ECHO_BUDGET_CHARS = 4_000_000
# How deep a decoded history entry is walked for its texts.
ECHO_MAX_DEPTH = 32
# The roles of what the model wrote itself, or the system prompt: not received text
# (LangChain's `ai` is read as `assistant`).
OWN_ROLES = frozenset({"system", "assistant"})


def received_texts(messages: Any, budget: int = ECHO_BUDGET_CHARS) -> list[str]:
    """The texts of the prompt the model did not write, newest first, at most `budget`
    characters: tool results (fetched pages, documents, command output), user and superior
    messages, warnings, summaries. `messages` is the LangChain list the model receives
    (`call_data["messages"]`, the same in every Agent Zero generation); the system prompt
    and the model's own messages are left out. A message's texts are read as every host
    reads them (`claude_tool_bridge.messages`).

    Agent Zero writes each history entry as one line of JSON inside a user message (a tool
    result is `{"tool_name": ..., "tool_result": "<escaped text>"}`), so such a line is
    decoded and its strings taken as written; other lines (summaries, headers) are taken
    as plain text. Image blocks are skipped."""
    if not isinstance(messages, (list, tuple)):
        return []
    out: list[str] = []
    used = 0
    for message in reversed(messages):
        if role_of(message) in OWN_ROLES:
            continue
        for part in reversed(content_texts(content_of(message))):
            for text in reversed(_texts_of_part(part)):
                if used >= budget:
                    return out
                text = text[: budget - used]
                out.append(text)
                used += len(text)
    return out


def _texts_of_part(part: str) -> list[str]:
    """A message's text in order: each JSON line's strings, decoded, and the runs of other
    lines as they are."""
    texts: list[str] = []
    plain: list[str] = []
    for line in part.split("\n"):
        stripped = line.strip()
        if stripped.startswith("{") and stripped.endswith("}"):
            try:
                value = json.loads(stripped)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                if plain:
                    texts.append("\n".join(plain))
                    plain = []
                _strings_of(value, texts, 0)
                continue
        plain.append(line)
    if plain:
        texts.append("\n".join(plain))
    return [t for t in texts if t.strip()]


def _strings_of(value: Any, out: list[str], depth: int) -> None:
    if depth > ECHO_MAX_DEPTH:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings_of(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _strings_of(item, out, depth + 1)


# ---------------------------------------------------------------- per-agent state


@dataclass
class Turn:
    """One chat-model call the bridge is watching, from `chat_model_call_before` to its end.
    It keeps the session and settings it began with: a save of the settings screen while the
    turn runs (also during a re-ask) applies from the next turn."""

    model_name: str
    stops: list[str]
    prompt_text: str
    # What is needed to ask again: the call's inputs before the bridge touched them.
    call: dict[str, Any] = field(default_factory=dict)
    early_stopped: str | None = None
    # The tools the model was shown (built when the turn begins, for the early stop).
    catalog: ctb.Catalog | None = None
    # Agent Zero was asked to use the Responses transport for this call (see `begin`).
    responses_requested: bool = False
    # The session that decides this turn (and its re-asks), and the settings it runs with.
    session: Any = None
    config: ctb.Config | None = None


# Re-asks: a turn asks again at most `MAX_REASKS` times. A cause of re-asks (the reason of
# the discard) that did not pay off is switched off for the next `BACKOFF_TURNS` turns of
# the conversation: when a re-ask for it did not give a usable reply, or when it needed a
# re-ask twice within `BACKOFF_TURNS` turns. Switched off means the settings the cause
# depends on are off for those turns (`loop`: `loop_guard`, so no loop stops and no loop
# discards; `stopped_without_call`: `stop_sequence`; `cut_inside_parameter` and any other
# cause: both), so those turns cost one model call each.
BACKOFF_TURNS = 20
BACKOFF_SETTINGS = {
    "loop": {"loop_guard": False},
    "stopped_without_call": {"stop_sequence": False},
}
BACKOFF_BOTH = {"loop_guard": False, "stop_sequence": False}


def counted(n: int, noun: str) -> str:
    """`1 turn`, `2 turns`: a count and its noun, plural unless the count is one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass
class Usage:
    """What the bridge cost one conversation (one agent object): turns it covered, model
    calls, re-asks by cause, and the causes switched off, with the turns left."""

    label: str = ""
    turns: int = 0
    calls: int = 0
    reasks: dict[str, int] = field(default_factory=dict)
    # cause -> covered turns left with it switched off
    backoff: dict[str, int] = field(default_factory=dict)
    # cause -> the turn (number) of its last re-ask
    last_reask: dict[str, int] = field(default_factory=dict)

    @property
    def reask_count(self) -> int:
        return sum(self.reasks.values())

    def summary(self) -> str:
        """One line for the settings screen."""
        who = f" ({self.label})" if self.label else ""
        turns = counted(self.turns, "turn")
        if not self.reask_count:
            text = f"The last conversation{who}: {turns}, no re-asks."
        else:
            causes = ", ".join(f"{cause} {n}" for cause, n in sorted(self.reasks.items()))
            text = (
                f"The last conversation{who}: {turns}, {counted(self.reask_count, 're-ask')} "
                f"({causes}), {counted(self.calls, 'model call')}."
            )
        if self.backoff:
            off = ", ".join(
                f"{cause} for {counted(n, 'more turn')}" for cause, n in sorted(self.backoff.items())
            )
            text += f" Switched off after re-asks that did not pay off: {off}."
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.label,
            "turns": self.turns,
            "model_calls": self.calls,
            "reasks": self.reask_count,
            "by_cause": dict(self.reasks),
            "switched_off": dict(self.backoff),
            "summary": self.summary(),
        }


@dataclass
class AgentState:
    """The bridge's state for one agent, kept on the agent object."""

    session: ctb.Session | None = None
    config: ctb.Config | None = None
    config_json: str = ""
    settings_at: float = float("-inf")
    turn: Turn | None = None
    # The turn being decided while its end hook asks again: the inner call's hooks use its
    # session and settings, and stay out of deciding.
    settling: Turn | None = None
    reasking: bool = False
    force_no_stops: bool = False
    usage: Usage = field(default_factory=Usage)
    # Sessions for the settings with causes switched off, by the causes (made on demand).
    backoff_sessions: dict[tuple[str, ...], Any] = field(default_factory=dict)


def state_of(agent: Any) -> AgentState:
    state = getattr(agent, STATE_ATTR, None)
    if not isinstance(state, AgentState):
        state = AgentState()
        setattr(agent, STATE_ATTR, state)
    return state


def refresh_config(
    state: AgentState,
    load_settings: Callable[[], Any],
    clock: Clock = time.monotonic,
    on_warning: Callable[[str], None] | None = None,
) -> ctb.Config:
    """The agent's settings, re-read at most every `SETTINGS_TTL_S` seconds. A change of
    settings starts a new session (a turn already running keeps its own)."""
    now = clock()
    if state.config is not None and now - state.settings_at < SETTINGS_TTL_S:
        return state.config
    config, warnings = config_from_settings(load_settings())
    state.settings_at = now
    text = config.to_json()
    if text != state.config_json or state.session is None:
        if on_warning is not None:
            for warning in texts(warnings):
                on_warning(warning)
        state.config_json = text
        state.config = config
        state.session = ctb.Session(config)
        state.backoff_sessions.clear()
    return state.config if state.config is not None else config


def session_for_turn(state: AgentState, config: ctb.Config) -> tuple[Any, ctb.Config]:
    """The session and settings the next turn runs with: the agent's own, or, while causes
    of re-asks are switched off, a session for the settings with those off."""
    causes = tuple(sorted(state.usage.backoff))
    if not causes or state.session is None:
        return state.session, config
    found = state.backoff_sessions.get(causes)
    if found is None:
        changed: dict[str, Any] = {}
        for cause in causes:
            changed.update(BACKOFF_SETTINGS.get(cause, BACKOFF_BOTH))
        reduced = ctb.Config.from_dict({**config.to_dict(), **changed})
        found = (ctb.Session(reduced), reduced)
        state.backoff_sessions[causes] = found
    return found


# ---------------------------------------------------------------- turns


def own_stops(kwargs: Any) -> list[str]:
    """The stop list set on the model (LiteLLM accepts a string or a list)."""
    if not isinstance(kwargs, dict):
        return []
    stop = kwargs.get("stop")
    if isinstance(stop, str):
        return [stop]
    if isinstance(stop, (list, tuple)):
        return [s for s in stop if isinstance(s, str)]
    return []


OWN_STOPS_ATTR = "_claude_tool_bridge_own_stops"


def model_own_stops(model: Any) -> list[str]:
    """The model's own stop list, as it was before the bridge first added to it (a model
    object reused across calls still holds the bridge's stops from the last call)."""
    remembered = getattr(model, OWN_STOPS_ATTR, None)
    if isinstance(remembered, list):
        return list(remembered)
    return own_stops(getattr(model, "kwargs", None))


def set_model_stops(model: Any, stops: list[str], own: list[str]) -> None:
    """Puts `stops` into the model's call kwargs without touching a dict shared elsewhere."""
    kwargs = getattr(model, "kwargs", None)
    if not isinstance(kwargs, dict):
        return
    try:
        setattr(model, OWN_STOPS_ATTR, list(own))
    except Exception:
        pass
    fresh = dict(kwargs)
    if stops:
        fresh["stop"] = list(stops)
    else:
        fresh.pop("stop", None)
    try:
        model.kwargs = fresh
    except Exception:
        kwargs.clear()
        kwargs.update(fresh)


def rejoin_surrogates(text: str) -> str | None:
    """`text` with the surrogate pairs a stream split into two code points joined into the
    characters they encode (a provider's JSON escapes `\\ud83d\\ude00` arriving in two
    deltas decode to two lone surrogates), or None when a lone surrogate remains: such text
    is not Unicode the bridge can read."""
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeError:
        return None


def wrap_response_callback(
    original: Callable[[str, str], Awaitable[str | None]],
    session: ctb.Session,
    turn: Turn,
) -> Callable[[str, str], Awaitable[str | None]]:
    """A response callback that also feeds the bridge and stops the stream (by returning
    the text to hand on) once the first call is complete and translates.

    Only a call decided by a `>` stops the stream, so a delta without one costs one
    substring test here and no call into Rust. Agent Zero hands the callback the response so
    far (`full`: its deltas joined, in v1.7 as in v2.6); a delta with a `>` feeds the bridge
    everything of it not fed yet. Should `full` not continue what was fed (it does not end
    with the delta, or the last characters fed are no longer where they were: another layer
    rewrote it), or should the text not be readable (a lone surrogate; a split pair is joined
    first), the bridge stops listening for this reply and decides on the whole reply at its
    end. What Agent Zero's own callback raises (an intervention) passes through; nothing of
    the bridge's own does."""
    fed = 0
    tail = ""
    listening = True

    async def bridge_response_callback(chunk: str, full: str) -> str | None:
        nonlocal fed, tail, listening
        result = await original(chunk, full)
        if result is not None or turn.early_stopped is not None or not listening:
            return result
        try:
            if not isinstance(chunk, str) or ">" not in chunk or turn.catalog is None:
                return None
            if (
                not isinstance(full, str)
                or len(full) < fed + len(chunk)
                or not full.endswith(chunk)
                or full[fed - len(tail) : fed] != tail
            ):
                listening = False
                return None
            text = full[fed:]
            try:
                done = session.feed(text, turn.catalog)
            except UnicodeEncodeError:
                joined = rejoin_surrogates(text)
                if joined is None:
                    listening = False
                    return None
                done = session.feed(joined, turn.catalog)
            fed = len(full)
            tail = full[-32:]
        except Exception:  # noqa: BLE001 - the bridge's own failure: stop listening
            listening = False
            return None
        if done is not None:
            turn.early_stopped = done
        return done

    bridge_response_callback.__wrapped__ = original  # type: ignore[attr-defined]
    return bridge_response_callback


# Agent Zero's names for its Responses transport in the model's `a0_api_mode` setting
# (helpers/litellm_transport.py, `RESPONSES_ALIASES`).
RESPONSES_MODES = frozenset({"response", "responses", "responses_api"})


def responses_requested(model: Any) -> bool:
    """Whether the chat model is set to Agent Zero's Responses transport (newest versions).

    Agent Zero then sends its tools as native function tools with one call required, and
    its Responses transport drops `stop`. It still falls back to Chat Completions when the
    prompt carries prompt-cache markers for a provider that is not a native Responses one
    (Anthropic and OpenRouter are not), or when the provider rejects Responses requests."""
    kwargs = getattr(model, "kwargs", None)
    if not isinstance(kwargs, dict):
        return False
    return str(kwargs.get("a0_api_mode") or "").strip().lower() in RESPONSES_MODES


def begin(
    state: AgentState,
    config: ctb.Config,
    call_data: dict[str, Any],
    catalog_for: Callable[[str], ctb.Catalog] = build_catalog,
    session: Any = None,
) -> Turn | None:
    """`chat_model_call_before`: decide coverage, set the stops, wrap the callback.
    `catalog_for` gives the tool catalog for the system prompt the model was shown;
    `session` is the session that decides this turn (default: the agent's).

    With the Responses transport requested, the stops are still set (the Responses
    transport drops them, a fallback to Chat Completions uses them) but the stream is never
    stopped early: a native function call can follow the text, and cutting the stream would
    lose it. The result tells, at the end, which transport really ran."""
    state.turn = None
    session = session if session is not None else state.session
    if not config.enabled or session is None:
        return None
    callback = call_data.get("response_callback")
    if callback is None:
        # Not the message loop's streaming call (document query, e-mail, ...).
        return None
    model = call_data.get("model")
    model_name = str(getattr(model, "model_name", "") or "")
    if not model_name:
        return None
    mine = model_own_stops(model)
    current = own_stops(getattr(model, "kwargs", None))
    # What the agent received: a call the model copies from there is an echo. Should this
    # fail, the turn is dropped and the reply goes to Agent Zero as it is.
    echoes = ctb.Echoes(received_texts(call_data.get("messages")))
    plan = session.begin_turn(model_name, mine, echoes)
    if not plan.covered:
        if current != mine:
            set_model_stops(model, mine, mine)
        return None
    stops = mine if state.force_no_stops else list(plan.stops)
    if stops != current:
        set_model_stops(model, stops, mine)
    turn = Turn(
        model_name=model_name,
        stops=stops,
        responses_requested=responses_requested(model),
        prompt_text=prompt_text_of(call_data.get("messages")),
        call={
            key: call_data.get(key)
            for key in (
                "messages",
                "response_callback",
                "reasoning_callback",
                "background",
                "explicit_caching",
            )
            if key in call_data
        },
        session=session,
        config=config,
    )
    if config.early_stop and not turn.responses_requested:
        turn.catalog = catalog_for(turn.prompt_text)
        call_data["response_callback"] = wrap_response_callback(callback, session, turn)
    state.turn = turn
    return turn


def take_turn(state: AgentState) -> Turn | None:
    turn, state.turn = state.turn, None
    return turn


# ---------------------------------------------------------------- results


def result_text(result: Any) -> str | None:
    """The reply text of a v1.x `(response, reasoning)` tuple or an `LLMResult`-like object."""
    if isinstance(result, tuple) and result and isinstance(result[0], str):
        return result[0]
    text = getattr(result, "response", None)
    return text if isinstance(text, str) else None


def finish_reason_of(result: Any) -> str | None:
    """The provider's finish reason when the result reports one (newest Agent Zero)."""
    reason = getattr(result, "finish_reason", None)
    if isinstance(reason, str) and reason:
        return reason
    if getattr(result, "truncated", None) is True:
        return "max_tokens"
    return None


def left_to_agent_zero(result: Any) -> str:
    """Why a result is not the bridge's business, or "" when it is: native function calls
    (Agent Zero runs them as they are) and anything that came back through the Responses
    transport (Claude had native tools there, and the provider keeps the conversation's
    state: a rewritten text would no longer match it)."""
    try:
        if getattr(result, "function_calls", None) or getattr(result, "builtin_items", None):
            return "native tool calls"
    except Exception:
        return "an unreadable result"
    if getattr(result, "mode", None) == "responses":
        return "the Responses transport"
    return ""


def set_result_text(result: Any, reply: str) -> Any:
    """Writes `reply` into a result; returns the result to hand on (a new tuple for v1.x)."""
    if isinstance(result, tuple):
        return (reply, *result[1:])
    result.response = reply
    refresh_output_items(result, reply)
    return result


def refresh_output_items(result: Any, reply: str) -> None:
    """Keeps an `LLMResult`'s message output item in step with its rewritten response
    (history metadata is built from the output items)."""
    items = getattr(result, "output_items", None)
    if not isinstance(items, list):
        return
    messages = [item for item in items if getattr(item, "type", None) == "message"]
    if messages:
        first = messages[0]
        data = getattr(first, "data", None)
        if isinstance(data, dict):
            data["content"] = [{"type": "output_text", "text": reply}]
        for extra in messages[1:]:
            items.remove(extra)
        return
    from_chat = getattr(type(result), "from_chat", None)
    if callable(from_chat) and reply:
        fresh = from_chat(response=reply)
        items.extend(
            item for item in getattr(fresh, "output_items", []) if getattr(item, "type", None) == "message"
        )


@dataclass
class Settled:
    """What `settle` decided: the result to hand on and every decision of the turn, in
    order (a discarded reply's decision included)."""

    result: Any
    decisions: list[ctb.Decision] = field(default_factory=list)
    # Set when the (last) reply was not the bridge's business: see `left_to_agent_zero`.
    left_alone: str = ""
    # The causes (discard reasons) of this turn's re-asks, in order.
    reasks: list[str] = field(default_factory=list)
    # The causes switched off from the next turn on, because of this turn.
    switched_off: list[str] = field(default_factory=list)
    # A failure of the bridge after a re-ask: the re-asked reply goes on untouched.
    error: Exception | None = None

    @property
    def rewritten(self) -> str | None:
        """The reply that runs when the bridge wrote it (a translation, or prose sent through
        `response`), else None: Agent Zero's log, filled from the streamed text, has not seen
        it."""
        final = self.decisions[-1] if self.decisions else None
        if final is None or self.left_alone or self.error is not None:
            return None
        if final.outcome not in ("translated", "prose"):
            return None
        return str(final.reply)


def usable(decision: Any) -> bool:
    """Whether Agent Zero can use the reply a decision hands on."""
    return decision.outcome in ("translated", "prose") or decision.reason == "json_request_present"


def finish_reply(session: Any, text: str, finish_reason: str | None, catalog: ctb.Catalog) -> Any:
    """`session.finish`, with surrogate pairs a stream split joined again first when the
    text has them; None when the text holds a lone surrogate (the reply is then left as it
    is)."""
    try:
        return session.finish(text, finish_reason, catalog)
    except UnicodeEncodeError:
        joined = rejoin_surrogates(text)
        if joined is None:
            return None
        return session.finish(joined, finish_reason, catalog)


async def settle(
    state: AgentState,
    result: Any,
    catalog: ctb.Catalog,
    ask_again: Callable[[], Awaitable[Any]],
    session: Any = None,
) -> Settled:
    """Decides about a finished reply; on a discard asks the model again (silently, at most
    `MAX_REASKS` times) and decides about that reply. `session` is the turn's session
    (default: the agent's).

    The caller runs this where the reply is still Agent Zero's model call, before any core
    step has looked at it (stream-end events, safety checks, history, logging), so every such
    step sees the reply that runs. Whatever `ask_again` raises (it is Agent Zero's own call:
    an intervention, a provider error) propagates unchanged. Counts the turn, its model
    calls and re-asks in `state.usage`, and switches off the causes of re-asks that did not
    pay off (see `BACKOFF_TURNS`)."""
    session = session if session is not None else state.session
    settled = Settled(result)
    if session is None:
        return settled
    usage = state.usage
    for cause in list(usage.backoff):
        usage.backoff[cause] -= 1
        if usage.backoff[cause] <= 0:
            del usage.backoff[cause]
    usage.turns += 1
    usage.calls += 1
    current = result
    for attempt in range(MAX_REASKS + 1):
        text = result_text(current)
        settled.left_alone = "no text" if text is None else left_to_agent_zero(current)
        if text is None or settled.left_alone:
            break
        try:
            decision = finish_reply(session, text, finish_reason_of(current), catalog)
        except Exception as error:  # noqa: BLE001
            if attempt == 0:
                raise  # the caller leaves the reply as it was and says why
            settled.error = error  # the re-asked reply goes on as it is
            break
        if decision is None:
            settled.left_alone = "text that is not valid Unicode (a lone surrogate)"
            break
        settled.decisions.append(decision)
        if decision.outcome != "discard" or attempt == MAX_REASKS:
            break
        cause = str(decision.reason)
        settled.reasks.append(cause)
        usage.reasks[cause] = usage.reasks.get(cause, 0) + 1
        usage.calls += 1
        state.force_no_stops = bool(decision.retry_without_stops)
        state.reasking = True
        try:
            current = await ask_again()
        finally:
            state.reasking = False
            state.force_no_stops = False
            state.turn = None
    _account(usage, settled)
    final = settled.decisions[-1] if settled.decisions else None
    if (
        final is not None
        and not settled.left_alone
        and settled.error is None
        and final.outcome in ("translated", "prose")
    ):
        current = set_result_text(current, final.reply)
    settled.result = current
    return settled


def _account(usage: Usage, settled: Settled) -> None:
    """Switches off, from the next turn, each cause of this turn's re-asks that did not pay
    off: the reply it brought was not usable, or the cause needed a re-ask before within
    `BACKOFF_TURNS` turns."""
    for i, cause in enumerate(settled.reasks):
        after = settled.decisions[i + 1] if i + 1 < len(settled.decisions) else None
        # A re-asked reply left to Agent Zero (native calls, ...) is Agent Zero's business.
        paid_off = usable(after) if after is not None else bool(settled.left_alone)
        before = usage.last_reask.get(cause)
        repeated = before is not None and usage.turns - before < BACKOFF_TURNS
        usage.last_reask[cause] = usage.turns
        if (not paid_off or repeated) and cause not in settled.switched_off:
            usage.backoff[cause] = BACKOFF_TURNS
            settled.switched_off.append(cause)


# ---------------------------------------------------------------- the handle agent_zero.py uses


class Bridge:
    """The wheel-backed half of the plugin, as `agent_zero.py` drives it: one per process,
    made once the wheel imports. Per-agent state lives on each agent object."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.catalogs = CatalogCache(clock=clock)
        self.clock = clock
        # What the conversation that last had a turn cost (shown on the settings screen).
        self.last_usage: Usage | None = None

    def start_turn(
        self,
        agent: Any,
        call_data: dict[str, Any],
        load_settings: Callable[[], Any],
        on_warning: Callable[[str], None],
    ) -> Turn | None:
        """`chat_model_call_before`: the settings (cached), then `begin`. A re-ask inside a
        turn runs with that turn's session and settings, whatever was saved meanwhile."""
        state = state_of(agent)
        outer = state.settling
        if state.reasking and outer is not None and outer.config is not None:
            return begin(state, outer.config, call_data, self.catalogs.get, outer.session)
        config = refresh_config(state, load_settings, self.clock, on_warning)
        session, config = session_for_turn(state, config)
        return begin(state, config, call_data, self.catalogs.get, session)

    def drop_turn(self, agent: Any) -> None:
        state_of(agent).turn = None

    def take_turn(self, agent: Any) -> Turn | None:
        """The turn to decide about, or None (no covered call, or the end of our own
        re-ask, which the outer end hook decides about)."""
        state = state_of(agent)
        if state.reasking:
            return None
        return take_turn(state)

    async def settle(
        self,
        agent: Any,
        turn: Turn,
        result: Any,
        ask_again: Callable[[], Awaitable[Any]],
        label: str = "",
    ) -> Settled:
        state = state_of(agent)
        catalog = turn.catalog if turn.catalog is not None else self.catalogs.get(turn.prompt_text)
        if label:
            state.usage.label = label
        self.last_usage = state.usage
        state.settling = turn
        try:
            return await settle(state, result, catalog, ask_again, turn.session)
        finally:
            state.settling = None

    def settings_for_display(self, saved: Any) -> tuple[dict[str, Any], list[str]]:
        """What the settings screen should show: every key, the saved values laid over the
        defaults, plus two keys that are no settings: `_warnings` (what the saved settings
        were warned about, each `{"key": ..., "text": ...}`, the key `""` for the settings as
        a whole) and `_reasks` (what re-asks the last conversation cost)."""
        config, warnings = config_from_settings(saved)
        shown = config.to_dict()
        shown["_warnings"] = [{"key": key, "text": text} for key, text in warnings]
        usage = self.last_usage
        shown["_reasks"] = (
            usage.to_dict()
            if usage is not None
            else {"reasks": 0, "summary": "No conversation since Agent Zero started."}
        )
        return shown, texts(warnings)

    @staticmethod
    def settings_to_store(settings: Any) -> tuple[dict[str, Any], list[str]]:
        return settings_to_store(settings)
