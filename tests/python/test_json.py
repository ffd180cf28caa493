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


def test_numbers_read_as_json_loads_reads_them():
    """Integers and floats computed on the fast path (up to 18 digits; 53-bit digits with a
    power of ten up to 22) and on the slow one are the same `int` and `float` json.loads
    gives, bit for bit."""
    rng = random.Random(18)
    texts = ["0", "-0", "-0.0", "0.0", "1e400", "-1e400", "1e-400", "123456789012345678",
             "-123456789012345678", "1234567890123456789", "12345678901234567890",
             "-9223372036854775808", "18446744073709551616", "9007199254740993",
             "9007199254740993.0", "9007199254740992.0", "900719925474099.3e1", "1e22", "1e23",
             "1e-22", "1e-23", "0.1", "0.30000000000000004", "1.7976931348623157e308",
             "5e-324", "2.2250738585072014e-308", "1E+2", "1e-0", "123.456e-5", "0.000001",
             "10", "-1.5E-3", "4.35", "2.675"]
    for _ in range(30_000):
        kind = rng.randrange(4)
        if kind == 0:
            texts.append(repr(rng.uniform(-1e6, 1e6)))
        elif kind == 1:
            texts.append(repr(rng.random() * 10.0 ** rng.randint(-30, 30)))
        elif kind == 2:
            texts.append(str(rng.randint(-10 ** rng.randint(1, 25), 10 ** rng.randint(1, 25))))
        else:
            whole, frac = rng.randint(0, 10 ** rng.randint(1, 20)), rng.randint(0, 10 ** rng.randint(0, 20))
            exp = rng.choice(["", f"e{rng.randint(-30, 30)}", f"E+{rng.randint(0, 30)}"])
            texts.append(f"{whole}.{frac}{exp}")
    for text in texts:
        got, want = ctb.loads(text), json.loads(text)
        assert type(got) is type(want), text
        assert repr(got) == repr(want), text
    assert ctb.loads("[" + ",".join(texts) + "]") == json.loads("[" + ",".join(texts) + "]")


def test_short_strings_are_made_once_and_keep_their_text():
    """A short string made by one call is the same object in the next (the cache), and no
    string ever comes back with another one's text: more distinct strings than the cache
    holds, with the same ends and length, non-ASCII ones, in two orders."""
    first = ctb.loads('{"tool_name": "terminal"}')
    second = ctb.loads('{"tool_name": "python", "x": "terminal"}')
    assert next(iter(first)) is next(iter(second))
    assert first["tool_name"] is second["x"]
    words = [f"k{n:05d}-{'é' * (n % 3)}{'x' * (n % 50)}-end" for n in range(12_000)]
    words += [f"ab{c}cd" for c in "0123456789中😀"] + ["", "a", "é", "😀", "x" * 64, "x" * 65]
    doc = json.dumps({w: [w, {w: w}] for w in words}, ensure_ascii=False)
    rng = random.Random(7)
    shuffled = words[:]
    rng.shuffle(shuffled)
    other = json.dumps([{w: w} for w in shuffled], ensure_ascii=False)
    for _ in range(3):
        assert ctb.loads(doc) == json.loads(doc)
        assert ctb.loads(other) == json.loads(other)


def test_loads_inside_loads_reads_without_the_cache():
    """A finalizer the garbage collector runs in the middle of a call may call `loads`
    again: the inner call finds the cache busy and reads without it (no deadlock), and both
    results are right. (From Python 3.12 on, collections wait for the call to return.)"""
    import gc

    doc = json.dumps([{"tool_name": f"t{n}", "tool_args": {"n": n}} for n in range(300)])
    inner = []

    class Reader:
        def __del__(self):
            inner.append(ctb.loads('{"tool_name": "from a finalizer", "n": [1, 2]}'))

    old = gc.get_threshold()
    gc.set_threshold(1)
    try:
        for _ in range(5):
            a, b = Reader(), Reader()
            a.other, b.other = b, a  # a cycle: only the collector frees it
            del a, b
            assert ctb.loads(doc) == json.loads(doc)
    finally:
        gc.set_threshold(*old)
        gc.collect()
    assert len(inner) == 10
    assert all(v == {"tool_name": "from a finalizer", "n": [1, 2]} for v in inner)
