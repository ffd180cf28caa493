"""A LiteLLM callback: a tool call the model leaked as text becomes a real `tool_calls` entry.

Install with the extra (`pip install 'claude-tool-bridge[litellm]'`), then either

- in-process: ``litellm.callbacks = [claude_tool_bridge.litellm.bridge]``; or
- on the LiteLLM proxy: a one-line module beside ``config.yaml`` (LiteLLM 1.88 reads a dotted
  ``callbacks:`` entry as a file path relative to the config, not as an installed package)::

      # ctb_litellm.py, next to config.yaml
      from claude_tool_bridge.litellm import bridge

  and in ``config.yaml``::

      litellm_settings:
        callbacks: ctb_litellm.bridge

What it does, for a chat completion whose request has ``tools``:

- before the call, the model family's end-of-call stop strings are added after the client's
  own (four at most, the client's never dropped), so the model stops after its first call;
- a reply whose text holds a leaked call the bridge accepts (a known tool, arguments typed by
  its JSON schema) comes back with ``message.tool_calls`` (one call), ``content`` = the prose
  before the call or null, and ``finish_reason: tool_calls``; every other reply is returned as
  it came;
- streamed, text passes through until a call may be starting; what follows is held back until
  the bridge decides: then the client gets the tool-call chunk and ``finish_reason:
  tool_calls``, or the held text as it was.

Hooks used (LiteLLM 1.88.1): ``async_pre_call_deployment_hook`` (the stop strings) and
``async_post_call_success_deployment_hook`` (non-streamed replies) run for every
``litellm.acompletion``, in-process and inside the proxy (its router calls it);
``async_post_call_streaming_iterator_hook`` (streamed replies; on ``/v1/messages`` it bridges
the chat stream inside LiteLLM's Anthropic adapter) runs on the proxy only, and the proxy
calls it only when it is defined on the callback's own class (``__init_subclass__`` below
copies it into subclasses). In-process streams go through ``bridge.stream(...)``: LiteLLM
has no in-process hook that sees every chunk.

Whatever fails inside the callback leaves the request or the response exactly as LiteLLM had
it, with one log line.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import secrets
import threading
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import claude_tool_bridge as ctb

try:
    from litellm.integrations.custom_logger import CustomLogger
    from litellm.types.utils import (
        ChatCompletionDeltaToolCall,
        ChatCompletionMessageToolCall,
        Delta,
        Function,
        ModelResponse,
    )
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "claude_tool_bridge.litellm needs LiteLLM: pip install 'claude-tool-bridge[litellm]'"
    ) from error

__all__ = ["LiteLLMBridge", "bridge", "DEFAULT_SETTINGS"]

log = logging.getLogger("claude_tool_bridge.litellm")

# What a generic client behind LiteLLM gets, laid over the bridge's defaults (Config): every
# model is looked at; Agent Zero's prose-as-`response` policy is off (a reply without a call is
# an answer, and stays one); the loop guard is off (its stops would cut a looping reply that a
# pass-through cannot ask again for, and its discard has nobody to re-ask).
DEFAULT_SETTINGS: dict[str, Any] = {
    "models": ["*"],
    "prose_as_response": False,
    "loop_guard": False,
}

_CHAT_CALL_TYPES = frozenset({"acompletion", "completion"})
_CATALOG_CACHE_MAX = 64


# ---------------------------------------------------------------- the request


@dataclass
class _Plan:
    """What the bridge needs to know about one chat request with tools."""

    catalog: ctb.Catalog
    config: ctb.Config
    # The model name the session is started with: the first of (requested, deployment) that
    # names a family, else the requested name (every form is read, no stop strings are added).
    model: str
    client_stops: list[str]
    stops: list[str]
    messages: Any = None
    _echoes: ctb.Echoes | None = field(default=None, repr=False)

    @property
    def echoes(self) -> ctb.Echoes:
        """The request's tool results, indexed once (most recent first, as `Echoes` wants
        them: past its size limit the oldest are left out)."""
        if self._echoes is None:
            self._echoes = ctb.Echoes(reversed(_echo_texts(self.messages)))
        return self._echoes

    def turn(self) -> _Turn:
        return _Turn(self)


def _metadata(request: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("litellm_metadata", "metadata"):
        value = request.get(key)
        if isinstance(value, Mapping):
            for k, v in value.items():
                out.setdefault(k, v)
    return out


def _client_stops(stop: Any) -> list[str]:
    if isinstance(stop, str):
        return [stop] if stop else []
    if isinstance(stop, (list, tuple)):
        return [s for s in stop if isinstance(s, str) and s]
    return []


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def _echo_texts(messages: Any) -> list[str]:
    """The texts the model did not write: tool (and legacy function) results."""
    out: list[str] = []
    if not isinstance(messages, (list, tuple)):
        return out
    for message in messages:
        role = message.get("role") if isinstance(message, Mapping) else getattr(message, "role", None)
        if role not in ("tool", "function"):
            continue
        content = message.get("content") if isinstance(message, Mapping) else getattr(message, "content", None)
        text = _text_of(content)
        if text:
            out.append(text)
    return out


def _names_family(config: ctb.Config, name: str) -> bool:
    """Whether `name` matches one of the config's family patterns."""
    return bool(name) and config.family_of(name) is not None


