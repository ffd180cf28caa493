"""Agent Zero's hooks for this plugin (called through `helpers.plugins.call_plugin_hook`).

- `ensure_dependencies()`: from the `startup_migration` extension at every start; makes the
  wheel importable (see `helpers/install.py` for the order) or reports once why not.
- `install()`: from the plugin installer; the same, raising when it fails.
- `uninstall()`: before the plugin folder is deleted; removes the wheel again.
- `get_plugin_config()`: the plugin reads every key, the saved values laid over the defaults
  (Agent Zero hands back a saved `config.json` as it is). Agent Zero's settings screen calls
  it only when no `config.json` exists; the screen (`webui/config.html`) therefore asks the
  plugin's API (`api/settings.py`) what the settings it got amount to.
- `save_plugin_config()`: the settings screen saves only what differs from the defaults.

The work is done in `helpers/` (`install`: standard library only; `agent_zero`: the module
that imports Agent Zero); nothing here needs the wheel to be installed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from usr.plugins.claude_tool_bridge.helpers import agent_zero
from usr.plugins.claude_tool_bridge.helpers import install as wheel

PLUGIN_DIR = Path(__file__).resolve().parent


def ensure_dependencies(raise_on_error: bool = False) -> bool:
    """Makes `import claude_tool_bridge` give the plugin's version in this Python. Never
    raises into Agent Zero's startup; with `raise_on_error` (the installer) a failure raises
    RuntimeError with the reason, which the installer shows."""
    try:
        outcome = wheel.ensure(PLUGIN_DIR)
    except Exception as error:  # noqa: BLE001 - a failure of the installer itself
        outcome = wheel.Outcome(
            False,
            "",
            reason=f"installing the wheel failed ({type(error).__name__}: {error})",
            fix="please report this line; meanwhile install the wheel by hand with "
            f"`{sys.executable} -m pip install claude-tool-bridge` and restart Agent Zero",
        )
    if outcome.ok:
        if outcome.source != "installed":
            version = wheel.plugin_version(PLUGIN_DIR)
            agent_zero.say(
                f"installed claude-tool-bridge {version} ({outcome.source}) into {sys.executable}"
            )
        return True
    if raise_on_error:
        raise RuntimeError(f"{agent_zero.plain(outcome.reason, 1000)}. To fix: {outcome.fix}.")
    agent_zero.report_inactive(outcome.reason, outcome.fix)
    return False


def install() -> bool:
    """The plugin installer's hook: raises RuntimeError when the wheel cannot be put in
    place (the installer then removes the plugin folder and shows why)."""
    return ensure_dependencies(raise_on_error=True)


def uninstall() -> bool:
    """Removes the wheel so nothing of the plugin stays behind. Never raises: the folder is
    deleted anyway."""
    try:
        removed = wheel.uninstall()
    except Exception as error:  # noqa: BLE001
        agent_zero.say(f"removing the wheel failed: {type(error).__name__}: {error}", error=True)
        removed = False
    if removed:
        agent_zero.say("removed the claude-tool-bridge wheel")
        return True
    agent_zero.say(
        f"could not remove the claude-tool-bridge wheel; run: {sys.executable} -m pip "
        "uninstall claude-tool-bridge",
        error=True,
    )
    return False


def get_plugin_config(default: Any = None, **kwargs: Any) -> Any:
    """`default` is what Agent Zero read (a saved config.json, or default_config.yaml)."""
    return agent_zero.settings_for_display(default)


def save_plugin_config(settings: Any = None, default: Any = None, **kwargs: Any) -> Any:
    """Returns what Agent Zero writes to config.json: the keys that differ from the defaults."""
    return agent_zero.settings_to_store(settings if settings is not None else default)
