"""Stand-in for Agent Zero's helpers/log.py: the chat log the web UI reads (the same contract
in v1.7, v2.6 and the newest), none of its code.

- `Log.log(type, heading, content, kvps, id, **extra)` adds an item and returns it;
- `LogItem.update(...)` changes the fields given (`kvps` replaces the item's key/value pairs,
  any other keyword lands among them, as `finished=True` does);
- `Log.output()` is what the UI receives: one dict per item, in order.

The UI draws an item of type `agent` as a step titled by its heading, with its `thoughts`
(and, while it streams, its `step`) shown; an item of type `response` as the answer, which
also closes the step group (the "END" badge)."""

from __future__ import annotations

import copy
from collections import OrderedDict

class LogItem:
    def __init__(self, log, no, type):
        self.log = log
        self.no = no
        self.type = type
        self.heading = ""
        self.content = ""
        self.kvps = OrderedDict()
        self.id = None

    def update(self, type=None, heading=None, content=None, kvps=None, id=None, **extra):
        if type is not None:
            self.type = type
        if heading is not None:
            self.heading = str(heading)
        if content is not None:
            self.content = str(content)
        if kvps is not None:
            self.kvps = OrderedDict(copy.deepcopy(kvps))
        if id is not None:
            self.id = id
        self.kvps.update(copy.deepcopy(extra))
        self.log.updates.append(self.no)

    def output(self):
        return {
            "no": self.no,
            "id": self.id,
            "type": self.type,
            "heading": self.heading,
            "content": self.content,
            "kvps": dict(self.kvps),
        }


class Log:
    def __init__(self):
        self.logs: list[LogItem] = []
        self.updates: list[int] = []

    def log(self, type, heading=None, content=None, kvps=None, id=None, **extra):
        item = LogItem(self, len(self.logs), type)
        self.logs.append(item)
        item.update(heading=heading, content=content, kvps=kvps, id=id, **extra)
        return item

    def output(self):
        return [item.output() for item in self.logs]


def build_heading(agent, text):
    return f"{agent.agent_name}: {text}"


def build_default_heading(agent):
    return build_heading(agent, "Calling LLM...")
