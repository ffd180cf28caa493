"""The plugin with a real LiteLLM (the version Agent Zero v2.6 pins) calling a loopback
Anthropic-compatible streaming server."""

from __future__ import annotations

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import claude_tool_bridge as ctb  # noqa: E402
import litellm  # noqa: E402
import pytest  # noqa: E402
from anthropic_server import ReplayServer  # noqa: E402
from conftest import SYSTEM_PROMPT  # noqa: E402
from fakes import HumanMessage, SystemMessage  # noqa: E402
from replies import JSON_REPLY, LS_CALL, LS_REPLY_WITH_TRAILER, UNKNOWN_TOOL_CALL  # noqa: E402

MODEL = "anthropic/claude-sonnet-4-5"
MESSAGES = [SystemMessage(SYSTEM_PROMPT), HumanMessage("list the files")]


class LiteLLMChatModel:
    """Shaped like Agent Zero's LiteLLMChatWrapper: `model_name`, `kwargs` (where the bridge
    puts `stop`), and a streaming loop that stops reading when the response callback returns
    text. Like Agent Zero's loop it then leaves the stream; `aclose()` is called too, but
    LiteLLM 1.88.1 does not close the Anthropic HTTP response with it (checked against this
    server: it goes on sending), so only provider stop sequences end the stream itself."""

    def __init__(self, api_base: str, kwargs: dict | None = None):
        self.model_name = MODEL
        self.kwargs = {"api_base": api_base, "api_key": "sk-test-not-a-key", "max_tokens": 4096,
                       **(kwargs or {})}
        self.a0_model_conf = None
        self.finish_reasons: list = []
        self.deltas_read: list[int] = []

    async def _stream(self, messages, response_callback):
        converted = [{"role": "system" if m.type == "system" else "user", "content": m.content}
                     for m in messages]
        stream = await litellm.acompletion(model=self.model_name, messages=converted, stream=True,
                                           **self.kwargs)
        full, finish, read = "", None, 0
        try:
            async for chunk in stream:
                choice = chunk.choices[0]
                finish = choice.finish_reason or finish
                delta = choice.delta.content or ""
                if not delta:
                    continue
                full += delta
                read += 1
                if response_callback is not None:
                    stop = await response_callback(delta, full)
                    if stop is not None:
                        full = stop
                        break
        finally:
            await stream.aclose()
        self.finish_reasons.append(finish)
        self.deltas_read.append(read)
        return full, finish

    async def unified_call(self, messages=None, response_callback=None, **kw):
        response, _ = await self._stream(messages, response_callback)
        return response, ""

    async def unified_turn(self, messages=None, response_callback=None, **kw):
        from helpers.llm_result import LLMResult

        response, finish = await self._stream(messages, response_callback)
        return LLMResult.from_chat(response=response, provider_model_key=self.model_name,
                                   finish_reason=finish or "")


def agent_for(a0, server, kwargs=None):
    models: list[LiteLLMChatModel] = []

    def factory():
        models.append(LiteLLMChatModel(server.base_url, kwargs))
        return models[-1]

    agent = a0.agent_module.Agent(factory)
    agent.test_models = models
    return agent


def history_ai(agent):
    return [entry[1] for entry in agent.history if entry[0] == "ai"]


def plan_stops():
    return ctb.Session(ctb.Config()).begin_turn(MODEL, []).stops


def ui_steps(agent):
    """The steps Agent Zero's web UI draws from the agent's log: title, thoughts, tool."""
    return [(item["heading"], item["kvps"].get("thoughts"), item["kvps"].get("tool_name"))
            for item in agent.ui_log() if item["type"] == "agent"]


LS_STEP = ("A0: Running a terminal command", ["I will list the files."], "code_execution_tool")


async def test_the_bridge_stop_strings_arrive_in_the_provider_request(a0):
    with ReplayServer([JSON_REPLY]) as server:
        agent = agent_for(a0, server)
        got = await agent.turn(MESSAGES)
        server.wait()
    sent = server.served[0].body.get("stop_sequences")
    assert sent == plan_stops()
    assert 0 < len(sent) <= 4
    assert got["tool_name"] == "code_execution_tool"


