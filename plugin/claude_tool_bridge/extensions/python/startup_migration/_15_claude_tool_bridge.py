"""At startup: make the claude-tool-bridge wheel importable in this Python (bundled wheel, else
the package index); if neither works the plugin says so once and stays inert."""

from helpers.extension import Extension
from helpers.plugins import call_plugin_hook


class ClaudeToolBridgeDependencies(Extension):
    def execute(self, **kwargs):
        call_plugin_hook("claude_tool_bridge", "ensure_dependencies", raise_on_error=False)
