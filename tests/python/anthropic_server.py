"""A loopback Anthropic Messages API stand-in for tests: replays scripted replies as SSE and
honours `stop_sequences` the way Anthropic does (the text ends BEFORE the earliest stop
string; `stop_reason` is `stop_sequence`). Binds 127.0.0.1 on a free port; every request is
bounded (scripted replies only) and the server is stopped by the test that started it."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from loopback import LoopbackServer


@dataclass
class Served:
    body: dict
    reply: str = ""
    stop_reason: str = ""
    deltas_total: int = 0
    deltas_sent: int = 0
    disconnected: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class ReplayServer(LoopbackServer):
    def __init__(self, replies: list[str], delta_chars: int = 40, delay_s: float = 0.002):
        self.replies = list(replies)
        self.delta_chars = delta_chars
        self.delay_s = delay_s
        self.served: list[Served] = []
        super().__init__()

    def wait(self, timeout: float = 5.0) -> None:
        for served in self.served:
            served.done.wait(timeout)

    def _next(self, body: dict) -> Served:
        with self._lock:
            reply = self.replies.pop(0) if self.replies else "(no more scripted replies)"
            served = Served(body=body)
            self.served.append(served)
        stops = body.get("stop_sequences") or []
        cut = min((i for i in (reply.find(s) for s in stops) if i >= 0), default=-1)
        if cut >= 0:
            matched = min((s for s in stops if reply.find(s) == cut), key=len)
            served.reply, served.stop_reason = reply[:cut], "stop_sequence"
            served.body["_matched_stop"] = matched
        else:
            served.reply, served.stop_reason = reply, "end_turn"
        return served

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                served = server._next(body)
                try:
                    self._stream(served)
                except (BrokenPipeError, ConnectionResetError):
                    served.disconnected = True
                finally:
                    served.done.set()

            def _event(self, name, data):
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def _stream(self, served):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                self._event("message_start", {"type": "message_start", "message": {
                    "id": "msg_test", "type": "message", "role": "assistant",
                    "model": served.body.get("model", "claude"), "content": [],
                    "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1}}})
                self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                                    "content_block": {"type": "text", "text": ""}})
                text, size = served.reply, server.delta_chars
                deltas = [text[i : i + size] for i in range(0, len(text), size)]
                served.deltas_total = len(deltas)
                for delta in deltas:
                    self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                        "delta": {"type": "text_delta", "text": delta}})
                    served.deltas_sent += 1
                    time.sleep(server.delay_s)
                self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
                self._event("message_delta", {"type": "message_delta", "delta": {
                    "stop_reason": served.stop_reason,
                    "stop_sequence": served.body.get("_matched_stop")},
                    "usage": {"output_tokens": max(1, len(text) // 4)}})
                self._event("message_stop", {"type": "message_stop"})

        return Handler
