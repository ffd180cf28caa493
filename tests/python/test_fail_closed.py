"""Failing closed, on the stand-ins of every Agent Zero generation: settings that cannot be read
leave the bridge off or narrower, a turn keeps the settings it began with, nothing but Agent
Zero's own control flow escapes from a plugin entry point whatever it is handed, re-asks are
counted, logged and backed off, split surrogates are joined, notification text is escaped."""

from __future__ import annotations

import json

import claude_tool_bridge as ctb
import pytest
from fakes import FakeChatModel, FakeProvider, HumanMessage, SystemMessage
from conftest import SYSTEM_PROMPT
from replies import JSON_REPLY, LS_CALL, UNKNOWN_TOOL_CALL, invoke

CLAUDE = "anthropic/claude-sonnet-4-5"
MESSAGES = [SystemMessage(SYSTEM_PROMPT), HumanMessage("list the files")]
# A reply that repeats an empty call: the loop stop `">\n</invoke>\n<invoke` cuts it, and the
# bridge discards it as a loop and asks again (with the stops on).
LOOP = 'Checking.\n<invoke name="">\n</invoke>\n<invoke name="">\n</invoke>\n' * 3
LOOP_STOP = '">\n</invoke>\n<invoke'


def make_agent(a0, replies, model_name=CLAUDE, **provider_opts):
    provider = FakeProvider(list(replies), **provider_opts)
    agent = a0.agent_module.Agent(lambda: FakeChatModel(provider, model_name))
    return agent, provider


def ai_messages(agent):
    return [entry[1] for entry in agent.history if entry[0] == "ai"]


def handed_on(a0, agent):
    if a0.generation == "newest":
        return agent.data.get("seen_by_core", [])
    return ai_messages(agent)


def shown(a0):
    return a0.plugins.get_plugin_config("claude_tool_bridge")


def bridge_lines(a0):
    return [line for line in a0.printed if line.startswith("[claude_tool_bridge]")]


# ---------------------------------------------------------------- settings fail closed


@pytest.mark.parametrize(
    "saved",
    [
        {"enabled": "false"},
        {"enabled": None},
        {"enabled": float("nan")},
        {"enabled": "true"},
        {"enabled": False, "prose_min_chars": float("nan")},  # a NaN used to throw all away
        {"enabled": False, "models": [object()]},
        ["enabled", False],  # not a mapping at all
    ],
)
async def test_settings_that_cannot_be_read_leave_the_bridge_off(a0, saved):
    a0.plugins.SAVED["claude_tool_bridge"] = saved
    agent, provider = make_agent(a0, [LS_CALL])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None
    assert handed_on(a0, agent) == [LS_CALL]
    screen = shown(a0)
    assert screen["enabled"] is False
    assert screen["_warnings"], "the settings screen says why"
    assert any("settings:" in line for line in bridge_lines(a0)), "and so does the log"


async def test_an_unreadable_models_value_covers_no_model(a0):
    a0.plugins.SAVED["claude_tool_bridge"] = {"models": 5}
    agent, provider = make_agent(a0, [LS_CALL])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None and handed_on(a0, agent) == [LS_CALL]
    assert shown(a0)["models"] == []
    assert shown(a0)["_warnings"] == [{
        "key": "models",
        "text": "`models` must be a list of model name patterns, not a number (5); no model is "
        "covered until this is fixed",
    }]


async def test_a_bad_pattern_is_dropped_and_the_rest_still_covers(a0):
    a0.plugins.SAVED["claude_tool_bridge"] = {"models": ["claude", {"x": 1}]}
    agent, provider = make_agent(a0, [LS_CALL])
    got = await agent.turn(MESSAGES)
    assert got["tool_name"] == "code_execution_tool"
    assert shown(a0)["models"] == ["claude"]


