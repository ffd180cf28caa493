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

What it does, for a request with function tools (chat completions, the Responses API, and
``/v1/messages``, which LiteLLM serves through one of the two):

- before the call, the model family's end-of-call stop strings are added after the client's
  own (four at most, the client's never dropped), so the model stops after its first call;
- a reply whose text holds a leaked call the bridge accepts (a known tool, arguments typed by
  its JSON schema) comes back with ``message.tool_calls`` (one call), ``content`` = the prose
  before the call or null, and ``finish_reason: tool_calls``; every other reply is returned as
  it came;
- streamed, text passes through until a call may be starting; what follows is held back until
  the bridge decides: then the client gets the tool-call chunk and ``finish_reason:
  tool_calls``, or the held text as it was;
- on the Responses API, the same call becomes a ``function_call`` output item after the
  prose's ``message`` item (streamed: the events of a function call), status and usage kept;
- what the client sent (system, developer, user, tool and function messages, Anthropic
  blocks, Responses input items and instructions) is never run: a call copied from it stays
  text; a ``tool_choice`` forcing one function lets only that function through.

Hooks used (LiteLLM 1.88.1 to 1.108.7): ``async_pre_call_deployment_hook`` (the stop strings)
and ``async_post_call_success_deployment_hook`` (non-streamed replies) run for every
``litellm.acompletion`` and ``litellm.aresponses``, in-process and inside the proxy (its router
and its Anthropic adapter call them); ``async_post_call_streaming_iterator_hook`` (streamed
replies: chat chunks, Responses events; on ``/v1/messages`` it bridges the chat or Responses
stream inside LiteLLM's Anthropic adapter) runs on the proxy only, and the proxy
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
import math
import secrets
import threading
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import claude_tool_bridge as ctb
from claude_tool_bridge.messages import content_of, content_texts, role_of
from claude_tool_bridge.messages import field_of as _field_of

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

try:  # the Responses API's types (LiteLLM's and the OpenAI SDK's, which LiteLLM requires)
    from litellm.types.llms.openai import GenericEvent as _GenericEvent
    from litellm.types.llms.openai import ResponsesAPIResponse as _ResponsesAPIResponse
except ImportError:  # pragma: no cover - every supported LiteLLM has them
    _GenericEvent = None  # type: ignore[assignment,misc]
    _ResponsesAPIResponse = None  # type: ignore[assignment,misc]
try:
    from openai.types.responses import ResponseFunctionToolCall as _ResponseFunctionToolCall
    from openai.types.responses import ResponseOutputMessage as _ResponseOutputMessage
    from openai.types.responses import ResponseOutputText as _ResponseOutputText
except ImportError:  # pragma: no cover
    _ResponseFunctionToolCall = None  # type: ignore[assignment,misc]
    _ResponseOutputMessage = None  # type: ignore[assignment,misc]
    _ResponseOutputText = None  # type: ignore[assignment,misc]

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
    # the `forms` setting names, else the first that names a family, else the requested name
    # (no form is read, no stop strings are added).
    model: str
    client_stops: list[str]
    stops: list[str]
    received: list[str] = field(default_factory=list)
    _echoes: ctb.Echoes | None = field(default=None, repr=False)

    @property
    def echoes(self) -> ctb.Echoes:
        """The texts the request holds that the model did not write (`_received_texts`),
        indexed once, most recent first as `Echoes` wants them (past its size limit the
        oldest are left out)."""
        if self._echoes is None:
            self._echoes = ctb.Echoes(reversed(self.received))
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


_RECEIVED_ROLES = frozenset({"system", "developer", "user", "tool", "function"})


def _received_texts(request: Mapping[str, Any]) -> list[str]:
    """The texts the model did not write, oldest first: the system prompt and the system,
    developer, user, tool and function messages (with Anthropic `tool_result` and `document`
    blocks), and on the Responses API the instructions, input messages and
    `function_call_output` items. A call copied from any of them is an echo. Each message's
    texts are read as every host reads them (`claude_tool_bridge.messages`)."""
    out: list[str] = []
    for key in ("system", "instructions"):
        content_texts(request.get(key), out)
    messages = request.get("messages")
    if messages is None:
        messages = request.get("input")
    if isinstance(messages, str):
        content_texts(messages, out)
        return out
    if not isinstance(messages, (list, tuple)):
        return out
    for message in messages:
        kind = _field_of(message, "type")
        if kind in ("function_call_output", "custom_tool_call_output"):
            content_texts(_field_of(message, "output"), out)
            continue
        role = role_of(message)
        if role in _RECEIVED_ROLES:
            content_texts(content_of(message), out)
        elif role == "assistant":
            # The model's own turns; Anthropic puts tool results in user turns, and a few
            # clients put them in blocks of other turns: read those blocks only.
            content = content_of(message)
            if isinstance(content, (list, tuple)):
                for part in content:
                    if _field_of(part, "type") in ("tool_result", "document"):
                        content_texts([part], out)
    return out


def _function_tools(tools: Any) -> list[Any]:
    """A request's function tools in the chat completions shape: chat completions tools as
    they are, Responses API (`{"type": "function", "name": ...}`) and Anthropic
    (`{"name": ..., "input_schema": ...}`) tools converted; other tools (web search, code
    interpreter, ...) left out."""
    if not isinstance(tools, (list, tuple)):
        return []
    out: list[Any] = []
    for tool in tools:
        if not isinstance(tool, Mapping):
            out.append(tool)  # left to the catalog to refuse
            continue
        if "function" in tool:
            out.append(tool)
            continue
        name = tool.get("name")
        if not isinstance(name, str):
            continue
        kind = tool.get("type")
        if kind == "function" and "parameters" in tool:
            parameters = tool.get("parameters")
        elif kind in (None, "custom") and "input_schema" in tool:
            parameters = tool.get("input_schema")
        elif kind == "function":
            parameters = {"type": "object", "properties": {}}
        else:
            continue
        function: dict[str, Any] = {"name": name, "parameters": parameters}
        if isinstance(tool.get("description"), str):
            function["description"] = tool["description"]
        out.append({"type": "function", "function": function})
    return out


def _choice_is_none(choice: Any) -> bool:
    return choice == "none" or (isinstance(choice, Mapping) and choice.get("type") == "none")


def _forced_name(choice: Any) -> str | None:
    """The one function a `tool_choice` forces, in any of the three shapes (chat
    completions, Responses, Anthropic), else None."""
    if not isinstance(choice, Mapping):
        return None
    kind = choice.get("type")
    if kind == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else choice.get("name")
        return name if isinstance(name, str) else None
    if kind == "tool":
        name = choice.get("name")
        return name if isinstance(name, str) else None
    return None


def _tool_name(tool: Any) -> Any:
    function = tool.get("function") if isinstance(tool, Mapping) else None
    return function.get("name") if isinstance(function, Mapping) else None


def _names_family(config: ctb.Config, name: str) -> bool:
    """Whether `name` matches one of the config's family patterns."""
    return bool(name) and config.family_of(name) is not None


def _names_forms(config: ctb.Config, name: str) -> bool:
    """Whether `name` matches one of the patterns of the config's `forms` (a deployment that
    says which markup forms its model writes)."""
    return bool(name) and config.named_forms(name) is not None


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
        """The call, when the bridge translates the finished reply: read from the decision's
        host-neutral call (Agent Zero's request is not this host's business)."""
        decision = self.session.finish(reply, finish_reason, self.plan.catalog)
        call = decision.call
        if decision.outcome != "translated" or call is None:
            return None
        return _Call(name=call["name"], arguments=call["arguments"], prose=call["prose"])


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
        """What the bridge does for a request (a LiteLLM kwargs dict or a proxy request body:
        chat completions, Responses or Anthropic Messages), or None when it leaves it alone:
        no function tools, `tool_choice: none`, a forced function it does not list, tools it
        cannot read, or a model the settings do not cover. A `tool_choice` forcing one
        function leaves only that one in the catalog."""
        tools = _function_tools(request.get("tools"))
        if not tools:
            return None
        choice = request.get("tool_choice")
        if _choice_is_none(choice):
            return None
        forced = _forced_name(choice)
        if forced is not None:
            tools = [t for t in tools if _tool_name(t) == forced]
            if not tools:
                return None
        metadata = _metadata(request)
        requested = metadata.get("model_group") or request.get("model") or ""
        candidates = [requested, deployment, metadata.get("deployment"), request.get("model")]
        names = [n for n in candidates if isinstance(n, str) and n]
        if not names:
            return None
        # The name the settings know most about: one their `forms` name the markup forms of
        # (a deployment's template), else one that names a family, else the requested one.
        forms_name = next((n for n in names if _names_forms(self.config, n)), None)
        family_name = next((n for n in names if _names_family(self.config, n)), None)
        model = forms_name or family_name or names[0]
        config = (self.config if _names_family(self.config, model)
                  else self.config_without_stops)
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
            received=_received_texts(request),
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
            kind = _call_type(call_type)
            if kind in _RESPONSES_CALL_TYPES:
                # A stream's finished response comes here too (for logging): streams are
                # bridged by their events, never here.
                if request_data.get("stream") or _ResponsesAPIResponse is None:
                    return None
                if not isinstance(response, _ResponsesAPIResponse):
                    return None
                if request_data.get("acompletion") or request_data.get("completion"):
                    # A chat completion a Responses deployment serves: LiteLLM makes the chat
                    # response from this one next (a message and tool calls in two choices),
                    # and this hook reads that, as it reads any chat completion.
                    return None
                plan = self.plan(request_data)
                return None if plan is None else self.translate_responses_api(response, plan)
            if kind not in _CHAT_CALL_TYPES:
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

    def translate_responses_api(self, response: Any, plan: _Plan) -> Any | None:
        """Rewrites a Responses API response in place when its one `message` item (of one
        `output_text` part) holds a leaked call: the item keeps the prose (or goes, when
        there is none) and a `function_call` item follows it. None (and `response`
        untouched) otherwise; `status` and `usage` are kept."""
        output = list(_field_of(response, "output") or [])
        if _responses_output_call(output):
            return None
        messages = [i for i, item in enumerate(output) if _event_type(item) == "message"]
        if len(messages) != 1:
            return None
        index = messages[0]
        text = _message_text(output[index])
        if not text:
            return None
        call = plan.turn().finish(text, _finish_of(_field_of(response, "status")))
        if call is None:
            return None
        new_output = _translated_output(output, index, call, _item_id(), _call_id())
        if isinstance(response, dict):
            response["output"] = new_output
        else:
            response.output = new_output
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
        async for chunk in self._bridged_any(response, plan):
            yield chunk

    def _bridge_messages_stream(self, response: Any) -> bool:
        """For the proxy's `/v1/messages`: LiteLLM streams it as Anthropic events that its
        adapter makes from an inner stream, not started yet: a chat completion stream
        (`AnthropicStreamWrapper.completion_stream`, which LiteLLM 1.108 wraps in a
        `_CombinedChunkSplitter` keeping it as `_stream`) or, for `openai/` deployments, a
        Responses API stream (`AnthropicResponsesStreamWrapper.responses_stream`).
        `response` is the adapter's SSE generator (its frame's `self`, LiteLLM 1.88) or an
        object keeping the adapter (`_wrapper`, `_anthropic_wrapper`), possibly inside the
        router's `HiddenParamsAsyncIteratorWrapper` (`inner`). The inner stream is bridged in
        place, so the adapter itself turns the call into a `tool_use` block. False (nothing
        changed) for any other response."""
        adapter = _messages_adapter(response)
        attribute = {"AnthropicStreamWrapper": "completion_stream",
                     "AnthropicResponsesStreamWrapper": "responses_stream"}.get(
                         type(adapter).__name__)
        if attribute is None:
            return False
        holder = adapter
        inner = getattr(adapter, attribute, None)
        if type(inner).__name__ == "_CombinedChunkSplitter":
            # LiteLLM 1.108: the chat stream inside the splitter, which must not have started
            if getattr(inner, "_async_iter", None) is not None or getattr(
                    inner, "_sync_iter", None) is not None:
                return False
            holder, attribute = inner, "_stream"
            inner = getattr(inner, "_stream", None)
        request = _recorded_request(inner)
        if inner is None or request is None:
            return False
        plan = self.plan(request, _deployment_of(inner))
        if plan is None:
            return False
        setattr(holder, attribute, _Relay(inner, self._bridged_any(inner, plan)))
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
        async for chunk in self._bridged_any(response, plan):
            yield chunk

    async def _bridged_any(self, response: Any, plan: _Plan) -> AsyncIterator[Any]:
        """A chat completion stream or a Responses API event stream, told apart by its first
        item, bridged."""
        iterator = response.__aiter__()
        try:
            first = await iterator.__anext__()
        except StopAsyncIteration:
            return
        rest = _Prepended(first, iterator)
        bridged = (self._bridged_events(rest, plan) if _event_type(first).startswith("response.")
                   else self._bridged(rest, plan))
        async for item in bridged:
            yield item

    async def _bridged_events(self, response: Any, plan: _Plan) -> AsyncIterator[Any]:
        """A Responses API event stream with a leaked call turned into a `function_call`
        item's events (`_ResponsesStreamState`). A failure inside passes the rest through."""
        state = _ResponsesStreamState(plan)
        iterator = response.__aiter__()
        try:
            while True:
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                try:
                    out = state.take(event)
                except Exception as error:
                    log.warning("claude_tool_bridge.litellm: stream passed through (%s: %s)",
                                type(error).__name__, error)
                    out = state.give_up(event)
                for piece in out:
                    yield piece
            for piece in state.end():
                yield piece
        except GeneratorExit:
            await _close(iterator)
            raise

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
    # A Responses deployment served through chat completions streams its chat chunks as
    # Responses events, which the proxy's iterator hook bridges.
    return path.endswith("/chat/completions") or path.endswith("/responses")


# Where LiteLLM's `/v1/messages` streams keep the Anthropic adapter (by the holder's class
# name): an SSE byte stream's attribute, or the stream a wrapper holds (on LiteLLM 1.108 the
# proxy's `_UpstreamStreamBoundary`, the router's `FallbackAwareAnthropicMessagesStream` and
# `HiddenParamsAsyncIteratorWrapper`).
_ADAPTER_HOLDERS = {
    "AnthropicResponsesSSEByteStream": "_wrapper",
    "AnthropicSSEStream": "_anthropic_wrapper",
    "HiddenParamsAsyncIteratorWrapper": "inner",
    "_UpstreamStreamBoundary": "_source",
    "FallbackAwareAnthropicMessagesStream": "_source_iterator",
}


def _messages_adapter(response: Any) -> Any:
    """The Anthropic adapter behind a proxy's `/v1/messages` stream, else None."""
    for _ in range(8):
        name = _ADAPTER_HOLDERS.get(type(response).__name__)
        if name is not None:
            response = getattr(response, name, None)
            continue
        if type(response).__name__ in ("AnthropicStreamWrapper", "AnthropicResponsesStreamWrapper"):
            return response
        adapter = getattr(response, "_wrapper", None)
        if adapter is not None:
            return adapter
        frame = getattr(response, "ag_frame", None)
        if frame is None or getattr(response, "ag_running", True):
            return None
        return frame.f_locals.get("self")
    return None


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
    def first(*values: Any) -> Any:
        return next((v for v in values if v is not None), None)

    request: dict[str, Any] = {
        "model": details.get("model"),
        "messages": details.get("messages"),
        "input": first(details.get("input"), optional.get("input")),
        "instructions": first(optional.get("instructions"), details.get("instructions")),
        "system": first(optional.get("system"), details.get("system")),
        "tools": first(optional.get("tools"), details.get("tools")),
        "tool_choice": first(optional.get("tool_choice"), details.get("tool_choice")),
        "stop": optional.get("stop"),
        "metadata": litellm_params.get("metadata") or {},
    }
    return request


class _Prepended:
    """An async iterator: `first`, then what `rest` yields (closing closes `rest`)."""

    def __init__(self, first: Any, rest: Any):
        self._first: list[Any] = [first]
        self._rest = rest

    def __aiter__(self) -> _Prepended:
        return self

    async def __anext__(self) -> Any:
        if self._first:
            return self._first.pop()
        return await self._rest.__anext__()

    async def aclose(self) -> None:
        await _close(self._rest)


class _Relay:
    """The bridged stream in the place of an adapter's inner stream: iterates as the bridge
    yields, and answers other attribute reads (the provider, the logging object) from the
    stream it replaced."""

    def __init__(self, inner: Any, bridged: Any):
        self._inner = inner
        self._bridged = bridged

    def __aiter__(self) -> Any:
        return self._bridged.__aiter__()

    async def __anext__(self) -> Any:
        return await self._bridged.__anext__()

    async def aclose(self) -> None:
        await _close(self._bridged)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


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


# ---------------------------------------------------------------- the Responses API


_RESPONSES_CALL_TYPES = frozenset({"aresponses", "responses"})
_TERMINAL_EVENTS = frozenset({"response.completed", "response.incomplete"})


def _event_type(event: Any) -> str:
    kind = _field_of(event, "type")
    kind = getattr(kind, "value", kind)
    return kind if isinstance(kind, str) else ""


def _item_id() -> str:
    return "fc_" + secrets.token_hex(12)


def _message_text(item: Any) -> str | None:
    """The text of a `message` output item made of one `output_text` part, else None."""
    content = _field_of(item, "content")
    if not isinstance(content, (list, tuple)) or len(content) != 1:
        return None
    part = content[0]
    if _field_of(part, "type") != "output_text":
        return None
    text = _field_of(part, "text")
    return text if isinstance(text, str) else None


def _with_text(item: Any, text: str) -> Any:
    """A copy of a one-part `message` item whose text is `text`."""
    if isinstance(item, Mapping):
        out = dict(item)
        part = dict(item["content"][0])
        part["text"] = text
        out["content"] = [part]
        return out
    out = copy.copy(item)
    part = copy.copy(_field_of(item, "content")[0])
    _set(part, "text", text)
    _set(out, "content", [part])
    return out


def _function_call_item(call: _Call, item_id: str, call_id: str, like: Any = None,
                        done: bool = True) -> Any:
    """A `function_call` output item, of the kind of `like` (a dict among dicts, else the
    OpenAI SDK's model, as LiteLLM's own output items are)."""
    item = {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": call.name,
        "arguments": _arguments_json(call.arguments) if done else "",
        "status": "completed" if done else "in_progress",
    }
    if isinstance(like, Mapping) or _ResponseFunctionToolCall is None:
        return item
    return _ResponseFunctionToolCall(**item)


def _message_item(item_id: Any, text: str) -> Any:
    """A completed `message` output item of one `output_text` part (the OpenAI SDK's model)."""
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
            "content": [part]}
    if _ResponseOutputMessage is None or _ResponseOutputText is None or not isinstance(item_id, str):
        return item
    return _ResponseOutputMessage(**{**item, "content": [_ResponseOutputText(**part)]})


def _translated_output(output: list[Any], index: int, call: _Call, item_id: str,
                       call_id: str) -> list[Any]:
    """`output` with the message item at `index` holding only the prose (dropped when there
    is none) and the function call right after it."""
    message = output[index]
    kept = [_with_text(message, call.prose)] if call.prose else []
    fc = _function_call_item(call, item_id, call_id, message)
    return [*output[:index], *kept, fc, *output[index + 1 :]]


def _finish_of(status: Any, incomplete: bool = False) -> str:
    return "length" if incomplete or status == "incomplete" else "stop"


def _responses_output_call(output: Any) -> bool:
    """Whether a Responses output already holds a structured call of any kind."""
    return any(str(_event_type(item)).endswith("_call") for item in output or [])


def _opener_end(text: Any) -> float:
    """Where a message's opening event sits in the held queue: released with the first
    settled character, or, when it already holds the whole text (LiteLLM's simulated
    streams fill it in), only at the end, as it was or emptied for a translation."""
    return math.inf if isinstance(text, str) and text else 1


def _emptied(event: Any) -> Any:
    """A copy of a message's `output_item.added` or `content_part.added` without its text."""
    out = copy.copy(event)
    item = _field_of(event, "item")
    if item is not None and _message_text(item):
        item = copy.copy(item)
        if isinstance(item, dict):
            item["content"] = []
        else:
            _set(item, "content", [])
        _set(out, "item", item)
    part = _field_of(event, "part")
    if part is not None and _field_of(part, "text"):
        part = dict(part) if isinstance(part, Mapping) else copy.copy(part)
        if isinstance(part, dict):
            part["text"] = ""
        else:
            _set(part, "text", "")
        _set(out, "part", part)
    return out


def _generic_event(kind: str, sequence_number: int | None, **fields: Any) -> Any:
    if sequence_number is not None:
        fields["sequence_number"] = sequence_number
    if _GenericEvent is not None:
        return _GenericEvent(type=kind, **fields)
    return {"type": kind, **fields}  # pragma: no cover - every supported LiteLLM has it


class _ResponsesStreamState:
    """The hold-back of one Responses API event stream (`response.*` events).

    Events before the reply's `message` item pass as they come. From its `output_item.added`
    on, the message's events are held: its opening events until some of its text is
    settled, its text deltas as the chat stream holds chunks, its closing events until the
    response's last event (`response.completed` or `.incomplete`), which carries the status
    the decision needs. A translated reply then gets the prose's rest and the message's
    closing events with the prose, a `function_call` item's events (added, the arguments'
    delta and done, done), and the last event with the output rewritten the same way; an
    untouched one gets every held event as it was. A call decided before the text ends is
    sent at once; what the upstream sends after it is read and dropped up to its last event.
    Anything unexpected (a second message, a structured call, a refusal, an annotation, a
    failure) passes everything through from there on."""

    def __init__(self, plan: _Plan):
        self.turn = plan.turn()
        self.parts: list[str] = []
        self.length = 0
        self.released = 0
        self.held: deque[tuple[Any, int]] = deque()
        self.item_id: Any = None  # the message item being read
        self.output_index: Any = None
        self.tracking = False
        self.passthrough = False
        self.call: _Call | None = None  # decided early: the rest is dropped up to the end
        self.fc_item_id = _item_id()
        self.call_id = _call_id()
        self.sequence: int | None = None  # the last sequence number sent
        self.created: Any = None  # the response.created event (a template)
        self.delta_template: Any = None
        self.closing: dict[str, Any] = {}
        self.done = False

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def _sent(self, events: list[Any]) -> list[Any]:
        for event in events:
            number = _field_of(event, "sequence_number")
            if isinstance(number, int):
                self.sequence = number
        return events

    def _next_number(self) -> int | None:
        if self.sequence is None:
            return None
        self.sequence += 1
        return self.sequence

    def give_up(self, event: Any) -> list[Any]:
        out: list[Any] = []
        if not self.passthrough:
            self.passthrough = True
            out.extend(e for e, _ in self.held)
            self.held.clear()
            self.released = self.length
        if self.call is not None:
            return []  # a call went out already: the rest is not the client's
        out.append(event)
        return self._sent(out)

    def _ours(self, event: Any) -> bool:
        item = _field_of(event, "item")
        item_id = _field_of(event, "item_id")
        if item_id is None and item is not None:
            item_id = _field_of(item, "id")
        return item_id == self.item_id

    def take(self, event: Any) -> list[Any]:
        """What to send for `event`."""
        if self.passthrough or self.done:
            return [] if self.done else self._sent([event])
        kind = _event_type(event)
        if self.call is not None:  # decided early: read on, send only the last event
            if kind in _TERMINAL_EVENTS:
                return self._sent(self._terminal(event, self.call))
            return []
        if kind == "response.created" and self.created is None:
            self.created = event
        if not self.tracking:
            if kind == "response.output_item.added" and _event_type(_field_of(event, "item")) == "message":
                if self.item_id is not None:
                    return self.give_up(event)  # a second message
                item = _field_of(event, "item")
                self.item_id = _field_of(item, "id")
                self.output_index = _field_of(event, "output_index")
                self.tracking = True
                self.held.append((event, _opener_end(_message_text(item))))
                return []
            if kind in _TERMINAL_EVENTS or kind == "response.failed" or kind.endswith("_call.in_progress"):
                return self._sent([event])
            if kind == "response.output_item.added" and self.item_id is not None:
                return self.give_up(event)  # an item after the message
            return self._sent([event])
        # the message is being read
        if kind in _TERMINAL_EVENTS:
            return self._sent(self._decide(event))
        if not self._ours(event):
            return self.give_up(event)
        if kind == "response.content_part.added":
            if _field_of(event, "content_index") not in (0, None):
                return self.give_up(event)
            self.held.append((event, _opener_end(_field_of(_field_of(event, "part"), "text"))))
            return []
        if kind == "response.output_text.delta":
            if _field_of(event, "content_index") not in (0, None):
                return self.give_up(event)
            delta = _field_of(event, "delta")
            if not isinstance(delta, str):
                return self.give_up(event)
            self.delta_template = event
            stop, settled = (None, self.released)
            if delta:
                stop, settled = self.turn.advance(delta)
                self.parts.append(delta)
                self.length += len(delta)
            self.held.append((event, self.length))
            if stop is not None:
                call = self.turn.finish(stop, "stop")
                if call is not None and call.prose.startswith(self.text[: self.released]):
                    self.call = call
                    return self._sent(self._call_events(call))
            out = []
            while self.held and self.held[0][1] <= settled:
                held, end = self.held.popleft()
                out.append(held)
                if _event_type(held) == "response.output_text.delta":
                    self.released = end
            return self._sent(out)
        if kind in ("response.output_text.done", "response.content_part.done",
                    "response.output_item.done"):
            self.closing[kind] = event
            self.held.append((event, self.length))
            return []
        return self.give_up(event)

    def _decide(self, terminal: Any) -> list[Any]:
        response = _field_of(terminal, "response")
        call = self.turn.finish(
            self.text,
            _finish_of(_field_of(response, "status"), _event_type(terminal) == "response.incomplete"),
        )
        if call is None or not call.prose.startswith(self.text[: self.released]):
            return self.give_up(terminal)
        try:
            out = self._call_events(call) + self._terminal(terminal, call)
        except Exception as error:  # an odd shape: nothing of ours goes out
            log.warning("claude_tool_bridge.litellm: stream passed through (%s: %s)",
                        type(error).__name__, error)
            self.call = None
            return self.give_up(terminal)
        return out

    def _call_events(self, call: _Call) -> list[Any]:
        """The rest of the prose and the message's closing events (when there is prose),
        then the function call's events. Held events are dropped or replaced."""
        out: list[Any] = []
        prose = call.prose
        index = self.output_index if isinstance(self.output_index, int) else 0
        if prose:
            # the message's opening events, when none of its text was settled before
            out.extend(_emptied(e) for e, _ in self.held if _event_type(e) in (
                "response.output_item.added", "response.content_part.added"))
            rest = prose[self.released :]
            if rest:
                out.append(self._delta(rest))
            out.extend(self._closing(prose))
            index += 1
        self.held.clear()
        self.released = self.length
        self.tracking = False
        arguments = _arguments_json(call.arguments)
        added = _function_call_item(call, self.fc_item_id, self.call_id, done=False)
        item = _function_call_item(call, self.fc_item_id, self.call_id)
        out.append(_generic_event("response.output_item.added", self._next_number(),
                                  output_index=index, item=added))
        out.append(_generic_event("response.function_call_arguments.delta", self._next_number(),
                                  item_id=self.fc_item_id, output_index=index, delta=arguments))
        out.append(_generic_event("response.function_call_arguments.done", self._next_number(),
                                  item_id=self.fc_item_id, output_index=index,
                                  arguments=arguments, name=call.name))
        out.append(_generic_event("response.output_item.done", self._next_number(),
                                  output_index=index, item=item))
        return out

    def _delta(self, text: str) -> Any:
        template = self.delta_template
        event = copy.copy(template)
        _set(event, "delta", text)
        if _field_of(event, "logprobs") is not None:
            _set(event, "logprobs", [])
        number = self._next_number()
        if number is not None and _field_of(template, "sequence_number") is not None:
            _set(event, "sequence_number", number)
        return event

    def _closing(self, prose: str) -> list[Any]:
        """`output_text.done`, `content_part.done` and `output_item.done` of the message,
        with the prose as its text."""
        item = _message_item(self.item_id, prose)
        part = _field_of(item, "content")[0]
        index = self.output_index if isinstance(self.output_index, int) else 0
        common = {"item_id": self.item_id, "output_index": index, "content_index": 0}
        return [
            _generic_event("response.output_text.done", self._next_number(), text=prose,
                           **common),
            _generic_event("response.content_part.done", self._next_number(), part=part,
                           **common),
            _generic_event("response.output_item.done", self._next_number(),
                           output_index=index, item=item),
        ]

    def _terminal(self, terminal: Any, call: _Call) -> list[Any]:
        """The response's last event with its output rewritten as the events were."""
        self.done = True
        response = _field_of(terminal, "response")
        output = list(_field_of(response, "output") or [])
        index = next((i for i, item in enumerate(output)
                      if _event_type(item) == "message" and _field_of(item, "id") == self.item_id),
                     None)
        if index is None:
            index = next((i for i, item in enumerate(output) if _event_type(item) == "message"),
                         None)
        if index is None:
            kept = [_message_item(self.item_id, call.prose)] if call.prose else []
            new_output = [*output, *kept,
                          _function_call_item(call, self.fc_item_id, self.call_id)]
        else:
            new_output = _translated_output(output, index, call, self.fc_item_id, self.call_id)
        new_response = copy.copy(response)
        if isinstance(new_response, dict):
            new_response["output"] = new_output
        else:
            _set(new_response, "output", new_output)
        event = copy.copy(terminal)
        _set(event, "response", new_response)
        number = self._next_number()
        if number is not None and _field_of(terminal, "sequence_number") is not None:
            _set(event, "sequence_number", number)
        return [event]

    def end(self) -> list[Any]:
        """The upstream ended before its last event."""
        if self.call is not None and not self.done:
            self.done = True
            created = _field_of(self.created, "response") if self.created is not None else None
            if created is not None:
                response = copy.copy(created)
                _set(response, "status", "completed")
                event = _generic_event("response.completed", self._next_number(),
                                       response=response)
                return self._terminal(event, self.call)
            return []
        out = [e for e, _ in self.held]
        self.held.clear()
        return self._sent(out)


bridge = LiteLLMBridge()
