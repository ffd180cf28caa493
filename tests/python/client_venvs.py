"""The virtualenvs of the real client programs (tests/python/clients/<name>/): one each, since
they pin newer libraries than the proxy's (and the newest LiteLLM's, litellm_newest/), made on first use under `<target>/clients/` and
named by a hash of the client's pinned requirements and the interpreter's version, so a rerun
reuses them and a changed pin makes a new one. Several are made at once; `cargo xtask test`
makes them all in the background (`python client_venvs.py`) while its Rust checks run."""

from __future__ import annotations

import fcntl
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
    (no stamp) is made again. One process at a time makes a given virtualenv (a lock file
    beside it: pytest's workers may ask for the same one at once)."""
    venv = venv_of(name)
    stamp = venv / ".ctb-complete"
    if stamp.exists():
        return python_of(name)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists():  # made meanwhile by another process
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


def every_name() -> list[str]:
    """Every client's virtualenv and the newest LiteLLM's."""
    return sorted(p.name for p in CLIENTS.iterdir() if (p / "requirements.txt").exists()) + [
        "litellm_newest"]


if __name__ == "__main__":
    # `cargo xtask test` runs this (no arguments) in the background while the Rust checks run.
    for name, python in ensure_all(sys.argv[1:] or every_name()).items():
        print(name, python, flush=True)
