"""Agent Zero v2.6 shape (July 2026): the loop calls `Agent.call_chat_model_turn`, which
returns an `LLMResult`; `call_chat_model` remains for other callers (document query, mail).

The newest shape (late 2026) is this one plus the `message_loop_result` extension point
between the model call and history: the `newest` layer adds the core's extension folder
(`_05_leaked_tool_call`, and the `_context_doctor` plugin), and the loop calls the point only
where that folder exists, the way the newest core has it."""

import json
from pathlib import Path
from types import SimpleNamespace

from helpers.extension import call_extensions_async, extensible
from helpers.llm_result import LLMResult  # noqa: F401 - the shape the model returns

HAS_MESSAGE_LOOP_RESULT = (Path(__file__).parent / "extensions" / "python" / "message_loop_result").is_dir()


class LoopData:
    def __init__(self):
        self.iteration = 0
        self.system = []
        self.params_temporary = {}
        self.params_persistent = {}
        self.last_response = ""


class Agent:
    def __init__(self, model_factory, name="A0"):
        self.model_factory = model_factory
        self.agent_name = name
        self.loop_data = LoopData()
        self.history = []  # ("ai" | "warning", text, output-items text or None)
        self.data = {}
        self.context = SimpleNamespace(log=SimpleNamespace(log=lambda **kw: None))

    def get_chat_model(self):
        return self.model_factory()

    def hist_add_ai_response(self, message, llm_result=None):
        self.loop_data.last_response = message
        items_text = None
        if llm_result is not None:
            items_text = "".join(
                block.get("text", "")
                for item in llm_result.output_items
                if item.type == "message"
                for block in item.data.get("content", [])
            )
        self.history.append(("ai", message, items_text))

    def hist_add_warning(self, message):
        self.history.append(("warning", message, None))

    @extensible
    async def call_chat_model(self, messages, response_callback=None, reasoning_callback=None,
                              background=False, explicit_caching=True):
        model = self.get_chat_model()
        call_data = {"model": model, "messages": messages, "response_callback": response_callback,
                     "reasoning_callback": reasoning_callback, "background": background,
                     "explicit_caching": explicit_caching}
        await call_extensions_async("chat_model_call_before", self, call_data=call_data)
        return await call_data["model"].unified_call(
            messages=call_data["messages"], response_callback=call_data["response_callback"])

    @extensible
    async def call_chat_model_turn(self, messages, response_callback=None, reasoning_callback=None,
                                   background=False, explicit_caching=True):
        model = self.get_chat_model()
        call_data = {"model": model, "messages": messages, "response_callback": response_callback,
                     "reasoning_callback": reasoning_callback, "background": background,
                     "explicit_caching": explicit_caching, "a0_responses_function_tools": []}
        await call_extensions_async("chat_model_call_before", self, call_data=call_data)
        return await call_data["model"].unified_turn(
            messages=call_data["messages"], response_callback=call_data["response_callback"],
            reasoning_callback=call_data["reasoning_callback"])

    async def turn(self, messages):
        async def stream_callback(chunk, full):
            return None

        llm_result = await self.call_chat_model_turn(messages=messages, response_callback=stream_callback)
        if HAS_MESSAGE_LOOP_RESULT:
            result_data = {"llm_result": llm_result}
            await call_extensions_async("message_loop_result", self, loop_data=self.loop_data,
                                        result_data=result_data)
            if result_data.get("skip_default_processing"):
                return None
        response = llm_result.response
        self.hist_add_ai_response(response, llm_result=llm_result)
        if llm_result.function_calls:
            return {"native": [c.name for c in llm_result.function_calls]}
        try:
            request = json.loads(response.strip())  # v2.6: exactly one JSON object or nothing
        except ValueError:
            return None  # shown to the user as the final answer
        return request if isinstance(request, dict) and request.get("tool_name") else None
