"""One message-loop iteration, in the order all three Agent Zero generations have it
(`Agent.monologue` in agent.py):

1. the streamed model call; every chunk goes through the loop's stream callback, which first
   calls `handle_intervention()` (an intervention raises `InterventionException` right
   there, also in the middle of a stream) and then the `response_stream_chunk` extensions;
2. `handle_intervention(reply)`, `reasoning_stream_end`, `handle_intervention`,
   `response_stream_end` (where `_infection_check` starts its safety analysis on the text it
   collected), `handle_intervention`;
3. the newest only: `message_loop_result` (`_05_leaked_tool_call`, `_context_doctor`);
4. history, tool extraction, and `tool_execute_before` (the safety gate) before a tool runs.

The generations differ in the model call and in tool extraction; see their agent.py."""

from types import SimpleNamespace

from helpers.errors import InterventionException
from helpers.extension import call_extensions_async


class LoopData:
    def __init__(self):
        self.iteration = 0
        self.system = []
        self.params_temporary = {}
        self.params_persistent = {}
        self.last_response = ""


class LoopAgent:
    def __init__(self, model_factory, name="A0"):
        self.model_factory = model_factory
        self.agent_name = name
        self.loop_data = LoopData()
        self.history = []  # (kind, text, output-items text or None)
        self.data = {}
        self.intervention = None
        self.tools_run = []  # tool names that passed tool_execute_before
        self.context = SimpleNamespace(log=SimpleNamespace(entries=[], log=lambda **kw: None))

    def get_chat_model(self):
        return self.model_factory()

    def hist_add_warning(self, message):
        self.history.append(("warning", message, None))

    def hist_add_user_message(self, message, intervention=False):
        self.history.append(("intervention" if intervention else "user", message, None))

    async def handle_intervention(self, progress=""):
        if self.intervention:
            message, self.intervention = self.intervention, None
            if progress.strip():
                self.hist_add_ai_response(progress)
            self.hist_add_user_message(message, intervention=True)
            raise InterventionException(message)

    async def turn(self, messages):
        self.loop_data.iteration += 1

        async def stream_callback(chunk, full):
            await self.handle_intervention()
            stream_data = {"chunk": chunk, "full": full}
            await call_extensions_async("response_stream_chunk", self, loop_data=self.loop_data,
                                        stream_data=stream_data)
            return None

        result = await self.call_model(messages, stream_callback)
        reply = self.reply_of(result)
        await self.handle_intervention(reply)
        await call_extensions_async("reasoning_stream_end", self, loop_data=self.loop_data)
        await self.handle_intervention(reply)
        await call_extensions_async("response_stream_end", self, loop_data=self.loop_data)
        await self.handle_intervention(reply)
        if await self.after_stream_end(result):
            return None
        reply = self.reply_of(result)
        self.hist_add_ai_response(reply, result)
        request = self.extract_tool(reply, result)
        if isinstance(request, dict) and request.get("tool_name"):
            await call_extensions_async("tool_execute_before", self, tool_args=request.get("tool_args") or {},
                                        tool_name=request["tool_name"])
            self.tools_run.append(request["tool_name"])
        return request

    # ---- what the generations fill in

    async def call_model(self, messages, stream_callback):
        raise NotImplementedError

    def reply_of(self, result):
        raise NotImplementedError

    def hist_add_ai_response(self, message, result=None):
        raise NotImplementedError

    def extract_tool(self, reply, result):
        raise NotImplementedError

    async def after_stream_end(self, result):
        """True when the turn was handled and the rest of the iteration is skipped."""
        return False
