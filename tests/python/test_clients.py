"""Real agent programs from PyPI (tests/python/clients/), each in its own virtualenv, running
their own tool loop against a real `litellm` proxy in front of the scripted upstream, on a
two-turn task: call a tool, send its result back, answer.

Every set-up (client, route, streamed or not) runs three times:

- `bridge`: the upstream leaks its call as text, the proxy has the callback: the client must
  finish the task (the tool ran with typed arguments, the answer carries its result);
- `plain`: the same leak, the proxy without the callback: the client must not finish;
- `native`: the upstream sends real tool calls (the proxy with the callback): the client must
  finish (the control that tells a bridge gap from a client limit).

Routes: `chat` (chat completions), `responses` (the Responses API on an `openai/`
deployment: LiteLLM calls the upstream's Responses API), `responses_cc` (a deployment with
`use_chat_completions_api: true`), `messages` (`/v1/messages` on an `openai/` deployment:
LiteLLM goes through the upstream's Responses API), `messages_cc` (`/v1/messages` on a
`hosted_vllm/` deployment: through chat completions). A client program does up to ten runs
in one process (`CTB_RUNS`, clients/_runs.py: its imports paid once, each run in its own
scratch folder), four processes at a time; the client-by-route table is written to
`<target>/clients/matrix.md`."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from client_venvs import CLIENTS, ensure_all, target_dir
from litellm_harness import Native, Proxy, Upstream

FAMILY_MODEL = "claude-sonnet-4-5"
CODER_MODEL = "qwen3-coder-30b"
WEATHER_ARGS = {"city": "Paris", "days": 3}
WEATHER_LEAK = ("I'll check the forecast.\n<invoke name=\"get_weather\">\n"
                "<parameter name=\"city\">Paris</parameter>\n"
                "<parameter name=\"days\">3</parameter>\n</invoke>")
WEATHER_ANSWER = "DONE: Paris in 3 days: sunny"


def qwen_bash(command: str) -> str:
    return f"Running it.\n<tool_call>\n<function=bash>\n<parameter=command>\n{command}\n" \
           "</parameter>\n</function>\n</tool_call>"


CODER_COMMANDS = ["echo 42 > answer.txt",
                  "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat answer.txt"]
REPLIES = {
    "weather": WEATHER_LEAK,
    "weather_native": Native("get_weather", WEATHER_ARGS, "I'll check the forecast."),
    "coder": [qwen_bash(c) for c in CODER_COMMANDS],
    "coder_native": [Native("bash", {"command": c}, "Running it.") for c in CODER_COMMANDS],
}

# client -> the routes it takes, and whether it streams
MATRIX = {
    "openai_agents": (["chat", "responses", "responses_cc"], [False, True]),
    "pydantic_ai": (["chat", "responses", "responses_cc", "messages", "messages_cc"],
                    [False, True]),
    "anthropic_sdk": (["messages", "messages_cc"], [False, True]),
    "mini_swe_agent": (["chat", "responses", "responses_cc"], [False]),
}
MODES = ["bridge", "plain", "native"]
ROUTE_SUFFIX = {"chat": "", "responses": "", "responses_cc": "-cc", "messages": "",
                "messages_cc": "-vllm"}
CLIENT_ROUTE = {"chat": "chat", "responses": "responses", "responses_cc": "responses",
                "messages": "messages", "messages_cc": "messages"}

SETUPS = [(client, route, stream) for client, (routes, streams) in MATRIX.items()
          for route in routes for stream in streams]
RUNS = [(client, route, stream, mode) for client, route, stream in SETUPS for mode in MODES]


def deployments(model: str) -> list[tuple[str, str, dict]]:
    return [(model, "openai/" + model, {}),
            (model + "-cc", "openai/" + model, {"use_chat_completions_api": True}),
            (model + "-vllm", "hosted_vllm/" + model, {})]


def run_env(proxy: Proxy, client: str, route: str, stream: bool, mode: str, work: str) -> dict:
    """The variables of one run (clients/README.md)."""
    coder = client == "mini_swe_agent"
    case = ("coder" if coder else "weather") + ("_native" if mode == "native" else "")
    model = (CODER_MODEL if coder else FAMILY_MODEL) + ROUTE_SUFFIX[route]
    task = (f"case:{case} Write 42 to answer.txt, then submit it." if coder
            else f"case:{case} What is the weather in Paris in 3 days?")
    return {"CTB_BASE_URL": proxy.base_url, "CTB_MODEL": model, "CTB_ROUTE": CLIENT_ROUTE[route],
            "CTB_STREAM": "1" if stream else "0", "CTB_TASK": task, "CTB_WORKDIR": work}


def finished(client: str, got: dict) -> bool:
    """Whether a run's printed result is the task done: the tool ran with typed arguments
    and the answer carries its result."""
    if client == "mini_swe_agent":
        expected_calls = [["bash", {"command": c}] for c in CODER_COMMANDS]
        return got["answer"].strip() == "42" and got["calls"] == expected_calls
    return (got["answer"].strip() == WEATHER_ANSWER
            and got["calls"] == [["get_weather", WEATHER_ARGS]])


def run_batch(python: Path, client: str, runs: list[tuple], proxies: dict[str, Proxy]) -> dict:
    """Several runs of one client program in one process (`CTB_RUNS`, its imports paid once),
    each in its own scratch folder: what each run gave."""
    with tempfile.TemporaryDirectory() as scratch:
        specs = []
        for i, (_, route, stream, mode) in enumerate(runs):
            work = Path(scratch) / str(i)
            work.mkdir()
            proxy = proxies["plain" if mode == "plain" else "bridge"]
            specs.append(run_env(proxy, client, route, stream, mode, str(work)))
        env = {**os.environ, "CTB_RUNS": json.dumps(specs), "PYTHONPATH": str(CLIENTS),
               "OPENAI_API_KEY": "sk-client", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "LITELLM_TELEMETRY": "False", "MSWEA_CONFIGURED": "true",
               "MSWEA_GLOBAL_CONFIG_DIR": scratch}
        for key in ("VIRTUAL_ENV", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
            env.pop(key, None)
        try:
            done = subprocess.run([str(python), str(CLIENTS / client / "client.py")], env=env,
                                  cwd=scratch, capture_output=True, text=True,
                                  timeout=120 + 60 * len(runs), stdin=subprocess.DEVNULL)
            stdout, error = done.stdout, (done.stderr or done.stdout)[-1500:]
        except subprocess.TimeoutExpired as timeout:
            stdout = timeout.stdout.decode() if isinstance(timeout.stdout, bytes) else (
                timeout.stdout or "")
            error = "timed out"
    printed = {}
    for line in stdout.splitlines():
        if line.startswith('{"run"'):
            got = json.loads(line)
            printed[got.pop("run")] = got
    out = {}
    for i, run in enumerate(runs):
        got = printed.get(i, {"error": error})
        out[run] = {"finished": "error" not in got and finished(client, got), **got}
    return out


# How many runs of one client one process does at most (the batches run four at a time).
BATCH = 10


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    pythons = ensure_all(sorted(MATRIX))
    models = deployments(FAMILY_MODEL) + deployments(CODER_MODEL)
    with Upstream(REPLIES, answer_results=True) as upstream, \
            Proxy(tmp_path_factory.mktemp("with"), upstream.base_url, [],
                  deployments=models) as bridged, \
            Proxy(tmp_path_factory.mktemp("without"), upstream.base_url, [], callback=False,
                  deployments=models) as plain:
        proxies = {"bridge": bridged, "plain": plain}
        batches = []
        for client in MATRIX:
            runs = [run for run in RUNS if run[0] == client]
            batches += [(client, runs[i : i + BATCH]) for i in range(0, len(runs), BATCH)]
        out = {}
        with ThreadPoolExecutor(max_workers=4) as pool:
            for got in pool.map(lambda b: run_batch(pythons[b[0]], b[0], b[1], proxies),
                                batches):
                out.update(got)
    write_table(out)
    return out


def write_table(out: dict) -> None:
    rows = ["| client | route | streamed | with the callback | without | native calls |",
            "|---|---|---|---|---|---|"]
    for client, route, stream in SETUPS:
        cells = ["finishes" if out[(client, route, stream, m)]["finished"] else "fails"
                 for m in MODES]
        rows.append(f"| {client} | {route} | {'yes' if stream else 'no'} | " + " | ".join(cells)
                    + " |")
    folder = target_dir() / "clients"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "matrix.md").write_text("\n".join(rows) + "\n")


@pytest.mark.parametrize("run", RUNS, ids=lambda r: "-".join(
    [r[0], r[1], "stream" if r[2] else "whole", r[3]]))
def test_client(run, results):
    got = results[run]
    if run[3] == "plain":
        assert not got["finished"], got
    else:
        assert got["finished"], got
