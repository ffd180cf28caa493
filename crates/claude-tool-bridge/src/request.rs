//! The Agent Zero tool request, both ways: the one place its shape is written, and the one
//! place a reply is recognised as holding one.
//!
//! Agent Zero (chat mode) reads a reply that is exactly one JSON object
//! `{"thoughts": [...], "headline": "...", "tool_name": "...", "tool_args": {...}}`, the way
//! its own prompt examples print it; its older reader takes the object from the first `{`.

use std::ops::Range;

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

// ---------------------------------------------------------------- reading a request

/// How many `{` positions are tried when looking for a JSON tool request.
const MAX_JSON_PROBES: usize = 8;

/// Whether `text` holds a JSON tool request the way Agent Zero reads one: an object (from a
/// `{`) with a non-empty `tool_name` (or the older `tool`). Tries the first `{` and the `{`s
/// that start a line, a bounded number of them.
pub fn holds_json_request(text: &str) -> bool {
    match strict_request(text) {
        Some(is_request) => is_request,
        None => probe_requests(text, 0..0),
    }
}

/// Whether `text`, which is not one strict JSON value (see [`strict_request`]), holds a JSON
/// request, the call at `call` aside: a request may start before the call (its strings may
/// enclose it) or after it, but not inside it (JSON there is a value's text).
pub(crate) fn probe_requests(text: &str, call: Range<usize>) -> bool {
    // Every request is an object outside the call, and has a `tool_name` (or `tool`) key:
    // without a `{` there, or without the word, there is nothing to parse.
    let b = text.as_bytes();
    let call_start = call.start.min(b.len());
    let after_call = call.end.clamp(call_start, b.len());
    if memchr::memchr(b'{', &b[..call_start]).is_none()
        && memchr::memchr(b'{', &b[after_call..]).is_none()
    {
        return false;
    }
    if memchr::memmem::find(b, b"tool").is_none() {
        return false;
    }
    let mut probes = 0;
    let mut from = 0;
    while let Some(off) = memchr::memchr(b'{', &text.as_bytes()[from..]) {
        let at = from + off;
        if call.contains(&at) {
            from = call.end;
            continue;
        }
        // Only the blank run before the `{` is read back (runs of distinct `{`s do not
        // overlap), so a long line full of braces stays linear.
        let starts_line = text[..at]
            .bytes()
            .rev()
            .take_while(|&b| b != b'\n')
            .all(|b| b.is_ascii_whitespace());
        if probes == 0 || starts_line {
            probes += 1;
            let probe = ctb_json::first_object_built(&text[at..], &mut RequestProbe);
            if probe.is_some_and(|found| found.value == Probe::Request) {
                return true;
            }
            if probes >= MAX_JSON_PROBES {
                return false;
            }
        }
        from = at + 1;
    }
    false
}

/// Whether `text`, when it is exactly one strict JSON object, is a tool request: its root
/// `tool_name` (or `tool`) is a non-blank string, the later of two equal keys counting. Read
/// by skimming the members ([`ctb_json::skim_object`]): only the key strings, and the value of
/// the member that decides, are decoded. `None` when `text` is something else.
pub(crate) fn strict_request(text: &str) -> Option<bool> {
    let first = text.bytes().find(|b| !b.is_ascii_whitespace())?;
    if first != b'{' {
        return None;
    }
    let members = ctb_json::skim_object(text)?;
    let (mut tool_name, mut tool) = (None, None);
    for m in &members {
        // A key written with escapes is decoded; a plain one is compared as it is.
        let inner = &m.key[1..m.key.len() - 1];
        let key = if inner.contains('\\') {
            std::borrow::Cow::Owned(serde_json::from_str::<String>(m.key).ok()?)
        } else {
            std::borrow::Cow::Borrowed(inner)
        };
        match &*key {
            "tool_name" => tool_name = Some(m.value),
            "tool" => tool = Some(m.value),
            _ => {}
        }
    }
    let names_a_tool = |raw: Option<&str>| {
        let Some(inner) = raw.and_then(|r| r.strip_prefix('"')?.strip_suffix('"')) else {
            return false;
        };
        if inner.contains('\\') {
            serde_json::from_str::<String>(raw.unwrap_or_default())
                .is_ok_and(|name| !name.trim().is_empty())
        } else {
            !inner.trim().is_empty()
        }
    };
    Some(names_a_tool(tool_name) || names_a_tool(tool))
}