async def test_settings_agent_zero_cannot_read_leave_the_bridge_off(a0, monkeypatch):
    """A broken config.json makes Agent Zero's `get_plugin_config` raise: it may hold
    `enabled: false`, so the bridge stays off (one log line)."""

    def broken(name, **kwargs):
        raise json.JSONDecodeError("Expecting value", "{", 1)

    monkeypatch.setattr(a0.plugins, "get_plugin_config", broken)
    agent, provider = make_agent(a0, [LS_CALL, LS_CALL])
    await agent.turn(MESSAGES)
    a0.turns.state_of(agent).settings_at = float("-inf")
    await agent.turn(MESSAGES)
    assert [r.stop for r in provider.requests] == [None, None]
    assert handed_on(a0, agent) == [LS_CALL, LS_CALL]
    assert sum("reading the plugin settings failed" in line for line in a0.printed) == 1


# ---------------------------------------------------------------- a turn keeps its settings


async def test_a_save_during_a_re_ask_applies_from_the_next_turn(a0):
    """A turn keeps its settings: settings saved while a turn asks again made the re-asked
    reply meet a new session, which had no turn open; the good re-asked reply was lost and
    the discarded looping one went into history."""
    agent, provider = make_agent(a0, [LOOP, LS_CALL, JSON_REPLY])
    state = a0.turns.state_of(agent)
    first_stops = ctb.Session(ctb.Config()).begin_turn(CLAUDE, []).stops

    def the_user_saves(n):
        if n == 0:  # while the first reply streams: the next settings read sees the save
            a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
            state.settings_at = float("-inf")

    provider.before_answer = the_user_saves
    got = await agent.turn(MESSAGES)
    assert len(provider.requests) == 2
    assert "Checking." not in json.dumps(ai_messages(agent)), "the discarded reply stays out"
    assert got is not None and got["tool_name"] == "code_execution_tool"
    assert provider.requests[1].stop == first_stops, "the re-ask runs with the turn's settings"
    assert not [line for line in a0.printed if "failed" in line]
    # the next turn runs with the saved settings: no stop strings at all
    provider.before_answer = None
    await agent.turn(MESSAGES)
    assert provider.requests[2].stop is None


# ---------------------------------------------------------------- nothing escapes


class Explosive:
    """An object any attribute of which raises."""

    def __getattribute__(self, name):
        raise RuntimeError(f"explosive .{name}")


class NoAttributes:
    __slots__ = ()


class ExplosiveFields:
    """A result whose `__dict__` cannot be read (the snapshot used to run outside the try)."""

    @property
    def __dict__(self):
        raise RuntimeError("no fields")


async def _callback(chunk, full):
    return None


def odd_call_data(a0):
    provider = FakeProvider([LS_CALL])
    model = FakeChatModel(provider, CLAUDE)
    odd_model = FakeChatModel(provider, CLAUDE)
    odd_model.kwargs = Explosive()
    return [
        None,
        5,
        {},
        {"model": Explosive(), "response_callback": _callback},
        {"model": odd_model, "response_callback": _callback},
        {"model": model, "response_callback": _callback, "messages": Explosive()},
        {"model": model, "response_callback": _callback, "messages": [Explosive()]},
    ]


def odd_end_data():
    return [
        None,
        {},
        {"result": Explosive()},
        {"result": ExplosiveFields()},
        {"result": NoAttributes()},
        {"result": (Explosive(), "")},
        {"result": ("text", None)},
        {"result": ()},
        {"result": 7},
        {"result": None, "exception": RuntimeError("Agent Zero's")},
    ]


