//! JSON tool definitions: Anthropic / MCP / OpenAI shapes.

use serde_json::{Map, Value};

use crate::schema::tool_from_schema;
use crate::tool::Tool;
use crate::{CatalogError, CatalogErrorKind};

/// Whether a parsed JSON document looks like tool definitions (as opposed to, say, one Agent
/// Zero request).
pub(crate) fn looks_like_defs(v: &Value) -> bool {
    match v {
        Value::Array(_) => true,
        Value::Object(o) => !o.contains_key("tool_name"),
        _ => false,
    }
}

/// Reads every tool of a JSON definitions document.
pub(crate) fn tools_from_json(v: &Value) -> Result<Vec<Tool>, CatalogError> {
    let entries: &[Value] = match v {
        Value::Array(items) => items,
        Value::Object(o) => {
            if let Some(Value::Array(items)) = o.get("tools") {
                items
            } else if let Some(Value::Array(items)) = o.get("result").and_then(|r| r.get("tools")) {
                items
            } else {
                return Ok(vec![entry(v, 0)?]);
            }
        }
        _ => {
            return Err(CatalogError::new(
                CatalogErrorKind::NoTools,
                "JSON tool definitions must be an array or an object",
            ));
        }
    };
    if entries.is_empty() {
        return Err(CatalogError::new(
            CatalogErrorKind::NoTools,
            "the tool definitions list no tools",
        ));
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry(e, i))
        .collect()
}

fn text(o: &Map<String, Value>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The schema keys, in the order they are looked for.
const SCHEMA_KEYS: [&str; 3] = ["input_schema", "inputSchema", "parameters"];

fn schema_of(o: &Map<String, Value>) -> Option<&Value> {
    SCHEMA_KEYS.iter().find_map(|k| o.get(*k))
}

fn entry(v: &Value, i: usize) -> Result<Tool, CatalogError> {
    let tool = entry_inner(v, i)?;
    if tool.name.trim().is_empty() {
        return Err(CatalogError::new(
            CatalogErrorKind::BadDefinition,
            format!("tool definition #{i}: empty `name`"),
        ));
    }
    Ok(tool)
}

/// A schema must be an object (JSON Schema) or absent; `null` counts as absent.
fn check_schema(o: &Map<String, Value>, i: usize) -> Result<(), CatalogError> {
    for key in SCHEMA_KEYS {
        match o.get(key) {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(other) => {
                let name = o.get("name").and_then(Value::as_str).unwrap_or("?");
                let kind = match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    _ => "a list",
                };
                return Err(CatalogError::new(
                    CatalogErrorKind::BadDefinition,
                    format!(
                        "tool definition #{i} ({name:?}): `{key}` must be a JSON Schema object, not {kind}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn entry_inner(v: &Value, i: usize) -> Result<Tool, CatalogError> {
    let err = |what: &str| {
        CatalogError::new(
            CatalogErrorKind::BadDefinition,
            format!("tool definition #{i}: {what}"),
        )
    };
    let Value::Object(o) = v else {
        return Err(err("not an object"));
    };
    // OpenAI chat-completions shape: {"type": "function", "function": {...}}.
    if let Some(Value::Object(f)) = o.get("function") {
        let name = text(f, "name").ok_or_else(|| err("function without a name"))?;
        check_schema(f, i)?;
        return Ok(tool_from_schema(name, text(f, "description"), schema_of(f)));
    }
    if let Some(name) = text(o, "name") {
        check_schema(o, i)?;
        return Ok(tool_from_schema(name, text(o, "description"), schema_of(o)));
    }
    // Agent Zero's MCP listing: {"server.tool": {"name": .., "input_schema": ..}}.
    if o.len() == 1 {
        if let Some((name, Value::Object(inner))) = o.iter().next() {
            if schema_of(inner).is_some() || inner.contains_key("description") {
                check_schema(inner, i)?;
                return Ok(tool_from_schema(
                    name.clone(),
                    text(inner, "description"),
                    schema_of(inner),
                ));
            }
        }
    }
    Err(err("no `name`"))
}
