"""The virtualenvs of the real client programs (tests/python/clients/<name>/): one each, since
they pin newer libraries than the proxy's (and the newest LiteLLM's, litellm_newest/), made on first use under `<target>/clients/` and
named by a hash of the client's pinned requirements and the interpreter's version, so a rerun
reuses them and a changed pin makes a new one. Several are made at once."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CLIENTS = Path(__file__).resolve().parent / "clients"
ROOT = Path(__file__).resolve().parents[2]


def target_dir() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    return target if target.is_absolute() else ROOT / target


def requirements_of(name: str) -> Path:
    """A client's pinned requirements (`clients/<name>/`), or another set's (`<name>/`)."""
    path = CLIENTS / name / "requirements.txt"
    return path if path.exists() else CLIENTS.parent / name / "requirements.txt"


def venv_of(name: str) -> Path:
    requirements = requirements_of(name).read_bytes()
    key = hashlib.sha256(requirements + sys.version.encode()).hexdigest()[:12]
    return target_dir() / "clients" / f"{name}-{key}"


def python_of(name: str) -> Path:
    return venv_of(name) / "bin" / "python"


def ensure(name: str) -> Path:
    """The client's interpreter, its virtualenv made and filled when missing. A half-made one
    (no stamp) is made again."""
    venv = venv_of(name)
    stamp = venv / ".ctb-complete"
    if stamp.exists():
        return python_of(name)
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python_of(name)), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "-r",
                    str(requirements_of(name))], check=True)
    stamp.write_text("")
    return python_of(name)


def ensure_all(names: list[str]) -> dict[str, Path]:
    with ThreadPoolExecutor(max_workers=len(names) or 1) as pool:
        return dict(zip(names, pool.map(ensure, names)))


if __name__ == "__main__":
    for name, python in ensure_all(sys.argv[1:] or sorted(
            p.name for p in CLIENTS.iterdir() if (p / "requirements.txt").exists())).items():
        print(name, python)
