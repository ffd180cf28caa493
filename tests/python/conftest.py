"""Fixtures: a fake Agent Zero tree per generation (v1.x, v2.6, newest) with the plugin
copied to usr/plugins/claude_tool_bridge, imported fresh for each test."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PLUGIN = REPO / "plugin" / "claude_tool_bridge"
GENERATIONS = ("v1", "v26", "newest")
# Each stand-in tree is built from layers, later ones overriding earlier files: the newest
# generation is v2.6 plus its own extension points and result type.
LAYERS = {
    "v1": ("_shared", "v1"),
    "v26": ("_shared", "v26"),
    "newest": ("_shared", "v26", "newest"),
}
SYSTEM_PROMPT = (HERE / "data" / "system_prompt.md").read_text()

sys.path.insert(0, str(HERE))


def _purge() -> None:
    for name in list(sys.modules):
        top = name.split(".")[0]
        if name in ("agent", "a0loop") or top in ("helpers", "usr", "extensions", "api") or name.startswith(("a0ext_", "a0hooks_", "a0api_", "_ic_checker")):
            del sys.modules[name]


def build_root(generation: str, tmp: Path) -> Path:
    root = tmp / f"a0_{generation}"
    for layer in LAYERS[generation]:
        shutil.copytree(HERE / "a0" / layer, root, dirs_exist_ok=True)
    shutil.copytree(
        PLUGIN,
        root / "usr" / "plugins" / "claude_tool_bridge",
        ignore=shutil.ignore_patterns("__pycache__", "wheels"),
    )
    return root


@pytest.fixture
def a0_factory(tmp_path):
    roots: list[str] = []

    def make(generation: str) -> SimpleNamespace:
        root = build_root(generation, tmp_path)
        _purge()
        sys.path.insert(0, str(root))
        roots.append(str(root))
        return SimpleNamespace(
            generation=generation,
            root=root,
            agent_module=importlib.import_module("agent"),
            # the plugin's rooms: the one that imports Agent Zero, the logic on the wheel, the
            # installer (standard library only)
            agent_zero=importlib.import_module("usr.plugins.claude_tool_bridge.helpers.agent_zero"),
            turns=importlib.import_module("usr.plugins.claude_tool_bridge.helpers.turns"),
            install=importlib.import_module("usr.plugins.claude_tool_bridge.helpers.install"),
            plugins=importlib.import_module("helpers.plugins"),
            extension=importlib.import_module("helpers.extension"),
            errors=importlib.import_module("helpers.errors"),
            printed=importlib.import_module("helpers.print_style").LINES,
            notifications=importlib.import_module("helpers.notification").SENT,
        )

    yield make
    for root in roots:
        if root in sys.path:
            sys.path.remove(root)
    _purge()


@pytest.fixture(params=GENERATIONS)
def a0(request, a0_factory):
    return a0_factory(request.param)
