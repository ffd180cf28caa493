//! The grammar-case harness: every form of the registry is run on its case file,
//! `tests/data/forms/<form code>.txt`: the sources' samples byte for byte, and a variant per
//! rule (each says so in its `source` line). The form's body is its row's engine started at the
//! case's `start`; the element family's forms are read by the dispatcher from the wrapper or
//! call element there (and a call it finds must be in the file's form).
//!
//! Every case is run:
//!
//! - whole, and compared with what it expects: the call (name, parameters, JSON arguments, the
//!   text after the call), where the structure breaks, or undecided;
//! - at every split point, a character at a time and in seeded random chunks: the same answer,
//!   spans and reach (one past the furthest byte examined when the answer is decided) however
//!   the text arrives; every cut-off before the reach is undecided, and a text that reaches it
//!   is decided there; a fresh run over the text up to the reach (or the call's end) answers the
//!   same; asked again, a decided body answers the same; the work stays within a bounded number
//!   of passes;
//! - mutated (each character deleted in turn, and delimiters inserted at random): whole and
//!   split agree, and nothing panics;
//! - for a call: with its last byte changed, which makes it end elsewhere or not at all.
//!
//! Case file format, one item per line (`#` starts a comment; strings are JSON string literals,
//! byte-exact):
//!
//! ```text
//! case LABEL                         starts a case (an id such as G1, then what it shows)
//! source TEXT                        where the sample comes from, or what it is built from
//! text "..."                         the reply
//! start "..."                        the body starts at the first occurrence (else at 0)
//! done                               a call is expected; or `pending`, or `failed "..."`: the
//!                                    text from where the structure breaks starts with that
//! name "..."                         done: the tool name
//! param "KEY" text "..."             done: each argument in order: text as written,
//! param "KEY" json "..."             JSON as written,
//! param "KEY" converted "JSON"       or the JSON the grammar wrote from the form's own syntax
//! param "KEY" converted "AS" "JSON"  (optionally with the value as written before it)
//! json "..."                         done: the JSON arguments as written
//! after "..."                        done: the text after the call
//! ```

#![cfg(test)]

use std::path::Path;

use ctb_testkit::Rng;

use crate::call::{Parser, Prefer};
use crate::grammar::{Body, Spans, Start, Step, ValueKind};
use crate::lex::Meter;
use crate::registry::{FORMS, Form, Forms};

/// Pieces inserted into samples to make mutants: the forms' delimiters and a multi-byte
/// character.
const MUTATIONS: &[&str] = &[
    "<",
    ">",
    "]",
    "[",
    "\"",
    "'",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "\\",
    "\n",
    "é",
    "]<]minimax[>[",
    "<|end_message|>",
    "<|content_invoke_tool_json|>",
    "<|\"|>",
    "<|sep|>",
];

/// A body as the harness makes it: started at an offset of the text.
pub(crate) type Make<'a> = &'a dyn Fn(usize) -> Box<dyn Body>;

/// The body of `form`'s call that starts at `at`: its engine's, or the dispatcher's for the
/// element family (the form it finds is checked against `form`).
pub(crate) fn form_body(form: Form, at: usize) -> Box<dyn Body> {
    let row = form.row();
    match row.engine.body(at, row.values) {
        Some(body) => body,
        None => Box::new(Dispatch {
            form,
            at,
            parser: None,
        }),
    }
}

/// The dispatcher run as a body, for the forms it opens itself: started once the text at the
/// candidate's start has arrived (a `<`, a reply that starts mid-tag, or a line that lost its
/// `<`).
#[derive(Debug, Clone)]
struct Dispatch {
    form: Form,
    at: usize,
    parser: Option<Parser>,
}

impl Body for Dispatch {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let Some(&first) = text.as_bytes().get(self.at) else {
            return Err(Step::Pending);
        };
        let parser = self.parser.get_or_insert_with(|| {
            let how = match first {
                b'<' => Start::Element,
                b'=' => Start::MidTag,
                b'n' if self.at == 0 && text.starts_with("name") => Start::MidTag,
                _ => Start::LostBracket,
            };
            let read = Forms::of(&[self.form]);
            Parser::new(self.at, how, Prefer { read, only: None })
        });
        let step = parser.run(text, meter);
        *spans = parser.spans().clone();
        Err(step)
    }
}

