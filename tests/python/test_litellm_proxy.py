"""claude_tool_bridge.litellm on a real LiteLLM 1.88.1 proxy process (started here on
127.0.0.1, `callbacks:` in its config.yaml naming the one-line module beside it), in front of
the scripted upstream, called by the official `openai` client with `tools`: every case file,
streamed (in one chunking each) and not; two workers with 50 concurrent clients; the Anthropic messages route with
the official `anthropic` client."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import anthropic  # noqa: E402
import openai  # noqa: E402
import pytest  # noqa: E402
from litellm_harness import Case, Proxy, Upstream, chunk_for, cut_at_stops, load_cases  # noqa: E402

CASES = load_cases()
BY_NAME = {c.name: c for c in CASES}


@pytest.fixture(scope="module")
def upstream():
    with Upstream({c.name: c.reply for c in CASES}) as server:
        yield server


@pytest.fixture(scope="module")
def proxy(upstream, tmp_path_factory):
    with Proxy(tmp_path_factory.mktemp("proxy"), upstream.base_url, CASES) as running:
        yield running


def client(proxy: Proxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base_url, api_key="sk-client", max_retries=0, timeout=60)


def ask(proxy: Proxy, case: Case, stream: bool, chunk: int | None = None) -> dict:
    """What the client receives for `case`: content, tool calls (name, arguments, id) and
    the finish reason, assembled from the chunks when streamed."""
    c = client(proxy)
    request = case.request(chunk)
    if not stream:
        r = c.chat.completions.create(model=case.model, **request)
        choice = r.choices[0]
        calls = [(t.function.name, json.loads(t.function.arguments), t.id)
                 for t in (choice.message.tool_calls or [])]
        return {"content": choice.message.content, "tool_calls": calls,
                "finish": choice.finish_reason}
    content, calls, finish = [], {}, None
    for chunk_ in c.chat.completions.create(model=case.model, stream=True, **request):
        if not chunk_.choices:
            continue
        choice = chunk_.choices[0]
        if choice.delta.content:
            content.append(choice.delta.content)
        for t in choice.delta.tool_calls or []:
            slot = calls.setdefault(t.index, {"id": None, "name": "", "arguments": ""})
            slot["id"] = t.id or slot["id"]
            slot["name"] += (t.function.name or "") if t.function else ""
            slot["arguments"] += (t.function.arguments or "") if t.function else ""
        finish = choice.finish_reason or finish
    return {"content": "".join(content) or None,
            "tool_calls": [(s["name"], json.loads(s["arguments"]), s["id"])
                           for _, s in sorted(calls.items())],
            "finish": finish}


def sent(upstream: Upstream, case: Case) -> list[str]:
    stop = upstream.requests_for(case.name)[-1].get("stop")
    return [stop] if isinstance(stop, str) else list(stop or [])


def check(upstream: Upstream, case: Case, got: dict) -> None:
    if case.sent_stop is not ...:
        expected = case.sent_stop if case.sent_stop is not None else (
            [case.stop] if isinstance(case.stop, str) else list(case.stop or []))
        assert sent(upstream, case) == expected
    if case.translated:
        call = case.expect["tool_call"]
        assert got["finish"] == "tool_calls", got
        assert [(n, a) for n, a, _ in got["tool_calls"]] == [(call["name"], call["arguments"])]
        assert all(i.startswith("call_") for _, _, i in got["tool_calls"])
        assert got["content"] == case.expect["content"], got
    else:
        text, _ = cut_at_stops(case.reply, sent(upstream, case))
        assert got == {"content": text or None, "tool_calls": [], "finish": "stop"}, got


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_non_streaming(case, proxy, upstream):
    check(upstream, case, ask(proxy, case, stream=False))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_streaming(case, proxy, upstream):
    """Streamed in one chunking per case (3 or 40 characters, in turn): every split of every
    case is run in-process (test_litellm_bridge.py); the client gets what the non-streamed
    reply gives, the case's expectation."""
    check(upstream, case, ask(proxy, case, stream=True, chunk=chunk_for(case, (3, 40))))


