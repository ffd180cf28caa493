"""pydantic-ai: an agent with one tool on chat completions (`OpenAIChatModel`), the Responses
API (`OpenAIResponsesModel`) or Anthropic Messages (`AnthropicModel`); streamed with an event
stream handler (`run_stream` ends at the first text by design)."""

import asyncio
import os

from pydantic_ai import Agent

from _runs import each

calls = []


def get_weather(city: str, days: int) -> str:
    """The forecast for a city.

    Args:
        city: The city.
        days: How many days ahead.
    """
    calls.append(["get_weather", {"city": city, "days": days}])
    return f"{city} in {days} days: sunny"


def model():
    base, name, route = os.environ["CTB_BASE_URL"], os.environ["CTB_MODEL"], os.environ["CTB_ROUTE"]
    if route == "messages":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        return AnthropicModel(name, provider=AnthropicProvider(base_url=base, api_key="sk-client"))
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=base + "/v1", api_key="sk-client")
    kind = OpenAIResponsesModel if route == "responses" else OpenAIChatModel
    return kind(name, provider=provider)


async def main() -> dict:
    calls.clear()
    agent = Agent(model(), tools=[get_weather], instructions="Answer with the forecast tool.",
                  retries=0)
    task = os.environ["CTB_TASK"]
    if os.environ["CTB_STREAM"] == "1":
        async def handler(ctx, events):
            async for _ in events:
                pass

        result = await agent.run(task, event_stream_handler=handler)
    else:
        result = await agent.run(task)
    return {"answer": str(result.output), "calls": list(calls)}


each(lambda: asyncio.run(main()))
