"""Agent Zero v1.x shape (spring 2026): `Agent.call_chat_model` returns `(response,
reasoning)`; the loop (a0loop.py) adds the raw reply to history, then extracts the tool call
from the first `{` to the last `}`."""

import json

from a0loop import LoopAgent, LoopData  # noqa: F401 - LoopData: the shape tests build
from helpers.extension import call_extensions_async, extensible


class Agent(LoopAgent):
    def hist_add_ai_response(self, message, result=None):
        self.loop_data.last_response = message
        self.history.append(("ai", message, None))

    @extensible
    async def call_chat_model(
        self,
        messages,
        response_callback=None,
        reasoning_callback=None,
        background=False,
        explicit_caching=True,
    ):
        model = self.get_chat_model()
        call_data = {
            "model": model,
            "messages": messages,
            "response_callback": response_callback,
            "reasoning_callback": reasoning_callback,
            "background": background,
            "explicit_caching": explicit_caching,
        }
        await call_extensions_async("chat_model_call_before", self, call_data=call_data)
        response, reasoning = await call_data["model"].unified_call(
            messages=call_data["messages"],
            response_callback=call_data["response_callback"],
            reasoning_callback=call_data["reasoning_callback"],
        )
        return response, reasoning

    async def call_model(self, messages, stream_callback):
        return await self.call_chat_model(messages=messages, response_callback=stream_callback)

    def reply_of(self, result):
        return result[0]

    def extract_tool(self, reply, result):
        start, end = reply.find("{"), reply.rfind("}")
        try:
            request = json.loads(reply[start : end + 1]) if start >= 0 < end else None
        except ValueError:
            request = None
        if not isinstance(request, dict) or not request.get("tool_name"):
            self.hist_add_warning("misformat")
            return None
        return request
