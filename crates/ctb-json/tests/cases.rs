//! Data-driven cases: every file in `tests/data/cases/` holds named inputs; one snapshot per
//! file records what `parse` makes of each (for `first_*.txt`, `first_object` and
//! `object_roots`; for `partial*.txt`, `parse` and `parse_partial`).
//!
//! File format: lines before the first case are comments. A case starts with `=== title`; its
//! input is every following line up to the next case, without the last newline. A title
//! ending in `[escaped]` takes one line with `\n`, `\t`, `\r`, `\\` and `\u{...}` escapes.
//!
//! Besides the snapshot, every case is checked for invariants: `repair` prints JSON that
//! serde_json reads back to what `parse` gives (and `repair_partial` to what `parse_partial`
//! gives), and error offsets lie inside the input.

use std::fmt::Write as _;

struct Case {
    title: String,
    input: String,
}

fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let hex: String = chars
                    .by_ref()
                    .skip_while(|&c| c == '{')
                    .take_while(|&c| c != '}')
                    .collect();
                let code = u32::from_str_radix(&hex, 16).expect("hex in \\u{...}");
                out.push(char::from_u32(code).expect("a scalar value"));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn read_cases(text: &str) -> Vec<Case> {
    let mut cases: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("=== ") {
            cases.push((title.to_owned(), Vec::new()));
        } else if let Some((_, lines)) = cases.last_mut() {
            lines.push(line);
        }
    }
    cases
        .into_iter()
        .map(|(title, lines)| {
            let joined = lines.join("\n");
            match title.strip_suffix(" [escaped]") {
                Some(t) => Case {
                    title: t.to_owned(),
                    input: unescape(&joined),
                },
                None => Case {
                    title,
                    input: joined,
                },
            }
        })
        .collect()
}

type Repair = fn(&str) -> Result<String, ctb_json::Error>;
type Parse = fn(&str) -> Result<serde_json::Value, ctb_json::Error>;

fn check_invariants(case: &Case) {
    let pairs: [(Repair, Parse); 2] = [
        (ctb_json::repair, ctb_json::parse),
        (ctb_json::repair_partial, ctb_json::parse_partial),
    ];
    for (repair, parse) in pairs {
        match repair(&case.input) {
            Ok(text) => {
                let back: serde_json::Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: repaired text is not JSON: {e}", case.title));
                assert_eq!(
                    Some(back),
                    parse(&case.input).ok(),
                    "{}: repair and parse disagree",
                    case.title
                );
            }
            Err(e) => {
                assert!(e.offset() <= case.input.len(), "{}: offset", case.title);
                assert_eq!(
                    Err(e),
                    parse(&case.input),
                    "{}: repair and parse",
                    case.title
                );
            }
        }
    }
    if let Some(first) = ctb_json::first_object(&case.input) {
        assert!(first.start < first.end && first.end <= case.input.len());
        assert!(case.input.is_char_boundary(first.start) && case.input.is_char_boundary(first.end));
        assert_eq!(&case.input[first.start..first.start + 1], "{");
    }
}

fn describe_parse(case: &Case) -> String {
    describe(ctb_json::parse(&case.input), "value", case)
}

fn describe_partial(case: &Case) -> String {
    format!(
        "{}\n{}",
        describe(ctb_json::parse(&case.input), "whole", case),
        describe(ctb_json::parse_partial(&case.input), "partial", case)
    )
}

fn describe(got: Result<serde_json::Value, ctb_json::Error>, label: &str, case: &Case) -> String {
    match got {
        Ok(v) => format!("{label}: {v}"),
        Err(e) => {
            let (line, col) = e.line_col(&case.input);
            let label = if label == "value" {
                String::new()
            } else {
                format!("{label}: ")
            };
            format!(
                "{label}error: {:?} at byte {} (line {line}, column {col})",
                e.kind(),
                e.offset()
            )
        }
    }
}

fn describe_found(label: &str, input: &str, f: &ctb_json::FirstValue) -> String {
    format!(
        "{label}: {}..{} closed={} text={} value={}",
        f.start,
        f.end,
        f.closed,
        serde_json::Value::String(input[f.start..f.end].to_owned()),
        f.value
    )
}

fn describe_first(case: &Case) -> String {
    let mut out = match ctb_json::first_object(&case.input) {
        Some(f) => describe_found("first", &case.input, &f),
        None => "first: none".to_owned(),
    };
    for root in ctb_json::object_roots(&case.input) {
        out.push('\n');
        out.push_str(&describe_found("root", &case.input, &root));
    }
    out
}

#[test]
fn cases() {
    insta::glob!("data/cases/*.txt", |path| {
        let text = std::fs::read_to_string(path).expect("fixture");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let describe: fn(&Case) -> String = if name.starts_with("first_") {
            describe_first
        } else if name.starts_with("partial") {
            describe_partial
        } else {
            describe_parse
        };
        let mut out = String::new();
        for case in read_cases(&text) {
            check_invariants(&case);
            let what = describe(&case);
            let input = serde_json::Value::String(case.input.clone());
            let _ = writeln!(out, "=== {}\ninput: {input}\n{what}\n", case.title);
        }
        insta::assert_snapshot!(out);
    });
}
