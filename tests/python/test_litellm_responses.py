"""claude_tool_bridge.litellm on the Responses API and on `/v1/messages` for Responses
deployments, from the case files of data/litellm/cases (each case's `on_responses`
expectation: the Responses API has no stop strings, so the upstream sends the whole reply):

- in-process: `litellm.aresponses`, non-streamed (the deployment hook) and streamed (through
  `bridge.stream`), natively and simulated by LiteLLM; and every case's event stream in every
  split into two pieces, in single characters and in seeded random chunkings, through the
  bridge (so the HTTP tests stream each case in one chunking: `chunk_of`);
- a real `litellm` proxy process, called by the official `openai` client on `/v1/responses`:
  an `openai/` deployment (LiteLLM calls the upstream's Responses API) and one with
  `use_chat_completions_api: true` (chat completions inside, Responses outside), streamed and
  not;
- `/v1/messages` on an `openai/` deployment, which LiteLLM serves through the upstream's
  Responses API, and with `use_chat_completions_url_for_anthropic_messages: true`, which
  routes it through chat completions, called by the official `anthropic` client.

A translated reply must reach the client as one `function_call` item (a call id, the name,
the arguments typed) after the prose, streamed as the Responses events of a function call, and
no event may carry the markup; an untouched one is the upstream's text, byte for byte."""

from __future__ import annotations

import copy
import json
import os
import random

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import anthropic  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402
import pytest  # noqa: E402
from litellm_harness import (Case, Proxy, Upstream, chunk_for, cut_at_stops,  # noqa: E402
                             load_cases)

from claude_tool_bridge.litellm import bridge  # noqa: E402

CASES = [c for c in load_cases() if c.on_responses != "skip"]
BY_NAME = {c.name: c for c in CASES}
# The chunk sizes the streamed HTTP tests use, one per case in turn: every split of every case
# is run through the bridge in-process (`test_every_split_of_the_event_stream`), so a case
# streamed over HTTP in a second chunking would test nothing more.
CHUNKS = (3, 40)


def chunk_of(case: Case) -> int:
    return chunk_for(case, CHUNKS)


# LiteLLM simulates a Responses stream for a model it does not know to stream natively (it asks
# the upstream without streaming, then plays the events); these deployments say they do.
NATIVE_STREAMING = {"supports_native_streaming": True}


def markup(case: Case) -> str:
    """A piece of the call's markup that must never reach the client of a translated case."""
    prose = case.on_responses["content"] or ""
    rest = case.reply[len(prose):].lstrip()
    return rest[: min(len(rest), 24)]


# ---------------------------------------------------------------- what the client got


def from_response(response) -> dict:
    """What a client reads from a Responses API response: the messages' text, the function
    calls, the status."""
    text, calls = [], []
    for item in response.output:
        if item.type == "message":
            # LiteLLM's Responses-through-chat gives a null text beside a call
            text.extend(p.text or "" for p in item.content if p.type == "output_text")
        elif item.type == "function_call":
            calls.append((item.name, json.loads(item.arguments), item.call_id))
    return {"content": "".join(text) or None, "tool_calls": calls, "status": response.status}


def from_events(events) -> dict:
    """What a client assembles from Responses stream events; the final response must agree
    with the events (the same text and calls)."""
    text, calls, args, final = [], [], {}, None
    for event in events:
        kind = event.type
        if kind == "response.output_text.delta":
            text.append(event.delta)
        elif kind == "response.function_call_arguments.delta":
            args[event.item_id] = args.get(event.item_id, "") + event.delta
        elif kind == "response.output_item.done" and event.item.type == "function_call":
            assert args.get(event.item.id) == event.item.arguments, (args, event.item)
            calls.append((event.item.name, json.loads(event.item.arguments), event.item.call_id))
        elif kind in ("response.completed", "response.incomplete"):
            final = event.response
    assert final is not None, "no response.completed event"
    got = {"content": "".join(text) or None, "tool_calls": calls, "status": final.status}
    assert from_response(final) == got, (from_response(final), got)
    return got


