//! Data-driven tests: every file under `tests/data/catalogs/` is read as a catalog and its
//! summary snapshotted; every file under `tests/data/typing/` lists typing cases run against a
//! catalog, each checked against its `expect` (when given) and snapshotted.

use std::path::{Path, PathBuf};

use ctb_schema::{Catalog, Tool};
use serde_json::{Map, Value, json};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn summary(tool: &Tool) -> Value {
    let params: Vec<Value> = tool
        .params()
        .map(|p| {
            // One word per alternative; allowed values as JSON text, e.g. `string{"a","b"}`.
            let alts: Vec<String> = p
                .alternatives()
                .map(|(k, allowed)| match allowed {
                    Some(values) => {
                        let v: Vec<String> = values.iter().map(Value::to_string).collect();
                        format!("{k}{{{}}}", v.join(","))
                    }
                    None => k.to_string(),
                })
                .collect();
            json!({"name": p.name(), "type": alts.join("|")})
        })
        .collect();
    let required: Vec<&str> = tool.required().collect();
    json!({
        "name": tool.name,
        "source": tool.source().as_str(),
        "params": params,
        "required": required,
    })
}

fn catalog_summary(c: &Catalog) -> Value {
    Value::Array(c.iter().map(summary).collect())
}

fn load(spec: &Value) -> Catalog {
    let one = |name: &str| -> Catalog {
        if name == "agent_zero" {
            return Catalog::agent_zero();
        }
        let text = std::fs::read_to_string(data_dir().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        Catalog::from_text(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    match spec {
        Value::String(s) => one(s),
        Value::Array(items) => {
            let mut c = Catalog::new();
            for i in items {
                c.extend(one(i.as_str().expect("catalog name")));
            }
            c
        }
        Value::Object(_) => Catalog::from_text(&spec.to_string()).expect("inline catalog"),
        _ => panic!("bad catalog spec"),
    }
}

#[test]
fn catalogs() {
    insta::glob!("data/catalogs/*", |path| {
        let text = std::fs::read_to_string(path).expect("read");
        let result = match Catalog::from_text(&text) {
            Ok(c) => json!({"len": c.len(), "tools": catalog_summary(&c)}),
            Err(e) => json!({"error": e.to_string()}),
        };
        insta::assert_json_snapshot!(result);
    });
}

#[test]
fn bundled_agent_zero() {
    let c = Catalog::agent_zero();
    assert!(c.len() >= 30, "bundled catalog is complete");
    insta::assert_json_snapshot!(catalog_summary(&c));
}

/// Runs one case; returns the recorded outcome.
fn run_case(catalog: &Catalog, case: &Value) -> Value {
    let name = case["tool"].as_str().expect("tool");
    let Some(found) = catalog.lookup(name) else {
        return json!({"lookup": null});
    };
    let typed = if let Some(Value::Array(args)) = case.get("args") {
        let pairs: Vec<(&str, &str)> = args
            .iter()
            .map(|p| {
                (
                    p[0].as_str().expect("arg name"),
                    p[1].as_str().expect("raw value"),
                )
            })
            .collect();
        found.tool.type_args(pairs)
    } else if let Some(Value::Object(args)) = case.get("json_args") {
        found.tool.type_json_args(args.clone())
    } else {
        found.tool.type_args([])
    };
    match typed {
        Ok(map) => {
            let missing = found.tool.missing_required(&map).map(str::to_owned);
            json!({
                "lookup": found.how.as_str(),
                "used": found.tool.name,
                // The exact text, so digits and key order are checked too.
                "args": Value::Object(map).to_string(),
                "missing_required": missing,
            })
        }
        Err(e) => {
            json!({"lookup": found.how.as_str(), "used": found.tool.name, "error": e.to_string()})
        }
    }
}

#[test]
fn typing() {
    insta::glob!("data/typing/*.json", |path| {
        let text = std::fs::read_to_string(path).expect("read");
        let file: Value = serde_json::from_str(&text).expect("typing file is JSON");
        let catalog = load(&file["catalog"]);
        let mut out = Map::new();
        for case in file["cases"].as_array().expect("cases") {
            let id = case["name"].as_str().expect("case name");
            let got = run_case(&catalog, case);
            if let Some(expect) = case.get("expect") {
                let actual = got
                    .get("args")
                    .or_else(|| got.get("error"))
                    .cloned()
                    .unwrap_or(Value::Null);
                assert_eq!(&actual, expect, "{}: case {id}", path.display());
            }
            if let Some(expect) = case.get("expect_missing") {
                assert_eq!(
                    got.get("missing_required").unwrap_or(&Value::Null),
                    expect,
                    "{}: case {id} (missing_required)",
                    path.display()
                );
            }
            if let Some(expect) = case.get("expect_lookup") {
                assert_eq!(
                    &got["lookup"],
                    expect,
                    "{}: case {id} (lookup)",
                    path.display()
                );
            }
            out.insert(id.to_owned(), got);
        }
        insta::assert_json_snapshot!(Value::Object(out));
    });
}