# ---------------------------------------------------------------- one turn


@dataclass
class _Call:
    name: str
    arguments: dict[str, Any]
    prose: str


class _Turn:
    """One reply's session: feeds deltas, tells how much text is settled, decides at the end."""

    def __init__(self, plan: _Plan):
        self.plan = plan
        self.session = ctb.Session(plan.config)
        self.session.begin_turn(plan.model, plan.client_stops, plan.echoes)

    def advance(self, delta: str) -> tuple[str | None, int]:
        """The text to hand on when the stream should stop now (else None), and how many
        characters at the start of what was fed can never be part of the call or of what
        the bridge drops before it (the client may have them at once)."""
        return self.session.advance(delta, self.plan.catalog)

    def finish(self, reply: str, finish_reason: str | None) -> _Call | None:
        """The call, when the bridge translates the finished reply."""
        decision = self.session.finish(reply, finish_reason, self.plan.catalog)
        if decision.outcome != "translated":
            return None
        request, prose = decision.request, decision.prose
        if not isinstance(request, dict) or prose is None:
            return None
        name, arguments = request.get("tool_name"), request.get("tool_args")
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return None
        return _Call(name=name, arguments=arguments, prose=prose)


# ---------------------------------------------------------------- building replies


def _read_tools(tools: list[Any], text: str) -> ctb.Catalog | None:
    """The catalog of a request's `tools`. A definition the bridge cannot read is left out
    (a call to it stays text); None when none can be read."""
    try:
        return ctb.Catalog.from_text(text)
    except ValueError as error:
        first = error
    catalog = ctb.Catalog()
    for tool in tools:
        try:
            catalog.extend(ctb.Catalog.from_text(json.dumps([tool], default=str)))
        except ValueError:
            continue
    log.warning("claude_tool_bridge.litellm: %d of %d tool definitions cannot be read (%s)%s",
                len(tools) - len(catalog), len(tools), first,
                "" if len(catalog) else "; replies pass through unchanged")
    return catalog if len(catalog) else None


def _call_id() -> str:
    return "call_" + secrets.token_hex(12)


def _arguments_json(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False)


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """A field of a LiteLLM object, read without pydantic's slow path for missing
    attributes (LiteLLM keeps many delta fields as extras, and deletes unset ones)."""
    try:
        extra = obj.__pydantic_extra__
        if extra and name in extra:
            return extra[name]
        return obj.__dict__.get(name, default)
    except AttributeError:
        return getattr(obj, name, default)


def _set(obj: Any, name: str, value: Any) -> None:
    """Sets a field of a copied LiteLLM object where pydantic keeps it."""
    extra = getattr(obj, "__pydantic_extra__", None)
    if extra is not None and name in extra:
        extra[name] = value
    elif name in getattr(obj, "__dict__", {}):
        obj.__dict__[name] = value
    else:
        setattr(obj, name, value)


def _reshaped(template: Any, content: str | None, finish_reason: str | None) -> Any:
    """A copy of the one-choice chunk `template` whose delta carries only `content` (its
    role and other fields dropped) and whose finish reason is `finish_reason`. The template
    is not changed (LiteLLM keeps its chunks to log the stream)."""
    chunk = copy.copy(template)
    choice = copy.copy(template.choices[0])
    delta = Delta(content=content)
    _set(choice, "delta", delta)
    _set(choice, "finish_reason", finish_reason)
    _set(choice, "logprobs", None)
    _set(chunk, "choices", [choice])
    if _get(chunk, "usage") is not None:
        _set(chunk, "usage", None)
    return chunk


