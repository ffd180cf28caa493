"""How the plugin gets its wheel, without network: (1) a bundled wheel that fits this Python
and platform, (2) else `claude-tool-bridge==<version>` from the package index, (3) else it
stays inert and says why once (log line and notification), and Agent Zero runs as without
it. Only a wheel whose sha256 is in the plugin's `wheels.lock` is installed (a locked wheel). Each
path runs real pip against a fresh virtualenv; the index is a local file:// index or an
address nothing listens on."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import claude_tool_bridge as ctb
import pytest
from conftest import PLUGIN

spec = importlib.util.spec_from_file_location("ctb_install_under_test", PLUGIN / "helpers" / "install.py")
install = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = install  # dataclasses look their module up
spec.loader.exec_module(install)

VERSION = ctb.__version__
UNREACHABLE_INDEX = "http://127.0.0.1:9/simple"  # the discard port: connection refused


def host_platform() -> str:
    """The most specific platform tag this interpreter accepts (e.g. manylinux_2_36_x86_64)."""
    return install.supported_tags()[0][2]


def make_wheel(folder: Path, version: str, tag: str) -> Path:
    """A small but valid wheel of `claude-tool-bridge` whose module reports `version`."""
    name = f"claude_tool_bridge-{version}-{tag}.whl"
    dist_info = f"claude_tool_bridge-{version}.dist-info"
    files = {
        "claude_tool_bridge/__init__.py": f"__version__ = {version!r}\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: claude-tool-bridge\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
        + "".join(f"Tag: {t[0]}-{t[1]}-{t[2]}\n" for t in install.wheel_tags(name)),
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = "\n".join(record) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / name, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return folder / name


def write_lock(plugin_dir: Path, *wheels: Path, version: str = VERSION) -> None:
    """The lock `cargo xtask dist` writes: the version and each wheel's sha256."""
    lock = {"distribution": "claude-tool-bridge", "version": version,
            "wheels": {w.name: hashlib.sha256(w.read_bytes()).hexdigest() for w in wheels}}
    (plugin_dir / "wheels.lock").write_text(json.dumps(lock, indent=2) + "\n")


def local_index(tmp_path: Path, wheel_version: str = VERSION, tag: str | None = None) -> tuple[str, Path]:
    """A package index on disk (PEP 503 layout) holding one wheel that fits."""
    project = tmp_path / "index" / "claude-tool-bridge"
    wheel = make_wheel(project, wheel_version, tag or f"cp310-abi3-{host_platform()}")
    (project / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    return (tmp_path / "index").as_uri(), wheel


@pytest.fixture
def target(tmp_path) -> str:
    """A fresh virtualenv (with pip) to install into: the Python running Agent Zero."""
    venv.EnvBuilder(with_pip=True).create(tmp_path / "venv")
    return str(tmp_path / "venv" / "bin" / "python")


@pytest.fixture
def plugin_dir(tmp_path) -> Path:
    folder = tmp_path / "claude_tool_bridge"
    folder.mkdir()
    (folder / "plugin.yaml").write_text(f"name: claude_tool_bridge\nversion: {VERSION}\n")
    return folder


@pytest.fixture
def no_index(monkeypatch):
    monkeypatch.setenv("PIP_INDEX_URL", UNREACHABLE_INDEX)
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)


