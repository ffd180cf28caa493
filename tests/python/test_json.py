"""The wheel's tolerant JSON: `loads` and `repair_json` (crates/ctb-python/src/json.rs)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import claude_tool_bridge as ctb
import jiter
import pytest
from conftest import REPO

PREFIX_DOCS = sorted((REPO / "crates" / "ctb-json" / "tests" / "data" / "prefixes").glob("*.json"))
SUITE = REPO.parent / "shared" / "suites" / "json_repair-py-cases.json"
DIVERGENCES = REPO / "docs" / "json-divergences.md"


def test_valid_json_reads_as_json_loads_reads_it():
    assert len(PREFIX_DOCS) >= 4
    for path in PREFIX_DOCS:
        text = path.read_text()
        assert ctb.loads(text) == json.loads(text), path.name
    text = '{"big": 123456789012345678901234567890, "neg": -7, "f": 1.5e3, "t": true, "n": null, "s": "\\u00e9\\ud83d\\ude00"}'
    got = ctb.loads(text)
    assert got == json.loads(text)
    assert type(got["big"]) is int and type(got["f"]) is float and got["t"] is True


def test_json_as_models_write_it():
    text = "Sure:\n```json\n{'a': 1, b: [True, None,], // note\n \"c\": \"x\"}\n```"
    assert ctb.loads(text) == {"a": 1, "b": [True, None], "c": "x"}
    assert ctb.loads('{"a": 1, "a": 2, "b": 3}') == {"a": 2, "b": 3}
    assert list(ctb.loads('{"z": 1, "a": 2}')) == ["z", "a"]


def test_repair_json_writes_the_value_loads_reads():
    for text in ["{a: 1,}", "[1, 2", "{'x': \"unterminated", '{"n": 0_1}', "  42  "] + [
        p.read_text() for p in PREFIX_DOCS
    ]:
        repaired = ctb.repair_json(text)
        assert json.loads(repaired) == ctb.loads(text), text
        assert "\n" not in repaired


def test_unreadable_text_raises_a_one_line_value_error():
    for text in ["", "   ", "// only a comment", "{:2}", '{"a" ]']:
        with pytest.raises(ValueError) as err:
            ctb.loads(text)
        assert "\n" not in str(err.value) and "line 1" in str(err.value), str(err.value)
        with pytest.raises(ValueError):
            ctb.repair_json(text)
    with pytest.raises(ValueError):
        ctb.loads("t", partial=True)  # nothing complete yet


def test_partial_reads_a_cut_stream():
    cases = {
        '{"a": 1, "b"': {"a": 1},
        '{"a": 1, "bc': {"a": 1},
        '{"a": 1, "b": 1.': {"a": 1},
        '{"a": 1, "b": tru': {"a": 1},
        '{"a": "x, y,': {"a": "x, y,"},
        '{"a": "b}': {"a": "b}"},
        '{"a": "x\\u00': {"a": "x"},
        '[1, 2, 12': [1, 2, 12],
        '{"a": [1, {"b': {"a": [1, {}]},
    }
    for text, want in cases.items():
        assert ctb.loads(text, partial=True) == want, text
    # the whole-text reading completes instead
    assert ctb.loads('{"a": 1, "b"') == {"a": 1, "b": None}
    assert ctb.loads('{"a": "b}') == {"a": "b"}


def test_partial_agrees_with_jiter_on_every_prefix_of_valid_json():
    for path in PREFIX_DOCS:
        text = path.read_text().strip()
        for cut in range(1, len(text) + 1):
            prefix = text[:cut]
            try:
                want = jiter.from_json(prefix.encode(), partial_mode="trailing-strings")
            except ValueError:
                want = ValueError
            try:
                got = ctb.loads(prefix, partial=True)
            except ValueError:
                got = ValueError
            assert got == want, f"{path.name} cut at {cut}: {prefix[-40:]!r}"


def test_odd_input_raises_nothing_but_value_error():
    rng = random.Random(5)
    alphabet = list('{}[]:,"\'\\ \nabc01-.eE+tfn/*#`“”') + ["\\u", "\\ud83d", "é", "😀", "\x00"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        for partial in (False, True):
            try:
                ctb.loads(text, partial=partial)
            except ValueError:
                pass
        try:
            json.loads(ctb.repair_json(text))
        except ValueError:
            pass
    with pytest.raises(UnicodeEncodeError):
        ctb.loads('"\ud800"')  # a lone surrogate cannot reach Rust


def _same(a, b) -> bool:
    """Values compared like the Rust conformance does: numbers by value, bools as bools."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    return type(a) is type(b) and a == b


def test_json_repair_suite_scores_what_the_rust_conformance_scores():
    """`loads` on mangiucugna/json_repair's public suite passes exactly as many cases as
    `cargo xtask conformance` (the count recorded in docs/json-divergences.md)."""
    if not SUITE.is_file():
        pytest.skip(f"{SUITE} is not there (the shared suites sit next to the repository)")
    row = re.search(r"\| mangiucugna/json_repair \(Python\), (\d+) usable of \d+ \| (\d+) \|",
                    DIVERGENCES.read_text())
    assert row, "docs/json-divergences.md has no score row for the Python suite"
    usable, recorded = int(row.group(1)), int(row.group(2))
    cases = json.loads(SUITE.read_text())["cases"]
    passed = scored = 0
    for case in cases:
        kwargs = case.get("kwargs") or {}
        if any(k != "return_objects" for k in kwargs):
            continue  # these change how that library parses or prints
        scored += 1
        text = case.get("expected_text")
        expect_error = "expected_error" in case or (
            "expected_value" not in case and not (text or "").strip())
        try:
            got = ctb.loads(case["input"])
        except ValueError:
            passed += expect_error
            continue
        if expect_error:
            continue
        want = case["expected_value"] if "expected_value" in case else json.loads(text)
        passed += _same(want, got)
    assert scored == usable
    assert passed == recorded, f"{passed} of {scored} pass; the Rust conformance records {recorded}"
