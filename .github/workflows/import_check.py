"""Run by the release workflow in a fresh Python with only the built wheel installed."""

import claude_tool_bridge as ctb

reply = '<invoke name="response">\n<parameter name="text">hi</parameter>\n</invoke>'
decision = ctb.translate(reply, ctb.Catalog.agent_zero(), ctb.Config())
assert decision.outcome == "translated", decision
assert decision.request["tool_args"] == {"text": "hi"}, decision.request
print("claude_tool_bridge", ctb.__version__, "imports and translates:", ctb.__file__)
