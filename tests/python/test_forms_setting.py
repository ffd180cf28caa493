"""The `forms` setting: a deployment names the markup forms its model writes, for a chat
template that asks one family's model for another family's form. In the Python `Config`, in
the LiteLLM callback's settings (a case of data/litellm/settings_cases run in-process through
`litellm.acompletion`, streamed and not), in the plugin's settings screen data. Also: the
decision's host-neutral call, and the message-text helper both hosts share."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import litellm  # noqa: E402
import pytest  # noqa: E402
from litellm_harness import Case, Upstream  # noqa: E402

import claude_tool_bridge as ctb  # noqa: E402
from claude_tool_bridge import messages  # noqa: E402
from claude_tool_bridge.litellm import LiteLLMBridge, bridge  # noqa: E402

DATA = Path(__file__).parent / "data" / "litellm"
V4 = "hosted_vllm/deepseek-ai/DeepSeek-V4-Flash"
QWEN_CALL = ("Checking.\n<tool_call>\n<function=memory_load>\n<parameter=query>\nvpn\n"
             "</parameter>\n</function>\n</tool_call>")

# ---------------------------------------------------------------- the Python Config


def test_the_config_reads_the_forms_a_deployment_names():
    config = ctb.Config.from_dict({"forms": {"*deepseek-v4*": ["qwen3_coder"], "local": "hermes"}})
    assert config.warnings == []
    assert config.forms == {"*deepseek-v4*": ["qwen3_coder"], "local": ["hermes"]}
    assert config.forms_for(V4) == ["qwen3_coder"]
    assert config.named_forms(V4) == ["qwen3_coder"]
    assert config.family_of(V4) == "deepseek"  # the family stays: it picks the stops
    assert config.named_forms("deepseek/deepseek-chat") is None
    assert "deepseek_dsml" in config.forms_for("deepseek/deepseek-chat")
    assert config.forms_for("my-local-model") == ["hermes"]
    assert ctb.Config().forms == {} and ctb.Config().forms_for("openai/gpt-5") == []
    assert ctb.Config.from_dict(config.overrides()).forms == config.forms


def test_a_bad_form_code_is_a_warning_for_its_key_and_never_widens():
    config = ctb.Config.from_dict({"forms": {"v4": ["qwen3_coder", "qwen3"], "odd": 3}})
    assert config.forms_for("v4") == ["qwen3_coder"]
    assert config.forms_for("odd-model") == []  # a value that is no list: no form is read
    assert [key for key, _ in config.warnings_by_key] == ["forms", "forms"]
    assert "`qwen3` is not a markup form" in config.warnings[0]
    assert config.warnings[1] == (
        "`forms.odd` must be a list of markup form codes, not a number (3); the models it "
        "matches are read for no form until this is fixed")
    whole = ctb.Config.from_dict({"forms": ["qwen3_coder"]})
    assert whole.forms == {} and whole.warnings_by_key[0][0] == "forms"


def test_translate_and_the_session_read_the_named_forms():
    catalog = ctb.Catalog.agent_zero()
    quoted = ctb.Session(ctb.Config())
    quoted.begin_turn(V4, [])
    assert quoted.finish(QWEN_CALL, "stop", catalog).reason == "quoted"
    named = ctb.Session(ctb.Config.from_dict({"forms": {"*deepseek-v4*": ["qwen3_coder"]}}))
    named.begin_turn(V4, [])
    decision = named.finish(QWEN_CALL, "stop", catalog)
    assert (decision.outcome, decision.form, decision.family) == ("translated", "qwen3_coder", "qwen")


# ---------------------------------------------------------------- the decision's call


def test_a_translation_carries_its_call_and_the_request_is_rendered_from_it():
    catalog = ctb.Catalog.agent_zero()
    reply = "Ünïcode first.\n" + QWEN_CALL.split("\n", 1)[1] + "\ntail"
    decision = ctb.translate(reply, catalog)
    call = decision.call
    assert call == ctb.first_call(reply, catalog)
    assert call is not decision.call  # a new dict on every access
    assert (call["name"], call["arguments"], call["prose"]) == ("memory_load", {"query": "vpn"},
                                                                "Ünïcode first.")
    start, end = call["span"]
    assert reply[start:end].startswith("<tool_call>\n<function=memory_load>")
    assert reply[end:] == "\n</tool_call>\ntail"
    assert (call["thoughts"], call["headline"]) == ([], None)
    request = decision.request
    assert (request["tool_name"], request["tool_args"]) == (call["name"], call["arguments"])
    assert (decision.form, decision.family, decision.prose) == (call["form"], call["family"],
                                                                call["prose"])
    for untouched in ("no call here", "```\n" + QWEN_CALL + "\n```"):
        assert ctb.translate(untouched, catalog).call is None
    prose = ctb.Session(ctb.Config())
    prose.begin_turn("anthropic/claude-sonnet-4-5", [])
    answer = prose.finish("A long answer. " * 80, "stop", catalog)
    assert (answer.outcome, answer.call, answer.request["tool_name"]) == ("prose", None, "response")


def test_a_stopped_reply_s_call_lies_within_the_reply():
    catalog = ctb.Catalog.agent_zero()
    session = ctb.Session(ctb.Config())
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    reply = ('Disk.\n<invoke name="code_execution_tool">\n<parameter name="runtime">terminal'
             '</parameter>\n<parameter name="code">df -h</parameter>\n</')
    decision = session.finish(reply, "stop_sequence", catalog)
    assert decision.reason == "completed_after_stop"
    start, end = decision.call["span"]
    assert (reply[:start], end) == ("Disk.\n", len(reply))


# ---------------------------------------------------------------- the shared message text


def test_both_hosts_read_a_message_s_texts_one_way():
    content = [
        "plain",
        {"type": "text", "text": "a part"},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": "tool_result", "content": [{"type": "text", "text": "inside"}]},
        {"type": "document", "source": {"data": "a document"}},
        {"type": "function_call_output", "output": "an output"},
        {"type": "text", "text": ""},
    ]
    assert messages.content_texts(content) == ["plain", "a part", "inside", "a document",
                                               "an output"]
    assert messages.text_of("just text") == "just text"
    assert messages.text_of(None) == ""

    class LangChain:
        def __init__(self, kind, content):
            self.type, self.content = kind, content

    assert [messages.role_of(m) for m in (LangChain("human", ""), LangChain("ai", ""),
                                         LangChain("system", ""), {"role": "tool"}, {})] == [
        "user", "assistant", "system", "tool", None]
    # The plugin's and the callback's readings agree on what a message holds.
    from claude_tool_bridge.litellm import _received_texts

    assert _received_texts({"messages": [{"role": "user", "content": content}]}) == \
        messages.content_texts(content)


# ---------------------------------------------------------------- the LiteLLM callback


def load_settings_cases() -> list[tuple[Case, dict, str]]:
    tools = json.loads((DATA / "tools.json").read_text())
    out = []
    for path in sorted((DATA / "settings_cases").glob("*.json")):
        raw = json.loads(path.read_text())
        case = Case(name=path.stem, note=raw["note"], model=raw["model"],
                    deployment=raw["deployment"], reply=raw["reply"], tools=tools,
                    history=[], stop=None, tool_choice=None, expect=raw["expect"],
                    sent_stop=raw.get("sent_stop", ...))
        out.append((case, raw["settings"], raw["without_settings"]))
    return out


SETTINGS_CASES = load_settings_cases()


@pytest.fixture(scope="module")
def upstream():
    with Upstream({c.name: c.reply for c, _, _ in SETTINGS_CASES}) as server:
        yield server


def _got(response) -> dict:
    message = response.choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    return {"content": message.content, "tool_calls": calls,
            "finish": response.choices[0].finish_reason}


def _assembled(chunks) -> dict:
    content, name, arguments, finish = [], "", "", None
    for chunk in chunks:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        content.append(delta.content or "")
        for call in delta.tool_calls or []:
            name += call.function.name or ""
            arguments += call.function.arguments or ""
        finish = chunk.choices[0].finish_reason or finish
    calls = [(name, json.loads(arguments))] if name else []
    return {"content": "".join(content) or None, "tool_calls": calls, "finish": finish}


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("entry", SETTINGS_CASES, ids=lambda e: e[0].name)
async def test_a_deployment_setting_in_the_callback(entry, upstream):
    case, settings, without = entry
    configured = LiteLLMBridge(settings)
    request = {"model": case.model, "metadata": {"model_group": case.model}, **case.request()}
    plan = configured.plan(request, case.deployment)
    assert plan is not None and plan.model == case.deployment
    assert plan.stops == case.sent_stop
    expected = case.expect["tool_call"]
    want = {"content": case.expect["content"],
            "tool_calls": [(expected["name"], expected["arguments"])], "finish": "tool_calls"}
    saved = litellm.callbacks
    litellm.callbacks = [configured]
    try:
        kwargs = dict(model=case.deployment, api_base=upstream.base_url, api_key="sk-upstream",
                      **case.request())
        response = await litellm.acompletion(**kwargs)
        assert _got(response) == want
        assert upstream.requests_for(case.name)[-1].get("stop") == case.sent_stop
        stream = await litellm.acompletion(stream=True, **kwargs)
        assert _assembled([c async for c in configured.stream(stream)]) == want
    finally:
        litellm.callbacks = saved
    # Without the setting, the same reply is another family's syntax: it stays text.
    assert without == "untouched"
    default_plan = bridge.plan(request, case.deployment)
    assert default_plan is not None
    turn = default_plan.turn()
    text = case.reply.split(case.sent_stop[0])[0] if case.sent_stop[0] in case.reply else case.reply
    assert turn.finish(text, "stop") is None
