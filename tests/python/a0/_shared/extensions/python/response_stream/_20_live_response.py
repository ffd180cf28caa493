"""Stand-in for the core's `response_stream/_20_live_response`: a `response` request with a
text makes (once per loop iteration) the answer item, sharing the step's id, and fills it."""

from helpers.extension import Extension


class LiveResponse(Extension):
    async def execute(self, loop_data=None, text="", parsed=None, **kwargs):
        parsed = parsed or {}
        args = parsed.get("tool_args")
        if parsed.get("tool_name") != "response" or not isinstance(args, dict):
            return
        answer = args.get("text")
        if not answer:
            return
        params = loop_data.params_temporary
        if "log_item_response" not in params:
            step = params.get("log_item_generating")
            params["log_item_response"] = self.agent.context.log.log(
                type="response", heading=f"icon://chat {self.agent.agent_name}: Responding",
                id=step.id if step is not None and step.id else "")
        params["log_item_response"].update(content=answer)
