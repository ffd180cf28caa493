"""Putting the `claude-tool-bridge` wheel into the Python that runs Agent Zero.

Imports: the standard library only (plus `packaging` when the environment has it). Nothing
from Agent Zero and nothing from the wheel: this runs before the wheel exists.

Only a locked wheel is ever installed. The plugin bundle carries `wheels.lock` (written by
`cargo xtask dist` and the release workflow): the plugin's version and the sha256 of every
wheel built for that release. pip installs from a requirements file that names the wheel
with those hashes, with `--require-hashes --no-deps --only-binary :all:`, so a file whose
hash is not in the lock is refused, whoever serves it. Without a version in plugin.yaml or
without a lock nothing is installed at all.

The order, first success wins:

1. a wheel in the plugin's `wheels/` folder whose tags fit this Python and platform (checked
   with `packaging.tags`, pip's bundled copy of it, or a small standard-library version) and
   whose sha256 is in the lock;
2. `claude-tool-bridge==<the plugin's version>` from the package index pip is configured with,
   a wheel whose sha256 is in the lock (binary wheels only: building from source needs Rust
   and minutes, not something to do silently at startup). A failed attempt is remembered in
   `.index-attempt.json` in the plugin folder and not repeated for `INDEX_RETRY_S` (24 hours)
   for the same version and lock: a stalled index does not delay every start;
3. nothing: the caller reports the returned reason once and the plugin stays inert.

Every pip run has a time limit (`BUNDLED_DEADLINE_S`, `INDEX_DEADLINE_S`, `UNINSTALL_DEADLINE_S`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

DISTRIBUTION = "claude-tool-bridge"
WHEEL_PREFIX = "claude_tool_bridge-"
# The lock: the version and the sha256 of every wheel built for it (see the module docs).
LOCK_NAME = "wheels.lock"
# pip's own network timeout per request (one retry), and a bound on the whole index attempt:
# an unreachable index delays Agent Zero's start by under a minute.
INDEX_TIMEOUT_S = 20
INDEX_DEADLINE_S = 120
# A bound on installing a bundled wheel (no network: seconds), on removing it, and on asking
# another Python which version it has.
BUNDLED_DEADLINE_S = 120
UNINSTALL_DEADLINE_S = 120
PROBE_DEADLINE_S = 30
# A failed index attempt is not repeated for this long (same version, same lock).
INDEX_RETRY_S = 24 * 3600
INDEX_STATE_NAME = ".index-attempt.json"

Tag = tuple[str, str, str]
Runner = Callable[..., subprocess.CompletedProcess]


@dataclass(frozen=True)
class Outcome:
    """What `ensure` did. `ok`: the wanted version is installed (or was already)."""

    ok: bool
    source: str  # "installed", "bundled <file>", "index", or "" when nothing worked
    reason: str = ""  # one sentence: why nothing worked
    fix: str = ""  # one sentence: what the user can do


@dataclass(frozen=True)
class Lock:
    """`wheels.lock`: the release's version and the sha256 of each wheel built for it."""

    version: str
    wheels: dict[str, str] = field(default_factory=dict)  # file name -> sha256 (hex)
    digest: str = ""  # the lock file's own sha256, to tell one lock from another


