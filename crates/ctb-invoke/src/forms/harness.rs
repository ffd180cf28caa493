//! The data-driven harness of the bodies in [`crate::forms`]: each file in
//! `tests/data/forms/` lists samples (the sources' own texts, or variants built from them and
//! labelled so), where the body starts, and what it must decide. Every case is run:
//!
//! - whole, and compared with the expected call (name, parameters, JSON arguments, the text
//!   after the call) or the expected failure offset, or `Pending`;
//! - at every split point: the decision is the same, and it is made on the same bytes (the
//!   reach), so a prefix shorter than the reach is `Pending` and any longer one decides;
//! - a character at a time and in seeded random chunks, with the same decision and reach;
//! - mutated (a delimiter inserted or a character removed), decided the same whole and a
//!   character at a time;
//! - for a call: with its last byte changed, which must break it.
//!
//! File format, one item per line (`#` starts a comment):
//!
//! ```text
//! case ID                      starts a case
//! source TEXT                  where the sample comes from (free text)
//! text "..."                   the reply, as a JSON string literal
//! start "..."                  the body starts at the first occurrence of this text
//! done                         a call is expected; then:
//! name "..."                   its name
//! param "KEY" text "..."       a parameter whose value is text
//! param "KEY" converted JSON   a parameter the grammar converted (JSON to the line's end)
//! json JSON                    the JSON arguments as written (to the line's end)
//! after "..."                  the text after the call
//! failed "..."                 not a call: the structure breaks where this text starts
//! pending                      undecided at the end of the text
//! ```

#![cfg(test)]

use std::fmt::Write as _;
use std::path::Path;

use ctb_testkit::Rng;

use crate::grammar::{Body, Spans, Step, ValueKind};
use crate::lex::Meter;

/// Pieces inserted into samples to make mutants: the forms' delimiters and a multi-byte
/// character.
const MUTATIONS: &[&str] = &[
    "<",
    ">",
    "]",
    "\"",
    "{",
    "}",
    ",",
    "\\",
    "\n",
    "é",
    "]<]minimax[>[",
    "<|end_message|>",
    "<|content_invoke_tool_json|>",
];

/// What a case expects.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expect {
    Done {
        name: String,
        params: Vec<(String, Param)>,
        json: Option<String>,
        after: String,
    },
    Failed(String),
    Pending,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Param {
    Text(String),
    Converted(String),
}

#[derive(Debug, Clone)]
struct Case {
    id: String,
    text: String,
    start: String,
    expect: Option<Expect>,
}

/// A body's decision, what it read and how far it looked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    step: Step,
    spans: Spans,
    reach: usize,
}

/// Reads a JSON string literal at the start of `s`: the string and the rest of `s`.
fn literal(s: &str) -> (String, &str) {
    let s = s.trim_start();
    let mut chars = s.char_indices();
    assert_eq!(chars.next().map(|c| c.1), Some('"'), "a JSON string: {s}");
    let mut out = String::new();
    let mut high: Option<u32> = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &s[i + 1..]),
            '\\' => {
                let (_, e) = chars.next().expect("an escape");
                let decoded = match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    '"' | '\\' | '/' => e,
                    'u' => {
                        let hex: String = (0..4).map(|_| chars.next().expect("hex").1).collect();
                        let unit = u32::from_str_radix(&hex, 16).expect("hex digits");
                        if (0xd800..0xdc00).contains(&unit) {
                            high = Some(unit);
                            continue;
                        }
                        let code = match high.take() {
                            Some(h) => 0x10000 + ((h - 0xd800) << 10) + (unit - 0xdc00),
                            None => unit,
                        };
                        char::from_u32(code).expect("a scalar value")
                    }
                    other => panic!("unknown escape \\{other}"),
                };
                out.push(decoded);
            }
            c => out.push(c),
        }
    }
    panic!("unterminated string: {s}")
}

/// The parts of a `done` expectation, to fill in.
type DoneParts<'a> = (
    &'a mut String,
    &'a mut Vec<(String, Param)>,
    &'a mut Option<String>,
    &'a mut String,
);

