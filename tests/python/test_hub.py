"""What `cargo xtask bundle` (and `cargo xtask dist`, which calls the same code) ships, checked
the way its readers check it (what a release ships is what they accept):

- the Plugin Hub entry as agent0ai/a0-plugins' pull-request check reads it: one folder named
  like a plugin, holding `index.yaml` and at most one thumbnail, nothing else; `index.yaml`
  short, with only the allowed fields, the required ones non-empty strings, a GitHub
  repository URL, at most five tags; the thumbnail square and at most 20 KB (opened with
  Pillow, as the hub does); the repository's root `plugin.yaml` named as the folder (the
  hub fetches it from GitHub; here the root-level plugin tree stands for that repository);
- the root-level plugin tree as Agent Zero's installer reads it after `git clone`:
  `plugin.yaml` at the root naming the plugin, `thumbnail.png` at the root (where the hub
  looks for one), README and LICENSE, the lock and no wheels; installed from the package
  index, only a wheel whose sha256 the lock lists goes in;
- the bundle: every wheel in `wheels/` and each one's sha256 in `wheels.lock`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import claude_tool_bridge as ctb
import pytest
from conftest import PLUGIN, REPO
from test_install import host_platform, make_wheel

yaml = pytest.importorskip("yaml")
Image = pytest.importorskip("PIL.Image")

spec = importlib.util.spec_from_file_location("ctb_install_for_hub", PLUGIN / "helpers" / "install.py")
install = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = install
spec.loader.exec_module(install)

VERSION = ctb.__version__
NAME = "claude_tool_bridge"
# The hub's rules (agent0ai/a0-plugins README, "Automated validation").
PLUGIN_NAME_RULE = re.compile(r"^[a-z0-9_]+$")
GITHUB_REPO = re.compile(r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$")
ALLOWED_FIELDS = {"title", "description", "github", "tags", "screenshots"}
REQUIRED_FIELDS = {"title", "description", "github"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp"}


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> tuple[Path, list[Path]]:
    """Runs `cargo xtask bundle` on two wheels (one for this machine, one for Windows)."""
    tmp = tmp_path_factory.mktemp("bundle")
    wheels = [make_wheel(tmp / "wheels", VERSION, f"cp310-abi3-{host_platform()}"),
              make_wheel(tmp / "wheels", VERSION, "cp310-abi3-win_amd64")]
    cargo = os.environ.get("CARGO", "cargo")
    done = subprocess.run(
        [cargo, "run", "--quiet", "--package", "xtask", "--", "bundle",
         "--wheels", str(tmp / "wheels"), "--out", str(tmp / "out")],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    return tmp / "out", wheels


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- the hub's pull-request check


def check_hub_entry(plugins: Path, repository_root: Path) -> None:
    """Fails (AssertionError) where agent0ai/a0-plugins' check of a submission would fail."""
    [folder] = [p for p in plugins.iterdir()]
    name = folder.name
    assert PLUGIN_NAME_RULE.fullmatch(name) and not name.startswith("_"), name
    files = sorted(folder.iterdir())
    assert all(f.is_file() for f in files), "no folders in the entry"
    thumbnails = [f for f in files if f.stem == "thumbnail"]
    assert len(thumbnails) <= 1
    for f in files:
        assert f.name == "index.yaml" or (f.stem == "thumbnail" and f.suffix.lower() in IMAGE_SUFFIXES), f
    text = (folder / "index.yaml").read_text(encoding="utf-8")
    assert len(text) <= 2000
    meta = yaml.safe_load(text)
    assert isinstance(meta, dict)
    assert set(meta) <= ALLOWED_FIELDS, set(meta) - ALLOWED_FIELDS
    for key in REQUIRED_FIELDS:
        assert isinstance(meta.get(key), str) and meta[key].strip(), key
    assert len(meta["title"].strip()) <= 50
    assert len(meta["description"].strip()) <= 500
    assert GITHUB_REPO.match(meta["github"].strip()), meta["github"]
    tags = meta.get("tags")
    if tags is not None:
        assert isinstance(tags, list) and all(isinstance(t, str) and t.strip() for t in tags)
        assert len(tags) <= 5
    assert "screenshots" not in meta or (isinstance(meta["screenshots"], list) and len(meta["screenshots"]) <= 5)
    for thumbnail in thumbnails:
        assert thumbnail.stat().st_size <= 20 * 1024
        with Image.open(thumbnail) as image:
            width, height = image.size
        assert width == height
    # the repository `github` names: its root plugin.yaml, named as the entry's folder
    remote = yaml.safe_load((repository_root / "plugin.yaml").read_text(encoding="utf-8"))
    assert isinstance(remote, dict)
    assert isinstance(remote.get("name"), str) and PLUGIN_NAME_RULE.fullmatch(remote["name"])
    assert remote["name"] == name


def test_the_hub_entry_passes_the_hubs_check(shipped):
    out, _ = shipped
    check_hub_entry(out / "hub" / "a0-plugins" / "plugins", out / "hub" / NAME)
    assert (out / "hub" / "a0-plugins" / "plugins" / NAME / "index.yaml").read_bytes() == (
        REPO / "plugin" / "hub" / "index.yaml").read_bytes()


