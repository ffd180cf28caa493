"""Agent Zero's web UI shows a reply as it streams in; when the bridge wrote the reply that
runs (a translation, prose sent through `response`), show that one: its step's heading and
thoughts, and the answer item of a `response`. Runs before the core's
`_15_log_from_stream_end`, which tidies the step once the stream has ended."""

from helpers.extension import Extension
from usr.plugins.claude_tool_bridge.helpers import agent_zero


class ClaudeToolBridgeShowReply(Extension):
    async def execute(self, loop_data=None, **kwargs):
        await agent_zero.show_reply_that_runs(self.agent, loop_data)
