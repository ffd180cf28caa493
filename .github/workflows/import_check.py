"""Checks that an installed wheel works: run in a fresh Python with only the wheel installed,
by the release workflow on every platform and by `cargo xtask dist`, and by the tests against
the development install so that it cannot fall behind the API.

    python import_check.py [EXPECTED_VERSION]
"""

import sys

import claude_tool_bridge as ctb

if len(sys.argv) > 1:
    assert ctb.__version__ == sys.argv[1], (ctb.__version__, sys.argv[1])
reply = '<invoke name="response">\n<parameter name="text">hi</parameter>\n</invoke>'
decision = ctb.translate(reply, ctb.Catalog.agent_zero())
assert decision.outcome == "translated", decision
assert decision.request["tool_args"] == {"text": "hi"}, decision.request
print("claude_tool_bridge", ctb.__version__, "imports and translates:", ctb.__file__)
