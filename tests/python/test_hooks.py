"""Every hook of the plugin, on stand-ins shaped like each Agent Zero generation."""

from __future__ import annotations

import json

import claude_tool_bridge as ctb
import pytest
from conftest import SYSTEM_PROMPT
from fakes import FakeChatModel, FakeProvider, HumanMessage, SystemMessage
from replies import JSON_REPLY, LS_CALL, LS_REPLY_WITH_TRAILER, UNKNOWN_TOOL_CALL

CLAUDE = "anthropic/claude-sonnet-4-5"
MESSAGES = [SystemMessage(SYSTEM_PROMPT), HumanMessage("list the files")]


def make_agent(a0, replies, model_name=CLAUDE, kwargs=None, **provider_opts):
    provider = FakeProvider(list(replies), **provider_opts)
    agent = a0.agent_module.Agent(lambda: FakeChatModel(provider, model_name, kwargs))
    return agent, provider


def ai_messages(agent):
    return [entry[1] for entry in agent.history if entry[0] == "ai"]


def handed_on(a0, agent):
    """What the bridge handed on: on the newest generation `_context_doctor` rewrites XML
    afterwards, so read what the core's `_05_` hook saw there."""
    if a0.generation == "newest":
        return agent.data.get("seen_by_core", [])
    return ai_messages(agent)


def warnings(agent):
    return [entry for entry in agent.history if entry[0] == "warning"]


def plan_stops(model_stops=()):
    return ctb.Session(ctb.Config()).begin_turn(CLAUDE, list(model_stops)).stops


class CountingSession:
    """Wraps a real session, counting `finish` calls; optional scripted decisions first."""

    def __init__(self, inner, scripted=(), feed_stop_at=None):
        self.inner = inner
        self.finishes = []
        self.scripted = list(scripted)
        self.fed = ""
        self.feed_stop_at = feed_stop_at

    def begin_turn(self, model, stops):
        return self.inner.begin_turn(model, stops)

    def feed(self, delta, catalog):
        self.fed += delta
        if self.feed_stop_at and self.feed_stop_at in self.fed:
            return self.fed[: self.fed.index(self.feed_stop_at) + len(self.feed_stop_at)]
        return self.inner.feed(delta, catalog)

    def finish(self, reply, finish_reason, catalog):
        self.finishes.append((reply, finish_reason))
        if self.scripted:
            return self.scripted.pop(0)
        return self.inner.finish(reply, finish_reason, catalog)


class Scripted:
    def __init__(self, outcome, reply, reason="loop", retry_without_stops=False, request=None):
        self.outcome = outcome
        self.reply = reply
        self.reason = reason
        self.retry_without_stops = retry_without_stops
        self.request = request


def install_counting(a0, agent, **kwargs):
    """Loads the settings once, then swaps the agent's session for a counting one."""
    bridge = a0.bridge
    state = bridge.state_of(agent)
    a0.integration._config(agent, state)
    counting = CountingSession(state.session, **kwargs)
    state.session = counting
    return counting


# ---------------------------------------------------------------- stop strings


async def test_stop_strings_reach_the_model_four_at_most(a0):
    agent, provider = make_agent(a0, [JSON_REPLY])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop == plan_stops()
    assert 0 < len(provider.requests[0].stop) <= 4


async def test_a_stop_list_set_on_the_model_keeps_precedence(a0):
    agent, provider = make_agent(a0, [JSON_REPLY], kwargs={"stop": ["USER_STOP"]})
    await agent.turn(MESSAGES)
    sent = provider.requests[0].stop
    assert sent[0] == "USER_STOP"
    assert len(sent) <= 4
    assert sent == plan_stops(["USER_STOP"])


async def test_uncovered_model_is_left_alone(a0):
    agent, provider = make_agent(a0, [LS_CALL], model_name="openai/gpt-5")
    counting = install_counting(a0, agent)
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None
    assert handed_on(a0, agent) == [LS_CALL]
    assert counting.finishes == []


