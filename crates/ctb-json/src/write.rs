//! Writing a [`Value`] as JSON text, byte for byte as serde_json writes it, faster: a string's
//! plain runs are found eight bytes at a time and copied whole (serde_json looks every byte up
//! in a table), and the output grows in one buffer with no formatter in between.

use serde_json::Value;

use crate::build::escape_into;
use crate::parser::MAX_DEPTH;

/// `value` as pretty JSON text with `indent` for each level: exactly the text of serde_json's
/// `PrettyFormatter::with_indent(indent)` (`to_string_pretty` is the two-space indent).
/// Values nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) levels (which no reader of this
/// crate gives) are written by serde_json itself.
///
/// ```
/// use serde_json::json;
///
/// let v = json!({"tool_name": "response", "tool_args": {"text": "a \"quote\"\n"}, "e": []});
/// let text = ctb_json::to_string_pretty(&v, "    ");
/// assert_eq!(text, "{\n    \"tool_name\": \"response\",\n    \"tool_args\": {\n        \
///                   \"text\": \"a \\\"quote\\\"\\n\"\n    },\n    \"e\": []\n}");
/// ```
pub fn to_string_pretty(value: &Value, indent: &str) -> String {
    let mut out = String::with_capacity(size_hint(value, indent.len(), 0));
    if !write_pretty(&mut out, value, indent, 0) {
        return serde_pretty(value, indent);
    }
    out
}

/// Appends `s` as a JSON string literal, quotes included, escaped as serde_json escapes it
/// (`"`, `\` and control characters; `\n`-style short forms where JSON has them).
///
/// ```
/// let mut out = String::new();
/// ctb_json::write_string(&mut out, "tab\there \u{1}");
/// assert_eq!(out, r#""tab\there \u0001""#);
/// ```
pub fn write_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    escape_into(out, s);
    out.push('"');
}

/// Writes `value` at nesting `level`; false when it is nested too deep (the output is then
/// incomplete and not used).
fn write_pretty(out: &mut String, value: &Value, indent: &str, level: usize) -> bool {
    if level >= MAX_DEPTH {
        return false;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            use std::fmt::Write as _;
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return true;
            }
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                new_line(out, indent, level + 1);
                if !write_pretty(out, item, indent, level + 1) {
                    return false;
                }
            }
            new_line(out, indent, level);
            out.push(']');
        }
        Value::Object(members) => {
            if members.is_empty() {
                out.push_str("{}");
                return true;
            }
            out.push('{');
            for (k, (key, item)) in members.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                new_line(out, indent, level + 1);
                write_string(out, key);
                out.push_str(": ");
                if !write_pretty(out, item, indent, level + 1) {
                    return false;
                }
            }
            new_line(out, indent, level);
            out.push('}');
        }
    }
    true
}

/// About the length of the pretty text (its strings unescaped), so the output grows once or
/// not at all. Reads the nodes, not the text; stops counting at the depth limit.
fn size_hint(value: &Value, indent: usize, level: usize) -> usize {
    if level >= MAX_DEPTH {
        return 0;
    }
    let line = 1 + indent * (level + 1);
    match value {
        Value::String(s) => s.len() + 2,
        Value::Array(items) => {
            2 + items
                .iter()
                .map(|v| line + 1 + size_hint(v, indent, level + 1))
                .sum::<usize>()
        }
        Value::Object(members) => {
            2 + members
                .iter()
                .map(|(k, v)| line + k.len() + 5 + size_hint(v, indent, level + 1))
                .sum::<usize>()
        }
        _ => 8,
    }
}

fn new_line(out: &mut String, indent: &str, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str(indent);
    }
}

/// serde_json's own pretty printer (for values nested too deep for [`write_pretty`]).
fn serde_pretty(value: &Value, indent: &str) -> String {
    let mut out = Vec::with_capacity(256);
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    match serde::Serialize::serialize(value, &mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| value.to_string()),
        Err(_) => value.to_string(),
    }
}
