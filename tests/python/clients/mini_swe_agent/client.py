"""mini-swe-agent, the coding agent: its default agent and local environment, its LiteLLM
model class (chat completions, `LitellmModel`) or its Responses one
(`LitellmResponseModel`), calling the proxy in-process through `litellm` with `api_base`. Its
one tool is `bash`; the task is done when a command's output starts with its submission
marker, and a reply without a usable call is a format error (three in a row end the run)."""

import os

import yaml
from minisweagent.agents.default import DefaultAgent
from minisweagent.config import builtin_config_dir
from minisweagent.environments.local import LocalEnvironment

from _runs import each


def main() -> dict:
    config = yaml.safe_load((builtin_config_dir / "mini.yaml").read_text())
    route = os.environ["CTB_ROUTE"]
    if route == "responses":
        from minisweagent.models.litellm_response_model import LitellmResponseModel as Model
    else:
        from minisweagent.models.litellm_model import LitellmModel as Model
    model_config = config.get("model", {})
    model = Model(**{**model_config, "model_name": "openai/" + os.environ["CTB_MODEL"],
                     "cost_tracking": "ignore_errors",
                     "model_kwargs": {**model_config.get("model_kwargs", {}),
                                      "api_base": os.environ["CTB_BASE_URL"] + "/v1",
                                      "api_key": "sk-client"}})
    env = LocalEnvironment(cwd=os.environ["CTB_WORKDIR"],
                           env=config.get("environment", {}).get("env", {}))
    agent_config = {**config.get("agent", {}), "step_limit": 5, "cost_limit": 0}
    agent = DefaultAgent(model, env, **agent_config)
    info = agent.run(os.environ["CTB_TASK"])
    calls = [["bash", {"command": a.get("command")}]
             for m in agent.messages for a in (m.get("extra") or {}).get("actions", [])]
    answer = info.get("submission", "") if info.get("exit_status") == "Submitted" else \
        f"{info.get('exit_status')}: {agent.messages[-2].get('content') if len(agent.messages) > 1 else ''}"
    return {"answer": answer, "calls": calls}


each(main)