/// Runs every form's case file.
pub(crate) fn run_forms() {
    std::thread::scope(|scope| {
        for row in &FORMS {
            scope.spawn(move || run_form(row.form));
        }
    });
}

/// Runs `form`'s case file, `tests/data/forms/<code>.txt`; a call the dispatcher finds must be
/// in that form.
pub(crate) fn run_form(form: Form) {
    let name = format!("{}.txt", form.code());
    for (label, text, start) in run_file(&name, &|at| form_body(form, at)) {
        let mut dispatch = Dispatch {
            form,
            at: start,
            parser: None,
        };
        let step = dispatch.run(&text, &mut Spans::default(), &mut Meter::default());
        if let (Step::Done(_), Some(parser)) = (step, &dispatch.parser) {
            assert_eq!(
                parser.form(),
                form,
                "{name}: {label}: a call of another form"
            );
        }
    }
}

/// One run's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    step: Step,
    spans: Spans,
    /// The reach when the answer was decided (for `Pending`, at the end).
    reach: usize,
}

/// Runs `make(start)` over `text` cut at `cuts` (then whole), stopping at the first decision:
/// the outcome, the work done and the cut the decision came at.
fn feed(text: &str, start: usize, cuts: &[usize], make: Make<'_>) -> (Outcome, usize, usize) {
    let mut body = make(start);
    let mut spans = Spans::default();
    let mut meter = Meter::default();
    // The body is only run once its start has arrived.
    for &cut in cuts.iter().filter(|c| **c > start).chain([&text.len()]) {
        let step = body.run(&text[..cut], &mut spans, &mut meter);
        assert!(meter.reach <= cut, "read past the text's end at {cut}");
        if step != Step::Pending {
            // Decided: asking again gives the same answer.
            let again = body.run(text, &mut spans, &mut Meter::default());
            assert_eq!(again, step, "asked again");
            let outcome = Outcome {
                step,
                spans,
                reach: meter.reach,
            };
            return (outcome, meter.work, cut);
        }
    }
    let outcome = Outcome {
        step: Step::Pending,
        spans,
        reach: meter.reach,
    };
    (outcome, meter.work, text.len())
}

fn boundaries(text: &str) -> Vec<usize> {
    (1..text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect()
}

/// The streaming contract for one text; returns the whole-text outcome.
fn check_contract(text: &str, start: usize, make: Make<'_>, label: &str) -> Outcome {
    let (whole, work, _) = feed(text, start, &[], make);
    let bounds = boundaries(text);
    // A bounded number of passes, plus the literals read again while they arrive.
    let budget = |feeds: usize| 4 * text.len() + 64 * feeds + 64;
    assert!(work <= budget(1), "{label}: work {work}");
    let same = |o: &Outcome, how: &str| {
        assert_eq!(o, &whole, "{label}: {how}");
    };
    let (bytewise, work, _) = feed(text, start, &bounds, make);
    same(&bytewise, "a character at a time");
    assert!(
        work <= budget(bounds.len() + 1),
        "{label}: work {work} a character at a time"
    );
    for &cut in &bounds {
        let (got, _, at) = feed(text, start, &[cut], make);
        same(&got, &format!("split at {cut}"));
        if whole.step != Step::Pending && cut >= whole.reach {
            assert_eq!(at, cut, "{label}: undecided at {cut}, past its reach");
        }
    }
    let mut rng = Rng::new(0x5eed ^ text.len() as u64);
    for _ in 0..60 {
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
        let (cut, _, _) = feed(&text[..stop], start, &[], make);
        same(&cut, &format!("the text up to {stop} as a whole"));
        // Every cut-off before the deciding byte is undecided.
        for &k in bounds.iter().filter(|k| **k < whole.reach && **k > start) {
            let (o, _, _) = feed(&text[..k], start, &[], make);
            assert_eq!(o.step, Step::Pending, "{label}: cut off at {k}");
        }
    }
    if let Step::Done(at) | Step::Failed(at) = whole.step {
        assert!(text.is_char_boundary(at), "{label}: offset {at}");
    }
    whole
}

/// A case of a case file.
#[derive(Debug, Default)]
struct Case {
    label: String,
    text: Option<String>,
    start: Option<String>,
    expect: Option<Expect>,
    name: Option<String>,
    /// Key, kind, value as written (when given), converted JSON (for `converted`).
    params: Vec<(String, String, Option<String>, Option<String>)>,
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
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        if word == "case" {
            cases.push(Case {
                label: rest.to_owned(),
                ..Case::default()
            });
            continue;
        }
        let case = cases.last_mut().expect("a line before the first case");
        let one = |rest: &str| {
            let (s, tail) = json_string(rest);
            assert!(tail.trim().is_empty(), "trailing text: {line}");
            s
        };
        match word {
            "source" => {}
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
                let (first, rest) = json_string(rest);
                let param = match kind {
                    "text" | "json" => {
                        assert!(rest.trim().is_empty(), "trailing text: {line}");
                        (key, kind.to_owned(), Some(first), None)
                    }
                    "converted" if rest.trim().is_empty() => {
                        (key, kind.to_owned(), None, Some(first))
                    }
                    "converted" => (key, kind.to_owned(), Some(first), Some(one(rest))),
                    other => panic!("unknown parameter kind {other:?} in {line}"),
                };
                case.params.push(param);
            }
            other => panic!("unknown item {other:?} in {line}"),
        }
    }
    cases
}

