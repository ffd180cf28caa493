//! The Agent Zero tool request, both ways: the one place its shape is written (rendered from
//! a host-neutral [`ToolCall`], or for a prose answer), and the one place a reply is
//! recognised as holding one.
//!
//! Agent Zero (chat mode) reads a reply that is exactly one JSON object
//! `{"thoughts": [...], "headline": "...", "tool_name": "...", "tool_args": {...}}`, the way
//! its own prompt examples print it; its older reader takes the object from the first `{`.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::Reason;
use crate::tool_call::ToolCall;

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

/// The request's keys, in the order Agent Zero's examples write them.
const THOUGHTS: &str = "thoughts";
const HEADLINE: &str = "headline";
const TOOL_NAME: &str = "tool_name";
const TOOL_ARGS: &str = "tool_args";
/// The key Agent Zero's older requests name the tool with.
const TOOL: &str = "tool";

impl ToolCall {
    /// Agent Zero's request for this call: the prose before it as `thoughts` (one per
    /// paragraph, a form's framing tokens and reasoning tags dropped, then what the model
    /// wrote as a `thoughts` argument), the `headline` the model wrote or a short one for the
    /// tool, `tool_name` and the arguments as `tool_args`.
    ///
    /// ```
    /// use claude_tool_bridge::{Catalog, first_call, render_request};
    ///
    /// let reply = "Checking the disk.\n<invoke name=\"code_execution_tool\">\n\
    ///              <parameter name=\"runtime\">terminal</parameter>\n\
    ///              <parameter name=\"code\">df -h</parameter>\n</invoke>";
    /// let call = first_call(reply, &Catalog::agent_zero()).unwrap();
    /// let request = call.agent_zero_request();
    /// assert_eq!(request["thoughts"][0], "Checking the disk.");
    /// assert_eq!(request["headline"], "Running a terminal command");
    /// assert_eq!(request["tool_args"]["code"], "df -h");
    /// assert!(render_request(&request).starts_with("{\n    \"thoughts\""));
    /// ```
    pub fn agent_zero_request(&self) -> Value {
        let mut thoughts = split_thoughts(&self.form.unframe(&self.prose));
        thoughts.extend(self.thoughts.iter().cloned());
        let headline = self
            .headline
            .clone()
            .unwrap_or_else(|| default_headline(&self.name, &self.arguments));
        request(thoughts, headline, &self.name, self.arguments.clone())
    }
}

/// A request for `tool` with `args`.
fn request(thoughts: Vec<String>, headline: String, tool: &str, args: Map<String, Value>) -> Value {
    let mut request = Map::with_capacity(4);
    request.insert(
        THOUGHTS.into(),
        Value::Array(thoughts.into_iter().map(Value::String).collect()),
    );
    request.insert(HEADLINE.into(), Value::String(headline));
    request.insert(TOOL_NAME.into(), Value::String(tool.to_owned()));
    request.insert(TOOL_ARGS.into(), Value::Object(args));
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
///
/// ```
/// use claude_tool_bridge::render_request;
/// let text = render_request(&serde_json::json!({"tool_name": "response"}));
/// assert_eq!(text, "{\n    \"tool_name\": \"response\"\n}");
/// ```
pub fn render_request(request: &Value) -> String {
    ctb_json::to_string_pretty(request, "    ")
}

/// The prose before the call as a list of thoughts: one per paragraph (blank-line separated),
/// each trimmed; a fenced code block stays whole, with its fences, inside its paragraph. The
/// tags of a reasoning block are dropped and its text kept: it is what the model thought.
fn split_thoughts(prose: &str) -> Vec<String> {
    let stripped;
    // Every reasoning tag starts with `<` or `[`: without either, none can be there.
    let tags = ctb_invoke::registry::reasoning_tags();
    let tagged = memchr::memchr2(b'<', b'[', prose.as_bytes()).is_some();
    let prose = if tagged && tags.iter().any(|t| prose.contains(t.as_str())) {
        let mut s = prose.to_owned();
        for t in tags {
            s = s.replace(t.as_str(), "\n\n");
        }
        stripped = s;
        stripped.as_str()
    } else {
        prose
    };
    // Most prose is one paragraph of lines that each start with a printable ASCII byte: no
    // line is blank, so the paragraph is the whole prose, found without reading it line by
    // line (the blank lines, outside fences, are all that split the prose).
    if every_line_starts_printable(prose.as_bytes()) {
        let mut out = Vec::with_capacity(1);
        push_thought(&mut out, prose, Some((0, prose.len())));
        return out;
    }
    // Paragraphs are found as spans of the prose and copied once each (a paragraph's lines
    // keep their own line breaks; a carriage return before a line break goes, as `lines`
    // drops it).
    let mut out = Vec::new();
    let mut para: Option<(usize, usize)> = None;
    let mut fence: Option<&str> = None;
    // The lines as `split_inclusive('\n')` gives them, their ends found in one pass.
    let ends = memchr::memchr_iter(b'\n', prose.as_bytes())
        .map(|i| i + 1)
        .chain(std::iter::once(prose.len()));
    let mut next = 0;
    for end in ends {
        if end == next {
            break;
        }
        let start = next;
        next = end;
        let raw = &prose[start..end];
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            _ => {}
        }
        if fence.is_none() && marker.is_none() && line.trim().is_empty() {
            push_thought(&mut out, prose, para.take());
            continue;
        }
        let end = start + line.len();
        para = Some(para.map_or((start, end), |(s, _)| (s, end)));
    }
    push_thought(&mut out, prose, para);
    out
}

