"""Agent Zero v1.x shape (spring 2026): `Agent.call_chat_model` returns `(response,
reasoning)`; the message loop adds the raw reply to history, then extracts the tool call."""

import json
from types import SimpleNamespace

from helpers.extension import call_extensions_async, extensible


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
        self.history = []  # ("ai" | "warning", text)
        self.data = {}
        self.context = SimpleNamespace(log=SimpleNamespace(entries=[], log=lambda **kw: None))

    def get_chat_model(self):
        return self.model_factory()

    def hist_add_ai_response(self, message):
        self.loop_data.last_response = message
        self.history.append(("ai", message))

    def hist_add_warning(self, message):
        self.history.append(("warning", message))

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

    async def turn(self, messages):
        """One message-loop iteration, reduced to what the bridge touches."""
        streamed = []

        async def stream_callback(chunk, full):
            streamed.append(chunk)
            return None

        response, _ = await self.call_chat_model(
            messages=messages, response_callback=stream_callback
        )
        self.hist_add_ai_response(response)
        start, end = response.find("{"), response.rfind("}")
        try:
            request = json.loads(response[start : end + 1]) if start >= 0 < end else None
        except ValueError:
            request = None
        if not isinstance(request, dict) or not request.get("tool_name"):
            self.hist_add_warning("misformat")
            return None
        return request
