"""Stand-in for Agent Zero's PrintStyle: records what was printed."""

LINES: list = []


class PrintStyle:
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def print(self, *parts):
        LINES.append(" ".join(str(p) for p in parts))
