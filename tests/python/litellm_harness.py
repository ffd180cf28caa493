"""What the LiteLLM tests and the LiteLLM bench share: a scripted OpenAI-compatible server on
loopback (chat completions and the Responses API), the case files, and a real `litellm` proxy
process.

The reply to give is named by the request's last user text, `case:<name>` (optionally
`case:<name>:<chunk size>`), and looked up in `replies`: a string is a reply the model writes
as text; a `Native` is a real tool call (the control runs of the client tests). Once the
request carries a tool's result (a `role: tool` message, a `function_call_output` item, an
Anthropic `tool_result` block), an upstream made with `answer_results` replies
`Upstream.answer(result)` instead: the two-turn task is done. The server honours `stop` the way OpenAI does (the text ends before the earliest
stop string, `finish_reason: stop`; the Responses API has no stop strings), streams or not as
asked, and records every request body. Binds 127.0.0.1 on a free port; the test that starts it
stops it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from loopback import LoopbackServer

DEFAULT_CHUNK = 16
ANSWER_PREFIX = "DONE: "


@dataclass(frozen=True)
class Native:
    """A reply made of a real tool call (and optional text before it)."""

    name: str
    arguments: dict
    content: str = ""


def cut_at_stops(reply: str, stops: list[str]) -> tuple[str, str]:
    """The reply as a provider that honours `stops` sends it, and its finish reason."""
    cut = min((i for i in (reply.find(s) for s in stops if s) if i >= 0), default=-1)
    if cut >= 0:
        return reply[:cut], "stop"
    return reply, "stop"


def stops_of(body: dict) -> list[str]:
    stop = body.get("stop")
    if isinstance(stop, str):
        return [stop]
    if isinstance(stop, list):
        return [s for s in stop if isinstance(s, str)]
    return []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _turns(body: dict) -> list[dict]:
    """The request's messages (chat completions) or input items (Responses API)."""
    if isinstance(body.get("input"), str):
        return [{"role": "user", "content": body["input"]}]
    return list(body.get("messages") or body.get("input") or [])


def case_of(body: dict) -> tuple[str, int]:
    """The case a request names, and the stream's chunk size."""
    for message in _turns(body):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = _text(message.get("content"))
        at = content.find("case:")
        if at >= 0:
            parts = content[at:].split()[0].split(":")
            size = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else DEFAULT_CHUNK
            return parts[1], max(1, size)
    return "", DEFAULT_CHUNK


def tool_result_of(body: dict) -> str | None:
    """The last tool result the request carries, if any."""
    found = None
    for message in _turns(body):
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("tool", "function"):
            found = _text(message.get("content"))
        elif message.get("type") == "function_call_output":
            output = message.get("output")
            found = output if isinstance(output, str) else _text(output)
        elif isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found = _text(block.get("content"))
    return found


def tool_results_in(body: dict) -> int:
    """How many tool results the request carries."""
    count = 0
    for message in _turns(body):
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("tool", "function") or message.get("type") == "function_call_output":
            count += 1
        elif isinstance(message.get("content"), list):
            count += sum(1 for b in message["content"]
                         if isinstance(b, dict) and b.get("type") == "tool_result")
    return count


