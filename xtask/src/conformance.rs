//! `cargo xtask conformance <suite.json>...`: scores `ctb-json` against public JSON-repair
//! test suites, and the grammar against peer tool-call parsers' cases (`crate::parsers`; a
//! suite with a `peer` key).
//!
//! Two suite formats are understood, both `{"origin", "note", "cases": [...]}`:
//! - josdejong/jsonrepair's (`jsonrepair-js-cases.json`): each case has `input` and either
//!   `expected_text` (the repaired JSON) or `expected_error`;
//! - mangiucugna/json_repair's (`json_repair-py-cases.json`): each case has `input`, `kwargs`
//!   and `expected_text` (Python `json.dumps` output, `""` for "nothing found") or
//!   `expected_value`. Cases whose kwargs change how that library parses (`skip_json_loads`,
//!   `stream_stable`) or only how it prints (`ensure_ascii`) are skipped and counted;
//!   `return_objects` only changes the return type and is kept.
//!
//! Values are compared, not text: numbers compare by value (`1e10` equals `10000000000.0`). An
//! expected error or empty result passes when `ctb_json::parse` returns an error. Every case is
//! scored; failures are printed with input, expected and actual value (`--quiet` prints only
//! the counts). The command fails when a known suite scores below its target, or when
//! `ctb_json::repair` prints something that does not read back to what `ctb_json::parse` gives.

use serde_json::Value;

/// Minimum pass counts for the suites we know by file name.
const TARGETS: [(&str, usize); 2] = [("jsonrepair-js-cases", 410), ("json_repair-py-cases", 115)];

enum Expect {
    Value(Value),
    Error,
}

struct Case {
    name: String,
    input: String,
    expect: Expect,
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let quiet = args.iter().any(|a| a == "--quiet" || a == "-q");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if files.is_empty() {
        return Err("usage: cargo xtask conformance [--quiet] <suite.json>...".to_owned());
    }
    let mut below = Vec::new();
    let mut summary = Vec::new();
    let mut inconsistent = Vec::new();
    let mut parser_suites = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        // One suite holds a lone UTF-16 surrogate escape, which serde_json refuses and Rust
        // strings cannot hold: the tolerant reader turns it into U+FFFD.
        let doc: Value = serde_json::from_str(&text)
            .or_else(|e| ctb_json::parse(&text).map_err(|_| e))
            .map_err(|e| format!("{file}: {e}"))?;
        if crate::parsers::is_parser_suite(&doc) {
            parser_suites.push((file.clone(), doc));
            continue;
        }
        let (cases, skipped) = load_cases(&doc).map_err(|e| format!("{file}: {e}"))?;
        let mut passed = 0;
        let mut failures = Vec::new();
        for case in &cases {
            let got = ctb_json::parse(&case.input);
            // `repair` must print what `parse` reads, whatever the verdict
            let repaired = ctb_json::repair(&case.input).ok();
            let back = repaired.and_then(|t| serde_json::from_str::<Value>(&t).ok());
            if back != got.clone().ok() {
                inconsistent.push(case.name.clone());
            }
            let ok = match (&case.expect, &got) {
                (Expect::Error, Err(_)) => true,
                (Expect::Value(want), Ok(v)) => same_value(want, v),
                _ => false,
            };
            if ok {
                passed += 1;
            } else {
                failures.push((case, got));
            }
        }
        let name = std::path::Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(file)
            .to_owned();
        if !quiet && !failures.is_empty() {
            println!("== {name}: failing cases");
            for (case, got) in &failures {
                let want = match &case.expect {
                    Expect::Value(v) => v.to_string(),
                    Expect::Error => "<error or empty>".to_owned(),
                };
                let got = match got {
                    Ok(v) => v.to_string(),
                    Err(e) => format!("<error: {e}>"),
                };
                println!("- {}", case.name);
                println!("    input:    {}", Value::String(case.input.clone()));
                println!("    expected: {want}");
                println!("    got:      {got}");
            }
        }
        let mut line = format!("{name}: {passed}/{} passed", cases.len());
        if !skipped.is_empty() {
            let reasons: Vec<String> = skipped.iter().map(|(r, n)| format!("{n} {r}")).collect();
            line.push_str(&format!(
                " ({} skipped: {})",
                skipped.iter().map(|(_, n)| n).sum::<usize>(),
                reasons.join(", ")
            ));
        }
        if let Some((_, target)) = TARGETS.iter().find(|(t, _)| name.contains(t)) {
            line.push_str(&format!(", target {target}"));
            if passed < *target {
                below.push(name.clone());
            }
        }
        summary.push(line);
    }
    for line in &summary {
        println!("{line}");
    }
    if !inconsistent.is_empty() {
        return Err(format!(
            "repair and parse disagree on: {}",
            inconsistent.join(", ")
        ));
    }
    if !below.is_empty() {
        return Err(format!("below target: {}", below.join(", ")));
    }
    if !parser_suites.is_empty() {
        crate::parsers::run(&parser_suites, quiet)?;
    }
    Ok(())
}

/// Skipped cases counted by reason.
type Skipped = Vec<(String, usize)>;

/// The usable cases of a suite, and the skipped ones counted by reason.
fn load_cases(doc: &Value) -> Result<(Vec<Case>, Skipped), String> {
    let list = doc
        .get("cases")
        .and_then(Value::as_array)
        .ok_or("no `cases` array")?;
    let mut cases = Vec::new();
    let mut skipped: Skipped = Vec::new();
    for (n, c) in list.iter().enumerate() {
        let input = c
            .get("input")
            .and_then(Value::as_str)
            .ok_or(format!("case {n}: no `input`"))?
            .to_owned();
        let label = c
            .get("test")
            .or_else(|| c.get("source"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let name = format!("#{n} {label}");
        if let Some(kwargs) = c.get("kwargs").and_then(Value::as_object) {
            let reason = kwargs.keys().find_map(|k| match k.as_str() {
                "return_objects" => None,
                "skip_json_loads" => Some("skip_json_loads (parses differently)"),
                "stream_stable" => Some("stream_stable (streaming mode)"),
                "ensure_ascii" => Some("ensure_ascii (output text form only)"),
                _ => Some("unsupported kwargs"),
            });
            if let Some(reason) = reason {
                match skipped.iter_mut().find(|(r, _)| r == reason) {
                    Some((_, count)) => *count += 1,
                    None => skipped.push((reason.to_owned(), 1)),
                }
                continue;
            }
        }
        let expect = if c.get("expected_error").is_some() {
            Expect::Error
        } else if let Some(v) = c.get("expected_value") {
            Expect::Value(v.clone())
        } else if let Some(t) = c.get("expected_text").and_then(Value::as_str) {
            if t.trim().is_empty() {
                Expect::Error
            } else {
                Expect::Value(
                    serde_json::from_str(t).map_err(|e| format!("case {n}: expected_text: {e}"))?,
                )
            }
        } else {
            return Err(format!("case {n}: no expectation"));
        };
        cases.push(Case {
            name,
            input,
            expect,
        });
    }
    Ok((cases, skipped))
}

/// Structural equality where numbers compare by value.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y
                || x.to_string() == y.to_string()
                || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}