/// What [`RequestProbe`] makes of a value: only what tells a tool request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// A string with more than white space in it.
    Text,
    /// An object with a non-empty `tool_name` (or `tool`): a request.
    Request,
    /// Anything else.
    Other,
}

/// Reads a JSON value only as far as deciding whether it is a tool request, the way Agent Zero
/// decides it (an object whose `tool_name`, or `tool`, is a non-blank string; a key written
/// twice counts with its last value), without building the value.
struct RequestProbe;

impl ctb_json::Builder for RequestProbe {
    type Value = Probe;

    fn null(&mut self) -> Probe {
        Probe::Other
    }
    fn boolean(&mut self, _: bool) -> Probe {
        Probe::Other
    }
    fn number(&mut self, _: &str) -> Probe {
        Probe::Other
    }
    fn string(&mut self, text: &str) -> Probe {
        if text.trim().is_empty() {
            Probe::Other
        } else {
            Probe::Text
        }
    }
    fn array(&mut self, _: impl ExactSizeIterator<Item = Probe>) -> Probe {
        Probe::Other
    }
    fn object<'k>(&mut self, members: impl ExactSizeIterator<Item = (&'k str, Probe)>) -> Probe {
        let (mut tool_name, mut tool) = (None, None);
        for (key, value) in members {
            match key {
                "tool_name" => tool_name = Some(value),
                "tool" => tool = Some(value),
                _ => {}
            }
        }
        if tool_name == Some(Probe::Text) || tool == Some(Probe::Text) {
            Probe::Request
        } else {
            Probe::Other
        }
    }
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

    /// The value-building reading the probe replaces.
    fn is_request_value(text: &str) -> bool {
        ctb_json::first_object(text).is_some_and(|found| {
            found.value.as_object().is_some_and(|obj| {
                ["tool_name", "tool"].iter().any(|k| {
                    obj.get(*k)
                        .and_then(serde_json::Value::as_str)
                        .is_some_and(|s| !s.trim().is_empty())
                })
            })
        })
    }

    #[test]
    fn the_request_probe_agrees_with_reading_the_value() {
        let mut texts: Vec<String> = [
            r#"{"tool_name": "x"}"#,
            r#"{"tool_name": " "}"#,
            r#"{"tool_name": "x", "tool_name": ""}"#,
            r#"{"tool_name": "", "tool_name": "x"}"#,
            r#"{"tool": "y", "tool_name": 3}"#,
            r#"{"a": {"tool_name": "nested"}}"#,
            r#"[{"tool_name": "in an array"}]"#,
            "{tool_name: 'x', tool_args: {a: [1, {b: 2}]}}",
            r#"{"tool_name": "x""#,
            r#"{"tool_name": ["x"]}"#,
            "{\"tool_name\": \"\\u00a0\"}",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        let dir = ctb_testkit::fixtures_dir().join("replies");
        for path in ctb_testkit::files_with_extension(&dir, "txt").expect("fixtures") {
            texts.push(std::fs::read_to_string(path).expect("fixture"));
        }
        texts.push(r#"{"tool_name": "a\u0062", "tool_args": {}}"#.to_owned());
        texts.push(r#"{"tool_\u006eame": "  ", "tool": "x"}"#.to_owned());
        texts.push(r#"  {"tool_name": "\u0020"}  "#.to_owned());
        for text in &texts {
            let probe = ctb_json::first_object_built(text, &mut super::RequestProbe);
            assert_eq!(
                probe.is_some_and(|f| f.value == super::Probe::Request),
                is_request_value(text),
                "{text}"
            );
            if let Some(skimmed) = super::strict_request(text) {
                assert_eq!(skimmed, is_request_value(text), "skim: {text}");
            }
        }
        // Every request fixture (a reply written as a JSON request) is read by the skim.
        let requests = texts
            .iter()
            .filter(|t| super::strict_request(t) == Some(true))
            .count();
        assert!(requests >= 3, "{requests}");
    }
}
