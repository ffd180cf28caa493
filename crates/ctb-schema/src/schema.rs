//! JSON Schema (the subset tools use) to parameter types.

use serde_json::Value;

use crate::kind::{Alt, Kind};
use crate::tool::{Condition, Param, Source, Tool};

/// Nesting followed through `$ref` / `anyOf` / `oneOf` / `allOf` before giving up (`any`).
const MAX_DEPTH: usize = 16;
/// Schema nodes visited per tool before giving up (`any`): bounds work on hostile schemas.
const MAX_NODES: usize = 4096;
/// Alternatives kept per parameter.
const MAX_ALTS: usize = 16;

/// Builds a tool from its JSON Schema (`None` or a non-object: no declared parameters).
pub(crate) fn tool_from_schema(
    name: String,
    description: Option<String>,
    schema: Option<&Value>,
) -> Tool {
    let mut tool = Tool::new(name);
    tool.description = description;
    tool.source = Source::Schema;
    let Some(root) = schema else {
        return tool;
    };
    let mut budget = MAX_NODES;
    let top = deref(root, root, &mut budget);
    if let Some(Value::Object(props)) = top.get("properties") {
        for (pname, pschema) in props {
            let alts = alts_of(pschema, root, 0, &mut budget);
            tool.push_param(Param::new(pname.clone(), alts));
        }
    }
    tool.required = strings(top.get("required"));
    conditions(top, &mut tool.conditions);
    if let Some(Value::Array(all)) = top.get("allOf") {
        for part in all {
            conditions(part, &mut tool.conditions);
        }
    }
    tool
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Reads `{"if": {"properties": {P: {"const"|"enum": ..}}}, "then": {"required": [..]}}`.
fn conditions(schema: &Value, out: &mut Vec<Condition>) {
    let (Some(cond), Some(then)) = (schema.get("if"), schema.get("then")) else {
        return;
    };
    let Some(Value::Object(props)) = cond.get("properties") else {
        return;
    };
    if props.len() != 1 {
        return;
    }
    let Some((param, s)) = props.iter().next() else {
        return;
    };
    let values = allowed_values(s);
    let then_required = strings(then.get("required"));
    if let Some(values) = values {
        if !then_required.is_empty() {
            out.push(Condition {
                param: param.clone(),
                values,
                then_required,
            });
        }
    }
}

fn allowed_values(s: &Value) -> Option<Vec<Value>> {
    if let Some(Value::Array(e)) = s.get("enum") {
        return Some(e.clone());
    }
    s.get("const").map(|c| vec![c.clone()])
}

/// Follows `$ref` chains (local `#/...` pointers only) a bounded number of times.
fn deref<'a>(mut schema: &'a Value, root: &'a Value, budget: &mut usize) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

fn alts_of(schema: &Value, root: &Value, depth: usize, budget: &mut usize) -> Vec<Alt> {
    if depth > MAX_DEPTH || *budget == 0 {
        return vec![Alt::plain(Kind::Any)];
    }
    *budget -= 1;
    let schema = deref(schema, root, budget);
    if !schema.is_object() {
        return vec![Alt::plain(Kind::Any)];
    }
    let allowed = allowed_values(schema);
    let mut alts: Vec<Alt> = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => {
            if let Some(k) = Kind::from_schema_name(t) {
                push_alt(&mut alts, Alt::plain(k));
            }
        }
        Some(Value::Array(ts)) => {
            for k in ts
                .iter()
                .filter_map(Value::as_str)
                .filter_map(Kind::from_schema_name)
            {
                push_alt(&mut alts, Alt::plain(k));
            }
        }
        _ => {}
    }
    if alts.is_empty() {
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                for b in branches {
                    if alts.len() >= MAX_ALTS {
                        break;
                    }
                    for a in alts_of(b, root, depth + 1, budget) {
                        push_alt(&mut alts, a);
                    }
                }
            }
        }
    }
    if alts.is_empty() {
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            for p in parts {
                let a = alts_of(p, root, depth + 1, budget);
                if a.iter().any(|x| x.kind != Kind::Any) {
                    alts = a;
                    break;
                }
            }
        }
    }
    if alts.is_empty() {
        if let Some(values) = &allowed {
            for v in values {
                let k = match v {
                    Value::Null => Kind::Null,
                    other => Kind::of_example(other),
                };
                if !alts.iter().any(|a| a.kind == k) {
                    push_alt(&mut alts, Alt::plain(k));
                }
            }
        }
    }
    if alts.is_empty() {
        alts.push(Alt::plain(Kind::Any));
    }
    if let Some(values) = allowed {
        for a in alts.iter_mut().filter(|a| a.allowed.is_none()) {
            a.allowed = Some(values.clone());
        }
    }
    if schema.get("nullable") == Some(&Value::Bool(true))
        && !alts.iter().any(|a| a.kind == Kind::Null)
    {
        alts.push(Alt::plain(Kind::Null));
    }
    alts.truncate(MAX_ALTS);
    alts
}

/// Adds an alternative unless an identical one is listed or the list is full.
fn push_alt(alts: &mut Vec<Alt>, alt: Alt) {
    if alts.len() < MAX_ALTS && !alts.contains(&alt) {
        alts.push(alt);
    }
}
