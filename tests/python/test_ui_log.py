"""What the user sees in Agent Zero's web UI: the chat log the UI reads (`agent.context.log`),
on the stand-ins of the three generations.

Agent Zero fills that log only from the text as it streams in: the step item's heading,
thoughts and tool from a reply that reads as a JSON request, the answer item from a
`response` request (marked finished by the `response` tool, which ends the step group: the
"END" badge). A reply the bridge wrote never streamed. Each case runs a conversation twice:
once with what the model leaked, once with the JSON replies that ran instead (what the bridge
handed on, streamed as if the model had written them). The UI must show the same steps and
answers both times, and what each case names besides."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from test_hooks import MESSAGES, Scripted, ai_messages, install_counting, make_agent
from replies import LS_CALL, TRAILER, UNKNOWN_TOOL_CALL, invoke

ANSWER = "The folder holds two files: file_a.txt and file_b.txt."
RESPONSE_CALL = invoke("response", {"text": ANSWER}, before="Both files are listed.\n\n")
PROSE = ("The folder holds two files. " + "Each of them is a plain text file of a few lines. " * 20).strip()
# A reply whose prose reads as a JSON object to Agent Zero's tolerant reader (it starts at the
# first `{`): the newest core hands its last streamed text to the log after the model call.
BRACED_CALL = invoke(
    "code_execution_tool",
    {"runtime": "terminal", "session": "0", "reset": "false", "code": "ls -la"},
    before='Plan {"files": "list them"} first.\n\n',
)
# A reply that streams as a JSON `response` (the UI shows its answer while it streams) and is
# then dropped (the session is scripted to discard it), and asked again.
DROPPED_TEXT = "I I I I I I I I I I I I I I I I"
DROPPED_ANSWER = (
    '{"thoughts": ["answering"], "headline": "Answering", "tool_name": "response", '
    '"tool_args": {"text": "' + DROPPED_TEXT + " I I I I I I I I I I I I"
)
MARKUP = ("<invoke", "</invoke", "<parameter", "invoke>")


@dataclass
class Case:
    name: str
    replies: list[str]
    # Headings of the steps, without the agent's "A0: " (None: the default "Calling LLM...").
    steps: list[str | None]
    # The answer the UI shows, or None when the conversation ends without one.
    answer: str | None
    settings: dict = field(default_factory=dict)
    # The first reply's decision is scripted as a discard (a silent re-ask follows).
    discard_first: bool = False
    turns: int = 1


CASES = [
    Case("translated call, then a translated answer", [LS_CALL, RESPONSE_CALL],
         ["Running a terminal command", "Responding"], ANSWER, turns=2),
    Case("the same without the provider's stop and the early stop", [LS_CALL + TRAILER, RESPONSE_CALL + TRAILER],
         ["Running a terminal command", "Responding"], ANSWER,
         settings={"stop_sequence": False, "early_stop": False, "loop_guard": False}, turns=2),
    Case("prose sent through response", [PROSE], ["Responding"], PROSE),
    Case("a stopped reply without a usable call, asked again silently",
         [UNKNOWN_TOOL_CALL, LS_CALL], ["Running a terminal command"], None),
    Case("a dropped reply that streamed as an answer, asked again: a call",
         [DROPPED_ANSWER, LS_CALL], ["Running a terminal command"], None, discard_first=True),
    Case("a dropped reply that streamed as an answer, asked again: an answer",
         [DROPPED_ANSWER, RESPONSE_CALL], ["Responding"], ANSWER, discard_first=True),
    Case("a dropped reply that streamed as an answer, asked again: a sentence left alone",
         [DROPPED_ANSWER, "Let me look at the folder first."], [None], None, discard_first=True),
    Case("a reply whose prose reads as JSON to Agent Zero's stream reader",
         [BRACED_CALL], ["Running a terminal command"], None),
]


def what_the_ui_shows(log):
    """The log as the UI draws it: per step its title, thoughts and tool; per answer its text
    and whether it is finished. Items sharing an id are one element on the page (the answer
    shares its step's id), the later one drawn over the earlier one."""
    shown = []
    for item in log:
        kvps = item["kvps"]
        if item["type"] == "agent":
            entry = ("step", item["heading"], kvps.get("thoughts"), kvps.get("tool_name"),
                     json.dumps(kvps.get("tool_args"), sort_keys=True), "step" in kvps)
        elif item["type"] == "response":
            entry = ("answer", item["content"], bool(kvps.get("finished")))
        else:
            entry = (item["type"], item["heading"], item["content"])
        key = (item["type"] if item["type"] != "response" else "answer", item["id"])
        for i, (k, _) in enumerate(shown):
            if k == key and item["id"]:
                shown[i] = (key, entry)
                break
        else:
            shown.append((key, entry))
    return [entry for _, entry in shown]


async def run(a0, case, replies, discard_first=False):
    a0.plugins.SAVED["claude_tool_bridge"] = dict(case.settings)
    agent, provider = make_agent(a0, replies)
    if discard_first:
        install_counting(a0, agent, scripted=[Scripted("discard", "", "loop")])
    results = [await agent.turn(MESSAGES) for _ in range(case.turns)]
    return agent, results


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_leaked_conversation_reads_like_its_json_twin(a0, case):
    leaked, results = await run(a0, case, case.replies, case.discard_first)
    ran = ai_messages(leaked)
    assert len(ran) == case.turns, ran
    twin, twin_results = await run(a0, case, ran)
    assert results == twin_results
    seen = what_the_ui_shows(leaked.ui_log())
    assert seen == what_the_ui_shows(twin.ui_log())

    steps = [entry for entry in seen if entry[0] == "step"]
    assert [s[1] for s in steps] == [f"A0: {h or 'Calling LLM...'}" for h in case.steps]
    for step, reply, heading in zip(steps, ran, case.steps):
        request = json.loads(reply) if heading else {}
        assert (step[2], step[3]) == (request.get("thoughts"), request.get("tool_name"))
        assert step[5] is False  # the "step" line goes once the stream has ended
    answers = [entry for entry in seen if entry[0] == "answer"]
    if case.answer is None:
        assert answers == []
    else:
        assert answers == [("answer", case.answer, True)]
    for item in leaked.ui_log():
        if item["type"] == "response":
            assert not any(m in item["content"] for m in MARKUP), item
            assert DROPPED_TEXT not in item["content"], item


async def test_a_reply_left_untouched_is_logged_by_agent_zero_alone(a0):
    """A JSON reply: the bridge shows nothing itself (the stream did)."""
    twin = Case("", [], [], None)
    agent, _ = await run(a0, twin, [json.dumps({
        "thoughts": ["done"], "headline": "Answering", "tool_name": "response",
        "tool_args": {"text": ANSWER}})])
    seen = what_the_ui_shows(agent.ui_log())
    assert seen == [
        ("step", "A0: Answering", ["done"], "response", json.dumps({"text": ANSWER}), False),
        ("answer", ANSWER, True),
    ]
    assert [i["type"] for i in agent.ui_log()] == ["agent", "response"]


async def test_an_uncovered_model_is_shown_as_agent_zero_shows_it(a0):
    agent, provider = make_agent(a0, [LS_CALL], model_name="openai/gpt-5")
    await agent.turn(MESSAGES)
    assert what_the_ui_shows(agent.ui_log()) == [
        ("step", "A0: Calling LLM...", None, None, "null", False)]


async def test_the_plugins_own_failure_while_showing_is_said_once_and_the_turn_goes_on(a0, monkeypatch):
    def broken(shown):
        raise RuntimeError("log-boom")

    monkeypatch.setattr(a0.agent_zero, "_params", broken)
    agent, provider = make_agent(a0, [LS_CALL, LS_CALL])
    got = [await agent.turn(MESSAGES) for _ in range(2)]
    assert [g["tool_name"] for g in got] == ["code_execution_tool"] * 2
    assert sum("log-boom" in line for line in a0.printed) == 1


async def test_what_agent_zeros_log_raises_while_showing_passes_through(a0, monkeypatch):
    """`handle_response_stream` starts with Agent Zero's intervention check: an intervention
    that arrives right then is Agent Zero's to handle, not a plugin failure."""
    errors = a0.errors
    agent, provider = make_agent(a0, [LS_CALL])
    original = agent.handle_response_stream
    calls = []

    async def intervened(stream):
        calls.append(stream)
        if json_request(stream):
            raise errors.InterventionException("stop")
        return await original(stream)

    monkeypatch.setattr(agent, "handle_response_stream", intervened)
    with pytest.raises(errors.InterventionException):
        await agent.turn(MESSAGES)
    assert not [line for line in a0.printed if "failed" in line]


def json_request(text):
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
