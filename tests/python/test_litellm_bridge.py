"""claude_tool_bridge.litellm in-process: the real LiteLLM 1.88.1 (`litellm.acompletion`,
`litellm.callbacks = [bridge]`) against the scripted upstream, every case file of
data/litellm/cases, streamed and not; streaming equal to non-streaming for every chunking;
LiteLLM's hook lookup; failures inside the callback."""

from __future__ import annotations

import json
import logging
import os
import random

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import litellm  # noqa: E402
import pytest  # noqa: E402
from litellm.types.utils import Delta, ModelResponse, ModelResponseStream, StreamingChoices  # noqa: E402
from litellm_harness import Upstream, chunk_for, cut_at_stops, load_cases  # noqa: E402

import claude_tool_bridge.litellm as ctb_litellm  # noqa: E402
from claude_tool_bridge.litellm import LiteLLMBridge, bridge  # noqa: E402

CASES = load_cases()
BY_NAME = {c.name: c for c in CASES}

# One event loop for the module: LiteLLM's logging worker binds to the loop of the first
# call, and a loop per test leaves its queued coroutines behind.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def upstream():  # noqa: D401
    with Upstream({c.name: c.reply for c in CASES}) as server:
        yield server


@pytest.fixture
def callbacks():
    saved = litellm.callbacks
    litellm.callbacks = [bridge]
    yield
    litellm.callbacks = saved


# ---------------------------------------------------------------- what the client got


def from_response(response) -> dict:
    """What a client reads from a non-streamed chat completion."""
    choice = response.choices[0]
    message = choice.message
    calls = [(c.function.name, json.loads(c.function.arguments), c.id)
             for c in (message.tool_calls or [])]
    return {"content": message.content, "tool_calls": calls, "finish": choice.finish_reason}


def from_chunks(chunks) -> dict:
    """What a client assembles from streamed chunks (the OpenAI rules: content joined, tool
    calls by index, the last finish reason)."""
    content, calls, finish = [], {}, None
    for chunk in chunks:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if delta.content:
            content.append(delta.content)
        for call in delta.tool_calls or []:
            slot = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
            slot["id"] = call.id or slot["id"]
            slot["name"] += call.function.name or ""
            slot["arguments"] += call.function.arguments or ""
        finish = choice.finish_reason or finish
    return {
        "content": "".join(content) or None,
        "tool_calls": [(c["name"], json.loads(c["arguments"]), c["id"]) for _, c in sorted(calls.items())],
        "finish": finish,
    }


def check(case, got: dict, sent_stops: list[str]) -> None:
    """`got` is what `case` expects; an untouched reply is the upstream's text as it was."""
    if case.translated:
        call = case.expect["tool_call"]
        assert got["finish"] == "tool_calls", got
        assert [(n, a) for n, a, _ in got["tool_calls"]] == [(call["name"], call["arguments"])], got
        assert all(i and i.startswith("call_") for _, _, i in got["tool_calls"]), got
        assert got["content"] == case.expect["content"], got
    else:
        text, _ = cut_at_stops(case.reply, sent_stops)
        assert got == {"content": text or None, "tool_calls": [], "finish": "stop"}, got


def sent(upstream, case) -> list[str]:
    """The stop list the upstream received for the case's last request."""
    body = upstream.requests_for(case.name)[-1]
    stop = body.get("stop")
    return [stop] if isinstance(stop, str) else list(stop or [])


def check_sent(upstream, case) -> None:
    if case.sent_stop is ...:
        return
    body = upstream.requests_for(case.name)[-1]
    if case.sent_stop is None:
        assert body.get("stop") in (None, [], case.stop), body.get("stop")
    else:
        assert sent(upstream, case) == case.sent_stop


def in_process_model(case) -> str:
    return case.deployment


async def call(upstream, case, stream: bool, chunk: int | None = None):
    kwargs = case.request(chunk)
    return await litellm.acompletion(model=in_process_model(case), api_base=upstream.base_url,
                                     api_key="sk-upstream", stream=stream, **kwargs)


# ---------------------------------------------------------------- every case, in-process


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_non_streaming(case, upstream, callbacks):
    response = await call(upstream, case, stream=False)
    check_sent(upstream, case)
    check(case, from_response(response), sent(upstream, case))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_streaming_through_bridge_stream(case, upstream, callbacks):
    """Through LiteLLM's own stream, in one chunking per case (1, 5 or 64 characters, in
    turn; every split is the next section's)."""
    stream = await call(upstream, case, stream=True, chunk=chunk_for(case, (1, 5, 64)))
    chunks = [c async for c in bridge.stream(stream)]
    check_sent(upstream, case)
    check(case, from_chunks(chunks), sent(upstream, case))


async def test_without_the_callback_the_leak_reaches_the_client(upstream):
    """The baseline the bridge fixes: markup as content, `finish_reason: stop`."""
    saved, litellm.callbacks = litellm.callbacks, []
    try:
        case = BY_NAME["family_kimi"]
        response = await call(upstream, case, stream=False)
    finally:
        litellm.callbacks = saved
    got = from_response(response)
    assert got == {"content": case.reply, "tool_calls": [], "finish": "stop"}
    assert "stop" not in upstream.requests_for(case.name)[-1]


