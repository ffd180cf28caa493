"""Headless Chromium (Debian's `chromium` package), driven over the DevTools protocol with
`websocket-client`: start it, open pages of a given size, evaluate JavaScript in them, wait
for a condition, take a screenshot. Every JavaScript exception a page throws is kept
(`Page.errors`): a test fails on them.

`cargo xtask test` installs Chromium when it is missing (`apt-get install -y chromium`);
without it the browser test fails and says how to install it."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

BINARIES = ("chromium", "chromium-browser", "google-chrome")


def chromium_binary() -> str:
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError(
        "no Chromium found (looked for " + ", ".join(BINARIES) + "): install Debian's package "
        "with `apt-get install -y chromium` (cargo xtask test does that when it is missing)"
    )


class Browser:
    def __init__(self, timeout: float = 20.0):
        import websocket  # websocket-client, pinned in requirements.txt

        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory(prefix="ctb-chromium-")
        self.process = subprocess.Popen(
            [chromium_binary(), "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             f"--user-data-dir={self.profile.name}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        url = self._devtools_url()
        self.socket = websocket.create_connection(url, timeout=timeout, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def _devtools_url(self) -> str:
        deadline = time.monotonic() + self.timeout
        seen = []
        assert self.process.stderr is not None
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                if self.process.poll() is not None:
                    break
                continue
            seen.append(line.rstrip())
            if "DevTools listening on " in line:
                return line.split("DevTools listening on ", 1)[1].strip()
        self.close()
        raise RuntimeError("Chromium did not start: " + " | ".join(seen[-5:]))

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        message: dict[str, Any] = {"id": next(self.ids), "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            answer = json.loads(self.socket.recv())
            if answer.get("id") == message["id"]:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)
        raise TimeoutError(method)

    def page(self, width: int = 1280, height: int = 900) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        self.send("Runtime.enable", session=session)
        self.send("Page.enable", session=session)
        page.resize(width, height)
        return page

    def close(self) -> None:
        try:
            if getattr(self, "socket", None) is not None:
                try:
                    self.send("Browser.close")
                except Exception:  # noqa: BLE001 - it is going away anyway
                    pass
                self.socket.close()
        finally:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser = browser
        self.session = session

    def send(self, method: str, params: dict | None = None) -> dict:
        return self.browser.send(method, params, self.session)

    @property
    def errors(self) -> list[str]:
        """JavaScript exceptions this page threw, and errors it logged to the console."""
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            if event.get("method") == "Runtime.exceptionThrown":
                details = event["params"]["exceptionDetails"]
                found.append(str(details.get("exception", {}).get("description") or details.get("text")))
            elif event.get("method") == "Runtime.consoleAPICalled" and event["params"]["type"] in ("error", "warning"):
                found.append(" ".join(str(a.get("value", a.get("description", ""))) for a in event["params"]["args"]))
        return found

    def resize(self, width: int, height: int) -> None:
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def goto(self, url: str, ready: str = "document.body && document.body.dataset.ready === 'true'") -> None:
        self.send("Page.navigate", {"url": url})
        self.wait(ready)

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(str(details.get("exception", {}).get("description") or details.get("text")))
        return result.get("result", {}).get("value")

    def wait(self, expression: str, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"waited {timeout} s for {expression} (errors: {self.errors})")

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))


def screenshots_dir() -> Path | None:
    """Where to keep screenshots (`CTB_SCREENSHOTS`), when asked to."""
    folder = os.environ.get("CTB_SCREENSHOTS")
    if not folder:
        return None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path