async def test_disabled_plugin_changes_nothing(a0):
    a0.plugins.SAVED["claude_tool_bridge"] = {"enabled": False}
    agent, provider = make_agent(a0, [LS_CALL])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None
    assert handed_on(a0, agent) == [LS_CALL]


# ---------------------------------------------------------------- rewriting


async def test_exactly_one_path_decides_each_turn(a0):
    agent, provider = make_agent(a0, [JSON_REPLY, LS_CALL, "Just some words."])
    counting = install_counting(a0, agent)
    for _ in range(3):
        await agent.turn(MESSAGES)
    assert len(counting.finishes) == 3


async def test_rewritten_reply_reaches_history_and_tool_extraction(a0):
    request = {"tool_name": "code_execution_tool", "tool_args": {"code": "ls"}}
    rewritten = json.dumps(request)
    agent, provider = make_agent(a0, [LS_CALL])
    install_counting(
        a0, agent, scripted=[Scripted("translated", rewritten, "translated", request=request)]
    )
    got = await agent.turn(MESSAGES)
    assert got == request
    assert ai_messages(agent) == [rewritten]
    assert warnings(agent) == []
    if a0.generation != "v1":
        # the LLMResult's message item follows the rewritten text (history metadata)
        assert agent.history[0][2] == rewritten
    if a0.generation == "newest":
        # rewritten before the core's _05_ and _context_doctor's _10_ saw it
        assert agent.data["seen_by_core"] == [rewritten]


async def test_translated_call_runs_as_json(a0):
    """End to end with the real Rust core: the XML call becomes a typed JSON request."""
    agent, provider = make_agent(a0, [LS_CALL])
    got = await agent.turn(MESSAGES)
    assert got is not None, ai_messages(agent)
    assert got["tool_name"] == "code_execution_tool"
    assert got["tool_args"]["code"] == "ls -la"
    assert got["tool_args"]["reset"] is False
    assert got["tool_args"]["session"] == 0
    assert warnings(agent) == []


async def test_json_reply_is_left_alone(a0):
    agent, provider = make_agent(a0, [JSON_REPLY])
    got = await agent.turn(MESSAGES)
    assert ai_messages(agent) == [JSON_REPLY]
    assert got["tool_name"] == "code_execution_tool"


# ---------------------------------------------------------------- discard and ask again


async def test_discard_asks_again_silently_without_stop_strings(a0):
    agent, provider = make_agent(a0, ["<invoke>loop<invoke>loop", JSON_REPLY])
    counting = install_counting(
        a0, agent, scripted=[Scripted("discard", "", "loop", retry_without_stops=True)]
    )
    got = await agent.turn(MESSAGES)
    assert len(provider.requests) == 2
    assert provider.requests[0].stop == plan_stops()
    assert provider.requests[1].stop is None  # stop strings off for the retry
    assert provider.requests[1].messages is provider.requests[0].messages
    assert ai_messages(agent) == [JSON_REPLY]  # the discarded reply never reached history
    assert warnings(agent) == []
    assert got["tool_name"] == "code_execution_tool"
    assert len(counting.finishes) == 2


async def test_discard_keeps_stops_unless_told(a0):
    agent, provider = make_agent(a0, ["x", JSON_REPLY])
    install_counting(a0, agent, scripted=[Scripted("discard", "", "loop")])
    await agent.turn(MESSAGES)
    assert provider.requests[1].stop == plan_stops()


async def test_reasking_is_bounded(a0):
    agent, provider = make_agent(a0, ["a", "b", "c", "d", "e"])
    discard = Scripted("discard", "", "loop")
    counting = install_counting(a0, agent, scripted=[discard] * 10)
    await agent.turn(MESSAGES)
    assert len(provider.requests) == 1 + a0.bridge.MAX_REASKS
    assert len(counting.finishes) == 1 + a0.bridge.MAX_REASKS


