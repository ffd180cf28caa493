"""How a client program takes its runs (the test gives several to one process, so the program's
imports are paid once): `CTB_RUNS`, a JSON list of runs, each an object of the variables the
README lists, laid over the environment for that run. The program does them in turn and prints
one JSON line per run: `{"run": <index>, "answer": ..., "calls": ...}`, or `{"run": <index>,
"error": ...}` when the run raised. Without `CTB_RUNS`, one run from the environment."""

import json
import os
import traceback


def each(run_once) -> None:
    """Calls `run_once()` (which returns the run's `answer` and `calls`) once per run."""
    runs = json.loads(os.environ["CTB_RUNS"]) if "CTB_RUNS" in os.environ else [{}]
    base = dict(os.environ)
    for index, run in enumerate(runs):
        os.environ.clear()
        os.environ.update(base)
        os.environ.update(run)
        try:
            out = run_once()
        except Exception as error:  # the run failed: the next one still runs
            out = {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc()[-1500:]}"}
        print(json.dumps({"run": index, **out}), flush=True)
