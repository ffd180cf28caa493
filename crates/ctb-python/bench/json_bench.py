"""Python-level bench: the wheel's `loads` and `repair_json` against `jiter` and `json_repair`
on valid, broken and cut-off JSON, side by side in one process.

    python crates/ctb-python/bench/json_bench.py [--rounds N] [--check] [--json]

Each row times two calls on the same input, alternating them round by round (so both see the
same machine load) and compares their medians: `ratio` is ours over theirs, `target` the most
it may be. The inputs:

- `tool_args_4k`: a valid 4 KB tool request whose code string is full of escapes (the prefix
  test's document, crates/ctb-json/tests/data/prefixes/tool_args_4k.json);
- `records_150k`: about 150 KB of valid JSON, an array of tool requests (indented);
- `broken_4k`: the 4 KB request as models break it (single quotes, unquoted keys, Python
  literals, a trailing comma, a comment);
- `cut_4k`: the 4 KB request cut off at 70 %, as a stream.

jiter reads bytes, so it gets the text encoded beforehand; ours reads the `str` itself. jiter
runs with its defaults (`cache_mode="all"`: like ours, it keeps the `str`s of short strings
from one call to the next), and with `partial_mode="trailing-strings"` on the cut input (what
`loads(partial=True)` means).
`json_repair` runs as `json_repair.loads` (objects) and `json_repair.repair_json` (text).

`--check` exits 1 when a ratio is above its target. With `$CTB_BENCH_DIR` set (as
`cargo xtask bench` does), every row is also written there as `<name>.json` for the summary
table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import claude_tool_bridge as ctb
import jiter
import json_repair
from _ratio import interleaved, report, version

REPO = Path(__file__).resolve().parents[3]
TOOL_ARGS = REPO / "crates" / "ctb-json" / "tests" / "data" / "prefixes" / "tool_args_4k.json"


def records(size: int) -> str:
    words = ["alpha", "terminal", "session", "memory", "query", "the", "file", "list", "résumé"]
    out, n = [], 0
    while sum(map(len, out)) < size:
        out.append(json.dumps({
            "thoughts": [" ".join(words[(n + k) % len(words)] for k in range(8)),
                         " ".join(words[(n * 3 + k) % len(words)] for k in range(6))],
            "headline": f"step {n}",
            "tool_name": "code_execution_tool",
            "tool_args": {"runtime": "terminal", "session": n % 7, "reset": n % 2 == 0,
                          "code": f'echo "{words[n % len(words)]}" >> /tmp/out.txt\nls -la',
                          "numbers": [n, n + 0.5, -n * 1000.0, 12345678901234567890 + n]},
        }, ensure_ascii=False, indent=1))
        n += 1
    return "[\n" + ",\n".join(out) + "\n]"


def broken(text: str) -> str:
    """The valid request as models write it: keys unquoted, single quotes for short strings,
    Python's False, a trailing comma and a comment."""
    value = json.loads(text)
    args = value["tool_args"]
    code = json.dumps(args["code"])
    thoughts = ", ".join("'" + t.replace("'", "\\'") + "'" for t in value["thoughts"])
    return (
        "Here is the call:\n{\n"
        f"  thoughts: [{thoughts}],\n"
        f"  headline: '{value['headline']}',\n"
        f"  tool_name: '{value['tool_name']}',  // the tool\n"
        "  tool_args: {\n"
        f"    runtime: '{args['runtime']}', session: {args['session']}, reset: False,\n"
        f"    code: {code},\n"
        "  },\n}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--check", action="store_true", help="exit 1 above a target")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    tool_args = TOOL_ARGS.read_text().strip()
    big = records(150_000)
    bad = broken(tool_args)
    cut = tool_args[: len(tool_args) * 7 // 10]
    inputs = {name: (text, text.encode()) for name, text in
              [("tool_args_4k", tool_args), ("records_150k", big), ("broken_4k", bad),
               ("cut_4k", cut)]}
    # the comparisons must read the same values
    assert ctb.loads(tool_args) == jiter.from_json(inputs["tool_args_4k"][1])
    assert ctb.loads(big) == jiter.from_json(inputs["records_150k"][1])
    # (json_repair itself reads some escaped quotes in the code differently)
    assert ctb.loads(bad) == json.loads(tool_args)
    assert ctb.loads(cut, partial=True) == jiter.from_json(
        inputs["cut_4k"][1], partial_mode="trailing-strings")

    rounds = args.rounds
    # name, what, (ours label, call), (theirs label, call), input, target
    rows = [
        ("py_loads_tool_args_4k_vs_jiter", "loads of a valid 4 KB tool request",
         ("loads", lambda t, b: ctb.loads(t)), ("jiter.from_json", lambda t, b: jiter.from_json(b)),
         "tool_args_4k", 1.0),
        ("py_loads_records_150k_vs_jiter", "loads of 150 KB of valid JSON",
         ("loads", lambda t, b: ctb.loads(t)), ("jiter.from_json", lambda t, b: jiter.from_json(b)),
         "records_150k", 1.0),
        ("py_loads_cut_4k_vs_jiter", "loads(partial=True) of a 4 KB request cut at 70 %",
         ("loads partial", lambda t, b: ctb.loads(t, partial=True)),
         ("jiter trailing-strings",
          lambda t, b: jiter.from_json(b, partial_mode="trailing-strings")),
         "cut_4k", 1.5),
        ("py_loads_broken_4k_vs_json_repair", "loads of a broken 4 KB request",
         ("loads", lambda t, b: ctb.loads(t)), ("json_repair.loads", lambda t, b: json_repair.loads(t)),
         "broken_4k", 0.05),
        ("py_repair_json_broken_4k_vs_json_repair", "repair_json of a broken 4 KB request",
         ("repair_json", lambda t, b: ctb.repair_json(t)),
         ("json_repair.repair_json", lambda t, b: json_repair.repair_json(t)), "broken_4k", 0.05),
        ("py_loads_cut_4k_vs_json_repair", "loads of a 4 KB request cut at 70 %",
         ("loads", lambda t, b: ctb.loads(t)), ("json_repair.loads", lambda t, b: json_repair.loads(t)),
         "cut_4k", 0.05),
    ]
    missed = []
    for name, what, (a_label, a), (b_label, b), key, target in rows:
        text, data = inputs[key]
        n = rounds if len(text) < 50_000 else max(20, rounds // 10)
        a_ns, b_ns = interleaved(lambda: a(text, data), lambda: b(text, data), n)
        ratio = a_ns / b_ns
        row = {"name": name, "what": what, "a": f"{a_label} (Python)", "b": b_label,
               "a_ns": round(a_ns, 1), "b_ns": round(b_ns, 1), "ratio": round(ratio, 4),
               "target": target}
        line = f"{name}: {a_label} {a_ns / 1e3:.1f} us / {b_label} {b_ns / 1e3:.1f} us = {ratio:.3f}"
        if not report(row, args.json, line):
            missed.append(name)
    if not args.json:
        print(f"(wheel {ctb.__version__}, jiter {version('jiter')}, "
              f"json_repair {version('json_repair')}, {rounds} rounds)")
    if args.check and missed:
        print(f"above target: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