/// Whether `b` is not empty and each of its lines (the text after each line break, when there
/// is any) starts with a printable ASCII byte, which no white space is.
fn every_line_starts_printable(b: &[u8]) -> bool {
    b.first().is_some_and(u8::is_ascii_graphic)
        && memchr::memchr_iter(b'\n', b).all(|nl| b.get(nl + 1).is_none_or(u8::is_ascii_graphic))
}

fn push_thought(out: &mut Vec<String>, prose: &str, para: Option<(usize, usize)>) {
    let Some((start, end)) = para else {
        return;
    };
    let t = prose[start..end].trim();
    if t.is_empty() {
        return;
    }
    if memchr::memchr(b'\r', t.as_bytes()).is_some() {
        // Line by line, as `lines` reads them.
        let joined: Vec<&str> = t.lines().collect();
        let joined = joined.join("\n");
        let t = joined.trim();
        if !t.is_empty() {
            out.push(t.to_owned());
        }
    } else {
        out.push(t.to_owned());
    }
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
    if memchr::memmem::find(b, TOOL.as_bytes()).is_none() {
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
                TOOL_NAME => tool_name = Some(value),
                TOOL => tool = Some(value),
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

    /// Paragraphs as the plain line-by-line reading gives them (what `split_thoughts` must
    /// agree with).
    fn thoughts_line_by_line(prose: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut current = String::new();
        let mut fence: Option<&str> = None;
        let flush = |current: &mut String, out: &mut Vec<String>| {
            let t = current.trim();
            if !t.is_empty() {
                out.push(t.to_owned());
            }
            current.clear();
        };
        for line in prose.lines() {
            let trimmed = line.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            match (fence, marker) {
                (None, Some(m)) => fence = Some(m),
                (Some(open), Some(m)) if open == m => fence = None,
                _ => {}
            }
            if fence.is_none() && marker.is_none() && line.trim().is_empty() {
                flush(&mut current, &mut out);
                continue;
            }
            if !current.is_empty() {
                current.push('\n');
            }
            current.push_str(line);
        }
        flush(&mut current, &mut out);
        out
    }

    #[test]
    fn thoughts_are_the_paragraphs_line_by_line() {
        let pieces = [
            "a", " b", "\n", "\r\n", "\r", "  \n", "```", "~~~", "\t", "é", "\n\n",
        ];
        let mut rng = ctb_testkit::Rng::new(7);
        for _ in 0..20_000 {
            let n = rng.below(12);
            let prose: String = (0..n).map(|_| rng.pick(&pieces).to_owned()).collect();
            assert_eq!(
                super::split_thoughts(&prose),
                thoughts_line_by_line(&prose),
                "{prose:?}"
            );
        }
    }
}
