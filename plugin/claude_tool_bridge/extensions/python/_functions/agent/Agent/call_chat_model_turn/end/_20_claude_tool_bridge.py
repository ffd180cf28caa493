"""Agent Zero v2.6 and the newest: decide about the LLMResult `call_chat_model_turn` returns,
before the stream-end events, `message_loop_result` and history see it."""

from helpers.extension import Extension
from usr.plugins.claude_tool_bridge.helpers import agent_zero


class ClaudeToolBridgeTurnEnd(Extension):
    async def execute(self, data=None, **kwargs):
        await agent_zero.call_chat_model_turn_end(self.agent, data)
