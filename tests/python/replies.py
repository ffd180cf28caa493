"""Replies in Claude's native tool-call form, built from parts (see the team preamble on the
namespace prefix)."""

PREFIX = "ant" + "ml:"


def invoke(tool: str, params: dict[str, str], prefixed: bool = False, before: str = "") -> str:
    p = PREFIX if prefixed else ""
    body = "".join(f'<{p}parameter name="{k}">{v}</{p}parameter>\n' for k, v in params.items())
    return f'{before}<{p}invoke name="{tool}">\n{body}</{p}invoke>'


LS_CALL = invoke(
    "code_execution_tool",
    {"runtime": "terminal", "session": "0", "reset": "false", "code": "ls -la"},
    before="I will list the files.\n\n",
)
# What Claude often writes after a call: more calls and invented results.
TRAILER = "\n\nResult:\n" + "file_a.txt\nfile_b.txt\n" * 40 + invoke("response", {"text": "done"})
LS_REPLY_WITH_TRAILER = LS_CALL + TRAILER
UNKNOWN_TOOL_CALL = invoke("no_such_tool", {"x": "1"}) + TRAILER
JSON_REPLY = (
    '{"thoughts": ["listing"], "headline": "ls", "tool_name": "code_execution_tool", '
    '"tool_args": {"runtime": "terminal", "session": 0, "reset": false, "code": "ls"}}'
)
