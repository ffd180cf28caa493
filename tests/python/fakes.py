"""A scripted provider and a chat-model wrapper shaped like Agent Zero's LiteLLMChatWrapper
(`model_name`, `kwargs`, `unified_call` / `unified_turn` streaming through a response
callback whose non-None return value stops the stream and becomes the reply)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Request:
    model: str
    stop: list[str] | None
    messages: Any


@dataclass
class FakeProvider:
    """Replays scripted replies; honours stop strings the way Anthropic does (the reply ends
    BEFORE the earliest stop string, finish reason `stop_sequence`)."""

    replies: list[str]
    chunk_size: int = 7
    requests: list[Request] = field(default_factory=list)
    streamed_chars: list[int] = field(default_factory=list)
    native_calls: list[dict] | None = None
    mode: str = "chat_completions"
    # Called with the request number (0 for the first) before each answer: a test's way to
    # do something while the model is being asked (e.g. intervene during a re-ask).
    before_answer: Any = None

    def answer(self, model: str, kwargs: dict, messages: Any) -> tuple[str, str]:
        stop = kwargs.get("stop")
        if self.before_answer is not None:
            self.before_answer(len(self.requests))
        self.requests.append(Request(model, list(stop) if stop else None, messages))
        reply = self.replies.pop(0) if self.replies else ""
        finish = "end_turn"
        cut = min((i for i in (reply.find(s) for s in (stop or [])) if i >= 0), default=-1)
        if cut >= 0:
            reply, finish = reply[:cut], "stop_sequence"
        return reply, finish


class FakeChatModel:
    def __init__(self, provider: FakeProvider, model_name: str, kwargs: dict | None = None):
        self.provider = provider
        self.model_name = model_name
        self.kwargs = dict(kwargs or {})
        self.a0_model_conf = None

    async def _stream(self, messages, response_callback):
        reply, finish = self.provider.answer(self.model_name, self.kwargs, messages)
        full = ""
        sent = 0
        for i in range(0, len(reply), self.provider.chunk_size):
            chunk = reply[i : i + self.provider.chunk_size]
            full += chunk
            sent += len(chunk)
            if response_callback is not None:
                stop = await response_callback(chunk, full)
                if stop is not None:
                    full = stop
                    break
        self.provider.streamed_chars.append(sent)
        return full, finish

    async def unified_call(self, messages=None, response_callback=None, reasoning_callback=None, **kw):
        response, _ = await self._stream(messages, response_callback)
        return response, ""

    async def unified_turn(self, messages=None, response_callback=None, reasoning_callback=None, **kw):
        from helpers.llm_result import LLMResult, ResponseItem

        response, finish = await self._stream(messages, response_callback)
        result = LLMResult.from_chat(response=response, provider_model_key=self.model_name,
                                     finish_reason=finish)
        # A stopped stream leaves the provider's item text as streamed: refresh is the bridge's job.
        if self.provider.native_calls:
            result.output_items.extend(ResponseItem("function_call", dict(c)) for c in self.provider.native_calls)
        result.mode = self.provider.mode
        return result


class SystemMessage:
    type = "system"

    def __init__(self, content):
        self.content = content


class HumanMessage:
    type = "human"

    def __init__(self, content):
        self.content = content


class AIMessage:
    type = "ai"

    def __init__(self, content):
        self.content = content
