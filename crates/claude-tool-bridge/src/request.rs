//! The Agent Zero tool request: the one place its shape is written.
//!
//! Agent Zero (chat mode) reads a reply that is exactly one JSON object
//! `{"thoughts": [...], "headline": "...", "tool_name": "...", "tool_args": {...}}`, the way
//! its own prompt examples print it.

use serde_json::{Map, Value};

use crate::Reason;

/// The most digits an integer in a request may have: what Python reads from text
/// (`sys.get_int_max_str_digits()`, 4,300 unless lowered). Agent Zero reads the request with
/// Python's `json` module, which raises on a longer integer, and the Python binding hands
/// values over as `int`s, made the same way. A call with a longer integer among its arguments
/// is not translated ([`Reason::BadArgument`]): the reply stays as the model wrote it.
pub const MAX_INTEGER_DIGITS: usize = 4300;

/// The `thoughts` of a prose answer sent through `response`.
pub(crate) const PROSE_THOUGHT: &str = "The answer is complete; sending it to the user.";

/// The `headline` of a prose answer sent through `response`.
pub(crate) const PROSE_HEADLINE: &str = "Responding";

/// A request for `tool` with `args`.
pub(crate) fn request(
    thoughts: Vec<String>,
    headline: String,
    tool: &str,
    args: Map<String, Value>,
) -> Value {
    let mut request = Map::with_capacity(4);
    request.insert(
        "thoughts".into(),
        Value::Array(thoughts.into_iter().map(Value::String).collect()),
    );
    request.insert("headline".into(), Value::String(headline));
    request.insert("tool_name".into(), Value::String(tool.to_owned()));
    request.insert("tool_args".into(), Value::Object(args));
    Value::Object(request)
}

/// `Err(BadArgument)` when `args` hold an integer of more than [`MAX_INTEGER_DIGITS`] digits,
/// anywhere in their nesting (read with an explicit stack).
pub(crate) fn python_can_read(args: &Map<String, Value>) -> Result<(), Reason> {
    let mut pending: Vec<&Value> = args.values().collect();
    while let Some(value) = pending.pop() {
        match value {
            Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_none() => {
                let text = n.to_string();
                let digits = text.strip_prefix('-').unwrap_or(&text);
                if digits.len() > MAX_INTEGER_DIGITS && digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(Reason::BadArgument);
                }
            }
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.values()),
            _ => {}
        }
    }
    Ok(())
}

/// The `response` request that sends a prose answer to the user.
pub(crate) fn prose_request(text: &str) -> Value {
    let mut args = Map::with_capacity(1);
    args.insert("text".into(), Value::String(text.to_owned()));
    request(
        vec![PROSE_THOUGHT.to_owned()],
        PROSE_HEADLINE.to_owned(),
        "response",
        args,
    )
}

/// A short headline for a call that did not give one.
pub(crate) fn default_headline(tool: &str, args: &Map<String, Value>) -> String {
    let base = tool.split(':').next().unwrap_or(tool);
    let text = match base {
        "code_execution_tool" => match args.get("runtime").and_then(Value::as_str) {
            Some("terminal") => "Running a terminal command",
            Some("python") => "Running Python code",
            Some("nodejs") => "Running Node.js code",
            Some("output") => "Reading command output",
            Some("reset") => "Resetting the terminal",
            _ => "Running code",
        },
        "response" => "Responding",
        "memory_load" => "Searching memory",
        "memory_save" => "Saving to memory",
        "memory_delete" | "memory_forget" => "Removing memories",
        "search_engine" => "Searching the web",
        "call_subordinate" => "Delegating to a subordinate",
        "text_editor" => "Working on a file",
        "browser_agent" => "Using the browser",
        "document_query" => "Reading documents",
        "vision_load" => "Looking at images",
        "scheduler" => "Managing scheduled tasks",
        "notify_user" => "Notifying the user",
        "input" => "Sending input to the terminal",
        _ => return format!("Calling {tool}"),
    };
    text.to_owned()
}

/// The request as Agent Zero's own examples print it: pretty, four-space indent.
///
/// ```
/// use claude_tool_bridge::render_request;
/// let text = render_request(&serde_json::json!({"tool_name": "response"}));
/// assert_eq!(text, "{\n    \"tool_name\": \"response\"\n}");
/// ```
pub fn render_request(request: &Value) -> String {
    ctb_json::to_string_pretty(request, "    ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn big(digits: usize, sign: &str) -> Value {
        serde_json::from_str(&format!("{sign}{}", "9".repeat(digits))).unwrap()
    }

    #[test]
    fn integers_python_cannot_read_are_refused_at_any_depth() {
        let ok = |v: Value| python_can_read(v.as_object().unwrap());
        assert_eq!(
            ok(json!({"a": big(4300, "-"), "b": [big(4300, "")]})),
            Ok(())
        );
        assert_eq!(ok(json!({"a": 1, "b": "9".repeat(5000)})), Ok(()));
        for doc in [
            json!({"a": big(4301, "")}),
            json!({"a": big(4301, "-")}),
            json!({"a": [1, {"b": [big(4301, "")]}]}),
        ] {
            assert_eq!(ok(doc), Err(Reason::BadArgument));
        }
        // A float of any length is read by Python's float(), which has no such limit.
        let long_float: Value = serde_json::from_str(&format!("{}.5", "9".repeat(5000))).unwrap();
        assert_eq!(ok(json!({"a": long_float})), Ok(()));
    }
}
