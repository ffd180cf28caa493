"""Stand-in for the core's `_05_leaked_tool_call`: records what it was shown."""

from helpers.extension import Extension


class LeakedToolCall(Extension):
    def execute(self, result_data=None, **kwargs):
        llm_result = (result_data or {}).get("llm_result")
        self.agent.data.setdefault("seen_by_core", []).append(getattr(llm_result, "response", None))