async def test_real_session_discards_a_stopped_reply_without_usable_call(a0):
    """Stopped by the bridge's own stop string at an unknown tool's call: asked again
    without stop strings (the Rust session's rule), nothing in history but the answer."""
    agent, provider = make_agent(a0, [UNKNOWN_TOOL_CALL, JSON_REPLY])
    await agent.turn(MESSAGES)
    assert len(provider.requests) == 2, ai_messages(agent)
    assert not provider.requests[1].stop
    assert ai_messages(agent) == [JSON_REPLY]
    assert warnings(agent) == []


# ---------------------------------------------------------------- early stop


async def test_early_stop_through_the_response_callback(a0):
    agent, provider = make_agent(a0, [LS_REPLY_WITH_TRAILER])
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
    end = "</invoke>"
    install_counting(a0, agent, feed_stop_at=end)
    await agent.turn(MESSAGES)
    assert provider.streamed_chars[0] < len(LS_REPLY_WITH_TRAILER)
    assert ai_messages(agent)[0] in (LS_CALL, ai_messages(agent)[0])
    assert "Result:" not in ai_messages(agent)[0]


async def test_early_stop_off_keeps_the_callback(a0):
    a0.plugins.SAVED["claude_tool_bridge"] = {"early_stop": False, "stop_sequence": False}
    agent, provider = make_agent(a0, [LS_REPLY_WITH_TRAILER])
    install_counting(a0, agent, feed_stop_at="</invoke>")
    await agent.turn(MESSAGES)
    assert provider.streamed_chars[0] == len(LS_REPLY_WITH_TRAILER)


# ---------------------------------------------------------------- left alone


@pytest.mark.parametrize("generation", ["v26", "newest"])
async def test_native_function_calls_are_left_alone(a0_factory, generation):
    a0 = a0_factory(generation)
    agent, provider = make_agent(
        a0, [LS_CALL], native_calls=[{"type": "function_call", "name": "response", "arguments": {}}]
    )
    counting = install_counting(a0, agent)
    got = await agent.turn(MESSAGES)
    assert counting.finishes == []
    assert got == {"native": ["response"]}


@pytest.mark.parametrize("generation", ["v26", "newest"])
async def test_responses_mode_results_are_left_alone(a0_factory, generation):
    a0 = a0_factory(generation)
    agent, provider = make_agent(a0, [LS_CALL], mode="responses")
    counting = install_counting(a0, agent)
    await agent.turn(MESSAGES)
    assert counting.finishes == []
    assert a0.bridge.result_text((LS_CALL,)) == LS_CALL


@pytest.mark.parametrize("generation", ["v26", "newest"])
async def test_other_callers_of_call_chat_model_are_left_alone(a0_factory, generation):
    """Document query and e-mail call `call_chat_model` without a stream callback."""
    a0 = a0_factory(generation)
    agent, provider = make_agent(a0, [LS_CALL])
    response, _ = await agent.call_chat_model(messages=MESSAGES)
    assert response == LS_CALL
    assert provider.requests[0].stop is None


async def test_any_error_leaves_the_reply_untouched_and_is_logged_once(a0, monkeypatch):
    async def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(a0.bridge, "settle", broken)
    # no stop strings, so "untouched" is the whole reply as the provider sent it
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
    agent, provider = make_agent(a0, [LS_CALL, LS_CALL])
    await agent.turn(MESSAGES)
    await agent.turn(MESSAGES)
    assert handed_on(a0, agent) == [LS_CALL, LS_CALL]
    failures = [line for line in a0.printed if "boom" in line]
    assert len(failures) == 1