fn done(case: &mut Case) -> DoneParts<'_> {
    match &mut case.expect {
        Some(Expect::Done {
            name,
            params,
            json,
            after,
        }) => (name, params, json, after),
        _ => panic!("{}: a call's line outside a `done` case", case.id),
    }
}

fn parse(data: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in data.lines() {
        let line = line.trim_end();
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        if word == "case" {
            cases.push(Case {
                id: rest.to_owned(),
                text: String::new(),
                start: String::new(),
                expect: None,
            });
            continue;
        }
        let case = cases.last_mut().expect("a case line first");
        match word {
            "source" => {}
            "text" => case.text = literal(rest).0,
            "start" => case.start = literal(rest).0,
            "done" => {
                case.expect = Some(Expect::Done {
                    name: String::new(),
                    params: Vec::new(),
                    json: None,
                    after: String::new(),
                })
            }
            "failed" => case.expect = Some(Expect::Failed(literal(rest).0)),
            "pending" => case.expect = Some(Expect::Pending),
            "name" => *done(case).0 = literal(rest).0,
            "json" => *done(case).2 = Some(rest.to_owned()),
            "after" => *done(case).3 = literal(rest).0,
            "param" => {
                let (key, rest) = literal(rest);
                let (kind, value) = rest.trim_start().split_once(' ').expect("a kind");
                let param = match kind {
                    "text" => Param::Text(literal(value).0),
                    "converted" => Param::Converted(value.to_owned()),
                    other => panic!("unknown parameter kind {other}"),
                };
                done(case).1.push((key, param));
            }
            other => panic!("unknown line `{other}`"),
        }
    }
    cases
}

/// Runs a fresh body over the prefixes `text[..cut]` for each cut, then over the whole text,
/// stopping at the first decision. Also returns the cut the decision came at.
fn run<B: Body>(
    make: &impl Fn(usize) -> B,
    start: usize,
    text: &str,
    cuts: &[usize],
) -> (Outcome, usize) {
    let mut body = make(start);
    let mut spans = Spans::default();
    let mut meter = Meter::default();
    for &cut in cuts.iter().chain([&text.len()]) {
        let step = body.run(&text[..cut], &mut spans, &mut meter);
        assert!(meter.reach <= cut, "read past the text's end");
        if step != Step::Pending || cut == text.len() {
            let work = meter.work;
            let read = meter.reach.saturating_sub(start);
            // Each byte a bounded number of times (resuming re-reads at most a literal).
            assert!(
                work <= 3 * read + 64 * (cuts.len() + 1),
                "work {work} for {read} bytes"
            );
            return (
                Outcome {
                    step,
                    spans,
                    reach: meter.reach,
                },
                cut,
            );
        }
    }
    unreachable!("the whole text is the last cut")
}

/// The call as the expectations spell it.
fn render(text: &str, outcome: &Outcome) -> String {
    let mut out = String::new();
    match outcome.step {
        Step::Pending => out.push_str("pending\n"),
        Step::Failed(at) => writeln!(out, "failed {:?}", &text[at..]).unwrap(),
        Step::Done(end) => {
            let s = &outcome.spans;
            writeln!(out, "done\nname {:?}", &text[s.name.clone()]).unwrap();
            for p in &s.params {
                let key = &text[p.name.clone()];
                match &p.kind {
                    ValueKind::Text => {
                        writeln!(out, "param {key:?} text {:?}", &text[p.value.clone()]).unwrap()
                    }
                    ValueKind::Converted(json) => {
                        writeln!(out, "param {key:?} converted {json}").unwrap()
                    }
                    ValueKind::Json => panic!("no JSON-marked values in these forms"),
                }
            }
            if let Some(j) = &s.json {
                writeln!(out, "json {}", &text[j.clone()]).unwrap();
            }
            writeln!(out, "after {:?}", &text[end..]).unwrap();
        }
    }
    out
}

