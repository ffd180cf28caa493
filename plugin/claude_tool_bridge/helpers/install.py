"""Putting the `claude-tool-bridge` wheel into the Python that runs Agent Zero.

Imports: the standard library only (plus `packaging` when the environment has it). Nothing
from Agent Zero and nothing from the wheel: this runs before the wheel exists.

The order, first success wins:

1. a wheel in the plugin's `wheels/` folder whose tags fit this Python and platform (checked
   with `packaging.tags`, pip's bundled copy of it, or a small standard-library version);
2. `claude-tool-bridge==<the plugin's version>` from the package index pip is configured with
   (binary wheels only: building from source needs Rust and minutes, not something to do
   silently at startup);
3. nothing: the caller reports the returned reason once and the plugin stays inert.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

DISTRIBUTION = "claude-tool-bridge"
WHEEL_PREFIX = "claude_tool_bridge-"
# pip's own network timeout per request (one retry), and a bound on the whole index attempt:
# an unreachable index delays Agent Zero's start by under a minute.
INDEX_TIMEOUT_S = 20
INDEX_DEADLINE_S = 120

Tag = tuple[str, str, str]
Runner = Callable[..., subprocess.CompletedProcess]


@dataclass(frozen=True)
class Outcome:
    """What `ensure` did. `ok`: the wanted version is installed (or was already)."""

    ok: bool
    source: str  # "installed", "bundled <file>", "index", or "" when nothing worked
    reason: str = ""  # one sentence: why nothing worked
    fix: str = ""  # one sentence: what the user can do


def plugin_version(plugin_dir: Path) -> str:
    """The `version:` of plugin.yaml (the wheel is released with the same version)."""
    try:
        text = (plugin_dir / "plugin.yaml").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"^version:\s*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
    return match.group(1) if match else ""


def installed_version(python: str) -> str:
    """The installed version of the distribution in `python`'s environment, or ""."""
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        importlib.invalidate_caches()
        try:
            return importlib.metadata.version(DISTRIBUTION)
        except importlib.metadata.PackageNotFoundError:
            return ""
    probe = (
        "import importlib.metadata as m\n"
        "try:\n print(m.version('claude-tool-bridge'))\n"
        "except m.PackageNotFoundError:\n print('')"
    )
    done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


# ---------------------------------------------------------------- wheel tags


def wheel_tags(filename: str) -> set[Tag]:
    """The (interpreter, abi, platform) tags a wheel file name declares, expanded
    (`manylinux_2_17_x86_64.manylinux2014_x86_64` is two platforms)."""
    if not filename.endswith(".whl"):
        return set()
    parts = filename[: -len(".whl")].split("-")
    if len(parts) not in (5, 6):
        return set()
    pythons, abis, platforms = parts[-3:]
    return {
        (py, abi, plat)
        for py in pythons.split(".")
        for abi in abis.split(".")
        for plat in platforms.split(".")
    }


def supported_tags() -> list[Tag]:
    """The tags this interpreter accepts, best first: `packaging.tags`, else the copy pip
    vendors, else `stdlib_tags`."""
    for module in ("packaging.tags", "pip._vendor.packaging.tags"):
        try:
            tags = importlib.import_module(module)
            return [(t.interpreter, t.abi, t.platform) for t in tags.sys_tags()]
        except Exception:  # noqa: BLE001 - absent or broken: try the next
            continue
    return stdlib_tags()


def stdlib_tags() -> list[Tag]:
    """A standard-library approximation of `packaging.tags.sys_tags()` for CPython, enough
    to judge the wheels this project ships (abi3 for CPython >= 3.10, manylinux/musllinux,
    macOS, Windows)."""
    major, minor = sys.version_info[:2]
    platforms = _platforms()
    tags: list[Tag] = []
    if sys.implementation.name == "cpython":
        own = f"cp{major}{minor}"
        tags += [(own, own, plat) for plat in platforms]
        tags += [(own, "abi3", plat) for plat in platforms]
        tags += [(own, "none", plat) for plat in platforms]
        for older in range(minor - 1, 1, -1):
            tags += [(f"cp{major}{older}", "abi3", plat) for plat in platforms]
    for older in range(minor, -1, -1):
        tags += [(f"py{major}{older}", "none", plat) for plat in platforms]
    tags += [(f"py{major}", "none", plat) for plat in platforms]
    tags += [(f"py{major}", "none", "any"), (f"py{major}{minor}", "none", "any")]
    return tags


def _platforms() -> list[str]:
    system = platform.system()
    machine = platform.machine().lower()
    if system == "Linux":
        arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
        found: list[str] = []
        glibc = _glibc_version()
        if glibc:
            for m in range(glibc[1], 16, -1):
                found.append(f"manylinux_{glibc[0]}_{m}_{arch}")
                if (glibc[0], m) == (2, 17):
                    found.append(f"manylinux2014_{arch}")
        else:
            musl = _musl_version(arch)
            if musl:
                found += [f"musllinux_{musl[0]}_{m}_{arch}" for m in range(musl[1], -1, -1)]
        return found + [f"linux_{arch}"]
    if system == "Darwin":
        release = platform.mac_ver()[0] or "10.16"
        numbers = [int(n) for n in release.split(".")[:2] if n.isdigit()] + [0]
        major, minor = numbers[0], numbers[1]
        arches = [machine, "universal2"]
        versions = [(major, m) for m in range(minor, -1, -1)] if major >= 11 else []
        versions += [(v, 0) for v in range(major - 1, 10, -1)] if major >= 11 else []
        versions += [(10, m) for m in range(16 if major >= 11 else minor, 3, -1)]
        return [f"macosx_{a}_{b}_{arch}" for a, b in versions for arch in arches]
    return [sysconfig.get_platform().replace("-", "_").replace(".", "_")]


