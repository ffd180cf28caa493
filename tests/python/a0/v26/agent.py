"""Agent Zero v2.6 shape (July 2026): the loop (a0loop.py) calls `Agent.call_chat_model_turn`,
which returns an `LLMResult`; `call_chat_model` remains for other callers (document query,
mail). A reply counts only when it is exactly one JSON tool object.

The newest shape (late 2026) is this one plus the `message_loop_result` extension point
after the stream-end events and before history: the `newest` layer adds the core's
extension folder (`_05_leaked_tool_call`, and the `_context_doctor` plugin), and the loop
calls the point only where that folder exists, the way the newest core has it."""

import json
from pathlib import Path

from a0loop import LoopAgent, LoopData  # noqa: F401 - LoopData: the shape tests build
from helpers.extension import call_extensions_async, extensible
from helpers.llm_result import LLMResult  # noqa: F401 - the shape the model returns

HAS_MESSAGE_LOOP_RESULT = (Path(__file__).parent / "extensions" / "python" / "message_loop_result").is_dir()


class Agent(LoopAgent):
    # The newest core fills the log from the stream in steps, and reads a request's aliases.
    stream_log_every = 128 if HAS_MESSAGE_LOOP_RESULT else 0
    normalize_streamed_request = HAS_MESSAGE_LOOP_RESULT

    def hist_add_ai_response(self, message, llm_result=None):
        self.loop_data.last_response = message
        items_text = None
        if llm_result is not None and hasattr(llm_result, "output_items"):
            items_text = "".join(
                block.get("text", "")
                for item in llm_result.output_items
                if item.type == "message"
                for block in item.data.get("content", [])
            )
        self.history.append(("ai", message, items_text))

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

    async def call_model(self, messages, stream_callback):
        return await self.call_chat_model_turn(messages=messages, response_callback=stream_callback)

    def reply_of(self, result):
        return result.response

    async def after_stream_end(self, llm_result):
        if not HAS_MESSAGE_LOOP_RESULT:
            return False
        result_data = {"llm_result": llm_result}
        await call_extensions_async("message_loop_result", self, loop_data=self.loop_data,
                                    result_data=result_data)
        return bool(result_data.get("skip_default_processing"))

    def extract_tool(self, reply, llm_result):
        if llm_result.function_calls:
            return {"native": [c.name for c in llm_result.function_calls]}
        try:
            request = json.loads(reply.strip())  # v2.6: exactly one JSON object or nothing
        except ValueError:
            return None  # shown to the user as the final answer
        return request if isinstance(request, dict) and request.get("tool_name") else None
