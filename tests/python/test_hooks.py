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


def settings(shown):
    """The settings of what the settings screen shows (without its display-only keys)."""
    return {k: v for k, v in shown.items() if not k.startswith("_")}


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

    def begin_turn(self, model, stops, echoes=None):
        return self.inner.begin_turn(model, stops, echoes)

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
    state = a0.turns.state_of(agent)
    a0.turns.refresh_config(state, lambda: a0.agent_zero._load_settings(agent))
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
    # what the user sees: the step titled and filled from the request that runs
    [step] = [item for item in agent.ui_log() if item["type"] == "agent"]
    assert step["heading"] == "A0: Running a terminal command"
    assert step["kvps"]["thoughts"] == ["I will list the files."]
    assert step["kvps"]["tool_args"] == got["tool_args"]


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
    assert len(provider.requests) == 1 + a0.turns.MAX_REASKS
    assert len(counting.finishes) == 1 + a0.turns.MAX_REASKS


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
    assert a0.turns.result_text((LS_CALL,)) == LS_CALL


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

    monkeypatch.setattr(a0.turns, "settle", broken)
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

    monkeypatch.setattr(a0.turns, "begin", broken)
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
    a0.turns.state_of(agent).settings_at = float("-inf")  # the few seconds have passed
    await agent.turn(MESSAGES)
    assert provider.requests[2].stop is None


async def test_state_is_kept_per_agent(a0):
    first, _ = make_agent(a0, [JSON_REPLY])
    second, _ = make_agent(a0, [JSON_REPLY])
    await first.turn(MESSAGES)
    await second.turn(MESSAGES)
    assert a0.turns.state_of(first) is not a0.turns.state_of(second)
    assert a0.turns.state_of(first).session is not a0.turns.state_of(second).session


def test_catalog_is_cached_for_two_minutes(a0):
    now = [1000.0]
    cache = a0.turns.CatalogCache(clock=lambda: now[0])
    first = cache.get(SYSTEM_PROMPT)
    assert cache.get(SYSTEM_PROMPT) is first
    now[0] += 119
    assert cache.get(SYSTEM_PROMPT) is first
    now[0] += 2
    assert cache.get(SYSTEM_PROMPT) is not first
    assert cache.builds == 2
    assert len(first) > 0


def test_catalog_falls_back_to_agent_zero_tools(a0):
    assert len(a0.turns.build_catalog("")) == len(ctb.Catalog.agent_zero())


def test_one_decision_point_per_generation_and_after_the_stream_only_the_log(a0):
    """v1.x decides in `call_chat_model`'s end hook, v2.6 and the newest in
    `call_chat_model_turn`'s: inside the model call, before any step of the loop has seen
    the reply. After the stream the plugin only shows the reply that runs in the UI log
    (`response_stream_end`); it has no hook at `message_loop_result` or later."""
    assert hasattr(a0.agent_module.Agent, "call_chat_model_turn") is (a0.generation != "v1")
    points = a0.root / "usr/plugins/claude_tool_bridge/extensions/python"
    assert sorted(str(p.relative_to(points).parent) for p in points.rglob("*.py")) == [
        "_functions/agent/Agent/call_chat_model/end",
        "_functions/agent/Agent/call_chat_model_turn/end",
        "chat_model_call_before",
        "response_stream_end",
        "startup_migration",
    ]


# ---------------------------------------------------------------- dependencies


def test_startup_migration_calls_ensure_dependencies(a0):
    a0.extension.call_extensions_sync("startup_migration", None)
    assert ("claude_tool_bridge", "ensure_dependencies", {"raise_on_error": False}) in a0.plugins.CALLS


def test_hooks_get_plugin_config_fills_missing_keys(a0):
    config = a0.plugins.get_plugin_config("claude_tool_bridge")
    assert settings(config) == ctb.Config().to_dict()
    a0.plugins.SAVED["claude_tool_bridge"] = {"early_stop": False}
    merged = a0.plugins.get_plugin_config("claude_tool_bridge")
    assert settings(merged) == {**ctb.Config().to_dict(), "early_stop": False}


async def test_a_reused_model_object_does_not_pile_up_stops(a0):
    provider = FakeProvider([JSON_REPLY, JSON_REPLY, JSON_REPLY])
    shared = FakeChatModel(provider, CLAUDE, {"stop": ["USER_STOP"]})
    agent = a0.agent_module.Agent(lambda: shared)
    for _ in range(3):
        await agent.turn(MESSAGES)
    expected = plan_stops(["USER_STOP"])
    assert [r.stop for r in provider.requests] == [expected] * 3




# ---------------------------------------------------------------- settings the screen saves


