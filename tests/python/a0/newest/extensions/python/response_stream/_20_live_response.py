"""The newest core's `_20_live_response`: as v2.6's, the answer also read from `message`."""

from helpers.extension import Extension


class LiveResponse(Extension):
    async def execute(self, loop_data=None, text="", parsed=None, **kwargs):
        parsed = parsed or {}
        args = parsed.get("tool_args")
        if parsed.get("tool_name") != "response" or not isinstance(args, dict):
            return
        answer = args.get("text")
        if not isinstance(answer, str) or not answer.strip():
            answer = args.get("message")
        if not isinstance(answer, str) or not answer.strip():
            return
        params = loop_data.params_temporary
        if "log_item_response" not in params:
            step = params.get("log_item_generating")
            params["log_item_response"] = self.agent.context.log.log(
                type="response", heading=f"icon://chat {self.agent.agent_name}: Responding",
                id=step.id if step is not None and step.id else "")
        params["log_item_response"].update(content=answer)
