//! One reply in, one decision out: the stateless translation of the first native call.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ctb_invoke::{Call, Found, NoCall, find_first_call};
use ctb_schema::{Tool, TypeError};
use serde_json::{Map, Value};

use crate::{Catalog, Config, Decision, Outcome, Reason};

/// Replies larger than this are left alone without being read (hard cap on work per reply).
pub const MAX_REPLY_BYTES: usize = 4 << 20;

/// How many `{` positions are tried when looking for a JSON tool request.
const MAX_JSON_PROBES: usize = 8;

/// Decides what Agent Zero should see for `reply`: the first complete native call translated
/// into a JSON tool request, or the reply untouched with the reason.
///
/// This is the pure translation; finish reasons, stop strings, loops and prose answers are
/// handled by [`Session`](crate::Session). It never panics: an internal failure leaves the
/// reply untouched with [`Reason::InternalError`].
///
/// ```
/// use claude_tool_bridge::{translate, Catalog, Config, Outcome};
///
/// let reply = "Checking the disk.\n<invoke name=\"code_execution_tool\">\n\
///              <parameter name=\"runtime\">terminal</parameter>\n\
///              <parameter name=\"code\">df -h</parameter>\n\
///              <parameter name=\"session\">0</parameter>\n</invoke>";
/// let d = translate(reply, &Catalog::agent_zero(), &Config::default());
/// assert_eq!(d.outcome, Outcome::Translated);
/// let req = d.request.unwrap();
/// assert_eq!(req["tool_name"], "code_execution_tool");
/// assert_eq!(req["tool_args"]["session"], 0);
/// assert_eq!(req["thoughts"][0], "Checking the disk.");
/// ```
pub fn translate(reply: &str, catalog: &Catalog, config: &Config) -> Decision {
    let _ = config;
    if reply.len() > MAX_REPLY_BYTES {
        return Decision::untouched(reply, Reason::TooLarge);
    }
    catch_unwind(AssertUnwindSafe(|| translate_inner(reply, catalog)))
        .unwrap_or_else(|_| Decision::untouched(reply, Reason::InternalError))
}

fn translate_inner(reply: &str, catalog: &Catalog) -> Decision {
    let call = match find_first_call(reply) {
        Found::Call(call) => call,
        Found::Incomplete { .. } => {
            return Decision::untouched(reply, json_or(reply, Reason::Incomplete));
        }
        Found::Nothing(NoCall::Quoted) => {
            return Decision::untouched(reply, json_or(reply, Reason::Quoted));
        }
        Found::Nothing(NoCall::WorkLimit) => return Decision::untouched(reply, Reason::TooLarge),
        Found::Nothing(_) => return Decision::untouched(reply, json_or(reply, Reason::NoCall)),
    };
    // A JSON request outside the call wins: Agent Zero (or its context doctor) reads it. When
    // the stream is stopped at the end of the call, one written after it never arrives. JSON
    // inside the call is a value's text, not a request.
    if holds_json_request(&reply[..call.start]) || holds_json_request(&reply[call.end..]) {
        return Decision::untouched(reply, Reason::JsonRequestPresent);
    }
    match build_request(reply, &call, catalog) {
        Ok(request) => Decision {
            outcome: Outcome::Translated,
            reply: render_request(&request),
            request: Some(request),
            reason: Reason::Translated,
            retry_without_stops: false,
        },
        Err(reason) => Decision::untouched(reply, reason),
    }
}

/// `Reason::JsonRequestPresent` when the reply holds a JSON tool request, else `otherwise`.
fn json_or(reply: &str, otherwise: Reason) -> Reason {
    if holds_json_request(reply) {
        Reason::JsonRequestPresent
    } else {
        otherwise
    }
}

/// Whether `text` holds a JSON tool request the way Agent Zero reads one: an object (from a
/// `{`) with a non-empty `tool_name` (or the older `tool`). Tries the first `{` and the `{`s
/// that start a line, a bounded number of them.
pub fn holds_json_request(text: &str) -> bool {
    let mut probes = 0;
    let mut from = 0;
    while let Some(off) = text[from..].find('{') {
        let at = from + off;
        // Only the blank run before the `{` is read back (runs of distinct `{`s do not
        // overlap), so a long line full of braces stays linear.
        let starts_line = text[..at]
            .bytes()
            .rev()
            .take_while(|&b| b != b'\n')
            .all(|b| b.is_ascii_whitespace());
        if probes == 0 || starts_line {
            probes += 1;
            if let Some(found) = ctb_json::first_object(&text[at..]) {
                if is_request(&found.value) {
                    return true;
                }
            }
            if probes >= MAX_JSON_PROBES {
                return false;
            }
        }
        from = at + 1;
    }
    false
}

