"""The binding itself: types, errors, and that no Rust panic or odd input escapes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import claude_tool_bridge as ctb
import pytest
from conftest import PLUGIN, REPO, SYSTEM_PROMPT
from replies import LS_CALL, PREFIX, invoke


def test_version_and_typing_files_ship():
    package = Path(ctb.__file__).parent
    assert ctb.__version__.count(".") == 2
    assert (package / "py.typed").exists()
    assert (package / "_native.pyi").exists()


def test_the_release_import_check_passes_on_this_build(tmp_path):
    """The script the release workflow (and `cargo xtask dist`) runs against every built wheel
    works with the current API, run away from the source tree as there."""
    script = REPO / ".github" / "workflows" / "import_check.py"
    done = subprocess.run(
        [sys.executable, str(script), ctb.__version__],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "imports and translates" in done.stdout


@pytest.mark.parametrize("readme", ["crates/ctb-python/README.md"])
def test_the_readme_examples_run(readme):
    """Every Python example in the wheel's README runs as written against this build."""
    blocks = re.findall(r"```python\n(.*?)```", (REPO / readme).read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, readme, "exec"), {})


def test_default_config_yaml_is_exactly_the_rust_defaults():
    """Agent Zero's settings screen reads default_config.yaml itself (no config saved yet);
    the defaults live in Rust (`Config::default`): the file must say the same, key for key,
    in the same order, read by an independent YAML parser."""
    yaml = pytest.importorskip("yaml")
    from_file = yaml.safe_load((PLUGIN / "default_config.yaml").read_text())
    defaults = ctb.Config().to_dict()
    assert from_file == defaults
    assert list(from_file) == list(defaults)
    assert list(defaults) == [
        "enabled", "models", "families", "early_stop", "stop_sequence", "loop_guard",
        "prose_as_response", "prose_min_chars", "all_forms", "forms",
    ]
    assert ctb.Config.from_yaml((PLUGIN / "default_config.yaml").read_text()).warnings == []


def test_config_reports_unknown_keys_and_unusable_values_in_words():
    config = ctb.Config.from_dict({"colour": "blue", "early_stop": "yes", "prose_min_chars": 10})
    assert config.prose_min_chars == 10
    assert config.early_stop is True  # unusable value: the default stays
    assert config.warnings == [
        "unknown key `colour` ignored",
        '`early_stop` must be true or false, not a string ("yes"); the default (true) is used',
    ]


def test_overrides_are_what_differs_from_the_defaults():
    assert ctb.Config().overrides() == {}
    config = ctb.Config.from_dict({**ctb.Config().to_dict(), "early_stop": False, "models": "gpt"})
    assert config.overrides() == {"early_stop": False, "models": ["gpt"]}
    assert ctb.Config.from_dict(config.overrides()).to_dict() == config.to_dict()


def _cyclic():
    settings: dict = {}
    settings["models"] = settings
    return settings


class OddMapping(dict):
    def __getitem__(self, key):
        raise KeyError(key)


@pytest.mark.parametrize(
    "settings, message",
    [
        ([("enabled", False)], "must be a mapping of keys to values, not a list"),
        ("enabled: false", "must be a mapping of keys to values, not a string"),
    ],
)
def test_from_dict_raises_one_clear_value_error_for_a_top_level_that_is_no_dict(settings, message):
    with pytest.raises(ValueError, match=message):
        ctb.Config.from_dict(settings)


