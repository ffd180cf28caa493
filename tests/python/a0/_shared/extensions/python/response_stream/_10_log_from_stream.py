"""Stand-in for the core's `response_stream/_10_log_from_stream`: each time the streamed text
reads as a JSON object, the step item takes its heading from `headline` (else "Using
<tool>", "Thinking...", "Receiving..."), the text as content, and the object's keys (plus a
`step` line while it streams, and the reasoning already shown) as its key/value pairs."""

import math

from helpers.extension import Extension
from helpers.log import build_heading


class LogFromStream(Extension):
    async def execute(self, loop_data=None, text="", parsed=None, **kwargs):
        parsed = parsed or {}
        if "headline" in parsed:
            heading = build_heading(self.agent, parsed["headline"])
        elif "tool_name" in parsed:
            heading = build_heading(self.agent, f"Using {parsed['tool_name']}")
        elif "thoughts" in parsed:
            heading = build_heading(self.agent, "Thinking... " + "|" * math.ceil(math.sqrt(len(text)) / 2))
        else:
            heading = build_heading(self.agent, "Receiving...")
        params = loop_data.params_temporary
        if "log_item_generating" not in params:
            params["log_item_generating"] = self.agent.context.log.log(type="agent", heading=heading)
        item = params["log_item_generating"]
        kvps = {}
        if "reasoning" in item.kvps:
            kvps["reasoning"] = item.kvps["reasoning"]
        if parsed.get("tool_name"):
            kvps["step"] = f"Using {parsed['tool_name']}..."
        kvps.update(parsed)
        item.update(heading=heading, content=text, kvps=kvps)
