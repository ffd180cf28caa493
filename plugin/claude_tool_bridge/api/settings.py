"""`/api/plugins/claude_tool_bridge/settings` (Agent Zero serves a plugin's `api/` folder
there): what the settings screen shows.

Agent Zero's settings screen reads a saved `config.json` as it is (only what differs from the
defaults) and calls the plugin's `get_plugin_config` hook only when there is none, so the
screen (`webui/config.html`) posts the settings it got here and shows the answer: every key,
the saved values laid over the defaults by the bridge's core, and each warning with its key.
"""

from helpers.api import ApiHandler, Request, Response
from usr.plugins.claude_tool_bridge.helpers import agent_zero


class ClaudeToolBridgeSettings(ApiHandler):
    async def process(self, input: dict, request: Request) -> dict | Response:
        return agent_zero.settings_view(input.get("settings") if isinstance(input, dict) else None)
