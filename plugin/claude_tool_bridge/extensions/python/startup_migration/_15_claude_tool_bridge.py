"""At startup: install the bundled claude_tool_bridge wheel into this Python if needed."""

from helpers.extension import Extension
from helpers.plugins import call_plugin_hook


class ClaudeToolBridgeDependencies(Extension):
    def execute(self, **kwargs):
        call_plugin_hook("claude_tool_bridge", "ensure_dependencies", raise_on_error=False)
