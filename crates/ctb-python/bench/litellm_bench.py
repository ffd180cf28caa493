"""The LiteLLM callback's cost: time it adds per reply, and the proxy's throughput with it.

    python crates/ctb-python/bench/litellm_bench.py [--rounds N] [--proxy-rounds N]
        [--route-rounds N] [--no-proxy] [--check] [--json]

Rows (medians of alternating rounds, in one process):

- `py_litellm_nonstream_call_4k_added_ms`: what `claude_tool_bridge.litellm.bridge` adds to one
  non-streamed chat completion whose 4 KB reply is a leaked call (Qwen3-Coder's form):
  `async_pre_call_deployment_hook` on the request plus
  `async_post_call_success_deployment_hook` turning the reply into `tool_calls`, against
  nothing; the `ratio` column is the milliseconds added, target 1.
- `py_litellm_stream_call_4k_added_ms`: the same reply streamed in 40-character chunks (the
  chunk objects made beforehand, as LiteLLM makes them) through the callback's stream
  (request hook, hold-back, tool-call chunks) against the bare chunks; ms added, target 1.
- `py_litellm_stream_prose_4k_added_ms`: a 4 KB prose reply (no call) streamed through the
  callback against the bare chunks; ms added, target 1.
- `py_litellm_responses_<whole|stream>_<call|prose>_4k_added_ms`: the same on the Responses
  API: the deployment hook on a response holding the 4 KB leaked call (translated) or prose,
  and `bridge.stream` over LiteLLM's own event objects of the same (40-character deltas),
  against nothing; ms added, target 1.
- `py_litellm_proxy_2w_call_with_vs_without`, `py_litellm_proxy_2w_prose_with_vs_without`: a
  real `litellm` proxy with two workers, once with the callback in its config.yaml and once
  without, in front of the same loopback upstream: 64 requests (half streamed) of the 4 KB
  leaked call (translated with the callback: fewer chunks to send) or of a 4 KB prose reply
  (the same chunks either way), 16 at a time; wall time with over without, target 1.1 (no
  throughput lost beyond the noise of one machine).

- `py_litellm_route_<route>_<whole|stream>_<call|prose>_4k_added_ms`, for the Responses API
  (`responses`: `/v1/responses` on an `openai/` deployment that streams natively) and
  `/v1/messages` (`messages`: on an `openai/` deployment, which LiteLLM serves through the
  upstream's Responses API; `messages_cc`: on a `hosted_vllm/` one, served through chat
  completions): one request at a time to a real one-worker `litellm` proxy with the callback
  and to the same proxy without it, in front of the same loopback upstream, alternating,
  answered by the 4 KB leaked call (translated with the callback) or the 4 KB prose reply,
  streamed in 40-character deltas or not; each request timed from sending it to the last
  byte read; a third proxy has a no-op callback with the same hooks (what LiteLLM itself spends
  on such a callback). The `ratio` column is the median with the callback minus the median
  with the no-op one, in ms, target 1; the line and the JSON give the median without any too.
  One machine's scheduling noise is of the order of a millisecond here: run it on a quiet
  machine.

`--check` exits 1 when a row misses its target. With `$CTB_BENCH_DIR` set (as `cargo xtask
bench` does), each row is also written there as `<name>.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent / "tests" / "python"))

from _ratio import interleaved, report, version  # noqa: E402
from litellm.types.utils import Delta, ModelResponse, ModelResponseStream, StreamingChoices  # noqa: E402
from litellm_harness import Case, Proxy, Upstream, load_cases  # noqa: E402

from claude_tool_bridge.litellm import bridge  # noqa: E402

CHUNK = 40
MODEL = "openai/qwen3-coder-30b"
TOOLS = json.loads((HERE.parent.parent.parent / "tests/python/data/litellm/tools.json").read_text())


def call_reply(size: int = 4096) -> str:
    """A Qwen3-Coder reply of `size` bytes: a paragraph, then one write_file call whose
    content parameter fills the rest, closed at the very end."""
    head = ("I will write the helper module first, then run the tests to see what fails. " * 3
            + "\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/helpers.py\n"
            "</parameter>\n<parameter=content>\n")
    tail = "\n</parameter>\n</function>\n</tool_call>"
    line = "def helper(rows):\n    return [r for r in rows if r.get('ok')]\n\n"
    body = ""
    while len(head) + len(body) + len(line) + len(tail) <= size:
        body += line
    body += "#" * (size - len(head) - len(body) - len(tail))
    reply = head + body + tail
    assert len(reply.encode()) == size
    return reply


def prose_reply(size: int = 4096) -> str:
    line = "The tests pass on every platform; the slow one was the network check, now mocked.\n"
    return (line * (size // len(line) + 1))[:size]


def request() -> dict:
    return {"model": MODEL, "messages": [{"role": "user", "content": "write the helper"}],
            "tools": TOOLS}


def response_of(text: str) -> ModelResponse:
    return ModelResponse(id="chatcmpl-b", created=1, model="qwen3-coder-30b",
                         object="chat.completion",
                         choices=[{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": text}}])


def chunks_of(text: str) -> list[ModelResponseStream]:
    def chunk(content, finish=None, role=None):
        return ModelResponseStream(
            id="chatcmpl-b", created=1, model="qwen3-coder-30b", object="chat.completion.chunk",
            choices=[StreamingChoices(index=0, delta=Delta(content=content, role=role),
                                      finish_reason=finish)])
    out = [chunk("", role="assistant")]
    out += [chunk(text[i : i + CHUNK]) for i in range(0, len(text), CHUNK)]
    out.append(chunk(None, finish="stop"))
    return out


async def _aiter(items):
    for item in items:
        yield item


def in_process_rows(rounds: int) -> list[tuple[str, str, int, int]]:
    loop = asyncio.new_event_loop()
    reply = call_reply()
    # The upstream stops at the bridge's first stop string (`function>`): the reply it sends.
    cut = reply[: reply.index("function>")]
    rows = []

    # -- non-streamed: fresh responses (the hook rewrites the one it gets)
    pool = [response_of(cut) for _ in range(2 * rounds + 200)]
    probe = response_of(cut)
    out = loop.run_until_complete(
        bridge.async_post_call_success_deployment_hook(request(), probe, "acompletion"))
    assert out is not None and out.choices[0].finish_reason == "tool_calls", out

    async def hooks():
        kwargs = await bridge.async_pre_call_deployment_hook(request(), "acompletion")
        assert kwargs is not None
        await bridge.async_post_call_success_deployment_hook(kwargs, pool.pop(), "acompletion")

    async def nothing():
        request()
        pool.pop()

    a, b = interleaved(lambda: loop.run_until_complete(hooks()),
                       lambda: loop.run_until_complete(nothing()), rounds)
    rows.append(("py_litellm_nonstream_call_4k_added_ms",
                 "a 4 KB leaked call, not streamed: request and response hooks", int(a), int(b)))

    # -- streamed
    for name, what, text, translated in [
        ("py_litellm_stream_call_4k_added_ms",
         "a 4 KB leaked call streamed in 40-character chunks through the callback", cut, True),
        ("py_litellm_stream_prose_4k_added_ms",
         "a 4 KB prose reply streamed in 40-character chunks through the callback",
         prose_reply(), False),
    ]:
        chunks = chunks_of(text)

        async def bridged():
            kwargs = await bridge.async_pre_call_deployment_hook(request(), "acompletion")
            return [c async for c in bridge.stream(_aiter(chunks), kwargs)]

        async def bare():
            request()
            return [c async for c in _aiter(chunks)]

        got = loop.run_until_complete(bridged())
        finish = [c.choices[0].finish_reason for c in got if c.choices][-1]
        assert finish == ("tool_calls" if translated else "stop"), (name, finish)
        a, b = interleaved(lambda: loop.run_until_complete(bridged()),
                           lambda: loop.run_until_complete(bare()), rounds)
        rows.append((name, what, int(a), int(b)))
    loop.close()
    return rows


def responses_rows(rounds: int) -> list[tuple[str, str, int, int]]:
    """The callback's own work on the Responses API, in-process: the deployment hook on a
    non-streamed response, and `bridge.stream` over LiteLLM's own event objects (read once from
    the loopback upstream in 40-character deltas), against nothing."""
    import litellm
    from litellm.types.llms.openai import ResponsesAPIResponse

    loop = asyncio.new_event_loop()
    replies = {"call": call_reply(), "prose": prose_reply()}
    body = route_body("/v1/responses", MODEL, "call", False)
    request = {k: v for k, v in body.items() if k != "stream"}
    litellm.register_model({MODEL: {"litellm_provider": "openai", "mode": "responses",
                                    "supports_native_streaming": True}})
    rows = []
    with Upstream(replies) as upstream:
        for name, text in replies.items():
            what = "a 4 KB leaked call" if name == "call" else "a 4 KB prose reply"
            kwargs = {**request, "input": [{"role": "user", "content": f"case:{name}:{CHUNK}"}]}
            whole = loop.run_until_complete(litellm.aresponses(
                api_base=upstream.base_url, api_key="sk-bench", **kwargs))
            events = loop.run_until_complete(_collect(litellm.aresponses(
                api_base=upstream.base_url, api_key="sk-bench", stream=True, **kwargs)))
            data = whole.model_dump()
            pool = [ResponsesAPIResponse(**data) for _ in range(2 * rounds + 200)]
            probe = loop.run_until_complete(bridge.async_post_call_success_deployment_hook(
                dict(kwargs), ResponsesAPIResponse(**data), "aresponses"))
            assert (probe is not None) == (name == "call"), name

            async def hook():
                await bridge.async_post_call_success_deployment_hook(dict(kwargs), pool.pop(),
                                                                     "aresponses")

            async def nothing():
                dict(kwargs)
                pool.pop()

            a, b = interleaved(lambda: loop.run_until_complete(hook()),
                               lambda: loop.run_until_complete(nothing()), rounds)
            rows.append((f"py_litellm_responses_whole_{name}_4k_added_ms",
                         f"{what}, a Responses API response: the deployment hook", int(a), int(b)))

            async def bridged():
                return [e async for e in bridge.stream(_aiter(events), kwargs)]

            async def bare():
                dict(kwargs)
                return [e async for e in _aiter(events)]

            got = loop.run_until_complete(bridged())
            calls = [e for e in got if getattr(e, "type", "") == "response.output_item.added"
                     and getattr(e.item, "type", "") == "function_call"]
            assert bool(calls) == (name == "call"), name
            a, b = interleaved(lambda: loop.run_until_complete(bridged()),
                               lambda: loop.run_until_complete(bare()), rounds)
            rows.append((f"py_litellm_responses_stream_{name}_4k_added_ms",
                         f"{what}, Responses API events in 40-character deltas through the "
                         "callback", int(a), int(b)))
    loop.close()
    return rows


async def _collect(stream_coroutine) -> list:
    return [e async for e in await stream_coroutine]


def proxy_rows(rounds: int) -> list[tuple[str, str, int, int]]:
    import openai

    replies = {"call": call_reply(), "prose": prose_reply()}
    cases = [Case(name=name, note="", model="qwen3-coder-30b", deployment=MODEL, reply=reply,
                  tools=TOOLS, history=[], stop=None, tool_choice=None, expect="untouched")
             for name, reply in replies.items()]

    def batch(proxy: Proxy, case: Case) -> float:
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-bench", max_retries=0,
                               timeout=60)

        def one(i: int) -> None:
            kwargs = dict(model=case.model, messages=case.messages(CHUNK), tools=TOOLS)
            if i % 2:
                for _ in client.chat.completions.create(stream=True, **kwargs):
                    pass
            else:
                client.chat.completions.create(**kwargs)

        start = time.perf_counter_ns()
        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(one, range(64)))
        return time.perf_counter_ns() - start

    rows = []
    with tempfile.TemporaryDirectory() as tmp, Upstream(replies) as upstream:
        with Proxy(Path(tmp) / "with", upstream.base_url, cases, workers=2) as with_cb, \
                Proxy(Path(tmp) / "without", upstream.base_url, cases, callback=False,
                      workers=2) as without:
            for case in cases:
                batch(with_cb, case), batch(without, case)  # warm-up
                t_with, t_without = [], []
                for k in range(rounds):
                    order = [(with_cb, t_with), (without, t_without)]
                    for proxy, out in order if k % 2 == 0 else order[::-1]:
                        out.append(batch(proxy, case))
                rows.append((
                    f"py_litellm_proxy_2w_{case.name}_with_vs_without",
                    f"64 requests (a 4 KB {'leaked call' if case.name == 'call' else 'prose reply'}"
                    ", half streamed), 16 at a time, two workers",
                    int(statistics.median(t_with)), int(statistics.median(t_without))))
    return rows


# (row route, the proxy's model name, the deployment, the path, streamed)
ROUTES = [
    ("responses", "qwen3-coder-30b", "openai/qwen3-coder-30b", "/v1/responses"),
    ("messages", "qwen3-coder-30b", "openai/qwen3-coder-30b", "/v1/messages"),
    ("messages_cc", "qwen3-coder-30b-vllm", "hosted_vllm/qwen3-coder-30b", "/v1/messages"),
]


def route_body(path: str, model: str, case: str, stream: bool) -> dict:
    """The request a Responses or Anthropic client sends for `case` (40-character deltas)."""
    text = f"case:{case}:{CHUNK}"
    if path == "/v1/responses":
        tools = [{"type": "function", "name": t["function"]["name"],
                  "description": t["function"].get("description", ""),
                  "parameters": t["function"]["parameters"]} for t in TOOLS]
        return {"model": model, "input": [{"role": "user", "content": text}], "tools": tools,
                "stream": stream}
    tools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
              "input_schema": t["function"]["parameters"]} for t in TOOLS]
    return {"model": model, "max_tokens": 4096, "messages": [{"role": "user", "content": text}],
            "tools": tools, "stream": stream}


def translated(path: str, body: bytes) -> bool:
    """Whether the reply the client read holds a structured call (a `function_call` item or
    a `tool_use` block), streamed or not."""
    text = body.decode()
    return ('"function_call"' in text) if path == "/v1/responses" else ('"tool_use"' in text)


# A callback with the bridge's hooks that changes nothing: what LiteLLM itself spends on a
# callback with those hooks (its logging, its streaming path for an iterator hook), told apart
# from the bridge's own work.
NOOP_CALLBACK = """from litellm.integrations.custom_logger import CustomLogger


