"""What the LiteLLM tests and the LiteLLM bench share: a scripted OpenAI-compatible chat
completions server on loopback, the case files, and a real `litellm` proxy process.

The reply to give is named by the request's last user message, `case:<name>` (optionally
`case:<name>:<chunk size>`), and looked up in `replies`. The server honours `stop` the way
OpenAI does (the text ends before the earliest stop string, `finish_reason: stop`), streams or
not as asked, and records every request body. Binds 127.0.0.1 on a free port; the test that
starts it stops it."""

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


def case_of(body: dict) -> tuple[str, int]:
    """The case a request names, and the stream's chunk size."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if isinstance(content, str) and content.startswith("case:"):
            parts = content.split(":")
            size = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else DEFAULT_CHUNK
            return parts[1], max(1, size)
        break
    return "", DEFAULT_CHUNK


class Upstream(LoopbackServer):
    base_path = "/v1"

    def __init__(self, replies: dict[str, str] | None = None, delay_s: float = 0.0):
        self.replies = dict(replies or {})
        self.delay_s = delay_s
        self.requests: list[dict] = []
        super().__init__()

    def requests_for(self, case: str) -> list[dict]:
        with self._lock:
            return [r for r in self.requests if case_of(r)[0] == case]

    def _record(self, body: dict) -> None:
        with self._lock:
            self.requests.append(body)

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
                case, size = case_of(body)
                reply = server.replies.get(case, f"(no scripted reply for {case!r})")
                text, finish = cut_at_stops(reply, stops_of(body))
                model = body.get("model", "upstream")
                try:
                    if body.get("stream"):
                        self._stream(model, text, finish, size, body)
                    else:
                        self._whole(model, text, finish)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, status: int, payload: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _whole(self, model: str, text: str, finish: str) -> None:
                payload = {
                    "id": "chatcmpl-upstream",
                    "object": "chat.completion",
                    "created": 1_700_000_000,
                    "model": model,
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": finish,
                    }],
                    "usage": {"prompt_tokens": 10, "completion_tokens": max(1, len(text) // 4),
                              "total_tokens": 10 + max(1, len(text) // 4)},
                }
                self._send(200, json.dumps(payload).encode(), "application/json")

            def _stream(self, model: str, text: str, finish: str, size: int, body: dict) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()

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

                event({"role": "assistant", "content": ""})
                for i in range(0, len(text), size):
                    event({"content": text[i : i + size]})
                    if server.delay_s:
                        time.sleep(server.delay_s)
                event({}, finish)
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage = {"prompt_tokens": 10, "completion_tokens": max(1, len(text) // 4),
                             "total_tokens": 10 + max(1, len(text) // 4)}
                    chunk = {"id": "chatcmpl-upstream", "object": "chat.completion.chunk",
                             "created": 1_700_000_000, "model": model, "choices": [],
                             "usage": usage}
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
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

    @property
    def translated(self) -> bool:
        return self.expect != "untouched"

    def messages(self, chunk: int | None = None) -> list[dict]:
        tag = f"case:{self.name}" + (f":{chunk}" if chunk else "")
        return [{"role": "user", "content": tag}, *self.history]

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


def load_cases() -> list[Case]:
    tools = json.loads((DATA / "tools.json").read_text())
    cases = []
    for path in sorted((DATA / "cases").glob("*.json")):
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
        ))
    return cases


# ---------------------------------------------------------------- the proxy


class Proxy:
    """A real `litellm` proxy process on 127.0.0.1, in front of `upstream`, with the models
    of `cases` and (when `callback`) the bridge named in its config.yaml through the one-line
    module beside it."""

    def __init__(self, folder: Path, upstream_url: str, cases: list[Case], callback: bool = True,
                 workers: int = 1):
        self.folder = folder
        self.port = free_port()
        self.workers = workers
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "ctb_litellm.py").write_text("from claude_tool_bridge.litellm import bridge\n")
        models, seen = [], set()
        for case in cases:
            if case.model in seen:
                continue
            seen.add(case.model)
            models.append({"model_name": case.model, "litellm_params": {
                "model": case.deployment, "api_base": upstream_url, "api_key": "sk-upstream"}})
        config: dict[str, Any] = {"model_list": models}
        if callback:
            config["litellm_settings"] = {"callbacks": "ctb_litellm.bridge"}
        # YAML is a superset of JSON: the config is written as JSON text.
        (folder / "config.yaml").write_text(json.dumps(config, indent=2))
        self.process: subprocess.Popen | None = None
        self.log = folder / "proxy.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "Proxy":
        executable = Path(sys.executable).with_name("litellm")
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
               "PYTHONDONTWRITEBYTECODE": "1"}
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
