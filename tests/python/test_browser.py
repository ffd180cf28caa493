"""In a real browser (headless Chromium over its DevTools protocol): what a user sees of the
plugin in Agent Zero's web UI, on a faithful serving of the UI's chat log and plugin
settings modal (`webui/`, `a0ui.py`) with the plugin's own `webui/config.html`, on the
stand-ins of the three generations.

- the chat: a conversation whose calls leaked (one of them dropped and asked again) reads as
  its JSON twin does: the same titled steps with their thoughts, the answer, the END badge;
- the settings screen: the defaults with no file saved; a save stores only the change and a
  reopen still shows every other key at its default; bad saved values are shown as they are
  in force, each warning next to its field; an edited family; Reset to default; the re-asks
  line after a conversation; no horizontal scroll at a desktop and a narrow width; no
  JavaScript error.

Not covered here: Agent Zero's own JavaScript (its component loader, message renderer and
settings store are stood in for, after what they do), its live streaming updates (the pages
draw the log as a reload does), CSRF and login, and Alpine 3.14.9 (the wheel ships 3.14.7).
Set CTB_SCREENSHOTS=<folder> to keep a screenshot of each page."""

from __future__ import annotations

import json

import claude_tool_bridge as ctb
import pytest
from a0ui import AgentZeroWeb
from cdp import Browser, screenshots_dir
from replies import LS_CALL, UNKNOWN_TOOL_CALL
from test_ui_log import ANSWER, RESPONSE_CALL, Case, run
from test_hooks import ai_messages

NAME = "claude_tool_bridge"
DEFAULTS = ctb.Config().to_dict()


@pytest.fixture(scope="module")
def browser():
    with Browser() as chromium:
        yield chromium


def shot(page, name):
    folder = screenshots_dir()
    if folder is not None:
        page.screenshot(folder / f"{name}.png")


CHAT = """(() => Array.from(document.querySelectorAll('.process-group')).map(g => ({
    badge: g.querySelector('.process-group-header .step-badge').textContent,
    title: g.querySelector('.group-title').textContent,
    steps: Array.from(g.querySelectorAll('.process-step')).map(s => ({
        title: s.querySelector('.step-title').textContent,
        thoughts: s.querySelector('.step-thoughts').textContent,
        tool: s.querySelector('.tool-name-badge').textContent,
        line: s.querySelector('.step-line').textContent})),
    answers: Array.from(g.querySelectorAll('.process-group-response')).map(a => ({
        text: a.textContent, finished: a.dataset.finished}))})))()"""


def chat_as_drawn(browser, web, logs, name):
    web.logs = logs
    page = browser.page()
    page.goto(web.base_url + "/chat.html")
    drawn = page.eval(CHAT)
    shot(page, name)
    assert page.errors == []
    return drawn


@pytest.mark.parametrize("generation", ["v1", "v26", "newest"])
async def test_a_leaked_conversation_reads_in_the_browser_like_its_json_twin(browser, a0_factory, generation):
    a0 = a0_factory(generation)
    case = Case("", [UNKNOWN_TOOL_CALL, LS_CALL, RESPONSE_CALL], [], ANSWER, turns=2)
    leaked, _ = await run(a0, case, case.replies)
    twin, _ = await run(a0, case, ai_messages(leaked))
    with AgentZeroWeb(a0) as web:
        drawn = chat_as_drawn(browser, web, leaked.ui_log(), f"chat-{generation}")
        assert drawn == chat_as_drawn(browser, web, twin.ui_log(), f"chat-{generation}-json")
    [group] = drawn
    assert group["badge"] == "END"
    assert [s["title"] for s in group["steps"]] == ["A0: Running a terminal command", "A0: Responding"]
    requests = [json.loads(r) for r in ai_messages(leaked)]
    assert [s["thoughts"] for s in group["steps"]] == ["\n".join(r["thoughts"]) for r in requests]
    assert [s["tool"] for s in group["steps"]] == ["code_execution_tool", "response"]
    assert all(s["line"] == "" for s in group["steps"])
    assert group["answers"] == [{"text": ANSWER, "finished": "true"}]
    assert "no_such_tool" not in json.dumps(drawn)  # the dropped reply is nowhere


# ---------------------------------------------------------------- the settings screen