/// Runs every case of `tests/data/forms/<name>` with the body `make` builds; the label, text
/// and start of each case that expects a call.
pub(crate) fn run_file(name: &str, make: Make<'_>) -> Vec<(String, String, usize)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/forms")
        .join(name);
    let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let cases = parse(&file);
    assert!(cases.len() >= 8, "{name}: too few cases");
    let mut calls = Vec::new();
    for case in &cases {
        let label = format!("{name}: {}", case.label);
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
        mutants(text, start, &got, make, &label);
        if let Step::Done(_) = got.step {
            calls.push((case.label.clone(), text.to_owned(), start));
        }
    }
    calls
}

/// Mutants of a case's text: whatever they are, whole and split agree and nothing panics; a
/// call with its last byte changed does not end where it did.
fn mutants(text: &str, start: usize, whole: &Outcome, make: Make<'_>, label: &str) {
    let agree = |mutant: &str, how: &str| {
        let (one, _, _) = feed(mutant, start, &[], make);
        let mid = (mutant.len() / 2..=mutant.len())
            .find(|i| mutant.is_char_boundary(*i))
            .unwrap_or(mutant.len());
        let (two, _, _) = feed(mutant, start, &[mid], make);
        assert_eq!(two, one, "{label}: {how}: {mutant:?}");
        let (bytewise, _, _) = feed(mutant, start, &boundaries(mutant), make);
        assert_eq!(
            bytewise, one,
            "{label}: {how}, a character at a time: {mutant:?}"
        );
    };
    let chars: Vec<usize> = (0..text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect();
    for &at in chars.iter().filter(|at| **at >= start) {
        let next = (at + 1..=text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        let cut = format!("{}{}", &text[..at], &text[next..]);
        if start < cut.len() {
            agree(&cut, &format!("without the character at {at}"));
        }
    }
    let mut rng = Rng::new(0xa11 ^ text.len() as u64);
    let after_start: Vec<usize> = chars.iter().copied().filter(|at| *at > start).collect();
    for _ in 0..if after_start.is_empty() { 0 } else { 40 } {
        let mut mutant = text.to_owned();
        mutant.insert_str(
            after_start[rng.below(after_start.len())],
            rng.pick(MUTATIONS),
        );
        agree(&mutant, "a piece inserted");
    }
    if let Step::Done(end) = whole.step {
        let mut broken = text[..end - 1].to_owned();
        broken.push('#');
        broken.push_str(&text[end..]);
        let (got, _, _) = feed(&broken, start, &[], make);
        assert_ne!(
            got.step,
            Step::Done(end),
            "{label}: the call's last byte changed, it ends there still"
        );
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
            assert_eq!(spans.params.len(), case.params.len(), "{label}: params");
            for (p, (key, kind, value, converted)) in spans.params.iter().zip(&case.params) {
                assert_eq!(&text[p.name.clone()], key, "{label}: param name");
                let (got_kind, got_converted) = match &p.kind {
                    ValueKind::Text => ("text", None),
                    ValueKind::Json => ("json", None),
                    ValueKind::Converted(json) => ("converted", Some(json)),
                };
                assert_eq!(got_kind, kind, "{label}: {key}'s kind");
                if let Some(value) = value {
                    assert_eq!(&text[p.value.clone()], value, "{label}: {key}'s value");
                }
                assert_eq!(got_converted, converted.as_ref(), "{label}: {key}'s JSON");
            }
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
pub(crate) fn run_soup(head: &str, pieces: &[&str], make: Make<'_>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_its_case_file() {
        run_forms();
    }

    #[test]
    fn literals_decode() {
        assert_eq!(
            json_string(r#""a\n\"\u00e9\ud83d\ude00\uff5c" tail"#),
            ("a\n\"é😀｜".to_owned(), " tail")
        );
    }

    #[test]
    fn every_item_parses() {
        let file = "# c\ncase X1 a label\nsource s\ntext \"t\"\nstart \"t\"\ndone\nname \"n\"\n\
                    param \"a\" text \"v\"\nparam \"b\" json \"1\"\nparam \"c\" converted \"[1]\"\n\
                    param \"d\" converted \"{a:1}\" \"{\\\"a\\\":1}\"\njson \"{}\"\nafter \"\"\n";
        let cases = parse(file);
        assert_eq!(cases.len(), 1);
        let c = &cases[0];
        assert_eq!(c.label, "X1 a label");
        assert_eq!(c.params.len(), 4);
        assert_eq!(c.params[2].3.as_deref(), Some("[1]"));
        assert_eq!(c.params[3].2.as_deref(), Some("{a:1}"));
        assert_eq!(c.json.as_deref(), Some("{}"));
    }
}

#[cfg(test)]
mod drafts {
    use super::*;

    /// Renders the outcome of each case of `$CTB_DRAFT` (a case file without expectations)
    /// in the case format: a tool to write case files, whose output is reviewed.
    #[test]
    #[ignore = "a tool"]
    fn render_drafts() {
        let path = std::env::var("CTB_DRAFT").expect("CTB_DRAFT");
        let code = Path::new(&path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let form = Form::from_code(&code).expect("a form code");
        let file = std::fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        let lit = |s: &str| {
            let mut o = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => o.push_str("\\\""),
                    '\\' => o.push_str("\\\\"),
                    '\n' => o.push_str("\\n"),
                    '\r' => o.push_str("\\r"),
                    '\t' => o.push_str("\\t"),
                    c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        };
        for line in file.lines() {
            if line.starts_with("case ") || line.starts_with("source ") || line.starts_with('#') {
                out.push_str(line);
                out.push('\n');
                continue;
            }
            if let Some(rest) = line.strip_prefix("start ") {
                out.push_str(line);
                out.push('\n');
                let _ = rest;
                continue;
            }
            let Some(rest) = line.strip_prefix("text ") else {
                out.push_str(line);
                out.push('\n');
                continue;
            };
            let text = json_string(rest).0;
            out.push_str(line);
            out.push('\n');
            // The start: the last `start` line before this text, if any, in the output.
            let start = out
                .lines()
                .rev()
                .take_while(|l| !l.starts_with("case "))
                .find_map(|l| l.strip_prefix("start ").map(|s| json_string(s).0))
                .map_or(0, |s| text.find(&s).expect("start"));
            let (o, _, _) = feed(&text, start, &[], &|at| form_body(form, at));
            match o.step {
                Step::Pending => out.push_str("pending\n"),
                Step::Failed(at) => {
                    let shown: String = text[at..].chars().take(40).collect();
                    out.push_str(&format!("failed {}\n", lit(&shown)));
                }
                Step::Done(end) => {
                    out.push_str("done\n");
                    out.push_str(&format!("name {}\n", lit(&text[o.spans.name.clone()])));
                    for p in &o.spans.params {
                        let key = &text[p.name.clone()];
                        let value = &text[p.value.clone()];
                        match &p.kind {
                            ValueKind::Text => {
                                out.push_str(&format!("param {} text {}\n", lit(key), lit(value)))
                            }
                            ValueKind::Json => {
                                out.push_str(&format!("param {} json {}\n", lit(key), lit(value)))
                            }
                            ValueKind::Converted(j) => out.push_str(&format!(
                                "param {} converted {} {}\n",
                                lit(key),
                                lit(value),
                                lit(j)
                            )),
                        }
                    }
                    if let Some(j) = &o.spans.json {
                        out.push_str(&format!("json {}\n", lit(&text[j.clone()])));
                    }
                    out.push_str(&format!("after {}\n", lit(&text[end..])));
                }
            }
        }
        println!("{out}");
    }
}
