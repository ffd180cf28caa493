"""Plugin hooks called by Agent Zero (`helpers.plugins.call_plugin_hook`).

- `install()`: from the plugin installer; installs the bundled wheel.
- `ensure_dependencies()`: from the `startup_migration` extension at every start; installs
  the bundled wheel into the Python running Agent Zero when it is missing or outdated.
- `uninstall()`: before the plugin folder is deleted; removes the wheel again.
- `get_plugin_config()`: fills keys missing from a saved config with the defaults.

Only the standard library is used here: this must work before the wheel is installed.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

PLUGIN_DIR = Path(__file__).resolve().parent
WHEELS_DIR = PLUGIN_DIR / "wheels"
DISTRIBUTION = "claude-tool-bridge"
_LOCK = threading.Lock()
_CHECKED = False


def _say(message: str) -> None:
    print(f"[claude_tool_bridge] {message}", flush=True)


def plugin_version() -> str:
    """The `version:` of plugin.yaml (the wheel is released with the same version)."""
    try:
        text = (PLUGIN_DIR / "plugin.yaml").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"^version:\s*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
    return match.group(1) if match else ""


def installed_version() -> str:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return ""


def bundled_wheels() -> list[Path]:
    if not WHEELS_DIR.is_dir():
        return []
    return sorted(WHEELS_DIR.glob("claude_tool_bridge-*.whl"))


def _install_command(version: str) -> list[list[str]]:
    requirement = f"{DISTRIBUTION}=={version}" if version else DISTRIBUTION
    args = ["install", "--no-index", "--find-links", str(WHEELS_DIR), "--upgrade", requirement]
    commands = [[sys.executable, "-m", "pip", *args]]
    uv = shutil.which("uv")
    if uv:  # Agent Zero's Docker venv is made by uv and may have no pip
        commands.append([uv, "pip", "install", "--python", sys.executable, *args[1:]])
    return commands


def ensure_dependencies(raise_on_error: bool = False) -> bool:
    """Makes `import claude_tool_bridge` work in this Python, from the bundled wheel."""
    global _CHECKED
    with _LOCK:
        wanted = plugin_version()
        have = installed_version()
        if _CHECKED or (have and (not wanted or have == wanted)):
            _CHECKED = True
            return True
        if not bundled_wheels():
            message = (
                f"no bundled wheel in {WHEELS_DIR} (installed: {have or 'none'}); "
                "install the plugin from a release bundle or run `cargo xtask install-plugin`"
            )
            if raise_on_error:
                raise RuntimeError(message)
            _say(message)
            return bool(have)
        errors = []
        for command in _install_command(wanted):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode == 0:
                importlib.invalidate_caches()
                _CHECKED = True
                _say(f"installed the claude_tool_bridge wheel {wanted} into {sys.executable}")
                return True
            errors.append((done.stderr or done.stdout).strip().splitlines()[-1:] or ["?"])
        message = f"could not install the bundled wheel: {errors}"
        if raise_on_error:
            raise RuntimeError(message)
        _say(message)
        return False


def install() -> bool:
    return ensure_dependencies(raise_on_error=True)


def uninstall() -> bool:
    """Removes the wheel so nothing of the plugin stays behind."""
    if not installed_version():
        return True
    commands = [[sys.executable, "-m", "pip", "uninstall", "-y", DISTRIBUTION]]
    uv = shutil.which("uv")
    if uv:
        commands.append([uv, "pip", "uninstall", "--python", sys.executable, DISTRIBUTION])
    for command in commands:
        if subprocess.run(command, capture_output=True, check=False).returncode == 0:
            _say("removed the claude_tool_bridge wheel")
            return True
    _say("could not remove the claude_tool_bridge wheel; run: pip uninstall claude-tool-bridge")
    return False


def _defaults() -> dict[str, Any]:
    """default_config.yaml, read without a YAML library (flat `key: value` lines)."""
    result: dict[str, Any] = {}
    try:
        lines = (PLUGIN_DIR / "default_config.yaml").read_text(encoding="utf-8").splitlines()
    except OSError:
        return result
    for line in lines:
        match = re.match(r"^([a-z_]+):\s*(.*?)\s*(#.*)?$", line)
        if not match:
            continue
        key, raw = match.group(1), match.group(2)
        if raw in ("true", "false"):
            result[key] = raw == "true"
        elif re.fullmatch(r"-?\d+", raw):
            result[key] = int(raw)
        elif raw.startswith("[") and raw.endswith("]"):
            items = [part.strip().strip("'\"") for part in raw[1:-1].split(",")]
            result[key] = [item for item in items if item]
        else:
            result[key] = raw.strip("'\"")
    return result


def get_plugin_config(default: Any = None, **kwargs: Any) -> Any:
    """Agent Zero returns a saved config.json as it is; fill in keys it lacks."""
    if not isinstance(default, dict):
        return default
    merged = _defaults()
    merged.update(default)
    return merged
