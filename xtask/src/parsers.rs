//! `cargo xtask conformance ../shared/suites/parsers/*.json`: the bridge's grammar and typing
//! against the cases of two peer tool-call parsers (smg, senpi).
//!
//! A suite is `{peer, license, commit, note, cases}`; a case gives the model's `text` (the
//! namespace prefix as `{P}`), `tools` (JSON Schema definitions, or null) and `expected`: the
//! calls the peer extracts (`[]` none, `null` not recorded). Stream cases carry `chunks` and
//! only assertions; senpi's coercion cases carry `raw_params`, a `schema` and the expected
//! arguments.
//!
//! Each case is scored on the FIRST call only (later calls were written without seeing a
//! result; the bridge uses only the first):
//! - a text case: [`claude_tool_bridge::first_call`] with the case's tools as the catalog, or,
//!   without tools, a catalog that knows the named tool and types nothing. The name must
//!   match (when the peer's test asserts it) and the arguments too (only the listed keys when
//!   `arguments_partial`); `[]` expects no call;
//! - a stream case: the chunks are fed to a session; the first tool name its assertions name
//!   must be the call's name, and the streamed grammar must agree with the whole text;
//! - a coercion case: the raw values typed by the schema must give the expected arguments, or
//!   be refused when the peer refuses the call.
//!
//! Disagreements are not failures when `docs/parser-divergences.json` lists them with the rule
//! (in `docs/parser-divergences.md`) that makes the bridge differ. The command fails when a
//! disagreement is not listed, or a listed case does not disagree (the list must stay true),
//! and prints per family: agree, explained, and the agreement on the cases whose meaning the
//! bridge shares (every case but the explained ones), against the 95 % target.

use std::collections::{BTreeMap, BTreeSet};

use claude_tool_bridge::{Catalog, Config, Session, first_call};
use ctb_schema::Tool;
use serde_json::{Map, Value};

/// The namespace prefix the suites write as `{P}`.
const NS: &str = concat!("ant", "ml:");

/// The share of each family's shared-meaning cases that must agree.
const TARGET: f64 = 0.95;

