"""Stand-in for the `_infection_check` core plugin (v1.7, v2.6, newest), in its `complete`
mode: it collects the streamed response text (`response_stream_chunk`), starts its safety
analysis on what it collected at `response_stream_end` and stops collecting then, and at
`tool_execute_before` gates the tool on that analysis. The record in `agent.data["safety"]`
says which text was judged before which tool ran."""


def state(agent):
    iteration = agent.loop_data.iteration
    current = agent.data.get("_safety_state")
    if current is None or current["iteration"] != iteration:
        current = {"iteration": iteration, "collected": "", "judged": None}
        agent.data["_safety_state"] = current
    return current