@pytest.mark.parametrize(
    "settings, warning",
    [
        (_cyclic(), "`models` cannot be read (`models.models.models.models...` is nested more than 64 levels"),
        ({"models": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
         "`models` cannot be read (`models[0][0][0]...` is nested more than 64 levels deep"),
        ({"models": {"a", "b"}}, "`models` cannot be read (it holds a value of type set"),
        ({"models": float("inf")}, "`models` cannot be read (it holds inf, which is not a finite number)"),
    ],
)
def test_an_unreadable_models_value_covers_no_model(settings, warning):
    config = ctb.Config.from_dict({**settings, "early_stop": False})
    assert config.models == [] and config.early_stop is False
    assert len(config.warnings) == 1 and config.warnings[0].startswith(warning), config.warnings
    assert config.warnings[0].endswith("no model is covered until this is fixed")


def test_an_unreadable_value_costs_its_own_key_only():
    """Settings fail closed key by key: a NaN anywhere used to throw the whole saved
    document away, so a saved `enabled: false` silently became true."""
    config = ctb.Config.from_dict({"enabled": False, "prose_min_chars": float("nan"),
                                   1: True, "x": [1, object()]})
    assert config.enabled is False
    assert config.prose_min_chars == 800
    assert config.warnings == [
        "`prose_min_chars` cannot be read (it holds NaN, which is not a finite number); "
        "the default (800) is used",
        "unknown key `1` ignored",
        "unknown key `x` ignored",
    ]


@pytest.mark.parametrize("value", ["false", "true", None, float("nan"), 0, 1, [], {}, object()])
def test_an_enabled_that_cannot_be_read_is_off(value):
    config = ctb.Config.from_dict({"enabled": value})
    assert config.enabled is False
    assert len(config.warnings) == 1 and "the bridge is off until this is fixed" in config.warnings[0]
    assert ctb.Session(config).begin_turn("anthropic/claude-sonnet-4-5", []).covered is False


def test_a_bad_model_pattern_is_left_out_and_never_widens_coverage():
    config = ctb.Config.from_dict({"models": ["claude", 3, "x" * 2000]})
    assert config.models == ["claude"]
    assert config.warnings == [
        "`models[1]` must be a model name pattern (text), not a number (3); it is left out",
        "`models[2]`: model pattern of 2000 bytes is longer than 1024; it is left out",
    ]
    session = ctb.Session(config)
    assert session.begin_turn("anthropic/claude-sonnet-4-5", []).covered
    assert not session.begin_turn("openrouter/z-ai/glm-4.7", []).covered


def test_from_dict_reads_dict_subclasses_and_big_numbers():
    odd = OddMapping(early_stop=False)
    assert ctb.Config.from_dict(odd).early_stop is False
    config = ctb.Config.from_dict({"prose_min_chars": 10**30})
    assert config.prose_min_chars == 800
    assert "not a number (1000000000000000000000000000000)" in config.warnings[0]


def test_config_rejects_text_that_is_not_a_mapping():
    with pytest.raises(ValueError):
        ctb.Config.from_json("[1, 2]")
    with pytest.raises(ValueError):
        ctb.Config.from_json("{not json")
    assert json.loads(ctb.Config.from_json('{"enabled": false}').to_json())["enabled"] is False


def test_catalog():
    bundled = ctb.Catalog.agent_zero()
    assert len(bundled) > 0 and "code_execution_tool" in bundled
    shown = ctb.Catalog.from_text(SYSTEM_PROMPT)
    assert "code_execution_tool" in shown and "response" in shown
    empty = ctb.Catalog()
    assert len(empty) == 0
    empty.extend(shown)
    assert len(empty) == len(shown)
    # extending a catalog with itself (once raised "Already mutably borrowed")
    empty.extend(empty)
    assert len(empty) == len(shown)


def test_session_turn_plan_and_decision_types():
    session = ctb.Session(ctb.Config())
    plan = session.begin_turn("openrouter/anthropic/claude-sonnet-4.6", ["MINE"])
    assert plan.covered is True
    assert plan.stops[0] == "MINE" and len(plan.stops) <= 4
    assert all(isinstance(s, str) for s in plan.stops)
    uncovered = ctb.Session(ctb.Config()).begin_turn("openai/gpt-5", [])
    assert uncovered.covered is False
    decision = session.finish(LS_CALL, None, ctb.Catalog.from_text(SYSTEM_PROMPT))
    assert decision.outcome == "translated", decision
    assert decision.reason in ("translated", "completed_after_stop")
    assert decision.request["tool_name"] == "code_execution_tool"
    assert json.loads(decision.reply) == decision.request  # a plain dict, key order kept
    assert list(decision.request) == list(json.loads(decision.reply))
    assert decision.request is not decision.request  # a new dict each time
    assert json.loads(decision.reply)["tool_args"]["reset"] is False
    assert decision.retry_without_stops is False


def test_prefixed_tags_translate_too():
    reply = invoke("code_execution_tool", {"runtime": "terminal", "session": "0", "reset": "false",
                                           "code": "pwd"}, prefixed=True)
    assert PREFIX in reply
    decision = ctb.translate(reply, ctb.Catalog.agent_zero())
    assert decision.outcome == "translated"
    assert decision.request["tool_args"]["code"] == "pwd"


def test_feed_returns_none_or_the_completed_reply():
    session = ctb.Session(ctb.Config())
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    reply = LS_CALL + "\n\nand more text after the call " * 20
    catalog = ctb.Catalog.agent_zero()
    stopped = None
    for i in range(0, len(reply), 40):
        stopped = session.feed(reply[i : i + 40], catalog)
        if stopped is not None:
            break
    assert stopped is not None
    assert stopped.rstrip().endswith("invoke>")
    assert len(stopped) < len(reply)
    # The decision was made when the stream stopped; `finish` on that text returns it.
    assert session.finish(stopped, None, catalog).outcome == "translated"


def test_feed_never_stops_for_a_call_that_would_be_left_alone():
    session = ctb.Session(ctb.Config())
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    unknown = invoke("no_such_tool", {"x": "1"}) + "\nmore"
    assert session.feed(unknown, ctb.Catalog.agent_zero()) is None
    assert session.finish(unknown, None, ctb.Catalog.agent_zero()).reason == "unknown_tool"


def test_finish_out_of_order_says_so():
    session = ctb.Session(ctb.Config())
    with pytest.raises(ctb.BridgeError, match="begin_turn"):
        session.finish("text", None, ctb.Catalog())
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    session.finish("text", None, ctb.Catalog())
    with pytest.raises(ctb.BridgeError, match="once per turn"):
        session.finish("text", None, ctb.Catalog())


def test_finish_reason_names_are_accepted():
    session = ctb.Session(ctb.Config())
    for name in ("stop", "end_turn", "stop_sequence", "max_tokens", "length", "weird", None):
        session.begin_turn("anthropic/claude-x", [])
        assert session.finish("plain words", name, ctb.Catalog()).outcome in (
            "untouched", "prose", "discard")


@pytest.mark.parametrize(
    "text",
    ["", "\x00" * 100, "<invoke" * 5000, "<" * 100_000, "\u202e\ufeff<invoke name=\"\">",
     '<invoke name="x"><parameter name="a">' + "{" * 50_000],
)
def test_odd_input_never_raises(text):
    session = ctb.Session(ctb.Config())
    session.begin_turn("anthropic/claude-x", [])
    for i in range(0, len(text), 997):
        session.feed(text[i : i + 997], ctb.Catalog.agent_zero())
    decision = session.finish(text, None, ctb.Catalog.agent_zero())
    assert decision.outcome in ("translated", "prose", "discard", "untouched")
    assert isinstance(ctb.translate(text, ctb.Catalog.agent_zero()).reply, str)
    try:
        assert isinstance(len(ctb.Catalog.from_text(text)), int)
    except ValueError:
        pass  # the documented answer to text holding no tools


def test_bridge_error_is_a_runtime_error():
    assert issubclass(ctb.BridgeError, RuntimeError)


def test_model_stops_are_never_dropped():
    """The stub's promise: the model's own stops all stay, first; ours fill up to four."""
    own = [f"STOP{i}" for i in range(6)]
    plan = ctb.Session(ctb.Config()).begin_turn("anthropic/claude-x", own)
    assert plan.stops == own
    plan = ctb.Session(ctb.Config()).begin_turn("anthropic/claude-x", own[:1])
    assert plan.stops[0] == "STOP0" and len(plan.stops) == 4


def registry_families() -> list[str]:
    """The family codes in the registry's order, as `cargo xtask registry` wrote them into the
    stub's `_Family` literal."""
    stub = (REPO / "crates/ctb-python/python/claude_tool_bridge/_native.pyi").read_text()
    found = re.search(r"^_Family = Literal\[(.*)\]$", stub, re.M)
    assert found, "the stub has no _Family literal"
    return re.findall(r'"([a-z_0-9]+)"', found.group(1))


def test_families_and_the_family_of_a_model():
    config = ctb.Config()
    assert list(config.families) == registry_families()
    assert list(config.families)[:3] == ["claude", "minimax", "deepseek"]
    assert config.family_of("openrouter/moonshotai/kimi-k2-thinking") == "kimi"
    assert config.family_of("openrouter/z-ai/glm-4.7") == "glm"
    assert config.family_of("openai/gpt-5") is None
    custom = ctb.Config.from_dict({"families": {"glm": ["zai-*"]}})
    assert custom.warnings == []
    assert custom.family_of("zai-coder") == "glm"
    assert custom.overrides() == {"families": {"glm": ["zai-*"]}}


def test_first_call_reads_any_family_with_str_indices():
    qwen = (
        "Prüfe den Speicher: ✓\n<tool_call>\n<function=memory_load>\n<parameter=query>\nvpn\n"
        "</parameter>\n<parameter=limit>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    call = ctb.first_call(qwen, ctb.Catalog.agent_zero())
    assert call is not None
    assert call["form"] == "qwen3_coder"
    assert call["family"] == "qwen"
    assert call["name"] == "memory_load"
    assert call["arguments"] == {"query": "vpn", "limit": 3}
    assert call["prose"] == "Prüfe den Speicher: ✓"
    start, end = call["span"]
    assert qwen[start:end].startswith("<tool_call>\n<function=memory_load>")
    assert qwen[start:end].endswith("</function>")
    assert ctb.first_call("Just prose.", ctb.Catalog.agent_zero()) is None
    decision = ctb.translate(LS_CALL, ctb.Catalog.agent_zero())
    assert decision.form == "claude" and decision.family == "claude"
    none = ctb.translate("Just prose.", ctb.Catalog.agent_zero())
    assert none.form is None and none.family is None


def test_unframe_gives_the_words_of_a_prose_the_form_frames():
    harmony = (
        "<|channel|>analysis<|message|>I need to check the weather.<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.memory_load <|constrain|>json"
        '<|message|>{"query": "weather"}<|call|>'
    )
    call = ctb.first_call(harmony, ctb.Catalog.agent_zero(), model="gpt-oss-120b")
    assert call is not None and call["form"] == "harmony"
    # The prose as written keeps the tokens; unframe gives the words, as the thoughts have them.
    assert call["prose"] == "<|channel|>analysis<|message|>I need to check the weather.<|end|>"
    assert ctb.unframe(call["form"], call["prose"]) == "I need to check the weather."
    decision = ctb.translate(harmony, ctb.Catalog.agent_zero(), model="gpt-oss-120b")
    assert json.loads(decision.reply)["thoughts"] == ["I need to check the weather."]
    assert ctb.unframe("claude", "Let me look.") == "Let me look."
    with pytest.raises(ValueError, match="unknown markup form"):
        ctb.unframe("no_such_form", "text")


# ---------------------------------------------------------------- integers Python cannot read


def _ledger_call(digits: str) -> str:
    return ("<invoke name=\"ledger_record\">\n<parameter name=\"code\">BIG</parameter>\n"
            f"<parameter name=\"id\">{digits}</parameter>\n</invoke>")


def test_a_call_holding_an_integer_python_cannot_read_is_refused_without_an_exception():
    """Python's integer limit: `Decision.request`, `first_call` and `loads` raised an undocumented
    ValueError for an integer over 4,300 digits (Python's int-from-text limit)."""
    catalog = ctb.Catalog.from_text((REPO / "fixtures" / "catalogs" / "typed.json").read_text())
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
    assert limit == 4300
    fits = _ledger_call("7" * 4300)
    decision = ctb.translate(fits, catalog)
    assert decision.outcome == "translated"
    assert decision.request["tool_args"]["id"] == int("7" * 4300)
    assert json.loads(decision.reply)["tool_args"]["id"] == int("7" * 4300)
    assert ctb.first_call(fits, catalog)["arguments"]["id"] == int("7" * 4300)

    too_long = _ledger_call("7" * 4301)
    decision = ctb.translate(too_long, catalog)
    assert (decision.outcome, decision.reason, decision.request) == ("untouched", "bad_argument", None)
    assert decision.reply == too_long
    assert ctb.first_call(too_long, catalog) is None
    session = ctb.Session(ctb.Config())
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    finished = session.finish(too_long, "stop", catalog)
    assert (finished.outcome, finished.reason, finished.request) == ("untouched", "bad_argument", None)


def test_loads_raises_the_value_error_json_loads_raises_for_such_an_integer():
    text = "[" + "7" * 4301 + "]"
    with pytest.raises(ValueError) as ours:
        ctb.loads(text)
    with pytest.raises(ValueError) as theirs:
        json.loads(text)
    assert str(ours.value) == str(theirs.value)
    assert ctb.loads("[" + "7" * 4300 + "]") == [int("7" * 4300)]
