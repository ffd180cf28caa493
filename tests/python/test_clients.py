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
`hosted_vllm/` deployment: through chat completions). The runs go four at a time; the
client-by-route table is written to `<target>/clients/matrix.md`."""

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


def run_client(python: Path, proxy: Proxy, client: str, route: str, stream: bool,
               mode: str) -> dict:
    coder = client == "mini_swe_agent"
    case = ("coder" if coder else "weather") + ("_native" if mode == "native" else "")
    model = (CODER_MODEL if coder else FAMILY_MODEL) + ROUTE_SUFFIX[route]
    task = (f"case:{case} Write 42 to answer.txt, then submit it." if coder
            else f"case:{case} What is the weather in Paris in 3 days?")
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "CTB_BASE_URL": proxy.base_url, "CTB_MODEL": model,
               "CTB_ROUTE": CLIENT_ROUTE[route], "CTB_STREAM": "1" if stream else "0",
               "CTB_TASK": task, "CTB_WORKDIR": work, "OPENAI_API_KEY": "sk-client",
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
               "MSWEA_CONFIGURED": "true", "MSWEA_GLOBAL_CONFIG_DIR": work}
        for key in ("VIRTUAL_ENV", "PYTHONPATH", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
            env.pop(key, None)
        try:
            done = subprocess.run([str(python), str(CLIENTS / client / "client.py")], env=env,
                                  cwd=work, capture_output=True, text=True, timeout=180,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return {"finished": False, "error": "timed out"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"finished": False, "error": (done.stderr or done.stdout)[-1500:]}
    got = json.loads(lines[-1])
    if coder:
        expected_calls = [["bash", {"command": c}] for c in CODER_COMMANDS]
        finished = got["answer"].strip() == "42" and got["calls"] == expected_calls
    else:
        expected_calls = [["get_weather", WEATHER_ARGS]]
        finished = got["answer"].strip() == WEATHER_ANSWER and got["calls"] == expected_calls
    return {"finished": finished, **got}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    pythons = ensure_all(sorted(MATRIX))
    models = deployments(FAMILY_MODEL) + deployments(CODER_MODEL)
    with Upstream(REPLIES, answer_results=True) as upstream, \
            Proxy(tmp_path_factory.mktemp("with"), upstream.base_url, [],
                  deployments=models) as bridged, \
            Proxy(tmp_path_factory.mktemp("without"), upstream.base_url, [], callback=False,
                  deployments=models) as plain:
        def one(run):
            client, route, stream, mode = run
            proxy = plain if mode == "plain" else bridged
            return run, run_client(pythons[client], proxy, client, route, stream, mode)

        with ThreadPoolExecutor(max_workers=4) as pool:
            out = dict(pool.map(one, RUNS))
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