fn is_request(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    ["tool_name", "tool"].iter().any(|k| {
        obj.get(*k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    })
}

/// Parameters the bridge lifts to the top level of the request instead of typing them.
const THOUGHTS: &str = "thoughts";
const HEADLINE: &str = "headline";
const TOOL_ARGS: &str = "tool_args";
const ARGS: &str = "args";

fn build_request(reply: &str, call: &Call<'_>, catalog: &Catalog) -> Result<Value, Reason> {
    // A `tool:method` whose tool lists other methods but not this one is unknown. A listed base
    // tool (Agent Zero turns the method into an `action` argument), or the bare family name, is
    // known.
    let tool = match catalog.lookup(call.name) {
        Some(found) if found.how == ctb_schema::Match::Merged && call.name.contains(':') => {
            return Err(Reason::UnknownTool);
        }
        Some(found) => found.tool,
        None => return Err(Reason::UnknownTool),
    };
    let mut thoughts = split_thoughts(&reply[..call.prose_end]);
    let mut headline = None;
    let mut args = Map::new();
    for p in &call.params {
        let declared = tool.param(p.name).is_some();
        match p.name {
            THOUGHTS if !declared => thoughts.extend(thoughts_param(p.value)),
            HEADLINE if !declared => {
                let h = p.value.trim();
                if !h.is_empty() && headline.is_none() {
                    headline = Some(h.to_owned());
                }
            }
            TOOL_ARGS | ARGS if !declared => {
                for (k, v) in wrapped_args(tool, p.value)? {
                    args.entry(k).or_insert(v);
                }
            }
            name => {
                if !args.contains_key(name) {
                    let v = tool.type_value(name, p.value).map_err(type_reason)?;
                    args.insert(name.to_owned(), v);
                }
            }
        }
    }
    if args.is_empty() {
        return Err(Reason::NoArguments);
    }
    if tool.missing_required(&args).is_some() {
        return Err(Reason::MissingArgument);
    }
    let headline = headline.unwrap_or_else(|| default_headline(call.name, &args));
    let mut request = Map::new();
    request.insert(
        "thoughts".into(),
        Value::Array(thoughts.into_iter().map(Value::String).collect()),
    );
    request.insert("headline".into(), Value::String(headline));
    request.insert("tool_name".into(), Value::String(call.name.to_owned()));
    request.insert("tool_args".into(), Value::Object(args));
    Ok(Value::Object(request))
}

fn type_reason(e: TypeError) -> Reason {
    match e {
        TypeError::MissingRequired { .. } => Reason::MissingArgument,
        _ => Reason::BadArgument,
    }
}

/// A `tool_args` / `args` parameter holding the whole argument object. Blank or `{}` gives
/// nothing (the wrapper is dropped); anything but an object is a bad argument.
fn wrapped_args(tool: &Tool, raw: &str) -> Result<Map<String, Value>, Reason> {
    if raw.trim().is_empty() {
        return Ok(Map::new());
    }
    match ctb_json::parse(raw) {
        Ok(Value::Object(m)) => tool.type_json_args(m).map_err(type_reason),
        _ => Err(Reason::BadArgument),
    }
}

/// The prose before the call as a list of thoughts: one per paragraph (blank-line separated),
/// each trimmed; a fenced code block stays whole, with its fences, inside its paragraph.
fn split_thoughts(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut fence: Option<&str> = None;
    for line in prose.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            _ => {}
        }
        if fence.is_none() && marker.is_none() && line.trim().is_empty() {
            push_thought(&mut out, &mut current);
            continue;
        }
        if !current.is_empty() {
            current.push('\n');
        }
        current.push_str(line);
    }
    push_thought(&mut out, &mut current);
    out
}

fn push_thought(out: &mut Vec<String>, current: &mut String) {
    let t = current.trim();
    if !t.is_empty() {
        out.push(t.to_owned());
    }
    current.clear();
}

/// A `thoughts` parameter: a JSON array of strings, or plain text split into lines.
fn thoughts_param(raw: &str) -> Vec<String> {
    let t = raw.trim();
    if t.starts_with('[') {
        if let Ok(Value::Array(items)) = ctb_json::parse(t) {
            return items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .filter(|s| !s.trim().is_empty())
                .collect();
        }
    }
    raw.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A short headline for a call that did not give one.
fn default_headline(tool: &str, args: &Map<String, Value>) -> String {
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
pub fn render_request(request: &Value) -> String {
    let mut out = Vec::with_capacity(256);
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    match serde::Serialize::serialize(request, &mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| request.to_string()),
        Err(_) => request.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::holds_json_request;

    #[test]
    fn json_request_found_at_the_first_brace_or_a_line_start() {
        let req = r#"{"tool_name": "response", "tool_args": {"text": "hi"}}"#;
        assert!(holds_json_request(req));
        assert!(holds_json_request(&format!("Prose first.\n  {req}")));
        assert!(!holds_json_request(&format!("echo ${{HOME}} then {req}")));
        assert!(!holds_json_request(r#"{"thoughts": ["no tool"]}"#));
    }

    #[test]
    fn a_long_line_of_braces_is_read_in_linear_time() {
        // Two megabytes of braces on one line, then a request on a line of its own: only the
        // first brace and the braces that start a line are tried.
        let mut text = "{a".repeat(1 << 20);
        assert!(!holds_json_request(&text));
        text.push_str("\n\t{\"tool_name\": \"response\", \"tool_args\": {\"text\": \"x\"}}");
        assert!(holds_json_request(&text));
    }

    #[test]
    fn at_most_eight_braces_are_tried() {
        let req = r#"{"tool_name": "response", "tool_args": {}}"#;
        assert!(holds_json_request(&format!("{}{req}", "{a\n".repeat(7))));
        assert!(!holds_json_request(&format!("{}{req}", "{a\n".repeat(8))));
    }
}
