"""The OpenAI Agents SDK: an agent with one function tool, on the Responses API
(`OpenAIResponsesModel`, the SDK's default) or on chat completions
(`OpenAIChatCompletionsModel`), run with `Runner.run` or `Runner.run_streamed`."""

import asyncio
import os

from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

from _runs import each

calls = []


@function_tool
def get_weather(city: str, days: int) -> str:
    """The forecast for a city.

    Args:
        city: The city.
        days: How many days ahead.
    """
    calls.append(["get_weather", {"city": city, "days": days}])
    return f"{city} in {days} days: sunny"


async def main() -> dict:
    calls.clear()
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=os.environ["CTB_BASE_URL"] + "/v1", api_key="sk-client",
                         max_retries=0)
    name = os.environ["CTB_MODEL"]
    if os.environ["CTB_ROUTE"] == "responses":
        model = OpenAIResponsesModel(model=name, openai_client=client)
    else:
        model = OpenAIChatCompletionsModel(model=name, openai_client=client)
    agent = Agent(name="forecaster", instructions="Answer with the forecast tool.",
                  tools=[get_weather], model=model)
    task = os.environ["CTB_TASK"]
    if os.environ["CTB_STREAM"] == "1":
        result = Runner.run_streamed(agent, task, max_turns=4)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, task, max_turns=4)
    return {"answer": str(result.final_output), "calls": list(calls)}


each(lambda: asyncio.run(main()))