async def test_a_model_stop_list_keeps_precedence_in_the_request(a0_factory):
    a0 = a0_factory("v26")
    with ReplayServer([JSON_REPLY]) as server:
        agent = agent_for(a0, server, {"stop": ["USER_STOP"]})
        await agent.turn(MESSAGES)
        server.wait()
    sent = server.served[0].body["stop_sequences"]
    assert sent[0] == "USER_STOP" and len(sent) <= 4


async def test_a_stopped_reply_is_completed_and_translated(a0):
    with ReplayServer([LS_REPLY_WITH_TRAILER]) as server:
        agent = agent_for(a0, server)
        got = await agent.turn(MESSAGES)
        server.wait()
    served = server.served[0]
    assert served.stop_reason == "stop_sequence"
    assert len(served.reply) < len(LS_CALL)  # the provider ended before the stop string
    assert got is not None, history_ai(agent)
    assert got["tool_name"] == "code_execution_tool"
    assert got["tool_args"] == {"runtime": "terminal", "session": 0, "reset": False, "code": "ls -la"}
    assert json.loads(history_ai(agent)[0]) == got
    assert [e for e in agent.history if e[0] == "warning"] == []
    assert ui_steps(agent) == [LS_STEP]  # what the user sees: the step that runs


async def test_early_stop_ends_reading_at_the_first_call(a0):
    """Stop strings off: the callback's early stop is what ends the turn."""
    a0.plugins.SAVED["claude_tool_bridge"] = {"stop_sequence": False, "loop_guard": False}
    long_reply = LS_CALL + "\n\nResult:\n" + "line of invented output\n" * 400
    with ReplayServer([long_reply], delta_chars=40, delay_s=0.003) as server:
        agent = agent_for(a0, server)
        got = await agent.turn(MESSAGES)
        server.wait()
    served = server.served[0]
    assert not served.body.get("stop_sequences")
    read = agent.test_models[0].deltas_read[0]
    assert read < served.deltas_total / 4, (read, served.deltas_total)
    assert read * 40 < len(LS_CALL) + 80  # stopped within two deltas of the call's end
    assert got is not None and got["tool_name"] == "code_execution_tool"
    assert ui_steps(agent) == [LS_STEP]


async def test_a_provider_stop_ends_the_stream_itself(a0):
    """With stop strings on (the default) the provider ends the stream at the call."""
    long_reply = LS_CALL + "\n\nResult:\n" + "line of invented output\n" * 400
    with ReplayServer([long_reply]) as server:
        agent = agent_for(a0, server)
        got = await agent.turn(MESSAGES)
        server.wait()
    served = server.served[0]
    assert served.stop_reason == "stop_sequence"
    assert served.deltas_total * 40 < len(LS_CALL) + 40
    assert served.deltas_sent == served.deltas_total
    assert got is not None and got["tool_name"] == "code_execution_tool"


async def test_a_discard_asks_again_without_stop_strings(a0):
    with ReplayServer([UNKNOWN_TOOL_CALL, JSON_REPLY]) as server:
        agent = agent_for(a0, server)
        got = await agent.turn(MESSAGES)
        server.wait()
    assert len(server.served) == 2
    assert server.served[0].body.get("stop_sequences") == plan_stops()
    assert server.served[0].stop_reason == "stop_sequence"
    assert not server.served[1].body.get("stop_sequences")
    assert history_ai(agent) == [JSON_REPLY]
    assert [e for e in agent.history if e[0] == "warning"] == []
    assert got["tool_name"] == "code_execution_tool"
    assert ui_steps(agent) == [("A0: ls", ["listing"], "code_execution_tool")]
    assert "no_such_tool" not in json.dumps(agent.ui_log())  # the dropped reply is not shown


def test_litellm_is_the_pinned_version():
    from importlib.metadata import version

    assert version("litellm") == "1.88.1"
    pytest.importorskip("json_repair")