/// How one case came out.
enum Verdict {
    Agree,
    Disagree(String),
    /// Not scored, and why.
    NotScored(#[allow(dead_code)] &'static str),
}

/// The divergence list: case id -> rule id.
fn divergences() -> Result<BTreeMap<String, String>, String> {
    let path = crate::util::root().join("docs/parser-divergences.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = BTreeMap::new();
    for (rule, ids) in v
        .get("cases")
        .and_then(Value::as_object)
        .ok_or("parser-divergences.json: no `cases` object")?
    {
        for id in ids.as_array().ok_or("a rule's cases must be a list")? {
            let id = id.as_str().ok_or("a case id must be a string")?;
            if out.insert(id.to_owned(), rule.clone()).is_some() {
                return Err(format!("parser-divergences.json: {id} listed twice"));
            }
        }
    }
    Ok(out)
}

/// Whether `doc` is a parser suite (as opposed to a JSON-repair suite).
pub(crate) fn is_parser_suite(doc: &Value) -> bool {
    doc.get("peer").is_some()
}

/// Scores the parser suites in `docs` (file name, document); prints the table; fails on an
/// unexplained disagreement, a stale divergence entry, or a family under the target.
pub(crate) fn run(docs: &[(String, Value)], quiet: bool) -> Result<(), String> {
    let listed = divergences()?;
    let mut seen_listed = BTreeSet::new();
    let mut problems = Vec::new();
    // family -> (agree, explained, unexplained, not scored)
    let mut table: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for (file, doc) in docs {
        let cases = doc
            .get("cases")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{file}: no cases"))?;
        for case in cases {
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let family = case["family"].as_str().unwrap_or("?").to_owned();
            let row = table.entry(family).or_default();
            let verdict = score(case);
            match (&verdict, listed.get(&id)) {
                (Verdict::Agree, None) => row[0] += 1,
                (Verdict::Agree, Some(rule)) => {
                    seen_listed.insert(id.clone());
                    problems.push(format!("{id}: listed under {rule} but agrees"));
                    row[0] += 1;
                }
                (Verdict::Disagree(_), Some(_)) => {
                    seen_listed.insert(id.clone());
                    row[1] += 1;
                }
                (Verdict::Disagree(why), None) => {
                    problems.push(format!("{id}: {why}"));
                    row[2] += 1;
                }
                (Verdict::NotScored(_), Some(rule)) => {
                    seen_listed.insert(id.clone());
                    problems.push(format!("{id}: listed under {rule} but not scored"));
                    row[3] += 1;
                }
                (Verdict::NotScored(_), None) => row[3] += 1,
            }
            if !quiet {
                if let Verdict::Disagree(why) = &verdict {
                    let rule = listed.get(&id).map_or("UNEXPLAINED", String::as_str);
                    println!("  {rule:<14} {id}: {why}");
                }
            }
        }
    }
    for id in listed.keys() {
        if !seen_listed.contains(id) && docs.len() > 1 {
            problems.push(format!(
                "{id}: listed in parser-divergences.json, no such case"
            ));
        }
    }
    println!(
        "{:<18} {:>6} {:>9} {:>11} {:>10} {:>10}",
        "family", "agree", "explained", "unexplained", "not scored", "agreement"
    );
    let mut under = Vec::new();
    for (family, [agree, explained, unexplained, not_scored]) in &table {
        let shared = agree + unexplained;
        let share = if shared == 0 {
            1.0
        } else {
            *agree as f64 / shared as f64
        };
        println!(
            "{family:<18} {agree:>6} {explained:>9} {unexplained:>11} {not_scored:>10} {:>9.1}%",
            share * 100.0
        );
        if share < TARGET {
            under.push(family.clone());
        }
    }
    if !problems.is_empty() {
        return Err(format!(
            "{} parser case(s) need a fix or an entry in docs/parser-divergences.json:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ));
    }
    if !under.is_empty() {
        return Err(format!("under the {TARGET} target: {}", under.join(", ")));
    }
    Ok(())
}

fn score(case: &Value) -> Verdict {
    if case.get("raw_params").is_some() {
        return coerce(case);
    }
    let Some(text) = case.get("text").and_then(Value::as_str) else {
        return Verdict::NotScored("no text");
    };
    let text = text.replace("{P}", NS);
    if case.get("mode").and_then(Value::as_str) == Some("stream") {
        return stream(case, &text);
    }
    let Some(expected) = case.get("expected").and_then(Value::as_array) else {
        return Verdict::NotScored("the peer records no calls");
    };
    let catalog = catalog_for(case, &text);
    let got = first_call(&text, &catalog);
    match (expected.first(), got) {
        (None, Err(_)) => Verdict::Agree,
        (None, Ok(call)) => Verdict::Disagree(format!(
            "the peer finds no call; the bridge finds {} {}",
            call.name,
            Value::Object(call.arguments)
        )),
        (Some(want), Err(reason)) => Verdict::Disagree(format!(
            "the peer finds {}; the bridge none ({})",
            want,
            reason.code()
        )),
        (Some(want), Ok(call)) => {
            if let Some(name) = want.get("name").and_then(Value::as_str) {
                if name != call.name {
                    return Verdict::Disagree(format!("name {name:?}, the bridge {:?}", call.name));
                }
            }
            let partial = want.get("arguments_partial").and_then(Value::as_bool) == Some(true);
            let Some(args) = want.get("arguments").and_then(Value::as_object) else {
                return Verdict::Agree;
            };
            compare_args(args, &call.arguments, partial)
        }
    }
}

/// The case's tools, or a catalog that knows the tool the text names and types nothing.
fn catalog_for(case: &Value, text: &str) -> Catalog {
    if let Some(tools) = case.get("tools").filter(|t| t.is_array()) {
        if let Ok(c) = Catalog::from_text(&tools.to_string()) {
            return c;
        }
    }
    match ctb_invoke::find_first_call(text) {
        ctb_invoke::Found::Call(call) => Catalog::from_tools([Tool::new(call.name)]),
        _ => Catalog::new(),
    }
}

fn compare_args(want: &Map<String, Value>, got: &Map<String, Value>, partial: bool) -> Verdict {
    for (k, v) in want {
        match got.get(k) {
            Some(g) if same(v, g) => {}
            Some(g) => {
                return Verdict::Disagree(format!("argument {k}: the peer {v}, the bridge {g}"));
            }
            None => {
                return Verdict::Disagree(format!("argument {k}: the peer {v}, the bridge none"));
            }
        }
    }
    if !partial {
        if let Some(extra) = got.keys().find(|k| !want.contains_key(*k)) {
            return Verdict::Disagree(format!("the bridge has an extra argument {extra}"));
        }
    }
    Verdict::Agree
}

/// JSON values compared with numbers by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A stream case: the first tool name the assertions name must be the streamed call's.
fn stream(case: &Value, text: &str) -> Verdict {
    let Some(want) = case
        .get("assertions")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().filter_map(Value::as_str).find_map(asserted_name))
    else {
        return Verdict::NotScored("a stream case that asserts no tool name");
    };
    let catalog = catalog_for(case, text);
    let mut session = Session::new(Config::default());
    // The suite's family name picks the model family as a model name would (`kimi_k2`,
    // `deepseek_dsml`, `inkling`...); a name no family claims reads every form.
    let model = case["family"].as_str().unwrap_or_default();
    session.begin_turn(model, &[]);
    let mut reply = text.to_owned();
    for chunk in case["chunks"].as_array().into_iter().flatten() {
        let chunk = chunk.as_str().unwrap_or_default().replace("{P}", NS);
        if let Some(stopped) = session.feed(&chunk, &catalog) {
            reply = stopped;
            break;
        }
    }
    match first_call(&reply, &catalog) {
        Ok(call) if call.name == want => Verdict::Agree,
        Ok(call) => Verdict::Disagree(format!("name {want:?}, the bridge {:?}", call.name)),
        Err(reason) => Verdict::Disagree(format!(
            "the peer streams {want:?}; the bridge none ({})",
            reason.code()
        )),
    }
}

/// The first tool name an assertion line names: `assert_eq!(name, "x")`,
/// `assert_eq!(tools[0].function.name, "x")`, `assert_eq!(tool_names, vec!["x", ...])`,
/// `assert_eq!(names, vec![(0, "x"...)])` or `assert_eq!(calls[0].name.as_deref(), Some("x"))`.
fn asserted_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("assert_eq!(")?;
    let (lhs, rhs) = rest.split_once(',')?;
    let lhs = lhs.trim();
    if !(matches!(lhs, "name" | "names" | "tool_names")
        || lhs.ends_with("function.name")
        || lhs.ends_with(".name.as_deref()"))
    {
        return None;
    }
    let rhs = rhs.trim_start();
    let rhs = rhs.strip_prefix("vec![").unwrap_or(rhs);
    let start = rhs.find('"')? + 1;
    let end = start + rhs[start..].find('"')?;
    Some(rhs[start..end].to_owned())
}

/// A coercion case: raw parameter text typed by the schema.
fn coerce(case: &Value) -> Verdict {
    let Some(schema) = case.get("schema") else {
        return Verdict::NotScored("no schema");
    };
    let def = serde_json::json!([{"name": "t", "input_schema": schema}]);
    let Ok(catalog) = Catalog::from_text(&def.to_string()) else {
        return Verdict::Disagree("the schema does not load".to_owned());
    };
    // Claude's form, spelled by the vocabulary.
    use ctb_invoke::vocab::{END_TAG, INVOKE, NAME_ATTR, PARAMETER};
    let mut reply = format!("<{INVOKE} {NAME_ATTR}=\"t\">\n");
    for p in case["raw_params"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default();
        let value = p["rawValue"].as_str().unwrap_or_default();
        reply.push_str(&format!(
            "<{PARAMETER} {NAME_ATTR}=\"{name}\">{value}{END_TAG}{PARAMETER}>\n"
        ));
    }
    reply.push_str(&format!("{END_TAG}{INVOKE}>"));
    let rejected = case.get("expected_rejected").and_then(Value::as_bool) == Some(true);
    match (rejected, first_call(&reply, &catalog)) {
        (true, Err(_)) => Verdict::Agree,
        (true, Ok(call)) => Verdict::Disagree(format!(
            "the peer refuses the call; the bridge types {}",
            Value::Object(call.arguments)
        )),
        (false, Err(reason)) => Verdict::Disagree(format!(
            "the peer types {}; the bridge refuses ({})",
            case["expected_arguments"],
            reason.code()
        )),
        (false, Ok(call)) => match case.get("expected_arguments").and_then(Value::as_object) {
            Some(want) => compare_args(want, &call.arguments, false),
            None => Verdict::NotScored("no expected arguments"),
        },
    }
}