# ---------------------------------------------------------------- every chunking


def chunk_of(text: str | None, finish: str | None = None, role: str | None = None) -> ModelResponseStream:
    delta = Delta(content=text, role=role)
    return ModelResponseStream(id="chatcmpl-x", created=1, model="m", object="chat.completion.chunk",
                               choices=[StreamingChoices(index=0, delta=delta, finish_reason=finish)])


async def _aiter(items):
    for item in items:
        yield item


def stream_of(text: str, cuts: list[int]) -> list[ModelResponseStream]:
    bounds = [0, *sorted(set(c for c in cuts if 0 < c < len(text))), len(text)]
    chunks = [chunk_of("", role="assistant")]
    chunks += [chunk_of(text[a:b]) for a, b in zip(bounds, bounds[1:])]
    chunks.append(chunk_of(None, finish="stop"))
    return chunks


def whole(text: str) -> ModelResponse:
    return ModelResponse(id="chatcmpl-x", created=1, model="m", object="chat.completion",
                         choices=[{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": text}}])


def _without_ids(got: dict) -> dict:
    return {**got, "tool_calls": [(n, a) for n, a, _ in got["tool_calls"]]}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_streaming_equals_non_streaming_for_every_chunking(case):
    """Each case's reply as the provider sends it (cut at the request's stops) streamed in
    every split into two pieces, in single characters and in seeded random chunkings: the
    client assembles what the non-streamed reply gives. The text released before a decision
    is always where it stays: a prefix of what the client finally has."""
    request = {"model": case.deployment, **case.request()}
    plan = bridge.plan(request)
    stops = plan.stops if plan is not None else (case.request().get("stop") or [])
    stops = [stops] if isinstance(stops, str) else stops
    text, _ = cut_at_stops(case.reply, stops)
    response = whole(text)
    if plan is not None:
        bridge.translate_response(response, plan)
    expected = _without_ids(from_response(response))
    rng = random.Random(f"litellm-{case.name}")
    splits = [[i] for i in range(1, len(text))] + [list(range(1, len(text)))]
    splits += [rng.sample(range(1, len(text)), k=min(len(text) - 1, rng.randint(1, 12)))
               for _ in range(40)]

    async def run(cuts):
        chunks = stream_of(text, cuts)
        if plan is None:
            return [c async for c in _aiter(chunks)]
        return [c async for c in bridge._bridged(_aiter(chunks), plan)]

    async def all_runs():
        for cuts in splits:
            out = await run(cuts)
            got = _without_ids(from_chunks(out))
            assert got == expected, (cuts, got, expected)
            if expected["tool_calls"]:
                # no markup of a translated call ever reached the client
                assert all(c.choices[0].delta.content is None
                           or (expected["content"] or "").find(c.choices[0].delta.content) >= 0
                           for c in out if c.choices), cuts

    await all_runs()


async def test_a_decision_ends_the_stream_at_the_call():
    """With stop strings off, the early stop: once the call is complete and translates,
    nothing more is read from upstream."""
    quiet = LiteLLMBridge({"stop_sequence": False})
    case = BY_NAME["family_claude"]
    plan = quiet.plan({"model": case.deployment, **case.request()})
    assert plan is not None and plan.stops == []
    text = case.reply + "\n" + "more invented text\n" * 200
    chunks = stream_of(text, list(range(7, len(text), 7)))
    read = 0

    async def counted():
        nonlocal read
        for c in chunks:
            read += 1
            yield c

    async def run():
        return [c async for c in quiet._bridged(counted(), plan)]

    out = await run()
    got = from_chunks(out)
    assert got["finish"] == "tool_calls" and got["tool_calls"][0][0] == "get_weather"
    assert read * 7 < case.reply.index("</invoke>") + 40


# ---------------------------------------------------------------- LiteLLM's hook lookup


async def test_the_proxy_finds_the_streaming_hook_on_the_class_and_on_subclasses():
    """LiteLLM 1.88.1's proxy calls `async_post_call_streaming_iterator_hook` only when the
    callback's own class defines it (`type(cb).__dict__`); a subclass keeps it there."""
    from litellm.proxy.utils import ProxyLogging

    class Custom(LiteLLMBridge):
        pass

    for instance in (bridge, Custom()):
        saved = litellm.callbacks
        litellm.callbacks = [instance]
        try:
            ProxyLogging._callback_capabilities_cache.clear()
            caps = ProxyLogging._callback_capabilities()
        finally:
            litellm.callbacks = saved
            ProxyLogging._callback_capabilities_cache.clear()
        assert caps.has_iterator_override
        assert caps.iterator_overrides == ((instance, "override"),)
        assert "async_post_call_streaming_iterator_hook" in type(instance).__dict__


async def test_a_dotted_callbacks_entry_is_a_file_beside_the_config(tmp_path):
    """The proxy's `callbacks:` value is looked up as a file relative to config.yaml: the
    package path fails, the one-line module the README shows works."""
    from litellm.proxy.types_utils.utils import get_instance_fn

    config = tmp_path / "config.yaml"
    config.write_text("{}")
    with pytest.raises(ImportError):
        get_instance_fn("claude_tool_bridge.litellm.bridge", config_file_path=str(config))
    (tmp_path / "ctb_litellm.py").write_text("from claude_tool_bridge.litellm import bridge\n")
    found = get_instance_fn("ctb_litellm.bridge", config_file_path=str(config))
    assert found is bridge


# ---------------------------------------------------------------- failures inside


def _records(caplog):
    return [r for r in caplog.records if r.name == "claude_tool_bridge.litellm"]


async def test_a_failure_leaves_request_and_response_untouched(upstream, callbacks, caplog, monkeypatch):
    case = BY_NAME["family_claude"]

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(LiteLLMBridge, "plan", broken)
    with caplog.at_level(logging.WARNING, logger="claude_tool_bridge.litellm"):
        response = await call(upstream, case, stream=False)
    assert "stop" not in upstream.requests_for(case.name)[-1]
    assert from_response(response) == {"content": case.reply, "tool_calls": [], "finish": "stop"}
    lines = [r.getMessage() for r in _records(caplog)]
    assert len(lines) == 2 and all("boom" in line for line in lines), lines  # request, response


async def test_a_failure_while_streaming_passes_the_text_through(upstream, callbacks, caplog, monkeypatch):
    case = BY_NAME["family_claude"]
    stream = await call(upstream, case, stream=True, chunk=9)
    calls = 0

    def flaky(self, delta):
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("boom")
        return None, 0  # holds everything back until it fails

    monkeypatch.setattr(ctb_litellm._Turn, "advance", flaky)
    with caplog.at_level(logging.WARNING, logger="claude_tool_bridge.litellm"):
        got = from_chunks([c async for c in bridge.stream(stream)])
    text, _ = cut_at_stops(case.reply, sent(upstream, case))
    assert got == {"content": text, "tool_calls": [], "finish": "stop"}
    assert len(_records(caplog)) == 1


async def test_a_response_is_changed_only_once_everything_is_worked_out(monkeypatch):
    case = BY_NAME["family_claude"]
    plan = bridge.plan({"model": case.deployment, **case.request()})
    response = ModelResponse(id="x", created=1, model="m", object="chat.completion", choices=[
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": case.reply}},
        {"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": case.reply}},
    ])
    before = response.model_dump_json()
    seen = 0
    real = ctb_litellm._Turn.finish

    def second_fails(self, reply, finish):
        nonlocal seen
        seen += 1
        if seen == 2:
            raise RuntimeError("boom")
        return real(self, reply, finish)

    monkeypatch.setattr(ctb_litellm._Turn, "finish", second_fails)
    out = await bridge.async_post_call_success_deployment_hook(
        {"model": case.deployment, **case.request()}, response, "acompletion")
    assert out is None and plan is not None
    assert response.model_dump_json() == before


# ---------------------------------------------------------------- what else a stream carries


async def test_reasoning_and_usage_chunks_reach_the_client(upstream, callbacks):
    """Chunks without text pass (reasoning before the text, the usage chunk after the
    finish); the translated call still arrives."""
    case = BY_NAME["family_kimi"]
    stream = await litellm.acompletion(model=case.deployment, api_base=upstream.base_url,
                                       api_key="sk-upstream", stream=True,
                                       stream_options={"include_usage": True}, **case.request(6))
    out = [c async for c in bridge.stream(stream)]
    got = from_chunks(out)
    assert got["finish"] == "tool_calls" and got["tool_calls"][0][0] == "get_weather"
    assert any(getattr(c, "usage", None) for c in out)

    reasoning = chunk_of(None)
    reasoning.choices[0].delta.reasoning_content = "thinking about the weather"
    plan = bridge.plan({"model": case.deployment, **case.request()})
    text, _ = cut_at_stops(case.reply, plan.stops)
    chunks = [chunk_of("", role="assistant"), reasoning, *stream_of(text, [5, 17])[1:]]
    out = [c async for c in bridge._bridged(_aiter(chunks), plan)]
    assert out[0] is chunks[0] and out[1] is chunks[1]  # passed as they came
    assert from_chunks(out)["finish"] == "tool_calls"


async def test_a_router_in_process_runs_the_same_hooks(upstream, callbacks):
    """`litellm.Router` in-process: the deployment hooks run for it too; the family comes
    from the deployment when the model group's name names none."""
    case = BY_NAME["family_from_deployment"]
    router = litellm.Router(model_list=[{"model_name": case.model, "litellm_params": {
        "model": case.deployment, "api_base": upstream.base_url, "api_key": "sk-upstream"}}])
    response = await router.acompletion(model=case.model, **case.request())
    check_sent(upstream, case)
    check(case, from_response(response), sent(upstream, case))
