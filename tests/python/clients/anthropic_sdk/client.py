"""The Anthropic SDK's tool runner on Messages (`/v1/messages`), streamed or not. `thread=False`
keeps the conversation on the client (its default asks the server to keep it, which a LiteLLM
proxy does not)."""

import os

import anthropic
from anthropic import beta_tool

from _runs import each

calls = []


@beta_tool
def get_weather(city: str, days: int) -> str:
    """The forecast for a city.

    Args:
        city: The city.
        days: How many days ahead.
    """
    calls.append(["get_weather", {"city": city, "days": days}])
    return f"{city} in {days} days: sunny"


def main() -> dict:
    calls.clear()
    client = anthropic.Anthropic(base_url=os.environ["CTB_BASE_URL"], api_key="sk-client",
                                 max_retries=0)
    stream = os.environ["CTB_STREAM"] == "1"
    runner = client.beta.messages.tool_runner(
        model=os.environ["CTB_MODEL"], max_tokens=1000, tools=[get_weather],
        messages=[{"role": "user", "content": os.environ["CTB_TASK"]}],
        max_iterations=4, thread=False, **({"stream": True} if stream else {}))
    last = None
    for step in runner:
        last = step.get_final_message() if stream else step
    texts = [b.text for b in last.content if b.type == "text"]
    return {"answer": "".join(texts), "calls": list(calls)}


each(main)
