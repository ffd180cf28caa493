"""A scripted OpenAI-compatible chat completions server on loopback, for the LiteLLM tests and
the LiteLLM bench.

The reply to give is named by the request's last user message, `case:<name>` (optionally
`case:<name>:<chunk size>`), and looked up in `replies`. The server honours `stop` the way
OpenAI does (the text ends before the earliest stop string, `finish_reason: stop`), streams or
not as asked, and records every request body. Binds 127.0.0.1 on a free port; the test that
starts it stops it."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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


class Upstream:
    def __init__(self, replies: dict[str, str] | None = None, delay_s: float = 0.0):
        self.replies = dict(replies or {})
        self.delay_s = delay_s
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "Upstream":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

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