@pytest.mark.parametrize("enabled", [True, False])
async def test_no_plugin_entry_point_raises_whatever_it_is_handed(a0, enabled):
    a0.plugins.SAVED["claude_tool_bridge"] = {"enabled": enabled}
    ext = a0.extension
    real_agent, _ = make_agent(a0, [LS_CALL])
    agents = [None, Explosive(), NoAttributes(), real_agent]
    ends = ["_functions/agent/Agent/call_chat_model/end", "_functions/agent/Agent/call_chat_model_turn/end"]
    for agent in agents:
        for call_data in odd_call_data(a0):
            await ext.call_extensions_async("chat_model_call_before", agent, call_data=call_data)
        for point in ends:
            for data in odd_end_data():
                before = dict(data) if isinstance(data, dict) else data
                await ext.call_extensions_async(point, agent, data=data)
                if isinstance(data, dict):
                    assert data == before or data["result"] is before["result"], (point, data)
            # a turn begun for real, then an odd result
            provider = FakeProvider([LS_CALL])
            good = {"model": FakeChatModel(provider, CLAUDE), "response_callback": _callback,
                    "messages": MESSAGES}
            await ext.call_extensions_async("chat_model_call_before", agent, call_data=good)
            for data in odd_end_data():
                await ext.call_extensions_async(point, agent, data=data)
    for settings in (None, 5, Explosive(), {"enabled": Explosive()}, {Explosive(): 1}):
        a0.plugins.call_plugin_hook("claude_tool_bridge", "get_plugin_config", default=settings)
        a0.plugins.call_plugin_hook("claude_tool_bridge", "save_plugin_config", settings=settings)
    # Agent Zero runs as usual afterwards, and each failure was said at most once
    agent, provider = make_agent(a0, [LS_CALL])
    got = await agent.turn(MESSAGES)
    assert (got is not None) is enabled or a0.generation == "v26"
    lines = bridge_lines(a0)
    assert len(lines) == len(set(lines))


async def test_a_result_that_cannot_be_snapshot_is_left_alone_also_when_disabled(a0_factory):
    """`_snapshot` ran outside the `try`: an unexpected result object raised into Agent
    Zero's loop, even with `enabled: false`."""
    for generation in ("v26", "newest"):
        a0 = a0_factory(generation)
        a0.plugins.SAVED["claude_tool_bridge"] = {"enabled": False}
        agent, _ = make_agent(a0, [])
        data = {"result": ExplosiveFields(), "exception": None}
        await a0.agent_zero.call_chat_model_turn_end(agent, data)
        assert isinstance(data["result"], ExplosiveFields)