@pytest.mark.parametrize(
    "index_yaml, thumbnail_size, rule",
    [
        ("title: x\ndescription: y\ngithub: https://github.com/o/r\nauthor: me\n", None, "fields"),
        ("title: x\ndescription: y\n", None, "required"),
        ("title: x\ndescription: y\ngithub: https://gitlab.com/o/r\n", None, "github"),
        ("title: " + "x" * 51 + "\ndescription: y\ngithub: https://github.com/o/r\n", None, "title"),
        ("title: x\ndescription: y\ngithub: https://github.com/o/r\ntags: [a, b, c, d, e, f]\n", None, "tags"),
        (None, (200, 100), "square"),
    ],
)
def test_the_check_itself_fails_where_the_hub_does(shipped, tmp_path, index_yaml, thumbnail_size, rule):
    """The check above is no formality: each rule of the hub it mirrors can fail."""
    out, _ = shipped
    plugins = tmp_path / "plugins"
    shutil.copytree(out / "hub" / "a0-plugins" / "plugins", plugins)
    if index_yaml is not None:
        (plugins / NAME / "index.yaml").write_text(index_yaml)
    if thumbnail_size is not None:
        Image.new("RGB", thumbnail_size).save(plugins / NAME / "thumbnail.png")
    with pytest.raises(AssertionError):
        check_hub_entry(plugins, out / "hub" / NAME)


# ---------------------------------------------------------------- the root-level plugin tree


def test_the_root_level_tree_is_the_plugin_with_its_lock_and_no_wheels(shipped):
    out, wheels = shipped
    tree = out / "hub" / NAME
    meta = yaml.safe_load((tree / "plugin.yaml").read_text())
    assert meta["name"] == NAME and meta["version"] == VERSION
    for required in ("README.md", "LICENSE", "thumbnail.png", "hooks.py", "default_config.yaml",
                     "webui/config.html", "helpers/install.py", "wheels.lock"):
        assert (tree / required).is_file(), required
    assert not (tree / "wheels").exists(), "the hub tree takes its wheel from the index"
    with Image.open(tree / "thumbnail.png") as image:
        assert image.size[0] == image.size[1]
    lock = json.loads((tree / "wheels.lock").read_text())
    assert lock["version"] == VERSION
    assert lock["wheels"] == {w.name: sha256(w) for w in wheels}
    # the plugin's own files are those of plugin/claude_tool_bridge
    for source in PLUGIN.rglob("*"):
        if source.is_file() and "__pycache__" not in source.parts and source.suffix != ".pyc":
            assert (tree / source.relative_to(PLUGIN)).read_bytes() == source.read_bytes()


def test_the_root_level_tree_installs_only_the_locked_index_wheel(shipped, tmp_path, monkeypatch):
    """Agent Zero's hub installer clones the tree into usr/plugins/<name> and runs the
    `install` hook: the wheel comes from the package index, and only with a locked hash."""
    out, wheels = shipped
    plugin = tmp_path / "usr" / "plugins" / NAME
    shutil.copytree(out / "hub" / NAME, plugin)
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    python = str(target / "bin" / "python")
    index = tmp_path / "index" / "claude-tool-bridge"
    index.mkdir(parents=True)
    # a wheel of the right name and version, but other bytes than the release built
    impostor = make_wheel(tmp_path / "impostor", VERSION, f"cp310-abi3-{host_platform()}")
    shutil.copy(impostor, index / impostor.name)
    (index / "index.html").write_text(f'<a href="{impostor.name}">{impostor.name}</a>\n')
    monkeypatch.setenv("PIP_INDEX_URL", (tmp_path / "index").as_uri())
    refused = install.ensure(plugin, python=python)
    assert not refused.ok and "could not be installed from the package index" in refused.reason
    # the release's own wheel, served by the index
    shutil.copy(wheels[0], index / impostor.name)
    (plugin / install.INDEX_STATE_NAME).unlink()  # the failed attempt is otherwise remembered
    assert install.ensure(plugin, python=python) == install.Outcome(True, "index")


# ---------------------------------------------------------------- the bundle


def test_the_bundle_carries_every_wheel_and_their_lock(shipped):
    out, wheels = shipped
    with zipfile.ZipFile(out / f"{NAME}-plugin-{VERSION}.zip") as bundle:
        names = set(bundle.namelist())
        lock = json.loads(bundle.read(f"{NAME}/wheels.lock"))
        for wheel in wheels:
            assert f"{NAME}/wheels/{wheel.name}" in names
            assert bundle.read(f"{NAME}/wheels/{wheel.name}") == wheel.read_bytes()
    assert lock["wheels"] == {w.name: sha256(w) for w in wheels}
    assert f"{NAME}/plugin.yaml" in names and f"{NAME}/LICENSE" in names
    with zipfile.ZipFile(out / f"{NAME}-hub-{VERSION}.zip") as hub:
        assert f"{NAME}/plugin.yaml" in hub.namelist()
        assert f"a0-plugins/plugins/{NAME}/index.yaml" in hub.namelist()


def test_bundle_refuses_wheels_of_another_version(tmp_path):
    make_wheel(tmp_path / "wheels", "0.0.1", f"cp310-abi3-{host_platform()}")
    done = subprocess.run(
        [os.environ.get("CARGO", "cargo"), "run", "--quiet", "--package", "xtask", "--", "bundle",
         "--wheels", str(tmp_path / "wheels"), "--out", str(tmp_path / "out")],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 1
    assert f"is not a wheel of claude-tool-bridge {VERSION}" in done.stderr


def test_the_release_checklist_registers_the_name_before_a_bundle_without_wheels():
    readme = (REPO / "README.md").read_text()
    checklist = readme[readme.index("### Release checklist"):]
    checklist = checklist[: checklist.index("\n## ")]
    step = next(line for line in checklist.split("\n2. ")[1:])
    assert "claude-tool-bridge" in step and "registered before any" in step
    assert "without wheels is published" in " ".join(step.split())