def _without_text(chunk: Any) -> Any:
    """A copy of the one-choice chunk `chunk` without its text (its other fields kept)."""
    out = copy.copy(chunk)
    choice = copy.copy(chunk.choices[0])
    delta = copy.copy(_get(choice, "delta"))
    _set(delta, "content", None)
    _set(choice, "delta", delta)
    _set(out, "choices", [choice])
    return out


def _text_chunk(template: Any, text: str) -> Any:
    return _reshaped(template, text, None)


def _call_chunk(template: Any, call: _Call) -> Any:
    chunk = _reshaped(template, None, None)
    tool_call = ChatCompletionDeltaToolCall(
        index=0,
        id=_call_id(),
        type="function",
        function=Function(name=call.name, arguments=_arguments_json(call.arguments)),
    )
    chunk.choices[0].delta = Delta(tool_calls=[tool_call])
    return chunk


def _plain(chunk: Any) -> bool:
    """A chunk of one choice whose delta holds no structured call: its text can be held."""
    choices = _get(chunk, "choices")
    if not isinstance(choices, list) or len(choices) != 1:
        return False
    choice = choices[0]
    if _get(choice, "index", 0) != 0:
        return False
    delta = _get(choice, "delta")
    if delta is None:
        return False
    if _get(delta, "tool_calls") or _get(delta, "function_call"):
        return False
    content = _get(delta, "content")
    return content is None or isinstance(content, str)


_OTHER_PAYLOAD = ("reasoning_content", "thinking_blocks", "audio", "images", "annotations",
                  "provider_specific_fields", "reasoning_items")


def _other_payload(chunk: Any) -> bool:
    """Whether a plain chunk carries more than text and a role (reasoning, usage...)."""
    if _get(chunk, "usage") is not None:
        return True
    delta = _get(chunk.choices[0], "delta")
    return any(_get(delta, name) for name in _OTHER_PAYLOAD)


# ---------------------------------------------------------------- the callback


