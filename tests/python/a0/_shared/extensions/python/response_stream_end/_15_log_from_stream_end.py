"""Stand-in for the core's `response_stream_end/_15_log_from_stream_end`: the step's `step`
line (shown while the reply streams) is dropped once the stream has ended."""

from helpers.extension import Extension


class LogFromStreamEnd(Extension):
    async def execute(self, loop_data=None, **kwargs):
        item = loop_data.params_temporary.get("log_item_generating")
        if item is None:
            return
        kvps = dict(item.kvps)
        kvps.pop("step", None)
        item.update(kvps=kvps)
