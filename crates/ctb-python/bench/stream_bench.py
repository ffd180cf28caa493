"""Python-level bench: a 4 KB reply streamed in 40-byte deltas through the wheel, against one
parse of the same reply with the `json_repair` package, in the same process.

    python crates/ctb-python/bench/stream_bench.py [--runs N] [--check] [--json]

"Through the bridge" is what the plugin does per reply: `Session.begin_turn`, one
`Session.feed` per delta, `Session.finish`. The target is a ratio under 1/20 (0.05):
the whole streamed reply costs less than a twentieth of one json_repair parse. `--check`
exits 1 when the ratio is not under the target. Both sides are timed as the median of
`--runs` repetitions (after warm-up), with `time.perf_counter_ns`.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import statistics
import sys
import time

import claude_tool_bridge as ctb
import json_repair

TARGET = 1 / 20
DELTA = 40
PREFIX = "ant" + "ml:"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def build_reply(size: int = 4096) -> str:
    """A reply as Claude writes it: a paragraph, then one call with a long code parameter
    and a JSON-valued parameter, closed at the very end (so every delta is fed)."""
    before = (
        "I will look at the repository layout first, then run the test suite so that we see "
        "which parts fail before changing anything. "
    ) * 3
    head = (
        f'{before}\n\n<{PREFIX}invoke name="code_execution_tool">\n'
        f'<{PREFIX}parameter name="runtime">python</{PREFIX}parameter>\n'
        f'<{PREFIX}parameter name="session">0</{PREFIX}parameter>\n'
        f'<{PREFIX}parameter name="reset">false</{PREFIX}parameter>\n'
        f'<{PREFIX}parameter name="code">'
    )
    tail = f"</{PREFIX}parameter>\n</{PREFIX}invoke>"
    line = 'data = {"name": "item", "values": [1, 2, 3], "ok": True}; print(data["name"])\n'
    body = ""
    while len(head) + len(body) + len(line) + len(tail) <= size:
        body += line
    body += "#" * (size - len(head) - len(body) - len(tail))
    reply = head + body + tail
    assert len(reply.encode()) == size, len(reply.encode())
    return reply


def through_bridge(reply: str, catalog: ctb.Catalog, config: ctb.Config) -> ctb.Decision:
    session = ctb.Session(config)
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    for i in range(0, len(reply), DELTA):
        if session.feed(reply[i : i + DELTA], catalog) is not None:
            break
    return session.finish(reply, None, catalog)


def median_ns(fn, runs: int) -> float:
    for _ in range(max(3, runs // 10)):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--check", action="store_true", help="exit 1 above the target ratio")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    reply = build_reply()
    catalog = ctb.Catalog.agent_zero()
    config = ctb.Config()
    decision = through_bridge(reply, catalog, config)
    request_json = decision.reply if decision.outcome == "translated" else json.dumps(
        {"tool_name": "code_execution_tool", "tool_args": {"code": reply}})

    bridge_ns = median_ns(lambda: through_bridge(reply, catalog, config), args.runs)
    repair_reply_ns = median_ns(lambda: json_repair.repair_json(reply, return_objects=True), args.runs)
    repair_json_ns = median_ns(
        lambda: json_repair.repair_json(request_json, return_objects=True), args.runs)
    ratio = bridge_ns / repair_reply_ns
    result = {
        "reply_bytes": len(reply.encode()),
        "deltas": -(-len(reply) // DELTA),
        "outcome": decision.outcome,
        "reason": decision.reason,
        "bridge_us": round(bridge_ns / 1000, 1),
        "json_repair_reply_us": round(repair_reply_ns / 1000, 1),
        "json_repair_request_json_us": round(repair_json_ns / 1000, 1),
        "ratio": round(ratio, 4),
        "ratio_vs_request_json": round(bridge_ns / repair_json_ns, 4),
        "target": TARGET,
        "json_repair": _version("json_repair"),
        "wheel": ctb.__version__,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"4 KB reply, {result['deltas']} deltas of {DELTA} bytes through the bridge: "
            f"{result['bridge_us']} us ({decision.outcome}, {decision.reason})\n"
            f"one json_repair parse of the same reply: {result['json_repair_reply_us']} us; "
            f"of the {len(request_json)}-byte JSON request: {result['json_repair_request_json_us']} us\n"
            f"ratio {result['ratio']:.4f} (vs the JSON request {result['ratio_vs_request_json']:.4f}); "
            f"target < {TARGET:.2f}"
        )
    if args.check and ratio >= TARGET:
        print(f"ratio {ratio:.4f} is not under {TARGET:.2f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