async def test_error_in_the_before_hook_changes_nothing(a0, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("before-boom")

    monkeypatch.setattr(a0.bridge, "begin", broken)
    agent, provider = make_agent(a0, [LS_CALL])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None
    assert handed_on(a0, agent) == [LS_CALL]
    assert sum("before-boom" in line for line in a0.printed) == 1


# ---------------------------------------------------------------- settings, catalog, state


async def test_saved_config_is_merged_over_the_defaults(a0):
    # A saved config.json from an older version lacks `models`: still covered.
    a0.plugins.SAVED["claude_tool_bridge"] = {"enabled": True, "colour": "blue"}
    agent, provider = make_agent(a0, [JSON_REPLY])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop == plan_stops()
    assert any("colour" in line for line in a0.printed)


async def test_settings_are_cached_for_a_few_seconds(a0):
    agent, provider = make_agent(a0, [JSON_REPLY, JSON_REPLY, JSON_REPLY])
    await agent.turn(MESSAGES)
    a0.plugins.SAVED["claude_tool_bridge"] = {"enabled": False}
    await agent.turn(MESSAGES)
    assert provider.requests[1].stop == plan_stops()  # still the cached settings
    a0.bridge.state_of(agent).settings_at = float("-inf")  # the few seconds have passed
    await agent.turn(MESSAGES)
    assert provider.requests[2].stop is None


async def test_state_is_kept_per_agent(a0):
    first, _ = make_agent(a0, [JSON_REPLY])
    second, _ = make_agent(a0, [JSON_REPLY])
    await first.turn(MESSAGES)
    await second.turn(MESSAGES)
    assert a0.bridge.state_of(first) is not a0.bridge.state_of(second)
    assert a0.bridge.state_of(first).session is not a0.bridge.state_of(second).session


def test_catalog_is_cached_for_two_minutes(a0):
    now = [1000.0]
    cache = a0.bridge.CatalogCache(clock=lambda: now[0])
    first = cache.get(SYSTEM_PROMPT)
    assert cache.get(SYSTEM_PROMPT) is first
    now[0] += 119
    assert cache.get(SYSTEM_PROMPT) is first
    now[0] += 2
    assert cache.get(SYSTEM_PROMPT) is not first
    assert cache.builds == 2
    assert len(first) > 0


def test_catalog_falls_back_to_agent_zero_tools(a0):
    assert len(a0.bridge.build_catalog("")) == len(ctb.Catalog.agent_zero())


def test_the_rewrite_hook_is_chosen_by_features(a0):
    assert a0.integration.core_has_loop_result_point() is (a0.generation == "newest")
    assert hasattr(a0.agent_module.Agent, "call_chat_model_turn") is (a0.generation != "v1")


def test_message_loop_result_file_sorts_before_the_core_hooks(a0):
    name = "_03_claude_tool_bridge.py"
    assert name < "_05_leaked_tool_call.py" < "_10_context_doctor.py"
    folder = a0.root / "usr/plugins/claude_tool_bridge/extensions/python/message_loop_result"
    assert [p.name for p in folder.glob("*.py")] == [name]


# ---------------------------------------------------------------- dependencies


def test_startup_migration_calls_ensure_dependencies(a0):
    a0.extension.call_extensions_sync("startup_migration", None)
    assert ("claude_tool_bridge", "ensure_dependencies", {"raise_on_error": False}) in a0.plugins.CALLS


def test_hooks_get_plugin_config_fills_missing_keys(a0):
    config = a0.plugins.get_plugin_config("claude_tool_bridge")
    assert config == ctb.Config().to_dict()
    a0.plugins.SAVED["claude_tool_bridge"] = {"early_stop": False}
    merged = a0.plugins.get_plugin_config("claude_tool_bridge")
    assert merged == {**ctb.Config().to_dict(), "early_stop": False}


async def test_a_reused_model_object_does_not_pile_up_stops(a0):
    provider = FakeProvider([JSON_REPLY, JSON_REPLY, JSON_REPLY])
    shared = FakeChatModel(provider, CLAUDE, {"stop": ["USER_STOP"]})
    agent = a0.agent_module.Agent(lambda: shared)
    for _ in range(3):
        await agent.turn(MESSAGES)
    expected = plan_stops(["USER_STOP"])
    assert [r.stop for r in provider.requests] == [expected] * 3


async def test_a_missing_wheel_leaves_everything_alone(a0, monkeypatch):
    import time

    monkeypatch.setattr(a0.integration, "bridge", None)
    monkeypatch.setattr(a0.integration, "_IMPORT_ERROR", ImportError("no wheel"))
    monkeypatch.setattr(a0.integration, "_import_tried_at", time.monotonic())
    agent, provider = make_agent(a0, [LS_CALL, LS_CALL])
    await agent.turn(MESSAGES)
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None
    assert handed_on(a0, agent) == [LS_CALL, LS_CALL]
    assert sum("not importable" in line for line in a0.printed) == 1


# ---------------------------------------------------------------- hooks.py


def load_hooks(a0):
    import importlib.util

    path = a0.root / "usr/plugins/claude_tool_bridge/hooks.py"
    spec = importlib.util.spec_from_file_location("ctb_hooks_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_plugin_version_is_the_wheel_version(a0):
    assert load_hooks(a0).plugin_version() == ctb.__version__


@pytest.mark.parametrize("generation", ["v26"])
def test_ensure_dependencies_installs_the_bundled_wheel(a0_factory, generation, monkeypatch):
    import subprocess
    import sys

    a0 = a0_factory(generation)
    hooks = load_hooks(a0)
    (hooks.WHEELS_DIR).mkdir()
    (hooks.WHEELS_DIR / f"claude_tool_bridge-{ctb.__version__}-cp310-abi3-linux_x86_64.whl").write_bytes(b"")
    ran = []

    def fake_run(command, **kwargs):
        ran.append(command)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(hooks.subprocess, "run", fake_run)
    monkeypatch.setattr(hooks, "installed_version", lambda: "0.0.1")
    assert hooks.ensure_dependencies() is True
    assert ran[0] == [sys.executable, "-m", "pip", "install", "--no-index", "--find-links",
                      str(hooks.WHEELS_DIR), "--upgrade", f"claude-tool-bridge=={ctb.__version__}"]
    # once done (or when the installed version matches), nothing runs again
    ran.clear()
    assert hooks.ensure_dependencies() is True
    assert ran == []


def test_ensure_dependencies_is_quiet_when_the_wheel_matches(a0, monkeypatch):
    hooks = load_hooks(a0)
    monkeypatch.setattr(hooks.subprocess, "run", lambda *a, **k: pytest.fail("must not run"))
    assert hooks.installed_version() == ctb.__version__
    assert hooks.ensure_dependencies() is True


def test_missing_wheel_folder_is_reported_not_raised(a0, monkeypatch):
    hooks = load_hooks(a0)
    monkeypatch.setattr(hooks, "installed_version", lambda: "")
    assert hooks.ensure_dependencies(raise_on_error=False) is False
    with pytest.raises(RuntimeError):
        hooks._CHECKED = False
        hooks.ensure_dependencies(raise_on_error=True)


def test_uninstall_removes_the_wheel(a0, monkeypatch):
    import subprocess

    hooks = load_hooks(a0)
    ran = []
    monkeypatch.setattr(hooks.subprocess, "run",
                        lambda command, **k: ran.append(command) or subprocess.CompletedProcess(command, 0))
    assert hooks.uninstall() is True
    assert ran[0][-3:] == ["uninstall", "-y", "claude-tool-bridge"]


async def test_text_the_wheel_cannot_take_is_left_untouched(a0):
    odd = LS_CALL + "\ud800"  # a lone surrogate: not encodable as UTF-8
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
    agent, provider = make_agent(a0, [odd])
    await agent.turn(MESSAGES)
    assert handed_on(a0, agent) == [odd]
