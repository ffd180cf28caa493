"""The binding itself: types, errors, and that no Rust panic or odd input escapes."""

from __future__ import annotations

import json
from pathlib import Path

import claude_tool_bridge as ctb
import pytest
from conftest import PLUGIN, SYSTEM_PROMPT
from replies import LS_CALL, PREFIX, invoke


def test_version_and_typing_files_ship():
    package = Path(ctb.__file__).parent
    assert ctb.__version__.count(".") == 2
    assert (package / "py.typed").exists()
    assert (package / "_native.pyi").exists()


def test_config_defaults_match_the_plugin_defaults():
    text = (PLUGIN / "default_config.yaml").read_text()
    loaded = ctb.Config.from_yaml(text)
    assert loaded.warnings == []
    assert loaded.to_dict() == ctb.Config().to_dict()
    assert set(ctb.Config().to_dict()) == {
        "enabled", "models", "early_stop", "stop_sequence", "loop_guard",
        "prose_as_response", "prose_min_chars",
    }


def test_config_reports_unknown_keys_and_wrong_types():
    config = ctb.Config.from_dict({"colour": "blue", "early_stop": "yes", "prose_min_chars": 10})
    assert config.prose_min_chars == 10
    assert config.early_stop is True  # wrong type: the default stays
    assert len(config.warnings) == 2
    assert any("colour" in w for w in config.warnings)
    assert any("early_stop" in w for w in config.warnings)


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
    assert json.loads(decision.request_json) == decision.request
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