class LiteLLMBridge(CustomLogger):
    """The LiteLLM callback. `settings` are laid over `DEFAULT_SETTINGS` (keys of
    `claude_tool_bridge.Config`, e.g. ``{"models": ["qwen*"], "stop_sequence": False}``)."""

    def __init__(self, settings: Mapping[str, Any] | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        merged = {**DEFAULT_SETTINGS, **dict(settings or {})}
        self.config = ctb.Config.from_dict(merged)
        for warning in self.config.warnings:
            log.warning("claude_tool_bridge.litellm settings: %s", warning)
        # Models that name no family: every form is read, but no stop strings are added (no
        # family, no end-of-call token to stop at).
        self.config_without_stops = ctb.Config.from_dict({**merged, "stop_sequence": False})
        self._catalogs: OrderedDict[str, ctb.Catalog | None] = OrderedDict()
        self._lock = threading.Lock()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # LiteLLM's proxy calls the streaming iterator hook only when the callback's own
        # class defines it (it reads `type(callback).__dict__`): keep it there in subclasses.
        super().__init_subclass__(**kwargs)
        if "async_post_call_streaming_iterator_hook" not in cls.__dict__:
            cls.async_post_call_streaming_iterator_hook = (  # type: ignore[method-assign]
                LiteLLMBridge.async_post_call_streaming_iterator_hook
            )

    # -- the plan ----------------------------------------------------------------------

    def _catalog(self, tools: list[Any]) -> ctb.Catalog | None:
        text = json.dumps(tools, ensure_ascii=False, sort_keys=True, default=str)
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        with self._lock:
            if key in self._catalogs:
                self._catalogs.move_to_end(key)
                return self._catalogs[key]
        catalog = _read_tools(tools, text)
        if catalog is not None and len(catalog) == 0:
            catalog = None
        with self._lock:
            self._catalogs[key] = catalog
            while len(self._catalogs) > _CATALOG_CACHE_MAX:
                self._catalogs.popitem(last=False)
        return catalog

    def plan(self, request: Mapping[str, Any], deployment: str | None = None) -> _Plan | None:
        """What the bridge does for a chat request (a LiteLLM kwargs dict or a proxy request
        body), or None when it leaves it alone: no tools, `tool_choice: none`, tools it cannot
        read, or a model the settings do not cover."""
        tools = request.get("tools")
        if not isinstance(tools, list) or not tools:
            return None
        if request.get("tool_choice") == "none":
            return None
        metadata = _metadata(request)
        requested = metadata.get("model_group") or request.get("model") or ""
        candidates = [requested, deployment, metadata.get("deployment"), request.get("model")]
        names = [n for n in candidates if isinstance(n, str) and n]
        if not names:
            return None
        family_name = next((n for n in names if _names_family(self.config, n)), None)
        config = self.config if family_name is not None else self.config_without_stops
        model = family_name or names[0]
        if not config.enabled:
            return None
        catalog = self._catalog(tools)
        if catalog is None:
            return None
        client_stops = _client_stops(request.get("stop"))
        session = ctb.Session(config)
        turn_plan = session.begin_turn(model, client_stops)
        if not turn_plan.covered:
            return None
        return _Plan(
            catalog=catalog,
            config=config,
            model=model,
            client_stops=client_stops,
            stops=list(turn_plan.stops),
            messages=request.get("messages"),
        )

    # -- requests ------------------------------------------------------------------------

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """Adds the stop strings to a chat request with tools (in-process and on the proxy).
        A streamed request gets them only where its stream is surely bridged: in-process
        (through `bridge.stream`) and on the proxy's chat completions route. A stream LiteLLM
        makes for another route (`/v1/messages`, `/v1/responses`) gets none: where the bridge
        cannot reach it, a stop would only cut it short."""
        try:
            if _call_type(call_type) not in _CHAT_CALL_TYPES:
                return None
            if kwargs.get("stream") and not _stream_bridged(kwargs):
                return None
            plan = self.plan(kwargs)
            if plan is None or plan.stops == plan.client_stops:
                return None
            changed = dict(kwargs)
            changed["stop"] = list(plan.stops)
            return changed
        except Exception as error:  # the request goes out as it was
            log.warning("claude_tool_bridge.litellm: request left unchanged (%s: %s)",
                        type(error).__name__, error)
            return None

    # -- non-streamed replies ---------------------------------------------------------------

    async def async_post_call_success_deployment_hook(
        self, request_data: dict[str, Any], response: Any, call_type: Any
    ) -> Any:
        """A chat completion's leaked call as `tool_calls` (in-process and on the proxy).
        Returns None (LiteLLM keeps its response) when nothing changes."""
        try:
            if _call_type(call_type) not in _CHAT_CALL_TYPES:
                return None
            if not isinstance(response, ModelResponse):
                return None
            plan = self.plan(request_data)
            if plan is None:
                return None
            return self.translate_response(response, plan)
        except Exception as error:
            log.warning("claude_tool_bridge.litellm: response left unchanged (%s: %s)",
                        type(error).__name__, error)
            return None

    def translate_response(self, response: Any, plan: _Plan) -> Any | None:
        """Rewrites `response` in place when one of its choices holds a leaked call; None
        (and `response` untouched) otherwise. Every change is worked out before any is made."""
        changes = []
        for choice in response.choices:
            message = getattr(choice, "message", None)
            if message is None or getattr(message, "tool_calls", None) or getattr(
                message, "function_call", None
            ):
                continue
            content = getattr(message, "content", None)
            if not isinstance(content, str) or not content:
                continue
            call = plan.turn().finish(content, getattr(choice, "finish_reason", None))
            if call is None:
                continue
            tool_call = ChatCompletionMessageToolCall(
                id=_call_id(),
                type="function",
                function=Function(name=call.name, arguments=_arguments_json(call.arguments)),
            )
            changes.append((choice, message, call.prose or None, tool_call))
        if not changes:
            return None
        for choice, message, prose, tool_call in changes:
            message.content = prose
            message.tool_calls = [tool_call]
            choice.finish_reason = "tool_calls"
        return response

    # -- streamed replies ------------------------------------------------------------------

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncIterator[Any]:
        """The proxy's streamed chat completions, and its streamed `/v1/messages` when
        LiteLLM serves them through chat completions (the proxy calls this hook only when it
        is defined on the callback's own class)."""
        plan = None
        try:
            if self._bridge_messages_stream(response):
                response_is_bridged = True
            else:
                response_is_bridged = False
                plan = self.plan(request_data, _deployment_of(response))
        except Exception as error:
            response_is_bridged = False
            log.warning("claude_tool_bridge.litellm: stream left unchanged (%s: %s)",
                        type(error).__name__, error)
        if plan is None or response_is_bridged:
            async for chunk in response:
                yield chunk
            return
        async for chunk in self._bridged(response, plan):
            yield chunk

    def _bridge_messages_stream(self, response: Any) -> bool:
        """For the proxy's `/v1/messages`: LiteLLM 1.88 streams it as Anthropic events that
        its adapter makes from an inner chat completion stream (`AnthropicStreamWrapper`,
        whose SSE generator is `response`, not started yet). The inner stream is bridged in
        place, so the adapter itself turns the tool-call chunk into a `tool_use` block.
        False (nothing changed) for any other response."""
        frame = getattr(response, "ag_frame", None)
        if frame is None or getattr(response, "ag_running", True):
            return False
        adapter = frame.f_locals.get("self")
        if type(adapter).__name__ != "AnthropicStreamWrapper":
            return False
        inner = getattr(adapter, "completion_stream", None)
        request = _recorded_request(inner)
        if inner is None or request is None:
            return False
        plan = self.plan(request, _deployment_of(inner))
        if plan is None:
            return False
        adapter.completion_stream = self._bridged(inner, plan)
        return True

    def stream(self, response: Any, request: Mapping[str, Any] | None = None) -> AsyncIterator[Any]:
        """An in-process stream (what ``await litellm.acompletion(..., stream=True)`` returned)
        with leaked calls turned into tool-call chunks. `request` defaults to what LiteLLM
        recorded for the call (its tools, messages, model and stop strings)."""
        return self._stream_in_process(response, request)

    async def _stream_in_process(
        self, response: Any, request: Mapping[str, Any] | None
    ) -> AsyncIterator[Any]:
        plan = None
        try:
            if request is None:
                request = _recorded_request(response)
            plan = self.plan(request, _deployment_of(response)) if request is not None else None
        except Exception as error:
            log.warning("claude_tool_bridge.litellm: stream left unchanged (%s: %s)",
                        type(error).__name__, error)
        if plan is None:
            async for chunk in response:
                yield chunk
            return
        async for chunk in self._bridged(response, plan):
            yield chunk

    async def _bridged(self, response: Any, plan: _Plan) -> AsyncIterator[Any]:
        """The stream with text held back from where a call may start. On a decision: the
        rest of the prose, the tool-call chunk and `finish_reason: tool_calls`; otherwise the
        held text, verbatim, then the rest of the stream as it comes. A failure inside
        flushes what was held and passes the rest through."""
        state = _StreamState(plan)
        iterator = response.__aiter__()
        try:
            while True:
                try:
                    chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                try:
                    out, done = state.take(chunk)
                except Exception as error:
                    log.warning("claude_tool_bridge.litellm: stream passed through (%s: %s)",
                                type(error).__name__, error)
                    out, done = state.give_up(chunk), False
                for piece in out:
                    yield piece
                if done:
                    await _close(iterator)
                    return
            for piece in state.end():
                yield piece
        except GeneratorExit:
            await _close(iterator)
            raise


def _stream_bridged(kwargs: Mapping[str, Any]) -> bool:
    """Whether a streamed call's chunks reach the bridge: in-process (no proxy request) or
    on the proxy's chat completions route."""
    request = kwargs.get("proxy_server_request")
    if not isinstance(request, Mapping):
        params = kwargs.get("litellm_params")
        request = params.get("proxy_server_request") if isinstance(params, Mapping) else None
    if not isinstance(request, Mapping):
        return True
    url = request.get("url")
    if not isinstance(url, str):
        return False
    path = url.split("?", 1)[0].rstrip("/")
    return path.endswith("/chat/completions")


def _call_type(call_type: Any) -> str:
    value = getattr(call_type, "value", call_type)
    return value if isinstance(value, str) else ""


def _deployment_of(response: Any) -> str | None:
    logging_obj = getattr(response, "logging_obj", None)
    details = getattr(logging_obj, "model_call_details", None)
    if isinstance(details, Mapping) and isinstance(details.get("model"), str):
        return details["model"]
    model = getattr(response, "model", None)
    return model if isinstance(model, str) else None


def _recorded_request(response: Any) -> dict[str, Any] | None:
    """The request LiteLLM recorded on an in-process stream's logging object."""
    details = getattr(getattr(response, "logging_obj", None), "model_call_details", None)
    if not isinstance(details, Mapping):
        return None
    optional = details.get("optional_params") or {}
    litellm_params = details.get("litellm_params") or {}
    request: dict[str, Any] = {
        "model": details.get("model"),
        "messages": details.get("messages"),
        "tools": optional.get("tools"),
        "tool_choice": optional.get("tool_choice"),
        "stop": optional.get("stop"),
        "metadata": litellm_params.get("metadata") or {},
    }
    return request


async def _close(iterator: Any) -> None:
    close = getattr(iterator, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception as error:
        log.debug("claude_tool_bridge.litellm: closing the upstream stream: %s", error)


class _StreamState:
    """The hold-back of one stream, choice 0 only (a chunk with other choices, or with
    structured tool calls of its own, passes everything through from there on).

    Chunks are held whole: a held chunk goes out unchanged as soon as all its text is
    settled (can be no part of the call nor of what the bridge drops before it), so a prose
    reply streams as it came, one chunk behind at most; at the end, held chunks go out
    unchanged, or give way to the prose not yet sent, the tool-call chunk and the finish."""

    def __init__(self, plan: _Plan):
        self.turn = plan.turn()
        self.parts: list[str] = []  # the text of choice 0 received so far, in pieces
        self.length = 0  # its length
        self.released = 0  # how much of it the client has
        self.held: deque[tuple[Any, int]] = deque()  # chunks not sent, each with its text's end
        self.finish_reason: str | None = None
        self.passthrough = False
        self.done = False

    @property
    def text(self) -> str:
        """The text so far, joined (only where a decision is made: a few times per stream)."""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def give_up(self, chunk: Any) -> list[Any]:
        """Passes everything through from here: the chunks held, then `chunk`."""
        out: list[Any] = []
        if not self.passthrough:
            self.passthrough = True
            out.extend(c for c, _ in self.held)
            self.held.clear()
            self.released = self.length
        out.append(chunk)
        return out

    def take(self, chunk: Any) -> tuple[list[Any], bool]:
        """What to send for `chunk`, and whether the stream is over."""
        if self.passthrough:
            return [chunk], False
        if _get(chunk, "choices") == []:
            if not self.held:
                return [chunk], False  # e.g. a usage chunk after the finish
            self.held.append((chunk, self.length))
            return [], False
        if not _plain(chunk):
            return self.give_up(chunk), False
        choice = chunk.choices[0]
        delta_text = _get(_get(choice, "delta"), "content") or ""
        finish = _get(choice, "finish_reason")
        stop, settled = (None, self.released)
        if delta_text:
            stop, settled = self.turn.advance(delta_text)
            self.parts.append(delta_text)
            self.length += len(delta_text)
        if finish is not None:
            self.finish_reason = finish
        if stop is not None:
            # The first call is complete and translates: decide now, read no more.
            call = self.turn.finish(stop, "stop")
            if call is not None and self._consistent(call):
                return self._translated(chunk, call), True
        if finish is not None:
            return self._finished(chunk), False
        if not self.held and settled >= self.length:
            self.released = self.length
            return [chunk], False
        self.held.append((chunk, self.length))
        out = []
        while self.held and self.held[0][1] <= settled:
            held, end = self.held.popleft()
            out.append(held)
            self.released = end
        return out, False

    def _consistent(self, call: _Call) -> bool:
        """The client's text so far is the start of the call's prose (the settled text
        never is anything else; checked, so streaming can never differ from the whole)."""
        return call.prose.startswith(self.text[: self.released])

    def _translated(self, chunk: Any, call: _Call) -> list[Any]:
        out = []
        for held, _ in self.held:  # what held chunks carry besides text still goes out
            if _get(held, "choices") == []:
                out.append(held)
            elif _other_payload(held):
                out.append(_without_text(held))
        rest = call.prose[self.released :]
        if rest:
            out.append(_text_chunk(chunk, rest))
        out.append(_call_chunk(chunk, call))
        out.append(_reshaped(chunk, None, "tool_calls"))
        self.held.clear()
        self.released = self.length
        self.done = True
        return out

    def _finished(self, chunk: Any) -> list[Any]:
        """The chunk with the finish reason: the decision on the whole reply."""
        call = self.turn.finish(self.text, self.finish_reason)
        if call is not None and self._consistent(call):
            return self._translated(chunk, call)
        out = [held for held, _ in self.held]
        self.held.clear()
        self.released = self.length
        out.append(chunk)
        return out

    def end(self) -> list[Any]:
        """The upstream ended without a finish reason: what is held goes out as it was."""
        out = [held for held, _ in self.held]
        self.held.clear()
        self.released = self.length
        return out


bridge = LiteLLMBridge()
