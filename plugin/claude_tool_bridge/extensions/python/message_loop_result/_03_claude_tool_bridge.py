"""Newest Agent Zero: rewrite the turn's LLMResult before `_05_leaked_tool_call` and
`_10_context_doctor` see it."""

from helpers.extension import Extension
from usr.plugins.claude_tool_bridge.helpers import integration


class ClaudeToolBridgeLoopResult(Extension):
    async def execute(self, result_data=None, **kwargs):
        await integration.message_loop_result(self.agent, result_data)
