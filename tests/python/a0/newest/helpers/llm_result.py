"""Stand-in for the newest LLMResult: v2.6 plus the provider's finish reason."""

from dataclasses import dataclass, field


@dataclass
class ResponseItem:
    type: str
    data: dict = field(default_factory=dict)


@dataclass
class ResponseFunctionCall:
    name: str
    arguments: dict


@dataclass
class LLMResult:
    response: str = ""
    reasoning: str = ""
    output_items: list = field(default_factory=list)
    provider_model_key: str = ""
    mode: str = "responses"
    state: str = "provider"
    usage: dict = field(default_factory=dict)
    finish_reason: str = ""

    @classmethod
    def from_chat(cls, *, response, reasoning="", provider_model_key="", **kwargs):
        items = []
        if response:
            items.append(ResponseItem("message", {"type": "message", "role": "assistant",
                                                  "content": [{"type": "output_text", "text": response}]}))
        if reasoning:
            items.insert(0, ResponseItem("reasoning", {"type": "reasoning",
                                                       "summary": [{"type": "summary_text", "text": reasoning}]}))
        return cls(response=response, reasoning=reasoning, output_items=items,
                   provider_model_key=provider_model_key, mode="chat_completions", state="off",
                   finish_reason=kwargs.get("finish_reason", ""))

    @property
    def function_calls(self):
        return [ResponseFunctionCall(i.data.get("name", ""), i.data.get("arguments", {}))
                for i in self.output_items if i.type == "function_call"]

    @property
    def builtin_items(self):
        return [i for i in self.output_items if i.type not in ("message", "reasoning", "function_call")]
