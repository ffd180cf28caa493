//! JSON tool definitions: Anthropic / MCP / OpenAI shapes.

use serde_json::{Map, Value};

use crate::CatalogError;
use crate::schema::tool_from_schema;
use crate::tool::Tool;

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
            return Err(CatalogError(
                "JSON tool definitions must be an array or an object".into(),
            ));
        }
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry(e, i))
        .collect()
}

fn text(o: &Map<String, Value>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn schema_of(o: &Map<String, Value>) -> Option<&Value> {
    ["input_schema", "inputSchema", "parameters"]
        .iter()
        .find_map(|k| o.get(*k))
}

fn entry(v: &Value, i: usize) -> Result<Tool, CatalogError> {
    let tool = entry_inner(v, i)?;
    if tool.name.trim().is_empty() {
        return Err(CatalogError(format!("tool definition #{i}: empty `name`")));
    }
    Ok(tool)
}

fn entry_inner(v: &Value, i: usize) -> Result<Tool, CatalogError> {
    let err = |what: &str| CatalogError(format!("tool definition #{i}: {what}"));
    let Value::Object(o) = v else {
        return Err(err("not an object"));
    };
    // OpenAI chat-completions shape: {"type": "function", "function": {...}}.
    if let Some(Value::Object(f)) = o.get("function") {
        let name = text(f, "name").ok_or_else(|| err("function without a name"))?;
        return Ok(tool_from_schema(name, text(f, "description"), schema_of(f)));
    }
    if let Some(name) = text(o, "name") {
        return Ok(tool_from_schema(name, text(o, "description"), schema_of(o)));
    }
    // Agent Zero's MCP listing: {"server.tool": {"name": .., "input_schema": ..}}.
    if o.len() == 1 {
        if let Some((name, Value::Object(inner))) = o.iter().next() {
            if schema_of(inner).is_some() || inner.contains_key("description") {
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
