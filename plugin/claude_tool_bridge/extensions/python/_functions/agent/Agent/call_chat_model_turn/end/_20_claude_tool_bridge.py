"""Agent Zero v2.6: rewrite the LLMResult `call_chat_model_turn` returns."""

from helpers.extension import Extension
from usr.plugins.claude_tool_bridge.helpers import integration


class ClaudeToolBridgeTurnEnd(Extension):
    async def execute(self, data=None, **kwargs):
        await integration.call_chat_model_turn_end(self.agent, data)
