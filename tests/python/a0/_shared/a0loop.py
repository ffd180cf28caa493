"""One message-loop iteration, in the order all three Agent Zero generations have it
(`Agent.monologue` in agent.py):

0. `before_main_llm_call`, where the core makes the step item of the UI log
   ("A0: Calling LLM...");
1. the streamed model call; every chunk goes through the loop's stream callback, which first
   calls `handle_intervention()` (an intervention raises `InterventionException` right
   there, also in the middle of a stream), then the `response_stream_chunk` extensions, then
   `handle_response_stream(full)`: when the text so far reads as a JSON object, the
   `response_stream` extensions fill the UI log from it (the step's heading and thoughts; the
   answer item for a `response` request). The newest core does that at most every 128
   characters, and once more with the last text streamed right after the model call;
2. `handle_intervention(reply)`, `reasoning_stream_end`, `handle_intervention`,
   `response_stream_end` (where `_infection_check` starts its safety analysis on the text it
   collected), `handle_intervention`;
3. the newest only: `message_loop_result` (`_05_leaked_tool_call`, `_context_doctor`);
4. history, tool extraction, and `tool_execute_before` (the safety gate) before a tool runs;
   the `response` tool marks the answer item finished.

The generations differ in the model call and in tool extraction; see their agent.py."""

from types import SimpleNamespace

from helpers.errors import InterventionException
from helpers.extension import call_extensions_async
from helpers.log import Log


def dirty_json_object(text):
    """What Agent Zero's DirtyJson makes of a streamed text, when that is an object: it reads
    from the first `{`, `[` or `"` on, tolerating a text cut anywhere."""
    import json_repair

    starts = [i for i in (text.find(c) for c in '{["') if i >= 0]
    if not starts or text[min(starts)] != "{":
        return None
    try:
        value = json_repair.loads(text[min(starts):])
    except Exception:  # noqa: BLE001 - DirtyJson gives up the same way
        return None
    return value if isinstance(value, dict) else None


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
        self.context = SimpleNamespace(log=Log())

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

    # The newest core fills the log from the stream at most every this many characters (and
    # once more after the model call); older ones on every chunk.
    stream_log_every = 0
    # The newest core reads `tool`/`args` as `tool_name`/`tool_args` before the log does.
    normalize_streamed_request = False

    async def handle_response_stream(self, stream):
        await self.handle_intervention()
        if len(stream) < 25:
            return
        parsed = dirty_json_object(stream)
        if parsed is None:
            return
        if self.normalize_streamed_request:
            if not parsed.get("tool_name") and isinstance(parsed.get("tool"), str):
                parsed["tool_name"] = parsed["tool"]
            if not isinstance(parsed.get("tool_args"), dict) and isinstance(parsed.get("args"), dict):
                parsed["tool_args"] = parsed["args"]
        await call_extensions_async("response_stream", self, loop_data=self.loop_data, text=stream,
                                    parsed=parsed)

    async def turn(self, messages):
        self.loop_data.iteration += 1
        self.loop_data.params_temporary = {}
        await call_extensions_async("before_main_llm_call", self, loop_data=self.loop_data)
        logged = {"chars": 0, "pending": None}

        async def stream_callback(chunk, full):
            await self.handle_intervention()
            stream_data = {"chunk": chunk, "full": full}
            await call_extensions_async("response_stream_chunk", self, loop_data=self.loop_data,
                                        stream_data=stream_data)
            full = stream_data["full"]
            if self.stream_log_every and len(full) - logged["chars"] < self.stream_log_every:
                logged["pending"] = full
                return None
            logged["chars"], logged["pending"] = len(full), None
            await self.handle_response_stream(full)
            return None

        result = await self.call_model(messages, stream_callback)
        reply = self.reply_of(result)
        await self.handle_intervention(reply)
        if logged["pending"] is not None:
            await self.handle_response_stream(logged["pending"])
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
            answer = self.loop_data.params_temporary.get("log_item_response")
            if request["tool_name"] == "response" and answer is not None:
                answer.update(finished=True)  # tools/response.py, after it ran
        return request

    def ui_log(self):
        """What the web UI receives: every item of the log, in order."""
        return self.context.log.output()

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