def check(case: Case, got: dict, stops: list[str] | None = None) -> None:
    """`stops`: the stop strings the upstream got, when LiteLLM serves the route through
    chat completions (the case's chat expectation holds then); else none was sent."""
    expect = case.on_responses if stops is None else case.expect
    if expect == "untouched":
        text, _ = cut_at_stops(case.reply, stops or [])
        assert got == {"content": text, "tool_calls": [], "status": "completed"}, got
        return
    call = expect["tool_call"]
    assert [(n, a) for n, a, _ in got["tool_calls"]] == [(call["name"], call["arguments"])], got
    assert all(i and i.startswith("call_") for _, _, i in got["tool_calls"]), got
    assert got["content"] == expect["content"], got
    assert got["status"] == "completed"


def check_no_markup(case: Case, serialized: list[str], expect=...) -> None:
    if (case.on_responses if expect is ... else expect) != "untouched":
        piece = json.dumps(markup(case))[1:-1]
        assert not any(piece in s for s in serialized), piece


# ---------------------------------------------------------------- in-process


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def upstream():
    with Upstream({c.name: c.reply for c in CASES}) as server:
        yield server


@pytest.fixture(scope="module", autouse=True)
def model_registry():
    """The models this module registers (`streams_natively`) are forgotten after it: a later
    module on the same worker sees LiteLLM's own registry."""
    saved = copy.deepcopy(litellm.model_cost)
    yield
    litellm.model_cost.clear()
    litellm.model_cost.update(saved)


@pytest.fixture
def callbacks():
    saved = litellm.callbacks
    litellm.callbacks = [bridge]
    yield
    litellm.callbacks = saved


def streams_natively(flag: bool) -> None:
    """Tells in-process LiteLLM whether the cases' models stream natively (else it asks the
    upstream without streaming and plays the events)."""
    litellm.register_model({c.deployment: {
        "litellm_provider": "openai", "mode": "responses", "supports_native_streaming": flag}
        for c in CASES})


async def responses_call(upstream, case: Case, stream: bool, chunk: int | None = None):
    return await litellm.aresponses(model=case.deployment, api_base=upstream.base_url,
                                    api_key="sk-upstream", stream=stream,
                                    **case.responses_request(chunk))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_in_process_non_streamed(case, upstream, callbacks):
    response = await responses_call(upstream, case, stream=False)
    check(case, from_response(response))


