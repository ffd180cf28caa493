"""The LiteLLM callback on the newest LiteLLM of the range the wheel's `litellm` extra declares
(litellm_newest/requirements.txt; the rest of the suite runs the oldest, 1.88.1), run by pytest
in that release's own virtualenv (made once, cached like the clients'), with this checkout's
`claude_tool_bridge` on its path: one class per file, so pytest's workers can share them out
(`cargo xtask test` runs `--dist loadscope`, where a class is a scope).

What a LiteLLM release changes is how a request and its reply pass through it (its hooks, its
proxy, its adapters, its objects), not what the bridge reads in a text; so there the tests run
on the cases of `litellm_newest/cases.txt` (one of each kind of request and reply), in one
chunking each, and the tests of the bridge alone (every split of a stream) are not repeated."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from client_venvs import ROOT, ensure

TESTS = Path(__file__).resolve().parent
# Left out there: the two-worker load test (time); LiteLLM 1.88's reading of a dotted
# `callbacks:` entry (newer releases read it otherwise); the cases whose tool definitions
# LiteLLM 1.108 itself refuses before any call (bad_schema_*); the every-split tests, which
# test the bridge on streams made in-process (1.88.1 runs them).
DESELECTED = ("not two_workers and not dotted_callbacks_entry and not bad_schema and not "
              "every_split and not every_chunking")


def newest_cases() -> list[str]:
    lines = (TESTS / "litellm_newest" / "cases.txt").read_text().splitlines()
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


@pytest.fixture(scope="module")
def python() -> Path:
    python = ensure("litellm_newest")
    pinned = next(line.split("==", 1)[1] for line in
                  (TESTS / "litellm_newest" / "requirements.txt").read_text().splitlines()
                  if line.startswith("litellm"))
    version = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                              "print(m.version('litellm'))"], capture_output=True, text=True,
                             check=True).stdout.strip()
    assert version == pinned.strip()
    return python


def test_the_cases_are_case_files():
    known = {p.stem for p in (TESTS / "data" / "litellm" / "cases").glob("*.json")}
    assert newest_cases() and set(newest_cases()) <= known, set(newest_cases()) - known


def run_on_the_newest(python: Path, file: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "crates" / "ctb-python" / "python"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
           "PYTHONDONTWRITEBYTECODE": "1", "CTB_LITELLM_CASES": ",".join(newest_cases())}
    for key in ("VIRTUAL_ENV", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT",
                "PYTEST_XDIST_TESTRUNUID"):
        env.pop(key, None)
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::UserWarning",
         "-k", DESELECTED, file],
        cwd=TESTS, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


class TestInProcess:
    def test_chat_completions_in_process(self, python):
        run_on_the_newest(python, "test_litellm_bridge.py")


class TestProxy:
    def test_chat_completions_and_messages_on_the_proxy(self, python):
        run_on_the_newest(python, "test_litellm_proxy.py")


class TestResponses:
    def test_responses_and_messages_in_process_and_on_the_proxy(self, python):
        run_on_the_newest(python, "test_litellm_responses.py")