def _glibc_version() -> tuple[int, int] | None:
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        text = ""
    match = re.search(r"glibc (\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _musl_version(arch: str) -> tuple[int, int] | None:
    loader = Path(f"/lib/ld-musl-{arch}.so.1")
    if not loader.exists():
        return None
    done = subprocess.run([str(loader)], capture_output=True, text=True, check=False)
    match = re.search(r"Version (\d+)\.(\d+)", done.stderr)
    return (int(match.group(1)), int(match.group(2))) if match else None


def fitting_wheels(wheels_dir: Path, version: str, supported: Sequence[Tag]) -> list[Path]:
    """The bundled wheels of `version` that this interpreter accepts, best fit first."""
    if not wheels_dir.is_dir():
        return []
    rank = {tag: i for i, tag in enumerate(supported)}
    fits = []
    for wheel in wheels_dir.glob(f"{WHEEL_PREFIX}*.whl"):
        if version and not wheel.name.startswith(f"{WHEEL_PREFIX}{version}-"):
            continue
        best = min((rank[t] for t in wheel_tags(wheel.name) if t in rank), default=None)
        if best is not None:
            fits.append((best, wheel.name, wheel))
    return [wheel for _, _, wheel in sorted(fits)]


def _describe_bundle(wheels_dir: Path) -> str:
    names = sorted(w.name for w in wheels_dir.glob(f"{WHEEL_PREFIX}*.whl")) if wheels_dir.is_dir() else []
    if not names:
        return "the plugin folder has no bundled wheel"
    shown = ", ".join("-".join(n[: -len(".whl")].split("-")[-3:]) for n in names[:4])
    more = f" and {len(names) - 4} more" if len(names) > 4 else ""
    return f"no bundled wheel fits (wheels/ holds {shown}{more})"


def _here() -> str:
    impl = "CPython" if sys.implementation.name == "cpython" else sys.implementation.name
    return f"{impl} {sys.version_info[0]}.{sys.version_info[1]} on {platform.system().lower()} {platform.machine()}"


# ---------------------------------------------------------------- installing


def _pip(python: str, args: Iterable[str], pip_only: Iterable[str] = ()) -> list[list[str]]:
    """pip in `python`; `uv pip` as well when uv is on PATH (Agent Zero's Docker venv is made
    by uv and may have no pip). `pip_only`: options uv does not take."""
    args = list(args)
    commands = [[python, "-m", "pip", "--disable-pip-version-check", "--no-input", *pip_only, *args]]
    uv = shutil.which("uv")
    if uv:
        commands.append([uv, "pip", *args, "--python", python])
    return commands


def _attempt(commands: list[list[str]], run: Runner, timeout: float | None) -> str:
    """Runs the first command; the next only when the one before could not start pip at
    all. Returns "" on success, else the last line pip printed."""
    last = "?"
    for command in commands:
        try:
            done = run(command, capture_output=True, text=True, check=False, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"gave up after {timeout:.0f} s"
        except OSError as error:
            last = str(error)
            continue
        if done.returncode == 0:
            return ""
        lines = [l.strip() for l in (done.stderr or done.stdout or "").splitlines() if l.strip()]
        last = lines[-1] if lines else f"exit status {done.returncode}"
        if "No module named pip" not in (done.stderr or ""):
            return last
    return last


def ensure(
    plugin_dir: Path,
    python: str | None = None,
    run: Runner | None = None,
    supported: Sequence[Tag] | None = None,
) -> Outcome:
    """Makes `import claude_tool_bridge` give the plugin's version in `python` (default: this
    interpreter), trying the bundled wheels, then the package index."""
    python = python or sys.executable
    run = run or subprocess.run
    wanted = plugin_version(plugin_dir)
    have = installed_version(python)
    if have and (not wanted or have == wanted):
        return Outcome(True, "installed")
    wheels_dir = plugin_dir / "wheels"
    tags = supported if supported is not None else supported_tags()
    failures = []
    for wheel in fitting_wheels(wheels_dir, wanted, tags):
        problem = _attempt(_pip(python, ["install", "--no-index", "--no-deps", str(wheel)]), run, None)
        if not problem:
            return Outcome(True, f"bundled {wheel.name}")
        failures.append(f"{wheel.name}: {problem}")
    bundle = "; ".join(failures) if failures else _describe_bundle(wheels_dir)
    requirement = f"{DISTRIBUTION}=={wanted}" if wanted else DISTRIBUTION
    index_args = ["install", "--only-binary", DISTRIBUTION, requirement]
    patience = ["--timeout", str(INDEX_TIMEOUT_S), "--retries", "1"]
    problem = _attempt(_pip(python, index_args, patience), run, INDEX_DEADLINE_S)
    if not problem:
        return Outcome(True, "index")
    installed = f" (installed: {have})" if have else ""
    return Outcome(
        False,
        "",
        reason=(
            f"{bundle} for {_here()}, and {requirement} could not be installed from the "
            f"package index ({problem}){installed}"
        ),
        fix=(
            f"install it with `{python} -m pip install {requirement}` (where no wheel exists "
            "pip builds it from source, which needs Rust) and restart Agent Zero"
        ),
    )


def uninstall(python: str | None = None, run: Runner | None = None) -> bool:
    """Removes the wheel; True when it is gone."""
    python = python or sys.executable
    run = run or subprocess.run
    if not installed_version(python):
        return True
    commands = [[python, "-m", "pip", "uninstall", "-y", DISTRIBUTION]]
    uv = shutil.which("uv")
    if uv:
        commands.append([uv, "pip", "uninstall", "--python", python, DISTRIBUTION])
    for command in commands:
        if run(command, capture_output=True, check=False).returncode == 0:
            return True
    return False