FIELDS = """(() => {
    const field = (key) => document.querySelector(`[data-key="${key}"]`);
    const checked = (key) => field(key).querySelector('input[type=checkbox]').checked;
    const warnings = (key) => Array.from(field(key).querySelectorAll('.ctb-warning')).map(w => w.textContent);
    const families = Array.from(document.querySelectorAll('.ctb-family')).map(f => ({
        code: f.dataset.family, title: f.querySelector('.ctb-family-name').textContent.replace(/\\s+/g, ' ').trim(),
        value: f.querySelector('input').value, width: f.querySelector('input').getBoundingClientRect().width}));
    const scroll = document.getElementById('modal-scroll');
    const texts = Array.from(document.querySelectorAll('#modal *')).filter(e => e.children.length === 0)
        .map(e => e.textContent.trim());
    return {
        enabled: checked('enabled'), early_stop: checked('early_stop'), stop_sequence: checked('stop_sequence'),
        loop_guard: checked('loop_guard'), prose_as_response: checked('prose_as_response'),
        all_forms: checked('all_forms'),
        models: field('models').querySelector('input').value,
        prose_min_chars: field('prose_min_chars').querySelector('input').value,
        families,
        warnings: Object.fromEntries(['enabled', 'models', 'families', 'prose_min_chars']
            .map(k => [k, warnings(k)])),
        top_warnings: Array.from(document.querySelectorAll('.ctb-note li')).map(w => w.textContent),
        file_note: getComputedStyle(document.querySelector('.ctb-note')).display !== 'none',
        reasks: Array.from(document.querySelectorAll('.section-description'))
            .map(d => d.textContent.replace(/\\s+/g, ' ').trim()).filter(t => t.startsWith('Re-asks:')),
        enabled_labels: texts.filter(t => t === 'Enabled').length,
        horizontal_scroll: scroll.scrollWidth > scroll.clientWidth
            || document.documentElement.scrollWidth > window.innerWidth,
        unsaved: window.pluginSettings.hasUnsavedChanges,
    };
})()"""


def open_settings(browser, web, name, width=1280):
    page = browser.page(width, 900)
    page.goto(web.base_url + "/settings.html")
    page.wait("document.querySelectorAll('.ctb-family').length > 0 "
              "&& window.pluginSettings.settings._reasks !== undefined")
    shot(page, name)
    return page


def defaults_shown(fields):
    return {
        "enabled": fields["enabled"], "early_stop": fields["early_stop"],
        "stop_sequence": fields["stop_sequence"], "loop_guard": fields["loop_guard"],
        "prose_as_response": fields["prose_as_response"], "all_forms": fields["all_forms"],
        "models": fields["models"], "prose_min_chars": fields["prose_min_chars"],
        "families": {f["code"]: f["value"] for f in fields["families"]},
    }


def as_shown(config):
    return {
        **{k: config[k] for k in ("enabled", "early_stop", "stop_sequence", "loop_guard",
                                  "prose_as_response", "all_forms")},
        "models": ", ".join(config["models"]), "prose_min_chars": str(config["prose_min_chars"]),
        "families": {k: ", ".join(v) for k, v in config["families"].items()},
    }


def click(page, selector):
    page.eval(f"document.querySelector({json.dumps(selector)}).click()")


def set_text(page, selector, value):
    page.eval(f"""(() => {{ const input = document.querySelector({json.dumps(selector)});
        input.value = {json.dumps(value)}; input.dispatchEvent(new Event('change')); }})()""")


def save(page, saves):
    click(page, "#save")
    page.wait(f"window.pluginSettings.saved === {saves}")


@pytest.mark.parametrize("generation", ["v1", "v26", "newest"])
def test_the_settings_screen_shows_what_is_in_force_after_any_save(browser, a0_factory, generation):
    a0 = a0_factory(generation)
    saved = a0.plugins.SAVED
    with AgentZeroWeb(a0) as web:
        # Nothing saved yet: the defaults, the families one per line, readable.
        page = open_settings(browser, web, f"settings-{generation}-defaults")
        fields = page.eval(FIELDS)
        assert defaults_shown(fields) == as_shown(DEFAULTS)
        assert [f["title"] for f in fields["families"]][:2] == ["Claude claude", "MiniMax minimax"]
        # Every family of the registry, one per line (the count follows the registry's rows).
        assert len(fields["families"]) == len(DEFAULTS["families"]) >= 13
        assert min(f["width"] for f in fields["families"]) > 300
        assert fields["enabled_labels"] == 1  # Agent Zero's switch; the bridge's is "Bridge on"
        assert not fields["horizontal_scroll"] and not fields["file_note"]
        assert fields["warnings"] == {"enabled": [], "models": [], "families": [], "prose_min_chars": []}
        assert fields["reasks"] == ["Re-asks: No conversation since Agent Zero started. When a reply is "
                                    "dropped the bridge asks the model again (at most two times in a turn); a "
                                    "cause whose re-ask did not give a usable reply, or that needed two re-asks "
                                    "within 20 turns, is switched off for the next 20 turns of that conversation."]
        assert fields["unsaved"] is False

        # One switch off, saved: only that is stored; reopening shows every other key as before.
        click(page, '[data-key="early_stop"] input')
        save(page, 1)
        assert saved[NAME] == {"early_stop": False}
        page = open_settings(browser, web, f"settings-{generation}-reopened")
        fields = page.eval(FIELDS)
        assert defaults_shown(fields) == {**as_shown(DEFAULTS), "early_stop": False}
        assert fields["unsaved"] is False  # filling in the defaults is no change of the user's
        save(page, 1)
        assert saved[NAME] == {"early_stop": False}  # no default became an explicit value

        # A family edited in its own line.
        set_text(page, '[data-family="kimi"] input', "kimi, k2")
        save(page, 2)
        assert saved[NAME] == {"early_stop": False, "families": {"kimi": ["kimi", "k2"]}}
        fields = open_settings(browser, web, f"settings-{generation}-family").eval(FIELDS)
        assert {f["code"]: f["value"] for f in fields["families"]}["kimi"] == "kimi, k2"

        # Reset to default, then Save: nothing stored.
        page = open_settings(browser, web, f"settings-{generation}-reset")
        click(page, "#reset")
        page.wait("window.pluginSettings.settings._reasks !== undefined && "
                  "document.querySelector('[data-key=\"early_stop\"] input').checked")
        fields = page.eval(FIELDS)
        assert defaults_shown(fields) == as_shown(DEFAULTS) and fields["unsaved"] is True
        save(page, 1)
        assert saved[NAME] == {}
        assert page.errors == []


