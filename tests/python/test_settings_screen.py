"""The settings screen's data, as Agent Zero's settings API hands it over (all three
generations: `api/plugins.py` reads a saved config.json as it is and calls the plugin's
`get_plugin_config` hook only when there is no file), and the plugin's own API
(`api/settings.py`) the screen asks what those settings amount to.

The browser test (`test_browser.py`) drives the screen itself; this file checks the data
behind it for many saved files."""

from __future__ import annotations

import claude_tool_bridge as ctb
import pytest

NAME = "claude_tool_bridge"
DEFAULTS = ctb.Config().to_dict()

# Saved files, as a user or an older version may have left them.
SAVED_FILES = {
    "nothing saved yet": None,
    "only differences": {"early_stop": False, "models": ["claude"]},
    "every key, an older version's save": {**DEFAULTS, "prose_min_chars": 1200},
    "one family changed": {"families": {"kimi": ["kimi", "k2"]}},
    "bad values": {"enabled": "false", "models": ["claude", 5], "prose_min_chars": "lots"},
    "an unknown key": {"colour": "blue", "loop_guard": False},
    "a non-mapping families": {"families": ["claude"]},
    "a deployment's forms": {"forms": {"*deepseek-v4*": ["qwen3_coder"]}},
    "a bad form code": {"forms": {"v4": ["qwen3_coder", "qwen3"], "odd": 3}},
}


def settings(shown):
    return {k: v for k, v in shown.items() if not k.startswith("_")}


def get_config(a0, saved):
    """What Agent Zero's settings API (`_get_config`) hands the screen."""
    if saved is not None:
        a0.plugins.SAVED[NAME] = saved
        return dict(saved)  # the file as it is: no hook
    a0.plugins.SAVED.pop(NAME, None)
    return a0.plugins.get_plugin_config(NAME) or {}


async def view(a0, form, loaded=True):
    """The plugin's API, as the screen calls it (`loaded`: the form is what it loaded)."""
    from helpers.api import load_handler

    handler = load_handler(a0.root / "usr" / "plugins" / NAME / "api" / "settings.py")
    return await handler().process(
        {"settings": form, "loaded": loaded, "project_name": "", "agent_profile": ""}, None)


def in_force(a0, saved):
    """What the bridge runs with for `saved` (through the load hook, as a turn reads it)."""
    if saved is None:
        a0.plugins.SAVED.pop(NAME, None)
    else:
        a0.plugins.SAVED[NAME] = saved
    config, _ = a0.turns.config_from_settings(a0.plugins.get_plugin_config(NAME))
    return config.to_dict()


@pytest.mark.parametrize("saved", list(SAVED_FILES.values()), ids=list(SAVED_FILES))
async def test_the_screen_shows_what_is_in_force_and_a_save_keeps_it(a0, saved):
    form = get_config(a0, saved)
    answer = await view(a0, form)
    assert answer["ok"] is True
    shown = answer["data"]
    assert settings(shown) == in_force(a0, saved)
    assert set(settings(shown)) == set(DEFAULTS)  # every key, whatever the file leaves out
    # Save what the screen shows, unchanged: only differences are stored, and they are what
    # was in force (nothing the user did not change becomes an explicit default).
    a0.plugins.save_plugin_config(NAME, "", "", shown)
    stored = a0.plugins.SAVED[NAME]
    assert stored == ctb.Config.from_dict(settings(shown)).overrides()
    assert all(stored[k] != DEFAULTS[k] for k in stored if k != "families")
    # Reopening shows the same settings.
    again = (await view(a0, get_config(a0, stored)))["data"]
    assert settings(again) == settings(shown)


async def test_each_warning_is_shown_with_its_key(a0):
    form = get_config(a0, SAVED_FILES["bad values"] | {"colour": 1})
    shown = (await view(a0, form))["data"]
    keys = [w["key"] for w in shown["_warnings"]]
    assert keys == ["enabled", "models", "prose_min_chars", "colour"]
    texts = {w["key"]: w["text"] for w in shown["_warnings"]}
    assert "the bridge is off" in texts["enabled"]
    assert texts["prose_min_chars"].endswith("the default (800) is used")
    assert shown["enabled"] is False and shown["models"] == ["claude"]
    assert shown["prose_min_chars"] == 800
    # the same lines the log has, once each
    said = [line.split("settings: ", 1)[1] for line in a0.printed if "settings: " in line]
    assert said == [w["text"] for w in shown["_warnings"]]


async def test_a_bad_form_code_is_shown_at_the_forms_field(a0):
    shown = (await view(a0, get_config(a0, SAVED_FILES["a bad form code"])))["data"]
    assert [w["key"] for w in shown["_warnings"]] == ["forms", "forms"]
    assert "`qwen3` is not a markup form" in shown["_warnings"][0]["text"]
    assert shown["forms"] == {"v4": ["qwen3_coder"], "odd": []}


async def test_a_file_agent_zero_cannot_use_leaves_the_bridge_off_on_the_screen_too(a0):
    shown = (await view(a0, ["not", "a", "mapping"]))["data"]
    assert shown["enabled"] is False
    assert [w["key"] for w in shown["_warnings"]] == [""]


async def test_a_file_agent_zero_cannot_read_shows_the_bridge_off(a0):
    """A broken config.json: Agent Zero's settings API fails and the screen gets nothing
    (`{}`), while a turn finds the settings unreadable and runs with the bridge off. The
    screen shows that, and why; a form the user changed since (Reset to default) is shown
    as it is."""
    a0.plugins.SAVED[NAME] = a0.plugins.Unparsable("{")
    runs_with, _ = a0.turns.config_from_settings(a0.agent_zero._load_settings(None))
    assert runs_with.enabled is False  # what a turn finds
    shown = (await view(a0, {}))["data"]
    assert shown["enabled"] is False
    [warning] = shown["_warnings"]
    assert warning["key"] == "" and "the bridge is off until they are fixed" in warning["text"]
    reset = (await view(a0, dict(DEFAULTS), loaded=False))["data"]
    assert settings(reset) == DEFAULTS and reset["_warnings"] == []


async def test_without_the_wheel_the_screen_is_told_it_shows_the_file(a0, monkeypatch):
    from test_hooks import _hide_the_wheel

    _hide_the_wheel(a0, monkeypatch)
    answer = await view(a0, {"early_stop": False})
    assert answer["ok"] is False and "not installed" in answer["error"]


def test_the_re_asks_line_counts_in_words(a0):
    usage = a0.turns.Usage(turns=2, calls=3, reasks={"loop": 1})
    assert usage.summary() == "The last conversation: 2 turns, 1 re-ask (loop 1), 3 model calls."
    usage = a0.turns.Usage(turns=1, calls=1, backoff={"loop": 1})
    assert usage.summary() == (
        "The last conversation: 1 turn, no re-asks. Switched off after re-asks that did not pay "
        "off: loop for 1 more turn.")
