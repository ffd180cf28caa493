"""Provider stop strings and the early-stop callback for covered chat models."""

from helpers.extension import Extension
from usr.plugins.claude_tool_bridge.helpers import agent_zero


class ClaudeToolBridgeBefore(Extension):
    async def execute(self, call_data=None, **kwargs):
        await agent_zero.chat_model_call_before(self.agent, call_data)