def test_the_screen_saves_only_what_differs_from_the_defaults(a0):
    """After a save, a later release's changed default still reaches every key the user
    left alone: config.json holds only the user's changes; the screen shows every key."""
    shown = a0.plugins.get_plugin_config("claude_tool_bridge")
    assert settings(shown) == ctb.Config().to_dict()
    # the screen saves what it shows, display-only keys included: they are not stored
    a0.plugins.save_plugin_config("claude_tool_bridge", "", "", {**shown, "early_stop": False})
    assert a0.plugins.SAVED["claude_tool_bridge"] == {"early_stop": False}
    assert settings(a0.plugins.get_plugin_config("claude_tool_bridge")) == {
        **settings(shown), "early_stop": False}
    # "Reset to default": the screen loads the defaults file and saves it
    a0.plugins.save_plugin_config("claude_tool_bridge", "", "",
                                  a0.plugins.get_default_plugin_config("claude_tool_bridge"))
    assert a0.plugins.SAVED["claude_tool_bridge"] == {}


def test_unusable_saved_values_show_the_default_and_say_why_once(a0):
    a0.plugins.SAVED["claude_tool_bridge"] = {"prose_min_chars": "lots", "colour": "blue"}
    for _ in range(3):
        shown = a0.plugins.get_plugin_config("claude_tool_bridge")
    assert settings(shown) == ctb.Config().to_dict()
    said = [line for line in a0.printed if "settings:" in line]
    assert said == [
        '[claude_tool_bridge] settings: `prose_min_chars` must be a whole number of 0 or more, '
        'not a string ("lots"); the default (800) is used',
        "[claude_tool_bridge] settings: unknown key `colour` ignored",
    ]


# ---------------------------------------------------------------- the wheel missing


def _hide_the_wheel(a0, monkeypatch):
    import sys

    monkeypatch.setattr(a0.agent_zero, "_bridge", None)
    monkeypatch.setattr(a0.agent_zero, "_import_tried_at", float("-inf"))
    monkeypatch.setitem(sys.modules, "usr.plugins.claude_tool_bridge.helpers.turns", None)
    monkeypatch.delattr(sys.modules["usr.plugins.claude_tool_bridge.helpers"], "turns")


async def test_a_missing_wheel_leaves_everything_alone_and_says_so_once(a0, monkeypatch):
    _hide_the_wheel(a0, monkeypatch)
    agent, provider = make_agent(a0, [LS_CALL, LS_CALL])
    await agent.turn(MESSAGES)
    monkeypatch.setattr(a0.agent_zero, "_import_tried_at", float("-inf"))  # retried later
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None
    assert handed_on(a0, agent) == [LS_CALL, LS_CALL]
    said = [line for line in a0.printed if "inactive" in line]
    assert len(said) == 1 and "cannot be imported" in said[0] and "To fix: restart" in said[0]
    assert [n["title"] for n in a0.notifications] == ["Claude Tool Bridge is inactive"]
    # the settings screen still shows what Agent Zero read
    a0.plugins.SAVED["claude_tool_bridge"] = {"early_stop": False}
    assert a0.plugins.get_plugin_config("claude_tool_bridge") == {"early_stop": False}


# ---------------------------------------------------------------- the loop's order


async def test_the_safety_check_judges_the_reply_that_runs_after_a_silent_re_ask(a0):
    """The stopped first reply (an unknown tool's call) is dropped and asked again. The
    `_infection_check` stand-in starts its analysis at `response_stream_end` on the text it
    collected: it must have collected the re-asked reply, whose tool is the one that runs."""
    agent, provider = make_agent(a0, [UNKNOWN_TOOL_CALL, LS_CALL])
    got = await agent.turn(MESSAGES)
    assert len(provider.requests) == 2
    assert got["tool_name"] == "code_execution_tool"
    assert agent.tools_run == ["code_execution_tool"]
    [gate] = agent.data["safety"]
    assert gate["tool_name"] == "code_execution_tool"
    assert gate["judged"] == LS_CALL  # the streamed text of the reply that runs
    assert "no_such_tool" not in gate["judged"]
    assert "no_such_tool" not in "".join(m for m in ai_messages(agent))
    assert [i["heading"] for i in agent.ui_log()] == ["A0: Running a terminal command"]
    assert "no_such_tool" not in json.dumps(agent.ui_log())
    if a0.generation == "newest":
        assert [json.loads(seen)["tool_name"] for seen in agent.data["seen_by_core"]] == [
            "code_execution_tool"
        ]


async def test_every_decision_of_a_turn_is_logged_discards_included(a0):
    agent, provider = make_agent(a0, [UNKNOWN_TOOL_CALL, LS_CALL])
    await agent.turn(MESSAGES)
    lines = [line for line in a0.printed if line.startswith("[claude_tool_bridge] A0:")]
    assert lines == [
        "[claude_tool_bridge] A0: discard (stopped_without_call), asked again "
        "(re-ask 1 of this turn, cause: stopped_without_call)",
        "[claude_tool_bridge] A0: translated (translated) -> code_execution_tool",
    ]


