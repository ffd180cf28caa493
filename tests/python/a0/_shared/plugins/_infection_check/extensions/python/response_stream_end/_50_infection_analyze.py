import importlib.util
from pathlib import Path

from helpers.extension import Extension

_spec = importlib.util.spec_from_file_location("_ic_checker", Path(__file__).parents[3] / "checker.py")
checker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checker)


class InfectionAnalyzeEnd(Extension):
    async def execute(self, loop_data=None, **kwargs):
        current = checker.state(self.agent)
        if current["judged"] is None:
            current["judged"] = current["collected"]  # the analysis starts on this text
