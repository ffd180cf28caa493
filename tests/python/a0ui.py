"""A loopback web server for the browser test: the stand-in pages of Agent Zero's web UI
(`webui/`, see its README), Alpine.js from its wheel, the plugin's own `webui/` files, and the
APIs those pages call, answered by a stand-in Agent Zero tree (`conftest.a0_factory`):

- `POST /api/poll`: the chat log (`{"logs": [...]}`), what `set_log` was given;
- `POST /api/plugins`: Agent Zero's plugin settings API: `get_config` hands over a saved
  config.json as it is, or (only when there is none) what `get_plugin_config` gives, the
  plugin's load hook included; `save_config` lets the plugin's save hook decide what is
  written (kept as JSON, as Agent Zero writes it); `get_default_config` reads
  default_config.yaml;
- `POST /api/plugins/<plugin>/<name>`: the plugin's `api/<name>.py` handler.

On 127.0.0.1 and a free port (`loopback.LoopbackServer`); the APIs answer one at a time."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from loopback import LoopbackServer

WEBUI = Path(__file__).resolve().parent / "webui"
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


def alpine_js() -> Path:
    """Alpine.js, shipped in the `django-js-lib-alpinejs` wheel (tests/python/requirements.txt)."""
    spec = importlib.util.find_spec("js_lib_alpinejs")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Alpine.js is missing: pip install django-js-lib-alpinejs (requirements.txt)")
    path = Path(list(spec.submodule_search_locations)[0]) / "static" / "js_lib_alpinejs" / "alpine.min.js"
    if not path.is_file():
        raise RuntimeError(f"Alpine.js is missing: no {path}")
    return path


class AgentZeroWeb(LoopbackServer):
    def __init__(self, a0: Any):
        self.a0 = a0
        self.logs: list[dict] = []
        self.alpine = alpine_js()
        super().__init__()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                file = web.static(self.path.split("?", 1)[0])
                if file is None or not file.is_file():
                    self.send_error(404)
                    return
                body = file.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", TYPES.get(file.suffix, "application/octet-stream"))
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    data = json.loads(self.rfile.read(length) or b"{}")
                    with web._lock:
                        status, answer = web.api(self.path.split("?", 1)[0], data)
                except Exception as error:  # noqa: BLE001 - Agent Zero answers 500 with the text
                    status, answer = 500, f"{type(error).__name__}: {error}"
                body = (json.dumps(answer) if status == 200 else str(answer)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status == 200 else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    # ---- what is served

    def static(self, path: str) -> Path | None:
        if path == "/vendor/alpine.min.js":
            return self.alpine
        parts = [p for p in path.split("/") if p]
        if not parts or any(p in ("..", ".") for p in parts):
            return None
        if parts[0] == "plugins" and len(parts) >= 4 and parts[2] == "webui":
            return self.a0.root / "usr" / "plugins" / parts[1] / "webui" / "/".join(parts[3:])
        return WEBUI / "/".join(parts)

    def api(self, path: str, data: dict) -> tuple[int, Any]:
        plugins = self.a0.plugins
        if path == "/api/poll":
            return 200, {"logs": self.logs}
        if path == "/api/plugins":
            name = data.get("plugin_name", "")
            action = data.get("action")
            if action == "get_config":
                if name in plugins.SAVED:  # read as it is (a file that is no JSON: an error)
                    return 200, {"ok": True, "loaded_path": "config.json", "data": plugins.read_saved(name)}
                return 200, {"ok": True, "loaded_path": "", "data": plugins.get_plugin_config(name) or {}}
            if action == "get_default_config":
                return 200, {"ok": True, "data": plugins.get_default_plugin_config(name) or {}}
            if action == "save_config":
                settings = data.get("settings", {})
                if not isinstance(settings, dict):
                    return 400, "settings must be an object"
                plugins.save_plugin_config(name, data.get("project_name", ""), data.get("agent_profile", ""), settings)
                if name in plugins.SAVED:  # written as JSON text and read back
                    plugins.SAVED[name] = json.loads(json.dumps(plugins.SAVED[name]))
                return 200, {"ok": True}
            return 400, f"Unknown action: {action}"
        parts = [p for p in path.split("/") if p]
        if len(parts) == 4 and parts[:2] == ["api", "plugins"]:
            from helpers.api import load_handler

            file = self.a0.root / "usr" / "plugins" / parts[2] / "api" / f"{parts[3]}.py"
            handler = load_handler(file) if file.is_file() else None
            if handler is None:
                return 404, f"API endpoint not found: {path}"
            return 200, asyncio.run(handler().process(data, None))
        return 404, f"API endpoint not found: {path}"