@pytest.mark.parametrize("raised", ["InterventionException", "HandledException", "RepairableException"])
async def test_agent_zero_exceptions_during_a_re_ask_pass_through_untouched(a0, raised):
    """An intervention (the stream callback raises it), or any other exception Agent Zero's
    own call raises while the bridge asks again, reaches the message loop unchanged: the
    dropped reply is not restored and nothing is logged as a plugin failure."""
    agent, provider = make_agent(a0, [UNKNOWN_TOOL_CALL, LS_CALL, JSON_REPLY])
    error_class = getattr(a0.errors, raised)
    thrown = error_class("from Agent Zero")

    def during_the_re_ask(n):
        if n == 1:
            if raised == "InterventionException":
                agent.intervention = "stop and do something else"
            else:
                raise thrown

    provider.before_answer = during_the_re_ask
    with pytest.raises(error_class) as caught:
        await agent.turn(MESSAGES)
    if raised != "InterventionException":
        assert caught.value is thrown
    else:
        assert agent.history[-1] == ("intervention", "stop and do something else", None)
    assert ai_messages(agent) == []  # neither the dropped reply nor anything else
    assert agent.tools_run == []
    assert not [line for line in a0.printed if "failed" in line]
    state = a0.turns.state_of(agent)
    assert (state.reasking, state.turn, state.force_no_stops) == (False, None, False)
    # the next turn works as usual
    provider.before_answer = None
    got = await agent.turn(MESSAGES)
    assert got["tool_name"] == "code_execution_tool"


async def test_a_provider_error_during_a_re_ask_is_agent_zeros_too(a0):
    agent, provider = make_agent(a0, [UNKNOWN_TOOL_CALL, LS_CALL])

    def fail(n):
        if n == 1:
            raise ConnectionError("provider down")

    provider.before_answer = fail
    with pytest.raises(ConnectionError):
        await agent.turn(MESSAGES)
    assert not [line for line in a0.printed if "failed" in line]


# ---------------------------------------------------------------- Responses transport


@pytest.mark.parametrize("generation", ["v26", "newest"])
async def test_responses_transport_requested_no_early_stop_and_its_replies_left_alone(
    a0_factory, generation
):
    """With `a0_api_mode: responses` the stream is never stopped early (a native call may
    follow the text); a reply that came back through Responses is Agent Zero's, said once."""
    a0 = a0_factory(generation)
    agent, provider = make_agent(a0, [LS_REPLY_WITH_TRAILER, LS_REPLY_WITH_TRAILER],
                                 kwargs={"a0_api_mode": "Responses"}, mode="responses")
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
    await agent.turn(MESSAGES)
    await agent.turn(MESSAGES)
    assert provider.streamed_chars == [len(LS_REPLY_WITH_TRAILER)] * 2
    assert handed_on(a0, agent)[0] == LS_REPLY_WITH_TRAILER
    said = [line for line in a0.printed if "left to Agent Zero" in line]
    assert len(said) == 1 and "the Responses transport" in said[0]


@pytest.mark.parametrize("generation", ["v26", "newest"])
async def test_responses_requested_but_run_as_chat_is_translated(a0_factory, generation):
    """Agent Zero runs a Responses-mode request through Chat Completions when the prompt has
    cache markers for Anthropic or OpenRouter: Claude's usual case. The result says
    `chat_completions`, and the bridge acts as for any chat reply."""
    a0 = a0_factory(generation)
    agent, provider = make_agent(a0, [LS_CALL], kwargs={"a0_api_mode": "responses"})
    got = await agent.turn(MESSAGES)
    assert provider.requests[0].stop == plan_stops()
    assert got["tool_name"] == "code_execution_tool"


# ---------------------------------------------------------------- the stream callback


@pytest.mark.parametrize("rewritten", [False, True])
async def test_the_callback_feeds_what_full_adds_and_stops_listening_when_it_is_rewritten(
    a0, rewritten
):
    """A delta without `>` costs no call into Rust; one with a `>` feeds the part of `full`
    not fed yet. When `full` does not end with the delta (something rewrote it), the bridge
    stops listening: no early stop for that reply."""
    import claude_tool_bridge as ctb

    turns = a0.turns
    session = ctb.Session(ctb.Config())
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    turn = turns.Turn(model_name="anthropic/claude-sonnet-4-5", stops=[], prompt_text="",
                      catalog=ctb.Catalog.agent_zero())
    seen: list[str] = []

    async def original(chunk, full):
        seen.append(chunk)
        return None

    callback = turns.wrap_response_callback(original, session, turn)
    reply = LS_REPLY_WITH_TRAILER
    full, stopped = "", None
    for i in range(0, len(reply), 7):
        chunk = reply[i : i + 7]
        full += chunk
        # A layer that moves the reply's first words elsewhere once the call has begun.
        shown = full[5:] if rewritten and i > 70 else full
        stopped = await callback(chunk, shown)
        if stopped is not None:
            break
    assert "".join(seen) == reply[: len("".join(seen))]
    if rewritten:
        assert stopped is None and turn.early_stopped is None
    else:
        assert stopped is not None and stopped == turn.early_stopped
        assert reply.startswith(stopped) and stopped.rstrip().endswith("invoke>")
        assert "Result:" not in stopped