fn render_expect(e: &Expect) -> String {
    let mut out = String::new();
    match e {
        Expect::Pending => out.push_str("pending\n"),
        Expect::Failed(rest) => writeln!(out, "failed {rest:?}").unwrap(),
        Expect::Done {
            name,
            params,
            json,
            after,
        } => {
            writeln!(out, "done\nname {name:?}").unwrap();
            for (key, p) in params {
                match p {
                    Param::Text(v) => writeln!(out, "param {key:?} text {v:?}").unwrap(),
                    Param::Converted(j) => writeln!(out, "param {key:?} converted {j}").unwrap(),
                }
            }
            if let Some(j) = json {
                writeln!(out, "json {j}").unwrap();
            }
            writeln!(out, "after {after:?}").unwrap();
        }
    }
    out
}

/// Runs every case of `tests/data/forms/{file}` through the body `make` builds.
pub(crate) fn run_file<B: Body>(file: &str, make: impl Fn(usize) -> B) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/forms")
        .join(file);
    let data = std::fs::read_to_string(&path).unwrap();
    let cases = parse(&data);
    assert!(cases.len() >= 8, "{file}: too few cases");
    for case in &cases {
        check(case, &make);
    }
}

fn check<B: Body>(case: &Case, make: &impl Fn(usize) -> B) {
    let id = &case.id;
    let text = case.text.as_str();
    let start = text
        .find(case.start.as_str())
        .unwrap_or_else(|| panic!("{id}: start text not found"));
    let expect = case.expect.as_ref().expect("an expectation");

    // Whole.
    let (whole, _) = run(make, start, text, &[]);
    assert_eq!(
        render(text, &whole),
        render_expect(expect),
        "{id}: whole text"
    );
    if let Step::Done(end) = whole.step {
        assert_eq!(whole.reach, end, "{id}: a call is read up to its end only");
    }

    // Every split point: undecided before the reach, the same decision from there on.
    let bounds: Vec<usize> = (start + 1..text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect();
    for &k in &bounds {
        let (got, at) = run(make, start, text, &[k]);
        assert_eq!(got, whole, "{id}: split at {k}");
        if k < whole.reach {
            assert_eq!(at, text.len(), "{id}: decided at {k}, before its reach");
        } else if whole.step != Step::Pending {
            assert_eq!(at, k, "{id}: undecided at {k}, past its reach");
        }
    }
    // A character at a time, then random chunks.
    let (got, _) = run(make, start, text, &bounds);
    assert_eq!(got, whole, "{id}: a character at a time");
    let mut rng = Rng::new(0x5eed ^ text.len() as u64);
    for _ in 0..100 {
        let cuts: Vec<usize> = bounds.iter().copied().filter(|_| rng.chance(20)).collect();
        let (got, _) = run(make, start, text, &cuts);
        assert_eq!(got, whole, "{id}: chunks {cuts:?}");
    }

    // Mutants (a piece inserted or a character removed somewhere after the start): whatever
    // they are, the body decides them the same way whole and a character at a time.
    for _ in 0..if bounds.is_empty() { 0 } else { 40 } {
        let mut mutant = text.to_owned();
        let at = bounds[rng.below(bounds.len())];
        if rng.chance(30) {
            let len = mutant[at..].chars().next().map_or(0, char::len_utf8);
            mutant.replace_range(at..at + len, "");
        } else {
            mutant.insert_str(at, rng.pick(MUTATIONS));
        }
        let mutant_bounds: Vec<usize> = (start + 1..mutant.len())
            .filter(|i| mutant.is_char_boundary(*i))
            .collect();
        let (whole_m, _) = run(make, start, &mutant, &[]);
        let (split_m, _) = run(make, start, &mutant, &mutant_bounds);
        assert_eq!(whole_m, split_m, "{id}: mutant {mutant:?}");
    }

    // A call with its last byte changed is broken, not cut off.
    if let Step::Done(end) = whole.step {
        let mut broken = text[..end - 1].to_owned();
        broken.push('#');
        broken.push_str(&text[end..]);
        let (got, _) = run(make, start, &broken, &[]);
        assert!(
            matches!(got.step, Step::Failed(at) if at < end),
            "{id}: the last byte changed gives {:?}",
            got.step
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_decode() {
        assert_eq!(
            literal(r#""a\n\"\u00e9\ud83d\ude00\uff5c" tail"#),
            ("a\n\"é😀｜".to_owned(), " tail")
        );
    }
}
