"""The plugin's Python rooms, and what each may import (checked on the source):

- helpers/install.py: the standard library only (it runs before the wheel exists);
- helpers/turns.py: the standard library and the wheel; never Agent Zero;
- helpers/agent_zero.py: the one module that imports Agent Zero;
- hooks.py: the standard library and the plugin's own helpers;
- api/settings.py: Agent Zero's API handler base and the plugin's own helpers.
"""

from __future__ import annotations

import ast
import sys

import pytest
from conftest import PLUGIN

HELPERS = "usr.plugins.claude_tool_bridge.helpers"
AGENT_ZERO_TOP = {"agent", "helpers", "models", "initialize", "python"}
ALLOWED = {
    "helpers/install.py": set(),
    "helpers/turns.py": {"claude_tool_bridge"},
    "helpers/agent_zero.py": {"helpers", HELPERS},
    "hooks.py": {HELPERS},
    "api/settings.py": {"helpers.api", HELPERS},
}


def imports(path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_each_room_imports_only_what_it_may(room):
    outside = set()
    for name in imports(PLUGIN / room):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names or top == "__future__":
            continue
        if name in ALLOWED[room] or top in ALLOWED[room] or name.startswith(f"{HELPERS}."):
            continue
        outside.add(name)
    assert outside == set(), f"{room} imports {outside}"


def test_agent_zero_py_is_the_only_helper_that_imports_agent_zero():
    importers = sorted(
        str(path.relative_to(PLUGIN))
        for path in (PLUGIN / "helpers").glob("*.py")
        if any(name.split(".")[0] in AGENT_ZERO_TOP for name in imports(path))
    )
    assert importers == ["helpers/agent_zero.py"]


def test_the_folder_has_what_agent_zero_looks_for():
    """plugin.yaml's name is the folder's; README and LICENSE (the Plugin Index wants them);
    a thumbnail where the plugin list looks for one (webui/thumbnail.png, square, like the
    core plugins' 256 x 256)."""
    import struct

    import yaml

    meta = yaml.safe_load((PLUGIN / "plugin.yaml").read_text())
    assert meta["name"] == PLUGIN.name == "claude_tool_bridge"
    assert (PLUGIN / "README.md").is_file() and (PLUGIN / "LICENSE").is_file()
    png = (PLUGIN / "webui" / "thumbnail.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (256, 256)
    assert len(png) < 64_000


def test_readme_and_settings_screen_describe_the_same_settings():
    """Every setting is in the README's table and on the settings screen, and the screen's
    hint for each switch says what the README's table says (one text for both)."""
    import html
    import re

    import claude_tool_bridge as ctb

    readme = (PLUGIN / "README.md").read_text()
    screen = (PLUGIN / "webui" / "config.html").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| `[^`]*` \| (.*) \|$", readme, re.MULTILINE))
    assert list(rows) == list(ctb.Config().to_dict())
    for key in rows:
        assert f"config.{key}" in screen, key
    hints = {
        title: " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())
        for title, text in re.findall(
            r'field-title">([^<]+)</div>\s*<div class="field-description">(.*?)</div>', screen, re.S
        )
    }
    assert hints["Prose as response"] == rows["prose_as_response"]


def test_the_plugin_type_checks_against_the_wheels_stubs(tmp_path, monkeypatch):
    """mypy over the three rooms (laid out as Agent Zero imports them), with the wheel's
    own stubs: the flow from `agent_zero.bridge()` to `turns.Bridge` is typed."""
    import shutil

    api = pytest.importorskip("mypy.api")
    package = tmp_path / "usr" / "plugins" / "claude_tool_bridge"
    shutil.copytree(PLUGIN, package, ignore=shutil.ignore_patterns("wheels", "__pycache__"))
    for folder in (tmp_path / "usr", tmp_path / "usr" / "plugins", package):
        (folder / "__init__.py").touch()
    monkeypatch.chdir(tmp_path)
    out, err, status = api.run([
        "--ignore-missing-imports", "--explicit-package-bases", "--no-error-summary",
        "--cache-dir", str(tmp_path / ".mypy_cache"), "-p", "usr.plugins.claude_tool_bridge.helpers",
    ])
    assert status == 0, out + err
