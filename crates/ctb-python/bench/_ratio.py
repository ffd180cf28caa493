"""What the Python benches share: timing two functions side by side, and reporting a ratio
row the way `cargo xtask bench` reads it (`$CTB_BENCH_DIR/<name>.json`: `name`, `a`, `b`,
`ratio`, `target`, optionally `what`, `a_ns`, `b_ns`; the ratio must be at most the target).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import statistics
import time
from pathlib import Path


def version(distribution: str) -> str:
    """The installed version of `distribution`, or `?`."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def interleaved(first, second, rounds: int) -> tuple[float, float]:
    """Medians (ns) of `first` and `second`, timed in alternating rounds after a warm-up."""
    for _ in range(max(3, rounds // 10)):
        first()
        second()
    t1, t2 = [], []
    for k in range(rounds):
        for fn, out in ((first, t1), (second, t2)) if k % 2 == 0 else ((second, t2), (first, t1)):
            start = time.perf_counter_ns()
            fn()
            out.append(time.perf_counter_ns() - start)
    return statistics.median(t1), statistics.median(t2)


def report(row: dict, as_json: bool, line: str) -> bool:
    """Prints `row` (as JSON, or `line` with the verdict) and writes it to `$CTB_BENCH_DIR`
    when that is set; true when the ratio is within its target."""
    ok = row["ratio"] <= row["target"]
    if as_json:
        print(json.dumps(row))
    else:
        print(f"{line} (target <= {row['target']}) {'ok' if ok else 'MISSED'}")
    report_dir = os.environ.get("CTB_BENCH_DIR")
    if report_dir:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        (Path(report_dir) / f"{row['name']}.json").write_text(json.dumps(row) + "\n")
    return ok