def imported_version(python: str) -> str:
    done = subprocess.run([python, "-c", "import claude_tool_bridge as c; print(c.__version__)"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip()


# ---------------------------------------------------------------- which wheel fits


@pytest.mark.parametrize(
    "tags, fits",
    [
        ("cp310-abi3-{host}", True),
        ("cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64", sys.platform == "linux" and host_platform().endswith("x86_64")),
        ("cp310-abi3-linux_x86_64", sys.platform == "linux" and host_platform().endswith("x86_64")),
        ("cp310-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64", sys.platform == "linux" and host_platform().endswith("aarch64")),
        ("cp310-abi3-musllinux_1_2_x86_64", False),
        ("cp310-abi3-macosx_11_0_arm64", sys.platform == "darwin"),
        ("cp310-abi3-win_amd64", sys.platform == "win32"),
        ("cp399-abi3-{host}", False),  # needs a newer CPython than any there is
        ("pp310-pypy310_pp73-{host}", False),
        ("cp310-abi3-manylinux_2_99_x86_64", False),  # needs a glibc from the future
    ],
)
def test_a_wheel_fits_by_its_tags(tmp_path, tags, fits):
    wheel = make_wheel(tmp_path, VERSION, tags.format(host=host_platform()))
    for supported in (install.supported_tags(), install.stdlib_tags()):
        found = install.fitting_wheels(tmp_path, VERSION, supported)
        assert (found == [wheel]) is fits, (tags, supported[:3])


def test_the_stdlib_check_agrees_with_packaging_on_this_machine():
    packaging_tags = set(install.supported_tags())
    stdlib = install.stdlib_tags()
    assert stdlib, "no tags"
    assert set(stdlib) <= packaging_tags
    minor = sys.version_info[1]
    for older in range(10, minor + 1):
        assert (f"cp3{older}", "abi3", host_platform()) in stdlib


def test_only_the_plugins_version_is_taken(tmp_path):
    make_wheel(tmp_path, "0.0.9", f"cp310-abi3-{host_platform()}")
    assert install.fitting_wheels(tmp_path, VERSION, install.supported_tags()) == []


# ---------------------------------------------------------------- the three paths


def test_path_1_a_fitting_bundled_wheel_is_installed(plugin_dir, target, no_index):
    other = make_wheel(plugin_dir / "wheels", VERSION, "cp310-abi3-win_arm64")  # does not fit
    fitting = make_wheel(plugin_dir / "wheels", VERSION, f"cp310-abi3-{host_platform()}")
    write_lock(plugin_dir, other, fitting)
    outcome = install.ensure(plugin_dir, python=target)
    assert outcome == install.Outcome(True, f"bundled {fitting.name}")
    assert imported_version(target) == VERSION
    assert install.ensure(plugin_dir, python=target) == install.Outcome(True, "installed")


def test_path_2_the_package_index_when_no_bundled_wheel_fits(plugin_dir, target, tmp_path, monkeypatch):
    bundled = [make_wheel(plugin_dir / "wheels", VERSION, "cp310-abi3-win_arm64"),
               make_wheel(plugin_dir / "wheels", VERSION, "cp399-abi3-{}".format(host_platform()))]
    url, wheel = local_index(tmp_path)
    write_lock(plugin_dir, *bundled, wheel)  # the release lists every wheel it built
    monkeypatch.setenv("PIP_INDEX_URL", url)
    outcome = install.ensure(plugin_dir, python=target)
    assert outcome == install.Outcome(True, "index")
    assert imported_version(target) == VERSION


def test_path_3_inert_with_one_reason_when_nothing_works(plugin_dir, target, no_index):
    write_lock(plugin_dir, make_wheel(plugin_dir / "wheels", VERSION, "cp310-abi3-win_arm64"))
    outcome = install.ensure(plugin_dir, python=target)
    assert not outcome.ok
    assert "no bundled wheel fits" in outcome.reason and "win_arm64" in outcome.reason
    assert (f"claude-tool-bridge=={VERSION} with a sha256 from wheels.lock could not be installed "
            "from the package index") in outcome.reason
    assert f"{target} -m pip install claude-tool-bridge=={VERSION}" in outcome.fix
    assert "\n" not in outcome.reason + outcome.fix
    assert imported_version(target) == ""


def test_an_empty_wheels_folder_is_said_plainly(plugin_dir, target, no_index, tmp_path):
    _, wheel = local_index(tmp_path)
    write_lock(plugin_dir, wheel)
    outcome = install.ensure(plugin_dir, python=target)
    assert not outcome.ok
    assert outcome.reason.startswith("the plugin folder has no bundled wheel")


# ---------------------------------------------------------------- the lock


def test_an_unlocked_bundled_wheel_is_refused_without_running_pip(plugin_dir, tmp_path):
    """A wheel in wheels/ whose sha256 is not in the lock (swapped after the release) is never
    handed to pip; nor is an index wheel taken without the lock's hashes."""
    locked = make_wheel(tmp_path / "built", VERSION, f"cp310-abi3-{host_platform()}")
    write_lock(plugin_dir, locked)
    swapped = make_wheel(plugin_dir / "wheels", VERSION, f"cp310-abi3-{host_platform()}")
    swapped.write_bytes(swapped.read_bytes() + b"\0")  # same name, other bytes
    ran = []

    def refuse(command, **kwargs):
        ran.append((command, kwargs))
        return subprocess.CompletedProcess(command, 1, "", "ERROR: index down\n")

    outcome = install.ensure(plugin_dir, python="/venv/bin/python", run=refuse,
                             supported=install.supported_tags())
    assert not outcome.ok
    assert f"{swapped.name}: its sha256" in outcome.reason and "is not in wheels.lock" in outcome.reason
    [(command, kwargs)] = ran  # only the index attempt, pinned to the lock's hashes
    assert kwargs["timeout"] == install.INDEX_DEADLINE_S
    assert command[command.index("install") + 1:][:5] == ["--require-hashes", "--no-deps",
                                                          "--only-binary", ":all:", "-r"]


def test_an_index_wheel_whose_hash_is_not_in_the_lock_is_refused_by_pip(plugin_dir, target, tmp_path, monkeypatch):
    """Whoever registers the name on the index first cannot get code into Agent Zero: pip
    checks the downloaded wheel against the lock's hashes."""
    url, served = local_index(tmp_path)
    locked = make_wheel(tmp_path / "built", VERSION, "cp310-abi3-win_arm64")
    write_lock(plugin_dir, locked)  # the release built other bytes than the index serves
    monkeypatch.setenv("PIP_INDEX_URL", url)
    outcome = install.ensure(plugin_dir, python=target)
    assert not outcome.ok
    assert "could not be installed from the package index" in outcome.reason
    assert imported_version(target) == ""


@pytest.mark.parametrize(
    "plugin_yaml, lock, said",
    [
        ("name: claude_tool_bridge\n", True, "plugin.yaml states no version"),
        (f"name: claude_tool_bridge\nversion: {VERSION}\n", False, "the plugin has no wheels.lock"),
        (f"name: claude_tool_bridge\nversion: {VERSION}\n", "0.0.1", "wheels.lock is for version 0.0.1"),
        (f"name: claude_tool_bridge\nversion: {VERSION}\n", "garbage", "wheels.lock cannot be read"),
    ],
)
def test_no_version_or_no_lock_means_no_install_attempt_at_all(plugin_dir, tmp_path, plugin_yaml, lock, said):
    (plugin_dir / "plugin.yaml").write_text(plugin_yaml)
    wheel = make_wheel(plugin_dir / "wheels", VERSION, f"cp310-abi3-{host_platform()}")
    if lock == "garbage":
        (plugin_dir / "wheels.lock").write_text("{not json")
    elif lock:
        write_lock(plugin_dir, wheel, version=lock if isinstance(lock, str) else VERSION)
    ran = []
    outcome = install.ensure(plugin_dir, python="/venv/bin/python",
                             run=lambda command, **kw: ran.append(command),
                             supported=install.supported_tags())
    assert not outcome.ok and said in outcome.reason
    assert ran == []


def test_a_failed_index_attempt_is_remembered_for_a_day(plugin_dir, tmp_path):
    _, wheel = local_index(tmp_path)
    write_lock(plugin_dir, wheel)
    ran = []

    def stalled(command, **kwargs):
        ran.append(kwargs["timeout"])
        raise subprocess.TimeoutExpired(command, kwargs["timeout"])

    now = [1_800_000_000.0]
    attempt = lambda: install.ensure(plugin_dir, python="/venv/bin/python", run=stalled,  # noqa: E731
                                     supported=[], clock=lambda: now[0])
    first = attempt()
    assert not first.ok and f"gave up after {install.INDEX_DEADLINE_S} s" in first.reason
    assert ran == [install.INDEX_DEADLINE_S]
    now[0] += install.INDEX_RETRY_S - 60
    later = attempt()
    assert ran == [install.INDEX_DEADLINE_S], "not tried again within the day"
    assert "failed at" in later.reason and "tried again after" in later.reason
    assert str(plugin_dir / ".index-attempt.json") in later.fix
    now[0] += 120
    attempt()
    assert len(ran) == 2, "tried again after the day"
    write_lock(plugin_dir, wheel, make_wheel(tmp_path / "more", VERSION, "cp310-abi3-win_arm64"))
    attempt()
    assert len(ran) == 3, "a new lock is tried at once"


def test_every_pip_run_has_a_time_limit(plugin_dir, monkeypatch):
    wheel = make_wheel(plugin_dir / "wheels", VERSION, f"cp310-abi3-{host_platform()}")
    write_lock(plugin_dir, wheel)
    limits = []

    def fails(command, **kwargs):
        limits.append(kwargs.get("timeout"))
        return subprocess.CompletedProcess(command, 1, "", "ERROR: no\n")

    install.ensure(plugin_dir, python="/venv/bin/python", run=fails,
                   supported=install.supported_tags())
    monkeypatch.setattr(install, "installed_version", lambda python: VERSION)
    install.uninstall(python="/venv/bin/python", run=fails)
    assert limits == [install.BUNDLED_DEADLINE_S, install.INDEX_DEADLINE_S,
                      install.UNINSTALL_DEADLINE_S]


def test_pips_output_reaches_the_reason_as_one_plain_line(plugin_dir, tmp_path):
    _, wheel = local_index(tmp_path)
    write_lock(plugin_dir, wheel)
    noisy = "Looking\n\x1b[31mERROR: <b>no</b>\x07 match\x1b[0m\r\n"
    outcome = install.ensure(
        plugin_dir, python="/venv/bin/python", supported=[],
        run=lambda command, **kw: subprocess.CompletedProcess(command, 1, "", noisy))
    assert "(ERROR: <b>no</b> match)" in outcome.reason
    assert not any(c in outcome.reason for c in "\x1b\x07\r\n")


# ---------------------------------------------------------------- through Agent Zero


def test_startup_reports_once_and_agent_zero_runs_as_without_the_plugin(a0, monkeypatch, tmp_path):
    """The startup hook finds nothing that works: one log line, one notification, however
    often it runs and whoever else notices."""
    hooks_install = a0.install
    monkeypatch.setattr(hooks_install, "installed_version", lambda python: "")
    reason = install.Outcome(False, "", reason="no bundled wheel fits (wheels/ holds cp310-abi3-win_arm64) for CPython",
                             fix="install it by hand")
    monkeypatch.setattr(hooks_install, "ensure", lambda plugin_dir, **kw: reason)
    for _ in range(3):
        a0.extension.call_extensions_sync("startup_migration", None)
    said = [line for line in a0.printed if "inactive" in line]
    assert said == [
        "[claude_tool_bridge] inactive, Agent Zero runs as without this plugin: no bundled wheel "
        "fits (wheels/ holds cp310-abi3-win_arm64) for CPython. To fix: install it by hand."
    ]
    assert len(a0.notifications) == 1
    note = a0.notifications[0]
    assert note["title"] == "Claude Tool Bridge is inactive" and note["type"].value == "warning"


def test_a_plugin_without_a_lock_tries_nothing_and_says_so_once(a0, monkeypatch):
    """The plugin folder as the repository holds it has no wheels.lock: at startup it runs no
    pip at all, prints one line and sends one notification, however often it starts."""
    hooks_install = a0.install
    assert not (a0.root / "usr/plugins/claude_tool_bridge/wheels.lock").exists()
    ran = []
    monkeypatch.setattr(hooks_install, "installed_version", lambda python: "")
    monkeypatch.setattr(hooks_install.subprocess, "run", lambda command, **kw: ran.append(command))
    for _ in range(3):
        a0.extension.call_extensions_sync("startup_migration", None)
    assert ran == []
    said = [line for line in a0.printed if "inactive" in line]
    assert len(said) == 1 and "the plugin has no wheels.lock" in said[0]
    assert len(a0.notifications) == 1


def test_the_installer_hook_raises_with_the_reason(a0, monkeypatch):
    failed = install.Outcome(False, "", reason="nothing fits", fix="do this")
    monkeypatch.setattr(a0.install, "ensure", lambda plugin_dir, **kw: failed)
    with pytest.raises(RuntimeError, match="nothing fits. To fix: do this."):
        a0.plugins.call_plugin_hook("claude_tool_bridge", "install")


def test_uninstall_removes_the_wheel(a0, monkeypatch):
    ran = []
    monkeypatch.setattr(a0.install, "installed_version", lambda python: VERSION)
    monkeypatch.setattr(a0.install.subprocess, "run",
                        lambda command, **k: ran.append(command) or subprocess.CompletedProcess(command, 0))
    assert a0.plugins.call_plugin_hook("claude_tool_bridge", "uninstall") is True
    assert ran[0][-3:] == ["uninstall", "-y", "claude-tool-bridge"]


def test_uv_is_the_fallback_when_the_python_has_no_pip(plugin_dir, monkeypatch, tmp_path):
    """Agent Zero's Docker venv is made by uv and may have no pip: then `uv pip` runs, with
    only the options uv takes, and the same locked requirements file."""
    _, wheel = local_index(tmp_path)
    write_lock(plugin_dir, wheel)
    ran = []

    def fake_run(command, **kwargs):
        requirements = Path(command[command.index("-r") + 1]).read_text()
        ran.append((command, requirements))
        if command[1:3] == ["-m", "pip"]:
            return subprocess.CompletedProcess(command, 1, "", "/venv/bin/python: No module named pip\n")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(install.shutil, "which", lambda name: "/usr/bin/uv" if name == "uv" else None)
    monkeypatch.setattr(install, "installed_version", lambda python: "")
    outcome = install.ensure(plugin_dir, python="/venv/bin/python", run=fake_run, supported=[])
    assert outcome == install.Outcome(True, "index")
    (pip, pip_requirements), (uv, uv_requirements) = ran
    assert pip[:3] == ["/venv/bin/python", "-m", "pip"] and "--timeout" in pip
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert pip_requirements == uv_requirements == f"claude-tool-bridge=={VERSION} --hash=sha256:{digest}\n"
    assert uv[:2] == ["/usr/bin/uv", "pip"] and uv[-2:] == ["--python", "/venv/bin/python"]
    assert uv[2:9] == ["install", "--require-hashes", "--no-deps", "--only-binary", ":all:", "-r",
                       uv[8]]