def test_two_workers_and_fifty_concurrent_clients(upstream, tmp_path):
    """Two proxy workers, 50 clients at once, each case streamed and not: every client gets
    its own reply right."""
    jobs = [(case, stream) for case in CASES for stream in (False, True)]
    jobs = (jobs * (100 // len(jobs) + 1))[:100]
    with Proxy(tmp_path / "two", upstream.base_url, CASES, workers=2) as proxy:
        with ThreadPoolExecutor(max_workers=50) as pool:
            results = list(pool.map(lambda job: (job, ask(proxy, job[0], job[1], 8)), jobs))
    for (case, stream), got in results:
        if case.translated:
            call = case.expect["tool_call"]
            assert got["finish"] == "tool_calls", (case.name, stream, got)
            assert [(n, a) for n, a, _ in got["tool_calls"]] == [(call["name"], call["arguments"])]
            assert got["content"] == case.expect["content"]
        else:
            assert got["tool_calls"] == [] and got["finish"] == "stop", (case.name, got)
            assert case.reply.startswith(got["content"] or ""), (case.name, got)


def test_the_proxy_without_the_callback_hands_the_leak_on(upstream, tmp_path):
    """The baseline: the same proxy without the callback gives markup and `stop`."""
    case = BY_NAME["family_glm"]
    with Proxy(tmp_path / "plain", upstream.base_url, [case], callback=False) as plain:
        got = ask(plain, case, stream=False)
    assert got == {"content": case.reply, "tool_calls": [], "finish": "stop"}
    assert "stop" not in upstream.requests_for(case.name)[-1]


# ---------------------------------------------------------------- /v1/messages


ANTHROPIC_CASES = ["family_claude", "family_qwen3_coder", "prose", "quoted_in_fence"]


@pytest.fixture(scope="module")
def messages_proxy(upstream, tmp_path_factory):
    """A deployment LiteLLM serves `/v1/messages` for through chat completions
    (`hosted_vllm/`; for `openai/` LiteLLM 1.88 uses the upstream's Responses API instead)."""
    cases = [Case(**{**BY_NAME[n].__dict__, "deployment": "hosted_vllm/" + BY_NAME[n].model})
             for n in ANTHROPIC_CASES]
    with Proxy(tmp_path_factory.mktemp("messages"), upstream.base_url, cases) as running:
        yield running


def anthropic_tools(case: Case) -> list[dict]:
    return [{"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
            for t in case.tools]


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
        text, _ = cut_at_stops(case.reply, sent(upstream, case))
        assert message.stop_reason == "end_turn"
        assert blocks == [("text", text)]


@pytest.mark.parametrize("name", ANTHROPIC_CASES)
def test_anthropic_messages_non_streaming_gets_a_tool_use_block(name, messages_proxy, upstream):
    case = BY_NAME[name]
    a = anthropic.Anthropic(base_url=messages_proxy.base_url, api_key="sk-client", max_retries=0)
    message = a.messages.create(model=case.model, max_tokens=1000, tools=anthropic_tools(case),
                                messages=[{"role": "user", "content": f"case:{case.name}"}])
    check_message(case, message, upstream)


@pytest.mark.parametrize("chunk", [4, 50])
@pytest.mark.parametrize("name", ANTHROPIC_CASES)
def test_anthropic_messages_streaming_gets_a_tool_use_block(name, chunk, messages_proxy, upstream):
    """Streamed, LiteLLM's adapter reads the bridged inner chat stream: the call arrives as a
    `tool_use` block. No stop string is added to such a stream (were the bridge not in the
    way, a stop would only cut the text); the decision ends reading at the call."""
    case = BY_NAME[name]
    a = anthropic.Anthropic(base_url=messages_proxy.base_url, api_key="sk-client", max_retries=0)
    with a.messages.stream(model=case.model, max_tokens=1000, tools=anthropic_tools(case),
                           messages=[{"role": "user", "content": f"case:{case.name}:{chunk}"}]) as s:
        message = s.get_final_message()
    assert "stop" not in upstream.requests_for(case.name)[-1]
    check_message(case, message, upstream)
