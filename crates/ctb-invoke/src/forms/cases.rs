//! The data-driven harness of the 2026 bodies: reads a case file of
//! `tests/data/forms/`, runs each case's body over the text whole, at every split point, byte
//! by byte and in random chunks, and checks the answer against the case's expectation.
//!
//! A case file holds `#` comment lines and cases. A case starts with `=== title` and has one
//! item per line; strings are JSON string literals (byte-exact, as the research notes give
//! the samples):
//!
//! ```text
//! === k1 typed arguments (source)
//! text "<|open|>tools<|sep|>..."      the reply
//! start "<|open|>tools<|sep|>"        optional: the body starts at its first occurrence (else 0)
//! done                                 or `pending`, or `failed "..."`: the text from the
//!                                      failure offset starts with that string
//! name "calc"                          done: the tool name
//! param "x" json "1"                   done: each argument in order, `text`, `json`, or
//! param "m" converted "{a:1}" "{\"a\":1}"   `converted` (as written, then the JSON)
//! json "{...}"                         done: the JSON arguments
//! after "..."                          done: the text after the call
//! ```
//!
//! Besides the expectation, every case checks the streaming contract: the same answer, spans
//! and reach (one past the furthest byte examined when the answer is decided) however the text
//! is split; an answer given early is decided within the text received; a fresh run over the
//! text up to that reach (or the call's end) answers the same; every cut-off before it is
//! `Pending`; the work stays within a bounded number of passes. Each case is also run with each
//! one character deleted, whole and split, which must agree and not panic.

#![cfg(test)]

use std::path::Path;

use ctb_testkit::Rng;

use crate::grammar::{Body, Spans, Step, ValueKind};
use crate::lex::Meter;

/// One run's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    step: Step,
    spans: Spans,
    /// The reach when the answer was decided (for `Pending`, at the end).
    reach: usize,
}

/// Runs `make(start)` over `text` cut at `cuts` (then whole); the outcome and the work done.
fn feed(
    text: &str,
    start: usize,
    cuts: &[usize],
    make: &dyn Fn(usize) -> Box<dyn Body>,
) -> (Outcome, usize) {
    let mut body = make(start);
    let mut spans = Spans::default();
    let mut meter = Meter::default();
    for &cut in cuts.iter().chain([&text.len()]) {
        let step = body.run(&text[..cut], &mut spans, &mut meter);
        if step != Step::Pending {
            assert!(
                meter.reach <= cut,
                "decided at reach {} with only {cut} bytes",
                meter.reach
            );
            // Decided: asking again gives the same answer and reads nothing more.
            let again = body.run(text, &mut spans, &mut Meter::default());
            assert_eq!(again, step);
            let outcome = Outcome {
                step,
                spans,
                reach: meter.reach,
            };
            return (outcome, meter.work);
        }
    }
    let outcome = Outcome {
        step: Step::Pending,
        spans,
        reach: meter.reach,
    };
    (outcome, meter.work)
}