@pytest.mark.parametrize("simulated", [False, True], ids=["native", "simulated"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_in_process_streamed(case, simulated, upstream, callbacks):
    """A simulated stream is played from a whole response: the upstream's chunking plays no
    part there."""
    streams_natively(not simulated)
    stream = await responses_call(upstream, case, stream=True,
                                  chunk=None if simulated else chunk_of(case))
    events = [event async for event in bridge.stream(stream)]
    assert bool(upstream.requests_for(case.name)[-1].get("stream")) is not simulated
    check(case, from_events(events))
    check_no_markup(case, [e.model_dump_json() for e in events])


def rechunked(events: list, cuts: list[int]) -> list:
    """`events` (a native stream with one text delta per character) with its text deltas
    joined into the pieces `cuts` makes, every event numbered anew."""
    deltas = [i for i, e in enumerate(events) if e.type == "response.output_text.delta"]
    if not deltas:
        return list(events)
    text = "".join(events[i].delta for i in deltas)
    bounds = [0, *sorted(set(c for c in cuts if 0 < c < len(text))), len(text)]
    template = events[deltas[0]]
    pieces = [template.model_copy(update={"delta": text[a:b]}) for a, b in zip(bounds, bounds[1:])]
    out = [*events[: deltas[0]], *pieces, *events[deltas[-1] + 1 :]]
    return [e.model_copy(update={"sequence_number": n}) if getattr(e, "sequence_number", None)
            is not None else e for n, e in enumerate(out)]


async def _aiter(items):
    for item in items:
        yield item


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_every_split_of_the_event_stream(case, upstream):
    """Each case's Responses event stream (LiteLLM's own event objects, read once with one
    text delta per character) re-cut in every split into two pieces, in single characters and
    in seeded random chunkings, through the bridge: the client always assembles the case's
    expectation, and no text delta ever carries markup of a translated call (the joined deltas
    are exactly the prose)."""
    streams_natively(True)
    events = [e async for e in await responses_call(upstream, case, stream=True, chunk=1)]
    plan = bridge.plan({"model": case.deployment, **case.responses_request()})
    assert plan is not None or case.on_responses == "untouched"
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == case.reply
    rng = random.Random(f"responses-{case.name}")
    splits = [[i] for i in range(1, len(text))] + [list(range(1, len(text)))]
    splits += [rng.sample(range(1, len(text)), k=min(len(text) - 1, rng.randint(1, 12)))
               for _ in range(40)]
    for cuts in splits:
        stream = _aiter(rechunked(events, cuts))
        out = [e async for e in (bridge._bridged_events(stream, plan) if plan else stream)]
        try:
            check(case, from_events(out))
        except AssertionError as error:
            raise AssertionError(f"cut at {cuts}: {error}") from None


@pytest.mark.parametrize("name", ["prose", "quoted_in_fence", "unknown_tool"])
async def test_in_process_untouched_stream_is_the_stream_as_it_came(name, upstream):
    """Without the callback and through `bridge.stream`, an untouched reply's events are the
    same objects' serialisations, in the same order."""
    streams_natively(True)
    case = BY_NAME[name]
    plain = [e.model_dump_json() async for e in await responses_call(upstream, case, True, 7)]
    bridged = [e.model_dump_json()
               async for e in bridge.stream(await responses_call(upstream, case, True, 7))]
    assert bridged == plain


def _chat(response) -> dict:
    """A chat completion's message and finish reason, every choice read (LiteLLM serves a
    chat completion from a Responses deployment with the text and the tool calls in two
    choices)."""
    content = [c.message.content for c in response.choices if c.message.content]
    calls = [(t.function.name, json.loads(t.function.arguments), t.id)
             for c in response.choices for t in c.message.tool_calls or []]
    return {"content": content[0] if content else None, "tool_calls": calls,
            "finish": response.choices[0].finish_reason}


@pytest.mark.parametrize("name", ["family_claude", "prose", "quoted_in_fence"])
async def test_chat_completion_from_a_responses_deployment(name, upstream, callbacks):
    """A client on chat completions, a deployment LiteLLM calls through the Responses API:
    the call reaches it as chat `tool_calls`, in the first choice (the Responses output is left
    for the chat response LiteLLM makes from it, which the bridge reads as any chat
    completion). Untouched text stays the upstream's."""
    streams_natively(True)
    case = BY_NAME[name]
    response = await litellm.acompletion(model=case.deployment, api_base=upstream.base_url,
                                         api_key="sk-upstream", **case.request())
    got = _chat(response)
    if case.expect == "untouched":
        assert got == {"content": case.reply, "tool_calls": [], "finish": "stop"}, got
        return
    call = case.expect["tool_call"]
    first = response.choices[0].message
    assert [(t.function.name, json.loads(t.function.arguments)) for t in first.tool_calls or []] \
        == [(call["name"], call["arguments"])], got
    assert response.choices[0].finish_reason == "tool_calls", got
    assert got["content"] == case.expect["content"], got


async def test_in_process_without_the_callback_hands_the_leak_on(upstream):
    case = BY_NAME["family_claude"]
    saved = litellm.callbacks
    litellm.callbacks = []
    try:
        response = await responses_call(upstream, case, stream=False)
    finally:
        litellm.callbacks = saved
    assert from_response(response) == {"content": case.reply, "tool_calls": [],
                                       "status": "completed"}


# ---------------------------------------------------------------- the proxy


@pytest.fixture(scope="module")
def proxies(upstream, tmp_path_factory):
    """Three proxies: native Responses deployments, the same simulating the stream (their
    `model_info` says they do not stream natively: LiteLLM asks the upstream without streaming
    and plays the events; a proxy's deployment streams natively unless told so), and
    deployments served through chat completions."""
    native = Proxy(tmp_path_factory.mktemp("responses"), upstream.base_url, CASES,
                   model_info=NATIVE_STREAMING)
    simulated = Proxy(tmp_path_factory.mktemp("simulated"), upstream.base_url, CASES,
                      model_info={"supports_native_streaming": False})
    chat = Proxy(tmp_path_factory.mktemp("via_chat"), upstream.base_url, CASES,
                 params={"use_chat_completions_api": True})
    with native, simulated, chat:
        yield {"native": native, "simulated": simulated, "chat": chat}


def client(proxy: Proxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base_url, api_key="sk-client", max_retries=0, timeout=60)


def ask(proxy: Proxy, case: Case, stream: bool, chunk: int | None = None) -> tuple[dict, list[str]]:
    c = client(proxy)
    if not stream:
        response = c.responses.create(model=case.model, **case.responses_request(chunk))
        return from_response(response), [response.model_dump_json()]
    events = list(c.responses.create(model=case.model, stream=True,
                                     **case.responses_request(chunk)))
    return from_events(events), [e.model_dump_json() for e in events]


# Through chat completions LiteLLM itself fails on the tool definitions of the bad_schema
# cases, and turns a tool_choice forcing one function into "required" (the chat request
# inside names no function, for the upstream or the bridge).
NOT_VIA_CHAT = {"bad_schema_all_tools", "bad_schema_one_tool",
                "tool_choice_forces_another_function"}


def routes(case: Case, stream: bool) -> list[str]:
    """The proxies a case is asked through. Not streamed, the simulating proxy is the native
    one (the two differ in how a stream is made only)."""
    return ["native"] + (["simulated"] if stream else []) + (
        [] if case.name in NOT_VIA_CHAT else ["chat"])


def routed(stream: bool) -> list[tuple[Case, str]]:
    return [(c, r) for c in CASES for r in routes(c, stream)]


@pytest.mark.parametrize(("case", "route"), routed(False), ids=lambda x: getattr(x, "name", x))
def test_proxy_non_streamed(case, route, proxies, upstream):
    got, serialized = ask(proxies[route], case, stream=False)
    check(case, got, sent_stops(upstream, case) if route == "chat" else None)
    check_no_markup(case, serialized, case.expect if route == "chat" else ...)


@pytest.mark.parametrize(("case", "route"), routed(True), ids=lambda x: getattr(x, "name", x))
def test_proxy_streamed(case, route, proxies, upstream):
    chunk = None if route == "simulated" else chunk_of(case)
    got, serialized = ask(proxies[route], case, stream=True, chunk=chunk)
    if route == "simulated":
        assert not upstream.requests_for(case.name)[-1].get("stream")
    check(case, got, sent_stops(upstream, case) if route == "chat" else None)
    check_no_markup(case, serialized, case.expect if route == "chat" else ...)
    if route == "chat" and case.sent_stop is not ...:
        # the chat request inside gets the stop strings, as on chat completions
        assert (sent_stops(upstream, case) or None) == case.sent_stop


def sent_stops(upstream: Upstream, case: Case) -> list[str]:
    stop = upstream.requests_for(case.name)[-1].get("stop")
    return [stop] if isinstance(stop, str) else list(stop or [])


def test_proxy_without_the_callback_hands_the_leak_on(upstream, tmp_path):
    case = BY_NAME["family_glm"]
    with Proxy(tmp_path / "plain", upstream.base_url, [case], callback=False,
               model_info=NATIVE_STREAMING) as plain:
        got, _ = ask(plain, case, stream=False)
        streamed, _ = ask(plain, case, stream=True, chunk=5)
    untouched = {"content": case.reply, "tool_calls": [], "status": "completed"}
    assert got == untouched and streamed == untouched


# ---------------------------------------------------------------- /v1/messages


ANTHROPIC_CASES = ["family_claude", "family_qwen3_coder", "prose", "quoted_in_fence",
                   "echoed_from_user_message", "tool_choice_forces_another_function"]


@pytest.fixture(scope="module", params=["responses", "chat"])
def messages_proxy(request, upstream, tmp_path_factory):
    """`openai/` deployments: LiteLLM serves `/v1/messages` through the upstream's Responses
    API, or through chat completions with `use_chat_completions_url_for_anthropic_messages`."""
    cases = [BY_NAME[n] for n in ANTHROPIC_CASES]
    settings = ({"use_chat_completions_url_for_anthropic_messages": True}
                if request.param == "chat" else {})
    with Proxy(tmp_path_factory.mktemp("messages_" + request.param), upstream.base_url, cases,
               settings=settings, model_info=NATIVE_STREAMING) as running:
        running.route = request.param
        yield running


def anthropic_request(case: Case, chunk: int | None = None) -> dict:
    tools = [{"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
             for t in case.tools]
    messages: list[dict] = []
    system = None
    for message in case.messages(chunk):
        if message["role"] == "system":
            system = message["content"]
        else:
            messages.append({"role": message["role"], "content": message["content"]})
    # the case's tag first, then its history's user text, as one user turn
    merged = "\n".join(m["content"] for m in messages if m["role"] == "user")
    out: dict = {"max_tokens": 1000, "tools": tools,
                 "messages": [{"role": "user", "content": merged}]}
    if system:
        out["system"] = system
    choice = case.tool_choice
    if isinstance(choice, dict) and "function" in choice:
        out["tool_choice"] = {"type": "tool", "name": choice["function"]["name"]}
    return out


def check_message(case: Case, message, upstream: Upstream) -> None:
    blocks = [(b.type, getattr(b, "text", None) or getattr(b, "name", None)) for b in message.content]
    if case.translated:
        call = case.expect["tool_call"]
        assert message.stop_reason == "tool_use", blocks
        uses = [b for b in message.content if b.type == "tool_use"]
        assert [(u.name, u.input) for u in uses] == [(call["name"], call["arguments"])]
        assert all(u.id for u in uses)
        texts = [b.text for b in message.content if b.type == "text" and b.text]
        assert texts == ([case.expect["content"]] if case.expect["content"] else []), blocks
    else:
        text, _ = cut_at_stops(case.reply, sent_stops(upstream, case))
        assert message.stop_reason == "end_turn", blocks
        assert blocks == [("text", text)], blocks


@pytest.mark.parametrize("name", ANTHROPIC_CASES)
def test_messages_non_streamed(name, messages_proxy, upstream):
    case = BY_NAME[name]
    a = anthropic.Anthropic(base_url=messages_proxy.base_url, api_key="sk-client", max_retries=0)
    check_message(case, a.messages.create(model=case.model, **anthropic_request(case)), upstream)


@pytest.mark.parametrize("chunk", [4, 50])
@pytest.mark.parametrize("name", ANTHROPIC_CASES)
def test_messages_streamed(name, chunk, messages_proxy, upstream):
    case = BY_NAME[name]
    a = anthropic.Anthropic(base_url=messages_proxy.base_url, api_key="sk-client", max_retries=0)
    with a.messages.stream(model=case.model, **anthropic_request(case, chunk)) as s:
        message = s.get_final_message()
    check_message(case, message, upstream)
    if messages_proxy.route == "responses":
        assert upstream.requests_for(case.name)[-1].get("input") is not None  # the Responses API
