"""Python-level bench: 4 KB replies streamed in 40-byte deltas through the wheel, each against
one parse of the same reply with the `json_repair` package, side by side in one process.

    python crates/ctb-python/bench/stream_bench.py [--rounds N] [--check] [--json]

"Through the bridge" is what the plugin adds per reply (helpers/turns.py): `Session.begin_turn`;
per delta, the check for a `>` (a delta with one feeds `Session.feed` the response so far
that was not fed yet); `Session.finish`. The deltas, and the response so far that comes with
each, are made beforehand: the provider, LiteLLM and Agent Zero make them, not the bridge. Rows (ours over theirs, the
medians of alternating rounds; `target` is the most the ratio may be):

- `py_stream_call_4k_vs_json_repair`: a reply with a native call (prose, then a long code
  parameter), translated; target 0.05.
- `py_stream_json_reply_4k_vs_json_repair`: a reply that already is a JSON request (its code
  string full of escapes), left alone; json_repair reads valid JSON with `json.loads`; target
  0.5.

`--check` exits 1 when a ratio is above its target. With `$CTB_BENCH_DIR` set (as
`cargo xtask bench` does), each row is also written there as `<name>.json`.
"""

from __future__ import annotations

import argparse
import json
import sys

import claude_tool_bridge as ctb
import json_repair
from _ratio import interleaved, report, version

TARGET = 1 / 20
DELTA = 40
PREFIX = "ant" + "ml:"


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


def deltas_of(reply: str) -> list[tuple[str, str]]:
    """The deltas, each with the response so far (Agent Zero hands the callback both)."""
    return [(reply[i : i + DELTA], reply[: i + DELTA]) for i in range(0, len(reply), DELTA)]


def through_bridge(
    deltas: list[tuple[str, str]], reply: str, catalog: ctb.Catalog, session: ctb.Session
):
    """The plugin's work for one streamed reply (helpers/turns.py's callback, without Agent
    Zero); the session is the agent's, kept from turn to turn."""
    session.begin_turn("anthropic/claude-sonnet-4-5", [])
    fed = 0
    tail = ""
    for chunk, full in deltas:
        if ">" not in chunk:
            continue
        if (
            len(full) < fed + len(chunk)
            or not full.endswith(chunk)
            or full[fed - len(tail) : fed] != tail
        ):
            break
        text = full[fed:]
        fed = len(full)
        tail = full[-32:]
        if session.feed(text, catalog) is not None:
            break
    return session.finish(reply, None, catalog)


def json_reply(size: int = 4096) -> str:
    """A reply that already is a JSON tool request, pretty-printed, its code string full of
    escapes (quotes, line breaks, tabs), about `size` bytes."""
    lines = []
    i = 0
    while True:
        i += 1
        lines.append(f'    if row["id"] == {i}:\n        print(f"found {{row[\'name\']}}\\t{i}")\n')
        request = {
            "thoughts": ["The script reads the rows and prints the matches."],
            "headline": "Running Python code",
            "tool_name": "code_execution_tool",
            "tool_args": {"runtime": "python", "session": 0, "code": "".join(lines)},
        }
        text = json.dumps(request, indent=4, ensure_ascii=False)
        if len(text.encode()) >= size:
            return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--check", action="store_true", help="exit 1 above a target")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    catalog = ctb.Catalog.agent_zero()
    config = ctb.Config()
    call_reply = build_reply()
    as_json = json_reply()
    rows = []
    for name, what, reply, outcome, target in [
        ("py_stream_call_4k_vs_json_repair",
         "a 4 KB reply with a native call streamed through the bridge (Python)", call_reply,
         "translated", TARGET),
        ("py_stream_json_reply_4k_vs_json_repair",
         "a 4 KB reply that is a JSON request streamed through the bridge (Python)", as_json,
         "untouched", 0.5),
    ]:
        deltas = deltas_of(reply)
        session = ctb.Session(config)
        decision = through_bridge(deltas, reply, catalog, session)
        assert decision.outcome == outcome, (name, decision)
        a_ns, b_ns = interleaved(
            lambda: through_bridge(deltas, reply, catalog, session),
            lambda: json_repair.repair_json(reply, return_objects=True),
            args.rounds,
        )
        rows.append({"name": name, "what": what, "a": "bridge (Python)",
                     "b": "json_repair.repair_json", "a_ns": round(a_ns, 1),
                     "b_ns": round(b_ns, 1), "ratio": round(a_ns / b_ns, 4), "target": target,
                     "reply_bytes": len(reply.encode()), "deltas": len(deltas),
                     "reason": decision.reason})
    missed = []
    for row in rows:
        line = (f"{row['name']}: bridge {row['a_ns'] / 1e3:.1f} us ({row['deltas']} deltas, "
                f"{row['reason']}) / json_repair {row['b_ns'] / 1e3:.1f} us = {row['ratio']:.3f}")
        if not report(row, args.json, line):
            missed.append(row["name"])
    if not args.json:
        print(f"(wheel {ctb.__version__}, json_repair {version('json_repair')}, "
              f"{args.rounds} rounds)")
    if args.check and missed:
        print(f"above target: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