def read_lock(plugin_dir: Path) -> tuple[Lock | None, str]:
    """The plugin's lock, or None and why there is none that can be used."""
    path = plugin_dir / LOCK_NAME
    try:
        data = path.read_bytes()
    except OSError:
        return None, f"the plugin has no {LOCK_NAME} (the sha256 of the wheels it may install)"
    try:
        doc = json.loads(data.decode("utf-8"))
        version = doc["version"]
        wheels = doc["wheels"]
        if not isinstance(version, str) or not isinstance(wheels, dict):
            raise ValueError("version or wheels of the wrong kind")
        checked = {}
        for name, digest in wheels.items():
            if not (isinstance(name, str) and isinstance(digest, str)
                    and re.fullmatch(r"[0-9a-f]{64}", digest) and name.endswith(".whl")):
                raise ValueError(f"bad entry {name!r}")
            checked[name] = digest
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
        return None, f"the plugin's {LOCK_NAME} cannot be read ({error})"
    return Lock(version, checked, hashlib.sha256(data).hexdigest()), ""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    try:
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False,
                              timeout=PROBE_DEADLINE_S)
    except (OSError, subprocess.SubprocessError):
        return ""
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
    try:
        done = subprocess.run([str(loader)], capture_output=True, text=True, check=False,
                              timeout=PROBE_DEADLINE_S)
    except (OSError, subprocess.SubprocessError):
        return None
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


_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]+")


def _last_line(text: str) -> str:
    """pip's last line, as plain text: no terminal escapes or control characters, at most
    300 characters (it ends up in a log line and a notification)."""
    lines = [" ".join(_CONTROL.sub(" ", l).split()) for l in text.splitlines()]
    lines = [l for l in lines if l]
    last = lines[-1] if lines else ""
    return last if len(last) <= 300 else last[:299] + "…"


