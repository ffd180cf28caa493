"""Stand-in for the core's `_10_log_for_stream`: the step item the UI shows while the model
is called, titled "A0: Calling LLM..." until the reply's stream fills it."""

import uuid

from helpers.extension import Extension
from helpers.log import build_default_heading


class LogForStream(Extension):
    async def execute(self, loop_data=None, **kwargs):
        if "log_item_generating" not in loop_data.params_temporary:
            loop_data.params_temporary["log_item_generating"] = self.agent.context.log.log(
                type="agent", heading=build_default_heading(self.agent), id=str(uuid.uuid4()))
