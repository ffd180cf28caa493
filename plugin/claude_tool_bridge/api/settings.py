"""`/api/plugins/claude_tool_bridge/settings` (Agent Zero serves a plugin's `api/` folder
there): what the settings screen shows.

Agent Zero's settings screen reads a saved `config.json` as it is (only what differs from the
defaults) and calls the plugin's `get_plugin_config` hook only when there is none, so the
screen (`webui/config.html`) posts the settings it got here and shows the answer: every key,
the saved values laid over the defaults by the bridge's core, and each warning with its key.
When the screen says the settings are the ones it loaded and Agent Zero cannot read the saved
file of that scope at all, the answer is what the bridge runs with then: off, and why.
"""

from helpers.api import ApiHandler, Request, Response
from usr.plugins.claude_tool_bridge.helpers import agent_zero


class ClaudeToolBridgeSettings(ApiHandler):
    async def process(self, input: dict, request: Request) -> dict | Response:
        if not isinstance(input, dict):
            input = {}
        return agent_zero.settings_view(
            input.get("settings"),
            loaded=input.get("loaded") is True,
            project_name=str(input.get("project_name") or ""),
            agent_profile=str(input.get("agent_profile") or ""),
        )