@pytest.mark.parametrize("generation", ["v1", "v26", "newest"])
def test_bad_saved_values_are_shown_as_in_force_with_a_warning_at_each(browser, a0_factory, generation):
    a0 = a0_factory(generation)
    a0.plugins.SAVED[NAME] = {"enabled": "false", "models": ["claude", 5], "prose_min_chars": "lots",
                              "colour": "blue"}
    with AgentZeroWeb(a0) as web:
        page = open_settings(browser, web, f"settings-{generation}-bad", width=720)
        fields = page.eval(FIELDS)
        assert (fields["enabled"], fields["models"], fields["prose_min_chars"]) == (False, "claude", "800")
        [enabled] = fields["warnings"]["enabled"]
        assert enabled.startswith("`enabled` must be true or false") and "the bridge is off" in enabled
        [models] = fields["warnings"]["models"]
        assert models.startswith("`models[1]`") and "left out" in models
        [chars] = fields["warnings"]["prose_min_chars"]
        assert chars.endswith("the default (800) is used")
        assert fields["top_warnings"] == ["unknown key `colour` ignored"]
        assert not fields["horizontal_scroll"]  # a narrow window too
        # What the log says, line for line.
        said = [line.split("settings: ", 1)[1] for line in a0.printed if "settings: " in line]
        assert sorted(said) == sorted([enabled, models, chars, "unknown key `colour` ignored"])
        save(page, 1)
        assert a0.plugins.SAVED[NAME] == {"enabled": False, "models": ["claude"]}
        assert page.errors == []


def test_a_saved_file_agent_zero_cannot_read_shows_the_bridge_off(browser, a0_factory):
    a0 = a0_factory("v26")
    a0.plugins.SAVED[NAME] = a0.plugins.Unparsable("{")
    with AgentZeroWeb(a0) as web:
        page = open_settings(browser, web, "settings-broken-file")
        fields = page.eval(FIELDS)
    assert fields["enabled"] is False
    [warning] = fields["top_warnings"]
    assert warning.startswith("the saved settings cannot be used (JSONDecodeError")


@pytest.mark.parametrize("generation", ["v26"])
async def test_the_re_asks_line_after_a_conversation(browser, a0_factory, generation):
    a0 = a0_factory(generation)
    case = Case("", [UNKNOWN_TOOL_CALL, LS_CALL, RESPONSE_CALL], [], ANSWER, turns=2)
    await run(a0, case, case.replies)
    with AgentZeroWeb(a0) as web:
        fields = open_settings(browser, web, "settings-reasks").eval(FIELDS)
    [line] = fields["reasks"]
    assert line.startswith("Re-asks: The last conversation (A0): 2 turns, 1 re-ask "
                           "(stopped_without_call 1), 3 model calls.")


def test_without_the_wheel_the_screen_says_it_shows_the_file(browser, a0_factory, monkeypatch):
    from test_hooks import _hide_the_wheel

    a0 = a0_factory("v26")
    _hide_the_wheel(a0, monkeypatch)
    a0.plugins.SAVED[NAME] = {"early_stop": False}
    with AgentZeroWeb(a0) as web:
        page = browser.page()
        page.goto(web.base_url + "/settings.html")
        page.wait("getComputedStyle(document.querySelector('.ctb-note')).display !== 'none'")
        note = page.eval("document.querySelector('.ctb-note').textContent.replace(/\\s+/g, ' ')")
    assert "shows the saved file as it is" in note and "not installed" in note