def _usage_chat(text: str) -> dict:
    n = max(1, len(text) // 4)
    return {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": 10 + n}


def _usage_responses(text: str) -> dict:
    n = max(1, len(text) // 4)
    return {"input_tokens": 10, "output_tokens": n, "total_tokens": 10 + n,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0}}


class Upstream(LoopbackServer):
    base_path = "/v1"

    def __init__(self, replies: dict[str, str | Native] | None = None, delay_s: float = 0.0,
                 answer_results: bool = False):
        self.replies = dict(replies or {})
        self.delay_s = delay_s
        self.answer_results = answer_results
        self.requests: list[dict] = []
        super().__init__()

    @staticmethod
    def answer(result: str) -> str:
        return ANSWER_PREFIX + result

    def requests_for(self, case: str) -> list[dict]:
        with self._lock:
            return [r for r in self.requests if case_of(r)[0] == case]

    def _record(self, body: dict) -> None:
        with self._lock:
            self.requests.append(body)

    def reply_for(self, body: dict) -> tuple[str | Native, int]:
        """A scripted reply is a reply or a list of them, one per turn (the turn being the
        number of tool results the request carries)."""
        case, size = case_of(body)
        reply = self.replies.get(case, f"(no scripted reply for {case!r})")
        if isinstance(reply, list):
            return reply[min(tool_results_in(body), len(reply) - 1)], size
        result = tool_result_of(body) if self.answer_results else None
        if result is not None:
            return self.answer(result), size
        return reply, size

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server._record(body)
                reply, size = server.reply_for(body)
                model = body.get("model", "upstream")
                responses = self.path.split("?", 1)[0].rstrip("/").endswith("/responses")
                try:
                    if responses:
                        (self._events if body.get("stream") else self._response)(model, reply, size)
                    else:
                        if isinstance(reply, str):
                            reply, _ = cut_at_stops(reply, stops_of(body))
                        if body.get("stream"):
                            self._stream(model, reply, size, body)
                        else:
                            self._whole(model, reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, status: int, payload: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            # -- chat completions

            def _whole(self, model: str, reply: str | Native) -> None:
                if isinstance(reply, Native):
                    message = {"role": "assistant", "content": reply.content or None,
                               "tool_calls": [{"id": "call_native", "type": "function",
                                               "function": {"name": reply.name,
                                                            "arguments": json.dumps(reply.arguments)}}]}
                    finish, text = "tool_calls", reply.content
                else:
                    message, finish, text = {"role": "assistant", "content": reply}, "stop", reply
                payload = {
                    "id": "chatcmpl-upstream",
                    "object": "chat.completion",
                    "created": 1_700_000_000,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": _usage_chat(text),
                }
                self._send(200, json.dumps(payload).encode(), "application/json")

            def _sse_start(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()

            def _stream(self, model: str, reply: str | Native, size: int, body: dict) -> None:
                self._sse_start()

                def event(delta: dict, finish_reason: str | None = None, **extra) -> None:
                    chunk = {
                        "id": "chatcmpl-upstream",
                        "object": "chat.completion.chunk",
                        "created": 1_700_000_000,
                        "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                        **extra,
                    }
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()

                text = reply.content if isinstance(reply, Native) else reply
                event({"role": "assistant", "content": ""})
                for i in range(0, len(text), size):
                    event({"content": text[i : i + size]})
                    if server.delay_s:
                        time.sleep(server.delay_s)
                if isinstance(reply, Native):
                    event({"tool_calls": [{"index": 0, "id": "call_native", "type": "function",
                                           "function": {"name": reply.name, "arguments": ""}}]})
                    event({"tool_calls": [{"index": 0, "function": {
                        "arguments": json.dumps(reply.arguments)}}]})
                    event({}, "tool_calls")
                else:
                    event({}, "stop")
                if (body.get("stream_options") or {}).get("include_usage"):
                    chunk = {"id": "chatcmpl-upstream", "object": "chat.completion.chunk",
                             "created": 1_700_000_000, "model": model, "choices": [],
                             "usage": _usage_chat(text)}
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            # -- the Responses API

            def _items(self, reply: str | Native) -> list[dict]:
                items = []
                text = reply.content if isinstance(reply, Native) else reply
                if text:
                    items.append({"type": "message", "id": "msg_upstream", "status": "completed",
                                  "role": "assistant",
                                  "content": [{"type": "output_text", "text": text,
                                               "annotations": []}]})
                if isinstance(reply, Native):
                    items.append({"type": "function_call", "id": "fc_native",
                                  "call_id": "call_native", "name": reply.name,
                                  "arguments": json.dumps(reply.arguments),
                                  "status": "completed"})
                return items

            def _response_object(self, model: str, reply: str | Native, done: bool) -> dict:
                text = reply.content if isinstance(reply, Native) else reply
                return {"id": "resp_upstream", "object": "response", "created_at": 1_700_000_000,
                        "status": "completed" if done else "in_progress", "model": model,
                        "output": self._items(reply) if done else [],
                        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                        "usage": _usage_responses(text) if done else None}

            def _response(self, model: str, reply: str | Native, size: int) -> None:
                payload = self._response_object(model, reply, True)
                self._send(200, json.dumps(payload).encode(), "application/json")

            def _events(self, model: str, reply: str | Native, size: int) -> None:
                self._sse_start()
                number = [0]

                def event(kind: str, **fields) -> None:
                    data = {"type": kind, "sequence_number": number[0], **fields}
                    number[0] += 1
                    self.wfile.write(f"event: {kind}\ndata: ".encode() + json.dumps(data).encode()
                                     + b"\n\n")
                    self.wfile.flush()

                event("response.created", response=self._response_object(model, reply, False))
                event("response.in_progress", response=self._response_object(model, reply, False))
                index = 0
                for item in self._items(reply):
                    if item["type"] == "message":
                        text = item["content"][0]["text"]
                        common = {"item_id": item["id"], "output_index": index, "content_index": 0}
                        event("response.output_item.added", output_index=index,
                              item={**item, "status": "in_progress", "content": []})
                        event("response.content_part.added", part={
                            "type": "output_text", "text": "", "annotations": []}, **common)
                        for i in range(0, len(text), size):
                            event("response.output_text.delta", delta=text[i : i + size],
                                  logprobs=[], **common)
                            if server.delay_s:
                                time.sleep(server.delay_s)
                        event("response.output_text.done", text=text, logprobs=[], **common)
                        event("response.content_part.done", part=item["content"][0], **common)
                    else:
                        event("response.output_item.added", output_index=index,
                              item={**item, "arguments": "", "status": "in_progress"})
                        event("response.function_call_arguments.delta", item_id=item["id"],
                              output_index=index, delta=item["arguments"])
                        event("response.function_call_arguments.done", item_id=item["id"],
                              output_index=index, arguments=item["arguments"])
                    event("response.output_item.done", output_index=index, item=item)
                    index += 1
                event("response.completed", response=self._response_object(model, reply, True))
                self.close_connection = True

        return Handler


# ---------------------------------------------------------------- the cases

DATA = Path(__file__).resolve().parent / "data" / "litellm"
PREFIX = "ant" + "ml:"


@dataclass
class Case:
    """One case file of data/litellm/cases: a reply the upstream gives, the request around it
    and what the client must receive."""

    name: str
    note: str
    model: str  # the name the client asks for (the proxy's model_name)
    deployment: str  # the deployment's model (LiteLLM's provider/model)
    reply: str
    tools: list
    history: list
    stop: Any
    tool_choice: Any
    expect: Any  # "untouched" or {"tool_call": {"name", "arguments"}, "content"}
    sent_stop: Any = field(default=...)  # Ellipsis: not checked; None: no stop sent
    # On the Responses API (no stop strings, so the upstream sends the whole reply): the
    # expectation when it differs, or "skip" for a case about the client's stop strings.
    responses_expect: Any = field(default=...)

    @property
    def translated(self) -> bool:
        return self.expect != "untouched"

    def messages(self, chunk: int | None = None) -> list[dict]:
        tag = f"case:{self.name}" + (f":{chunk}" if chunk else "")
        return [{"role": "user", "content": tag}, *self.history]

    @property
    def on_responses(self) -> Any:
        """The expectation on the Responses API ("skip" when the case is not one there)."""
        if self.responses_expect is not ...:
            return self.responses_expect
        return "skip" if self.stop is not None else self.expect

    def responses_request(self, chunk: int | None = None) -> dict:
        """The request's own fields on the Responses API: the tools and tool choice in its
        shape, the history as input items."""
        out: dict[str, Any] = {"input": responses_input(self.messages(chunk))}
        if self.tools:
            out["tools"] = [responses_tool(t) for t in self.tools]
        if isinstance(self.tool_choice, dict) and "function" in self.tool_choice:
            out["tool_choice"] = {"type": "function", "name": self.tool_choice["function"]["name"]}
        elif self.tool_choice is not None:
            out["tool_choice"] = self.tool_choice
        return out

    def request(self, chunk: int | None = None) -> dict:
        """The chat request's own fields (model aside)."""
        out: dict[str, Any] = {"messages": self.messages(chunk)}
        if self.tools:
            out["tools"] = self.tools
        if self.stop is not None:
            out["stop"] = self.stop
        if self.tool_choice is not None:
            out["tool_choice"] = self.tool_choice
        return out


def responses_tool(tool: Any) -> Any:
    """A chat completions tool in the Responses API's shape (anything else as it is)."""
    if not isinstance(tool, dict) or not isinstance(tool.get("function"), dict):
        return tool
    function = tool["function"]
    out = {"type": "function", "name": function.get("name")}
    for key in ("description", "parameters"):
        if key in function:
            out[key] = function[key]
    return out


def responses_input(messages: list[dict]) -> list[dict]:
    """Chat completions messages as Responses API input items."""
    items: list[dict] = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"],
                          "output": message["content"]})
        elif role == "assistant":
            if message.get("content"):
                items.append({"role": "assistant", "content": message["content"]})
            for call in message.get("tool_calls") or []:
                items.append({"type": "function_call", "call_id": call["id"],
                              "name": call["function"]["name"],
                              "arguments": call["function"]["arguments"]})
        else:
            items.append({"role": role, "content": message["content"]})
    return items


def chunk_for(case: Case, sizes: tuple[int, ...]) -> int:
    """The one chunk size of `sizes` a case is streamed in over HTTP: each in turn, in the
    case files' order (the tests that run every split of every case in-process leave the
    other sizes nothing to find)."""
    names = sorted(p.stem for p in (DATA / "cases").glob("*.json"))
    return sizes[names.index(case.name) % len(sizes)] if case.name in names else sizes[0]


def load_cases() -> list[Case]:
    """Every case file, or those `$CTB_LITELLM_CASES` names (a comma-separated list; the
    newest-LiteLLM run sets it)."""
    tools = json.loads((DATA / "tools.json").read_text())
    only = {n for n in os.environ.get("CTB_LITELLM_CASES", "").split(",") if n}
    cases = []
    for path in sorted((DATA / "cases").glob("*.json")):
        if only and path.stem not in only:
            continue
        raw = json.loads(path.read_text())
        case_tools = raw.get("tools", tools) + raw.get("extra_tools", [])
        cases.append(Case(
            name=path.stem,
            note=raw["note"],
            model=raw["model"],
            deployment=raw.get("deployment", "openai/" + raw["model"]),
            reply=raw["reply"].replace("{P}", PREFIX),
            tools=case_tools,
            history=raw.get("history", []),
            stop=raw.get("stop"),
            tool_choice=raw.get("tool_choice"),
            expect=raw["expect"],
            sent_stop=raw.get("sent_stop", ...),
            responses_expect=raw.get("responses_expect", ...),
        ))
    return cases


# ---------------------------------------------------------------- the proxy


class Proxy:
    """A real `litellm` proxy process on 127.0.0.1, in front of `upstream`, with the models
    of `cases` and (when `callback`) the bridge named in its config.yaml through the one-line
    module beside it."""

    def __init__(self, folder: Path, upstream_url: str, cases: list[Case],
                 callback: bool | str = True,
                 workers: int = 1, params: dict | None = None, settings: dict | None = None,
                 model_info: dict | None = None,
                 deployments: list[tuple[str, str, dict]] | None = None):
        """`deployments` are (model name, LiteLLM model, extra `litellm_params`) served beside
        the cases' models; `callback` is whether the bridge is in `callbacks:`, or the text of
        the module that names it there (a stand-in); `params` are added to every deployment's `litellm_params` (e.g.
        `use_chat_completions_api`), `model_info` to its `model_info`, `settings` to
        `litellm_settings`."""
        self.folder = folder
        self.port = free_port()
        self.workers = workers
        folder.mkdir(parents=True, exist_ok=True)
        # `callback` may be the module's text instead (a stand-in named `bridge`).
        (folder / "ctb_litellm.py").write_text(
            callback if isinstance(callback, str) else
            "from claude_tool_bridge.litellm import bridge\n")
        models, seen = [], set()
        for name, model, extra in deployments or []:
            seen.add(name)
            models.append({"model_name": name, "litellm_params": {
                "model": model, "api_base": upstream_url, "api_key": "sk-upstream", **extra}})
        for case in cases:
            if case.model in seen:
                continue
            seen.add(case.model)
            deployment: dict[str, Any] = {"model_name": case.model, "litellm_params": {
                "model": case.deployment, "api_base": upstream_url, "api_key": "sk-upstream",
                **(params or {})}}
            if model_info:
                deployment["model_info"] = dict(model_info)
            models.append(deployment)
        config: dict[str, Any] = {"model_list": models}
        litellm_settings = dict(settings or {})
        if callback:
            litellm_settings["callbacks"] = "ctb_litellm.bridge"
        if litellm_settings:
            config["litellm_settings"] = litellm_settings
        # YAML is a superset of JSON: the config is written as JSON text.
        (folder / "config.yaml").write_text(json.dumps(config, indent=2))
        self.process: subprocess.Popen | None = None
        self.log = folder / "proxy.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "Proxy":
        executable = Path(sys.executable).with_name("litellm")
        # Newer proxies refuse to start without a master key unless told this is local use
        # (this one listens on loopback only, for the test's time).
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
               "PYTHONDONTWRITEBYTECODE": "1",
               "LITELLM_DANGEROUSLY_PERMIT_WEAK_OR_UNSET_MASTER_KEY": "true"}
        for key in ("DATABASE_URL", "LITELLM_MASTER_KEY", "REDIS_HOST", "REDIS_URL"):
            env.pop(key, None)
        command = [str(executable), "--config", str(self.folder / "config.yaml"), "--host",
                   "127.0.0.1", "--port", str(self.port), "--num_workers", str(self.workers)]
        if self.workers > 1:
            # uvicorn restarts a worker that has not answered its health check within 5 s;
            # on a busy machine importing the proxy takes longer than that, forever.
            command += ["--timeout_worker_healthcheck", "120"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the litellm proxy exited: {self.log.read_text()[-3000:]}")
            if self._ready():
                return self
            time.sleep(0.25)
        self.__exit__()
        raise RuntimeError(f"the litellm proxy did not start: {self.log.read_text()[-3000:]}")

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.base_url + "/health/liveliness", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    def __exit__(self, *exc) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
