"""Agent Zero v1.x: rewrite the reply `call_chat_model` returns, before history sees it."""

from helpers.extension import Extension
from usr.plugins.claude_tool_bridge.helpers import agent_zero


class ClaudeToolBridgeCallEnd(Extension):
    async def execute(self, data=None, **kwargs):
        await agent_zero.call_chat_model_end(self.agent, data)
