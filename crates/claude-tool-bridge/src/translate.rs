//! One reply in, one decision out: the stateless translation of the first native call.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ctb_invoke::{Call, Found, NoCall, Scanner};
use ctb_schema::{Tool, TypeError};
use serde_json::{Map, Value};

use crate::request::{default_headline, request};
use crate::{Catalog, Decision, Outcome, Reason, render_request};

/// The most of a reply the bridge reads: a call must be complete within the first
/// `MAX_REPLY_BYTES` bytes (streamed or not), and a longer reply without one is left alone
/// as [`Reason::TooLarge`]. This is the hard cap on the work per reply.
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
/// use claude_tool_bridge::{translate, Catalog, Outcome};
///
/// let reply = "Checking the disk.\n<invoke name=\"code_execution_tool\">\n\
///              <parameter name=\"runtime\">terminal</parameter>\n\
///              <parameter name=\"code\">df -h</parameter>\n\
///              <parameter name=\"session\">0</parameter>\n</invoke>";
/// let d = translate(reply, &Catalog::agent_zero());
/// assert_eq!(d.outcome, Outcome::Translated);
/// let req = d.request.unwrap();
/// assert_eq!(req["tool_name"], "code_execution_tool");
/// assert_eq!(req["tool_args"]["session"], 0);
/// assert_eq!(req["thoughts"][0], "Checking the disk.");
/// ```
pub fn translate(reply: &str, catalog: &Catalog) -> Decision {
    guarded(reply, || analyse(reply, catalog).decision)
}

/// Runs `f`, turning a panic into "leave `reply` alone" ([`Reason::InternalError`]).
pub(crate) fn guarded(reply: &str, f: impl FnOnce() -> Decision) -> Decision {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Decision::untouched(reply, Reason::InternalError))
}

/// A decision and what led to it.
pub(crate) struct Analysis {
    pub(crate) decision: Decision,
    /// The first call is unfinished inside a parameter value.
    pub(crate) in_parameter: bool,
    /// The first call is complete and makes a request (whether or not a JSON request outside
    /// it takes precedence).
    pub(crate) call_usable: bool,
}

/// Scans `reply` (the part of it the bridge reads, see [`MAX_REPLY_BYTES`]) and decides.
pub(crate) fn analyse(reply: &str, catalog: &Catalog) -> Analysis {
    let window = window(reply);
    let mut scanner = Scanner::new();
    let found = if window.len() < reply.len() {
        // Cut at the cap, the text is a reply still arriving: nothing past the cap decides.
        scanner.advance(window)
    } else {
        scanner.finish(window)
    };
    decide_found(reply, window.len(), found, catalog)
}

/// The part of `reply` the bridge reads: all of it, or its first [`MAX_REPLY_BYTES`] bytes.
pub(crate) fn window(reply: &str) -> &str {
    let mut end = reply.len().min(MAX_REPLY_BYTES);
    while !reply.is_char_boundary(end) {
        end -= 1;
    }
    &reply[..end]
}

/// Decides about `reply` given what the grammar found in its first `read` bytes.
pub(crate) fn decide_found(
    reply: &str,
    read: usize,
    found: Found<'_>,
    catalog: &Catalog,
) -> Analysis {
    let windowed = read < reply.len();
    let untouched = |reason| Analysis {
        decision: Decision::untouched(reply, reason),
        in_parameter: false,
        call_usable: false,
    };
    let call = match found {
        Found::Call(call) => call,
        Found::Incomplete { in_parameter, .. } if !windowed => {
            return Analysis {
                decision: Decision::untouched(reply, json_or(reply, Reason::Incomplete)),
                in_parameter,
                call_usable: false,
            };
        }
        Found::Nothing(NoCall::Quoted) if !windowed => {
            return untouched(json_or(reply, Reason::Quoted));
        }
        Found::Nothing(NoCall::NoTags) if !windowed => {
            return untouched(json_or(reply, Reason::NoCall));
        }
        _ => return untouched(Reason::TooLarge),
    };
    let request = match build_request(reply, &call, catalog) {
        Ok(request) => request,
        Err(reason) => return untouched(reason),
    };
    // A JSON request outside the call wins: Agent Zero (or its context doctor) reads it. When
    // the stream is stopped at the end of the call, one written after it never arrives. JSON
    // inside the call is a value's text, not a request.
    let decision =
        if holds_json_request(&reply[..call.start]) || holds_json_request(&reply[call.end..read]) {
            Decision::untouched(reply, Reason::JsonRequestPresent)
        } else {
            Decision {
                outcome: Outcome::Translated,
                reply: render_request(&request),
                request: Some(request),
                reason: Reason::Translated,
                retry_without_stops: false,
            }
        };
    Analysis {
        decision,
        in_parameter: false,
        call_usable: true,
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
    // Every request has a `tool_name` (or `tool`) key: without the word there is nothing to
    // parse.
    if memchr::memmem::find(text.as_bytes(), b"tool").is_none() {
        return false;
    }
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
    Ok(request(thoughts, headline, call.name, args))
}

fn type_reason(_: TypeError) -> Reason {
    Reason::BadArgument
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
