//! The Agent Zero tool request: the one place its shape is written.
//!
//! Agent Zero (chat mode) reads a reply that is exactly one JSON object
//! `{"thoughts": [...], "headline": "...", "tool_name": "...", "tool_args": {...}}`, the way
//! its own prompt examples print it.

use serde_json::{Map, Value};

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