async def test_a_failure_after_the_stops_were_set_restores_the_call(a0, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("wrap-boom")

    monkeypatch.setattr(a0.turns, "wrap_response_callback", broken)
    agent, provider = make_agent(a0, [LS_CALL])
    await agent.turn(MESSAGES)
    assert provider.requests[0].stop is None, "the bridge's stops are taken back"
    assert handed_on(a0, agent) == [LS_CALL]
    assert sum("wrap-boom" in line for line in a0.printed) == 1


# ---------------------------------------------------------------- split surrogates


def _split_pair_call() -> str:
    return invoke("response", {"text": "done \ud83d\ude00 here"})


async def test_a_surrogate_pair_split_by_the_stream_is_joined(a0):
    """A provider's JSON escapes of one emoji arriving in two deltas decode to two lone
    surrogates; the reply used to be skipped."""
    reply = _split_pair_call()
    assert "\ud83d\ude00" in reply and len(reply.encode("utf-16-le", "surrogatepass")) % 2 == 0
    agent, provider = make_agent(a0, [reply], chunk_size=3)
    got = await agent.turn(MESSAGES)
    assert got is not None and got["tool_args"]["text"] == "done \U0001f600 here"
    assert not [line for line in a0.printed if "failed" in line]


async def test_a_lone_surrogate_leaves_the_reply_untouched_with_one_line(a0):
    reply = invoke("response", {"text": "broken \ud83d here"})
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
    agent, provider = make_agent(a0, [reply, reply], chunk_size=4)
    await agent.turn(MESSAGES)
    await agent.turn(MESSAGES)
    assert handed_on(a0, agent) == [reply, reply]
    said = [line for line in a0.printed if "lone surrogate" in line]
    assert len(said) == 1 and "left to Agent Zero" in said[0]


# ---------------------------------------------------------------- re-asks


async def test_a_re_ask_that_did_not_pay_off_switches_its_cause_off_for_twenty_turns(a0):
    turns = a0.turns
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False}
    agent, provider = make_agent(
        a0, [LOOP, LOOP, JSON_REPLY] + [LOOP] * turns.BACKOFF_TURNS + [LOOP, JSON_REPLY])
    await agent.turn(MESSAGES)
    assert len(provider.requests) == 3  # loop, loop, usable
    assert LOOP_STOP in provider.requests[0].stop
    lines = [line for line in bridge_lines(a0) if "A0:" in line]
    assert lines == [
        "[claude_tool_bridge] A0: discard (loop), asked again (re-ask 1 of this turn, cause: loop)",
        "[claude_tool_bridge] A0: discard (loop), asked again (re-ask 2 of this turn, cause: loop)",
        "[claude_tool_bridge] A0: re-asks for `loop` did not pay off; it is switched off for the "
        "next 20 turns of this conversation",
    ]
    screen = shown(a0)["_reasks"]
    assert (screen["reasks"], screen["by_cause"], screen["model_calls"]) == (2, {"loop": 2}, 3)
    assert screen["switched_off"] == {"loop": 20}
    assert "2 re-asks" in screen["summary"]
    # the next twenty turns: no loop stops, no loop re-asks, one call each
    for _ in range(turns.BACKOFF_TURNS):
        await agent.turn(MESSAGES)
    assert len(provider.requests) == 3 + turns.BACKOFF_TURNS
    assert all(r.stop is None for r in provider.requests[3:])
    assert handed_on(a0, agent)[-1] == LOOP
    # and then the loop guard is back: a loop is asked again (and this re-ask pays off)
    got = await agent.turn(MESSAGES)
    assert len(provider.requests) == 3 + turns.BACKOFF_TURNS + 2
    assert LOOP_STOP in provider.requests[-2].stop
    assert got["tool_name"] == "code_execution_tool"
    screen = shown(a0)["_reasks"]
    assert (screen["reasks"], screen["switched_off"], screen["turns"]) == (3, {}, 22)


async def test_a_cause_re_asked_twice_within_twenty_turns_is_switched_off(a0):
    """A fenced quote of a call costs one extra call every fourth turn (the session pauses
    the stop for three): the second such re-ask within twenty turns switches it off."""
    a0.plugins.SAVED["claude_tool_bridge"] = {"loop_guard": False}
    replies = [UNKNOWN_TOOL_CALL, LS_CALL, JSON_REPLY, JSON_REPLY, JSON_REPLY, UNKNOWN_TOOL_CALL,
               LS_CALL, UNKNOWN_TOOL_CALL]
    agent, provider = make_agent(a0, replies)
    for _ in range(6):
        await agent.turn(MESSAGES)
    assert len(provider.requests) == 8
    usage = shown(a0)["_reasks"]
    assert usage["by_cause"] == {"stopped_without_call": 2}
    assert usage["switched_off"] == {"stopped_without_call": 19}  # one of the twenty turns ran
    assert provider.requests[-1].stop is None  # the end-of-call stop is off now
    assert handed_on(a0, agent)[-1] == UNKNOWN_TOOL_CALL  # one call, left to Agent Zero


# ---------------------------------------------------------------- notification text


def test_notification_text_is_escaped_and_log_lines_are_plain(a0):
    pip_said = "ERROR: \x1b[31m<img src=x onerror=alert(1)>\x1b[0m\r\nnot found"
    a0.agent_zero.report_inactive(f"the index said {pip_said}", "do <b>this</b>")
    [note] = a0.notifications
    assert "<img" not in note["message"] and "&lt;img src=x onerror=alert(1)&gt;" in note["message"]
    assert "&lt;b&gt;this&lt;/b&gt;" in note["message"]
    [line] = [line for line in a0.printed if "inactive" in line]
    assert "\x1b" not in line and "\r" not in line and "\n" not in line