fn boundaries(text: &str) -> Vec<usize> {
    (1..text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect()
}

/// The streaming contract for one text; returns the whole-text outcome.
fn check_contract(
    text: &str,
    start: usize,
    make: &dyn Fn(usize) -> Box<dyn Body>,
    label: &str,
) -> Outcome {
    let (whole, work) = feed(text, start, &[], make);
    let bounds = boundaries(text);
    // A bounded number of passes, plus the literals read again while they arrive.
    let budget = |feeds: usize| 4 * text.len() + 64 * feeds + 64;
    assert!(work <= budget(1), "{label}: work {work}");
    let same = |o: &Outcome, how: &str| {
        assert_eq!(o, &whole, "{label}: {how}");
    };
    let (bytewise, work) = feed(text, start, &bounds, make);
    same(&bytewise, "byte by byte");
    assert!(
        work <= budget(bounds.len() + 1),
        "{label}: work {work} byte by byte"
    );
    for &cut in &bounds {
        same(
            &feed(text, start, &[cut], make).0,
            &format!("split at {cut}"),
        );
    }
    let mut rng = Rng::new(0x5eed ^ text.len() as u64);
    for _ in 0..40 {
        let cuts: Vec<usize> = bounds.iter().copied().filter(|_| rng.chance(20)).collect();
        same(
            &feed(text, start, &cuts, make).0,
            &format!("chunks {cuts:?}"),
        );
    }
    if whole.step != Step::Pending {
        // The answer depends only on the text up to the reach (and the call's end).
        let stop = match whole.step {
            Step::Done(end) => end.max(whole.reach),
            _ => whole.reach,
        };
        let stop = (stop..=text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        let (cut, _) = feed(&text[..stop], start, &[], make);
        same(&cut, &format!("the text up to {stop} as a whole"));
        // Every cut-off before the deciding byte is undecided.
        for &k in bounds.iter().filter(|k| **k < whole.reach && **k > start) {
            let (o, _) = feed(&text[..k], start, &[], make);
            assert_eq!(o.step, Step::Pending, "{label}: cut off at {k}");
        }
    }
    for at in [whole_offset(&whole.step)].into_iter().flatten() {
        assert!(text.is_char_boundary(at), "{label}: offset {at}");
    }
    whole
}

fn whole_offset(step: &Step) -> Option<usize> {
    match step {
        Step::Done(at) | Step::Failed(at) => Some(*at),
        Step::Pending => None,
    }
}

/// A case of a case file.
#[derive(Debug, Default)]
struct Case {
    title: String,
    text: Option<String>,
    start: Option<String>,
    expect: Option<Expect>,
    name: Option<String>,
    params: Vec<(String, String, String, Option<String>)>,
    json: Option<String>,
    after: Option<String>,
}

#[derive(Debug)]
enum Expect {
    Done,
    Pending,
    Failed(String),
}

/// Reads the JSON string literal at the start of `s`; the string and the rest.
fn json_string(s: &str) -> (String, &str) {
    let s = s.trim_start();
    let body = s
        .strip_prefix('"')
        .unwrap_or_else(|| panic!("a JSON string expected: {s}"));
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &body[i + 1..]),
            '\\' => {
                let (_, e) = chars.next().expect("an escape");
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'u' => {
                        let hex: String = (0..4).map(|_| chars.next().expect("hex").1).collect();
                        let mut code = u32::from_str_radix(&hex, 16).expect("hex");
                        if (0xd800..0xdc00).contains(&code) {
                            let low: String =
                                (0..6).map(|_| chars.next().expect("low").1).collect();
                            let low = u32::from_str_radix(&low[2..], 16).expect("hex");
                            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                        }
                        out.push(char::from_u32(code).expect("a character"));
                    }
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    panic!("unterminated string: {s}")
}

fn parse(file: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in file.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(title) = line.strip_prefix("=== ") {
            cases.push(Case {
                title: title.to_owned(),
                ..Case::default()
            });
            continue;
        }
        let case = cases.last_mut().expect("a line before the first case");
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let one = |rest: &str| {
            let (s, tail) = json_string(rest);
            assert!(tail.trim().is_empty(), "trailing text: {line}");
            s
        };
        match word {
            "text" => case.text = Some(one(rest)),
            "start" => case.start = Some(one(rest)),
            "done" => case.expect = Some(Expect::Done),
            "pending" => case.expect = Some(Expect::Pending),
            "failed" => case.expect = Some(Expect::Failed(one(rest))),
            "name" => case.name = Some(one(rest)),
            "json" => case.json = Some(one(rest)),
            "after" => case.after = Some(one(rest)),
            "param" => {
                let (key, rest) = json_string(rest);
                let (kind, rest) = rest.trim_start().split_once(' ').expect("a kind");
                let (value, rest) = json_string(rest);
                let converted = (kind == "converted").then(|| one(rest));
                case.params.push((key, kind.to_owned(), value, converted));
            }
            other => panic!("unknown item {other:?} in {line}"),
        }
    }
    cases
}

/// Runs every case of `tests/data/forms/<name>` with the body `make` builds.
pub(crate) fn run_file(name: &str, make: fn(usize) -> Box<dyn Body>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/forms")
        .join(name);
    let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let cases = parse(&file);
    assert!(cases.len() >= 8, "{name}: too few cases");
    let make: &dyn Fn(usize) -> Box<dyn Body> = &make;
    for case in &cases {
        let label = format!("{name}: {}", case.title);
        let text = case
            .text
            .as_deref()
            .unwrap_or_else(|| panic!("{label}: no text"));
        let start = match &case.start {
            Some(s) => text
                .find(s.as_str())
                .unwrap_or_else(|| panic!("{label}: no start")),
            None => 0,
        };
        let got = check_contract(text, start, make, &label);
        check_expectation(case, text, &got, &label);
        // One character deleted anywhere: whole and split agree, and nothing panics.
        let bounds: Vec<usize> = (0..text.len())
            .filter(|i| text.is_char_boundary(*i))
            .collect();
        for &at in &bounds {
            let next = (at + 1..=text.len())
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(text.len());
            let cut = format!("{}{}", &text[..at], &text[next..]);
            if start > cut.len() {
                continue;
            }
            let (whole, _) = feed(&cut, start, &[], make);
            let mid = (cut.len() / 2..=cut.len())
                .find(|i| cut.is_char_boundary(*i))
                .unwrap_or(cut.len());
            let (split, _) = feed(&cut, start, &[mid], make);
            assert_eq!(split, whole, "{label}: without the byte at {at}");
        }
    }
}

fn check_expectation(case: &Case, text: &str, got: &Outcome, label: &str) {
    match (&case.expect, &got.step) {
        (Some(Expect::Pending), Step::Pending) => {}
        (Some(Expect::Failed(from)), Step::Failed(at)) => {
            assert!(
                text[*at..].starts_with(from.as_str()),
                "{label}: failed at {at}: {:?}",
                &text[*at..]
            );
        }
        (Some(Expect::Done), Step::Done(end)) => {
            let spans = &got.spans;
            let name = case
                .name
                .as_deref()
                .unwrap_or_else(|| panic!("{label}: no name"));
            assert_eq!(&text[spans.name.clone()], name, "{label}: name");
            let params: Vec<(String, String, String, Option<String>)> = spans
                .params
                .iter()
                .map(|p| {
                    let (kind, converted) = match &p.kind {
                        ValueKind::Text => ("text", None),
                        ValueKind::Json => ("json", None),
                        ValueKind::Converted(json) => ("converted", Some(json.clone())),
                    };
                    (
                        text[p.name.clone()].to_owned(),
                        kind.to_owned(),
                        text[p.value.clone()].to_owned(),
                        converted,
                    )
                })
                .collect();
            assert_eq!(params, case.params, "{label}: params");
            let json = spans.json.clone().map(|r| text[r].to_owned());
            assert_eq!(json, case.json, "{label}: json");
            let after = case
                .after
                .as_deref()
                .unwrap_or_else(|| panic!("{label}: no after"));
            assert_eq!(&text[*end..], after, "{label}: after");
        }
        (want, step) => panic!("{label}: expected {want:?}, got {step:?}"),
    }
}

/// Texts made of `head` and random pieces of a form (its markers, separators, words, white
/// space): each must keep the streaming contract, whatever it turns out to be. Some must be
/// calls and some must fail, or the soup tests nothing.
pub(crate) fn run_soup(head: &str, pieces: &[&str], make: fn(usize) -> Box<dyn Body>) {
    let make: &dyn Fn(usize) -> Box<dyn Body> = &make;
    let mut rng = Rng::new(0x50_0b);
    let (mut done, mut failed) = (0, 0);
    for round in 0..600 {
        let n = rng.below(16);
        let mut text = head.to_owned();
        text.extend((0..n).map(|_| rng.pick(pieces)));
        let got = check_contract(&text, 0, make, &format!("soup {round}: {text:?}"));
        match got.step {
            Step::Done(_) => done += 1,
            Step::Failed(_) => failed += 1,
            Step::Pending => {}
        }
    }
    assert!(
        done >= 10 && failed >= 10,
        "{done} calls, {failed} failures"
    );
}
