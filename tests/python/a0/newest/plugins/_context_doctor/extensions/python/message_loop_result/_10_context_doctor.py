"""Stand-in for `_context_doctor`: an XML-looking reply becomes `{}` plus a warning."""

from helpers.extension import Extension


class ContextDoctor(Extension):
    def execute(self, result_data=None, **kwargs):
        llm_result = (result_data or {}).get("llm_result")
        if getattr(llm_result, "function_calls", None):
            return
        response = getattr(llm_result, "response", "")
        if "<invoke" in response or "</invoke" in response:
            llm_result.response = "{}"
            self.agent.hist_add_ai_response("{}", llm_result=llm_result)
            self.agent.hist_add_warning("thoughts fallback")
            result_data["skip_default_processing"] = True
