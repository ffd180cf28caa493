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
        "prose_as_response", "prose_min_chars", "all_forms",
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
        (_cyclic(), "nested more than 64 levels"),
        ({"models": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
         "nested more than 64 levels"),
        ({1: True}, "key of type int"),
        ({"models": {"a", "b"}}, "`models` holds a value of type set"),
        ({"x": [1, object()]}, "`x[1]` holds a value of type object"),
        ({"prose_min_chars": float("nan")}, "not a finite number"),
        ([("enabled", False)], "must be a mapping of keys to values, not a list"),
        ("enabled: false", "must be a mapping of keys to values, not a string"),
    ],
)
def test_from_dict_raises_one_clear_value_error(settings, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ctb.Config.from_dict(settings)


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
    # extending a catalog with itself (issue 8: "Already mutably borrowed")
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


def test_families_and_the_family_of_a_model():
    config = ctb.Config()
    assert list(config.families) == [
        "claude", "minimax", "deepseek", "qwen", "glm", "kimi", "gpt_oss", "grok",
    ]
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
    assert call["family"] == "qwen3_coder"
    assert call["name"] == "memory_load"
    assert call["arguments"] == {"query": "vpn", "limit": 3}
    assert call["prose"] == "Prüfe den Speicher: ✓"
    start, end = call["span"]
    assert qwen[start:end].startswith("<tool_call>\n<function=memory_load>")
    assert qwen[start:end].endswith("</function>")
    assert ctb.first_call("Just prose.", ctb.Catalog.agent_zero()) is None
    decision = ctb.translate(LS_CALL, ctb.Catalog.agent_zero())
    assert decision.family == "claude"
    assert ctb.translate("Just prose.", ctb.Catalog.agent_zero()).family is None
