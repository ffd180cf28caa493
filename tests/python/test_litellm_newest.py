"""The LiteLLM callback on the newest LiteLLM of the range the wheel's `litellm` extra declares
(litellm_newest/requirements.txt; the rest of the suite runs the oldest, 1.88.1): the proxy,
Responses and Messages case tests and the in-process chat ones, run by pytest in that
release's own virtualenv (made once, cached like the clients'), with this checkout's
`claude_tool_bridge` on its path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from client_venvs import ROOT, ensure

TESTS = Path(__file__).resolve().parent
FILES = ["test_litellm_bridge.py", "test_litellm_proxy.py", "test_litellm_responses.py"]
# Left out there: the two-worker load test (time); LiteLLM 1.88's reading of a dotted
# `callbacks:` entry (newer releases read it otherwise); and the cases whose tool definitions
# LiteLLM 1.108 itself refuses before any call (bad_schema_*).
DESELECTED = "not two_workers and not dotted_callbacks_entry and not bad_schema"


def test_the_litellm_tests_pass_on_the_newest_litellm():
    python = ensure("litellm_newest")
    pinned = next(line.split("==", 1)[1] for line in
                  (TESTS / "litellm_newest" / "requirements.txt").read_text().splitlines()
                  if line.startswith("litellm"))
    version = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                              "print(m.version('litellm'))"], capture_output=True, text=True,
                             check=True).stdout.strip()
    assert version == pinned.strip()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "crates" / "ctb-python" / "python"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::UserWarning",
         "-k", DESELECTED, *FILES],
        cwd=TESTS, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