class Noop(CustomLogger):
    async def async_pre_call_deployment_hook(self, kwargs, call_type):
        return None

    async def async_post_call_success_deployment_hook(self, request_data, response, call_type):
        return None

    async def async_post_call_streaming_iterator_hook(self, user_api_key_dict, response,
                                                      request_data):
        async for item in response:
            yield item


bridge = Noop()
"""


def route_rows(rounds: int) -> list[tuple[str, str, int, int, int]]:
    """Per route: one request at a time, in turn to the proxy with the callback, the same proxy
    with a no-op callback of the same hooks, and the same proxy without any; medians of the time
    to the last byte (with, no-op, without)."""
    import httpx

    replies = {"call": call_reply(), "prose": prose_reply()}
    cases = [Case(name=name, note="", model=model, deployment=deployment, reply=reply,
                  tools=TOOLS, history=[], stop=None, tool_choice=None, expect="untouched")
             for _, model, deployment, _ in ROUTES for name, reply in replies.items()]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, Upstream(replies) as upstream:
        native = {"supports_native_streaming": True}
        with Proxy(Path(tmp) / "with", upstream.base_url, cases, model_info=native) as with_cb, \
                Proxy(Path(tmp) / "noop", upstream.base_url, cases, callback=NOOP_CALLBACK,
                      model_info=native) as noop, \
                Proxy(Path(tmp) / "without", upstream.base_url, cases, callback=False,
                      model_info=native) as without, \
                httpx.Client(timeout=60, headers={"authorization": "Bearer sk-bench"}) as http:

            def once(proxy: Proxy, path: str, body: dict) -> tuple[int, bytes]:
                start = time.perf_counter_ns()
                with http.stream("POST", proxy.base_url + path, json=body) as r:
                    data = r.read()
                elapsed = time.perf_counter_ns() - start
                assert r.status_code == 200, (path, r.status_code, data[-500:])
                return elapsed, data

            for route, model, _, path in ROUTES:
                for stream in (False, True):
                    for name in ("call", "prose"):
                        body = route_body(path, model, name, stream)
                        # what each proxy gives: a call with the callback, text without
                        _, got = once(with_cb, path, body)
                        assert translated(path, got) == (name == "call"), (route, stream, name)
                        for other in (noop, without):
                            _, got = once(other, path, body)
                            assert not translated(path, got), (route, stream, name)
                        for _ in range(max(3, rounds // 10)):  # warm-up
                            once(with_cb, path, body), once(noop, path, body)
                            once(without, path, body)
                        t_with, t_noop, t_without = [], [], []
                        order = [(with_cb, t_with), (noop, t_noop), (without, t_without)]
                        for k in range(rounds):
                            turn = order[k % 3:] + order[:k % 3]
                            for proxy, out in turn if k % 2 == 0 else turn[::-1]:
                                out.append(once(proxy, path, body)[0])
                        kind = "streamed" if stream else "not streamed"
                        what = "a 4 KB leaked call" if name == "call" else "a 4 KB prose reply"
                        rows.append((
                            f"py_litellm_route_{route}_{'stream' if stream else 'whole'}_{name}"
                            "_4k_added_ms",
                            f"{path} ({model} -> {_deployment(model)}), {what}, {kind}: one "
                            "request at a time, the proxy with the callback, with a no-op "
                            "callback of the same hooks, without any",
                            int(statistics.median(t_with)), int(statistics.median(t_noop)),
                            int(statistics.median(t_without))))
    return rows


def _deployment(model: str) -> str:
    return next(d for _, m, d, _ in ROUTES if m == model)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--proxy-rounds", type=int, default=6)
    parser.add_argument("--route-rounds", type=int, default=200)
    parser.add_argument("--no-proxy", action="store_true", help="skip the proxy rows")
    parser.add_argument("--only-routes", action="store_true",
                        help="only the per-route rows")
    parser.add_argument("--check", action="store_true", help="exit 1 above a target")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.proxy_rounds < 1 or args.route_rounds < 1:
        parser.error("--rounds, --proxy-rounds and --route-rounds must be at least 1")
    ok = True
    for name, what, a_ns, b_ns in ([] if args.only_routes else
                                   in_process_rows(args.rounds) + responses_rows(args.rounds)):
        added_ms = max(0.0, (a_ns - b_ns) / 1e6)
        row = {"name": name, "what": what, "a": "with the callback", "b": "without",
               "a_ns": a_ns, "b_ns": b_ns, "ratio": round(added_ms, 4), "target": 1.0,
               "unit": "ms added per reply", "litellm": version("litellm")}
        ok &= report(row, args.json,
                     f"{name}: {a_ns / 1e6:.3f} ms with, {b_ns / 1e6:.3f} ms without: "
                     f"{added_ms:.3f} ms added")
    for name, what, a_ns, noop_ns, b_ns in ([] if args.no_proxy
                                            else route_rows(args.route_rounds)):
        added_ms = (a_ns - noop_ns) / 1e6
        row = {"name": name, "what": what, "a": "proxy with the callback",
               "b": "the same with a no-op callback", "a_ns": a_ns, "b_ns": noop_ns,
               "without_ns": b_ns, "ratio": round(added_ms, 4), "target": 1.0,
               "unit": "ms the callback's work adds per request", "litellm": version("litellm")}
        ok &= report(row, args.json,
                     f"{name}: {a_ns / 1e6:.3f} ms with, {noop_ns / 1e6:.3f} ms with a no-op "
                     f"callback, {b_ns / 1e6:.3f} ms without any: {added_ms:+.3f} ms added by "
                     f"the callback's work, {(a_ns - b_ns) / 1e6:+.3f} ms with over without")
    for name, what, a_ns, b_ns in ([] if args.no_proxy or args.only_routes
                                   else proxy_rows(args.proxy_rounds)):
        ratio = a_ns / b_ns
        row = {"name": name, "what": what, "a": "proxy with the callback",
               "b": "the same proxy without", "a_ns": a_ns, "b_ns": b_ns,
               "ratio": round(ratio, 4), "target": 1.1, "litellm": version("litellm")}
        ok &= report(row, args.json,
                     f"{name}: {a_ns / 1e9:.3f} s with, {b_ns / 1e9:.3f} s without: "
                     f"ratio {ratio:.3f}")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