def _attempt(commands: list[list[str]], run: Runner, timeout: float) -> str:
    """Runs the first command; the next only when the one before could not start pip at
    all. Returns "" on success, else the last line pip printed."""
    last = "?"
    for command in commands:
        try:
            done = run(command, capture_output=True, text=True, check=False, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"gave up after {timeout:.0f} s"
        except OSError as error:
            last = _last_line(str(error)) or type(error).__name__
            continue
        if done.returncode == 0:
            return ""
        last = _last_line(done.stderr or done.stdout or "") or f"exit status {done.returncode}"
        if "No module named pip" not in (done.stderr or ""):
            return last
    return last


# pip options for every locked install: hashes required, this one package only, no builds.
LOCKED = ["--require-hashes", "--no-deps", "--only-binary", ":all:"]


def _locked_install(python: str, run: Runner, requirement: str, extra: list[str],
                    timeout: float, pip_only: Iterable[str] = ()) -> str:
    """pip (or uv) installs from a requirements file holding the one line `requirement`
    (which carries its `--hash` options). Returns "" on success, else why not."""
    with tempfile.TemporaryDirectory(prefix="ctb-lock-") as folder:
        file = Path(folder) / "requirements.txt"
        file.write_text(requirement + "\n", encoding="utf-8")
        args = ["install", *LOCKED, *extra, "-r", str(file)]
        return _attempt(_pip(python, args, pip_only), run, timeout)


def _hashes(digests: Iterable[str]) -> str:
    return " ".join(f"--hash=sha256:{d}" for d in sorted(set(digests)))


def _read_index_state(plugin_dir: Path) -> dict:
    try:
        state = json.loads((plugin_dir / INDEX_STATE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _write_index_state(plugin_dir: Path, state: dict | None) -> None:
    path = plugin_dir / INDEX_STATE_NAME
    try:
        if state is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(json.dumps(state), encoding="utf-8")
    except OSError:
        pass  # a read-only plugin folder: the attempt is simply not remembered


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(epoch))


def ensure(
    plugin_dir: Path,
    python: str | None = None,
    run: Runner | None = None,
    supported: Sequence[Tag] | None = None,
    clock: Callable[[], float] = time.time,
) -> Outcome:
    """Makes `import claude_tool_bridge` give the plugin's version in `python` (default: this
    interpreter), from a locked bundled wheel, else a locked wheel from the package index."""
    python = python or sys.executable
    run = run or subprocess.run
    wanted = plugin_version(plugin_dir)
    have = installed_version(python)
    if have and (not wanted or have == wanted):
        return Outcome(True, "installed")
    installed = f" (installed: {have})" if have else ""
    by_hand = (
        "use a release's plugin bundle (its wheels/ folder has a wheel for every supported "
        "platform), or install the wheel yourself with that Python "
        f"(`{python} -m pip install {DISTRIBUTION}=={wanted or '<version>'}`; where no wheel "
        "exists pip builds it from source, which needs Rust) and restart Agent Zero"
    )
    if not wanted:
        return Outcome(False, "", reason="plugin.yaml states no version, so the plugin installs "
                       f"no wheel (it only installs its own, locked version){installed}",
                       fix=by_hand)
    lock, no_lock = read_lock(plugin_dir)
    if lock is None:
        return Outcome(False, "", reason=f"{no_lock}, so it installs no wheel{installed}",
                       fix=by_hand)
    if lock.version != wanted:
        return Outcome(False, "", reason=f"the plugin's {LOCK_NAME} is for version "
                       f"{lock.version}, plugin.yaml says {wanted}, so it installs no wheel"
                       f"{installed}", fix=by_hand)
    wheels_dir = plugin_dir / "wheels"
    tags = supported if supported is not None else supported_tags()
    failures = []
    for wheel in fitting_wheels(wheels_dir, wanted, tags):
        try:
            digest = sha256_of(wheel)
        except OSError as error:
            failures.append(f"{wheel.name}: cannot be read ({error})")
            continue
        if lock.wheels.get(wheel.name) != digest:
            failures.append(f"{wheel.name}: its sha256 ({digest[:12]}…) is not in {LOCK_NAME}, "
                            "so it is not installed")
            continue
        requirement = f"{DISTRIBUTION} @ {wheel.resolve().as_uri()} {_hashes([digest])}"
        problem = _locked_install(python, run, requirement, ["--no-index"], BUNDLED_DEADLINE_S)
        if not problem:
            return Outcome(True, f"bundled {wheel.name}")
        failures.append(f"{wheel.name}: {problem}")
    bundle = "; ".join(failures) if failures else _describe_bundle(wheels_dir)
    pinned = f"{DISTRIBUTION}=={wanted}"
    if not lock.wheels:
        return Outcome(False, "", reason=f"{bundle} for {_here()}, and {LOCK_NAME} lists no "
                       f"wheel to take from the package index{installed}", fix=by_hand)
    state = _read_index_state(plugin_dir)
    now = clock()
    failed_at = state.get("failed_at")
    if (
        state.get("version") == wanted
        and state.get("lock") == lock.digest
        and isinstance(failed_at, (int, float))
        and 0 <= now - failed_at < INDEX_RETRY_S
    ):
        return Outcome(
            False, "",
            reason=(f"{bundle} for {_here()}, and installing {pinned} from the package index "
                    f"failed at {_when(failed_at)} ({state.get('problem', '?')}); it is tried "
                    f"again after {_when(failed_at + INDEX_RETRY_S)}{installed}"),
            fix=by_hand + f", or delete {plugin_dir / INDEX_STATE_NAME} to try the index now",
        )
    patience = ["--timeout", str(INDEX_TIMEOUT_S), "--retries", "1"]
    requirement = f"{pinned} {_hashes(lock.wheels.values())}"
    problem = _locked_install(python, run, requirement, [], INDEX_DEADLINE_S, patience)
    if not problem:
        _write_index_state(plugin_dir, None)
        return Outcome(True, "index")
    _write_index_state(plugin_dir, {"version": wanted, "lock": lock.digest, "failed_at": now,
                                    "problem": problem})
    return Outcome(
        False,
        "",
        reason=(
            f"{bundle} for {_here()}, and {pinned} with a sha256 from {LOCK_NAME} could not be "
            f"installed from the package index ({problem}); the index is tried again after "
            f"{_when(now + INDEX_RETRY_S)}{installed}"
        ),
        fix=by_hand,
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
        try:
            if run(command, capture_output=True, check=False,
                   timeout=UNINSTALL_DEADLINE_S).returncode == 0:
                return True
        except (OSError, subprocess.SubprocessError):
            continue
    return False
