import importlib.util
from pathlib import Path

from helpers.extension import Extension

_spec = importlib.util.spec_from_file_location("_ic_checker", Path(__file__).parents[3] / "checker.py")
checker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checker)


class InfectionAwaitCheck(Extension):
    async def execute(self, tool_name="", tool_args=None, **kwargs):
        current = checker.state(self.agent)
        self.agent.data.setdefault("safety", []).append(
            {"judged": current["judged"], "tool_name": tool_name, "tool_args": dict(tool_args or {})}
        )
