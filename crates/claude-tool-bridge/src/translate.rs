//! One reply in, one decision out: the stateless translation of the first native call.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use ctb_invoke::{Args, Call, Forms, Found, NoCall, Param, Scanner};
use ctb_schema::{Tool, TypeError};
use serde_json::{Map, Value};

use crate::request::{default_headline, request};
use crate::{Catalog, Config, Decision, Echoes, Outcome, Reason, render_request};

/// The most of a reply the bridge reads: a call must be complete within the first
/// `MAX_REPLY_BYTES` bytes (streamed or not), and a longer reply without one is left alone
/// as [`Reason::TooLarge`]. This is the hard cap on the work per reply.
pub const MAX_REPLY_BYTES: usize = 4 << 20;

/// How many `{` positions are tried when looking for a JSON tool request.
const MAX_JSON_PROBES: usize = 8;

/// What the bridge knows about a reply besides its text: the markup forms its model writes
/// (a call in another form is a quotation) and what the agent received (a call copied from
/// there is an echo). The default reads every form and knows of no echoes.
///
/// ```
/// use claude_tool_bridge::{Catalog, Config, Context, Outcome, Reason, translate_with};
///
/// // A Claude model quoting Qwen's documentation: Qwen's syntax is a quotation for it.
/// let reply = "The Qwen docs show:\n<tool_call>\n{\"name\": \"search_engine\", \
///              \"arguments\": {\"query\": \"x\"}}\n</tool_call>";
/// let claude = Context::for_model(&Config::default(), "anthropic/claude-sonnet-4-5");
/// let d = translate_with(reply, &Catalog::agent_zero(), &claude);
/// assert_eq!((d.outcome, d.reason), (Outcome::Untouched, Reason::Quoted));
/// let qwen = Context::for_model(&Config::default(), "openrouter/qwen/qwen3-coder");
/// assert_eq!(translate_with(reply, &Catalog::agent_zero(), &qwen).outcome, Outcome::Translated);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The markup forms the reply is read for.
    pub forms: Forms,
    /// What the agent received, when known.
    pub echoes: Option<Arc<Echoes>>,
}

impl Context {
    /// The context of a reply by `model` under `config`: the forms its family writes (every
    /// form when no family's patterns match the name), no echoes.
    pub fn for_model(config: &Config, model: &str) -> Self {
        Self {
            forms: config.forms_for(model),
            echoes: None,
        }
    }

    /// The same context with `echoes`, the texts the agent received.
    #[must_use]
    pub fn with_echoes(mut self, echoes: Arc<Echoes>) -> Self {
        self.echoes = Some(echoes);
        self
    }

    /// A scanner for this context's forms.
    pub(crate) fn scanner(&self) -> Scanner {
        Scanner::with_forms(self.forms)
    }

    /// Whether `markup` is copied from what the agent received.
    fn echoes(&self, markup: &str) -> bool {
        self.echoes.as_ref().is_some_and(|e| e.contains(markup))
    }
}

/// Decides what Agent Zero should see for `reply`: the first complete native call translated
/// into a JSON tool request, or the reply untouched with the reason. Every markup form is
/// read; [`translate_with`] takes the model's forms and the echoes into account.
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
    translate_with(reply, catalog, &Context::default())
}

/// [`translate`] in a [`Context`]: only the markup forms the model writes are calls, and a call
/// copied from what the agent received is left alone ([`Reason::Echoed`]).
pub fn translate_with(reply: &str, catalog: &Catalog, context: &Context) -> Decision {
    guarded(reply, || analyse(reply, catalog, context).decision)
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
    /// Where the first call ends, when it is complete (usable or not).
    pub(crate) call_end: Option<usize>,
}

/// Scans `reply` (the part of it the bridge reads, see [`MAX_REPLY_BYTES`]) and decides.
pub(crate) fn analyse(reply: &str, catalog: &Catalog, context: &Context) -> Analysis {
    // A reply that is exactly one JSON request is Agent Zero's own format: no line of strict
    // JSON can start a call, so nothing needs scanning.
    if reply.len() <= MAX_REPLY_BYTES && strict_request(reply) == Some(true) {
        return Analysis {
            decision: Decision::untouched(reply, Reason::JsonRequestPresent),
            in_parameter: false,
            call_usable: false,
            call_end: None,
        };
    }
    let window = window(reply);
    let mut scanner = context.scanner();
    let found = if window.len() < reply.len() {
        // Cut at the cap, the text is a reply still arriving: nothing past the cap decides.
        scanner.advance(window)
    } else {
        scanner.finish(window)
    };
    decide_found(reply, window.len(), found, catalog, context)
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
    context: &Context,
) -> Analysis {
    let windowed = read < reply.len();
    let untouched = |reason| Analysis {
        decision: Decision::untouched(reply, reason),
        in_parameter: false,
        call_usable: false,
        call_end: None,
    };
    let call = match found {
        Found::Call(call) => call,
        Found::Incomplete { in_parameter, .. } if !windowed => {
            return Analysis {
                decision: Decision::untouched(reply, json_or(reply, Reason::Incomplete)),
                in_parameter,
                call_usable: false,
                call_end: None,
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
    // A call copied from what the agent received is the model quoting it.
    if context.echoes(&reply[call.head..call.end]) {
        return Analysis {
            call_end: Some(call.end),
            ..untouched(Reason::Echoed)
        };
    }
    let request = match build_request(reply, &call, catalog) {
        Ok(request) => request,
        Err(reason) => {
            return Analysis {
                call_end: Some(call.end),
                ..untouched(reason)
            };
        }
    };
    // A JSON request around the call wins: Agent Zero (or its context doctor) reads it,
    // whether it comes before or after the call or its strings enclose it. When the stream is
    // stopped at the end of the call, one written after it never arrives. JSON inside the call
    // is a value's text, not a request.
    let decision = if holds_json_request_around(&reply[..read], call.start..call.end) {
        Decision::untouched(reply, Reason::JsonRequestPresent)
    } else {
        Decision {
            outcome: Outcome::Translated,
            reply: render_request(&request),
            request: Some(request),
            reason: Reason::Translated,
            retry_without_stops: false,
            family: Some(call.family),
            prose: Some(reply[..call.prose_end].to_owned()),
        }
    };
    Analysis {
        decision,
        in_parameter: false,
        call_usable: true,
        call_end: Some(call.end),
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
    holds_json_request_around(text, 0..0)
}

/// [`holds_json_request`] for a text holding a call at `call`: a request may start before the
/// call (its strings may enclose it) or after it, but not inside it (JSON there is a value's
/// text).
pub(crate) fn holds_json_request_around(text: &str, call: Range<usize>) -> bool {
    // Every request has a `tool_name` (or `tool`) key: without the word there is nothing to
    // parse.
    if memchr::memmem::find(text.as_bytes(), b"tool").is_none() {
        return false;
    }
    if let Some(is_request) = strict_request(text) {
        return is_request;
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

/// Parameters the bridge lifts to the top level of the request instead of typing them.
const THOUGHTS: &str = "thoughts";
const HEADLINE: &str = "headline";
const TOOL_ARGS: &str = "tool_args";
const ARGS: &str = "args";

/// A call made ready for a request: the tool's typed arguments and what was lifted out of them.
pub(crate) struct Built {
    /// The tool name to use: as written, or as listed when the model changed its case.
    pub(crate) tool: String,
    pub(crate) thoughts: Vec<String>,
    pub(crate) headline: Option<String>,
    pub(crate) args: Map<String, Value>,
}

fn build_request(reply: &str, call: &Call<'_>, catalog: &Catalog) -> Result<Value, Reason> {
    let built = build_call(reply, call, catalog)?;
    let headline = built
        .headline
        .unwrap_or_else(|| default_headline(&built.tool, &built.args));
    Ok(request(built.thoughts, headline, &built.tool, built.args))
}

/// Looks the tool up, types the arguments and lifts `thoughts`, `headline` and an
/// argument-wrapping `tool_args`/`args` out of them; checks that arguments are there and the
/// required ones present.
pub(crate) fn build_call(reply: &str, call: &Call<'_>, catalog: &Catalog) -> Result<Built, Reason> {
    // A `tool:method` whose tool lists other methods but not this one is unknown. A listed base
    // tool (Agent Zero turns the method into an `action` argument), or the bare family name, is
    // known.
    let (tool, name) = match catalog.lookup(call.name) {
        Some(found) if found.how == ctb_schema::Match::Merged && call.name.contains(':') => {
            return Err(Reason::UnknownTool);
        }
        Some(found) if found.how == ctb_schema::Match::Folded => {
            (found.tool, found.tool.name.clone())
        }
        Some(found) => (found.tool, call.name.to_owned()),
        None => return Err(Reason::UnknownTool),
    };
    let mut built = Built {
        tool: name,
        thoughts: split_thoughts(&reply[..call.prose_end]),
        headline: None,
        args: Map::new(),
    };
    match &call.args {
        Args::Params(params) => {
            for p in params {
                let declared = tool.param(p.name).is_some();
                match p.name {
                    THOUGHTS if !declared => built.thoughts.extend(thoughts_param(p.value)),
                    HEADLINE if !declared => built.set_headline(p.value),
                    TOOL_ARGS | ARGS if !declared => {
                        for (k, v) in wrapped_args(tool, p.value)? {
                            built.args.entry(k).or_insert(v);
                        }
                    }
                    name => {
                        if !built.args.contains_key(name) {
                            let v = type_param(tool, p)?;
                            built.args.insert(name.to_owned(), v);
                        }
                    }
                }
            }
        }
        Args::Json(raw) => {
            for (name, value) in json_args(raw)? {
                let declared = tool.param(&name).is_some();
                match name.as_str() {
                    THOUGHTS if !declared => built.thoughts.extend(match value {
                        Value::String(s) => thoughts_param(&s),
                        other => thoughts_param(&other.to_string()),
                    }),
                    HEADLINE if !declared => {
                        if let Value::String(h) = &value {
                            built.set_headline(h);
                        }
                    }
                    _ => {
                        built.args.entry(name).or_insert(value);
                    }
                }
            }
            built.args = tool.type_json_args(built.args).map_err(type_reason)?;
        }
    }
    if built.args.is_empty() {
        return Err(Reason::NoArguments);
    }
    if tool.missing_required(&built.args).is_some() {
        return Err(Reason::MissingArgument);
    }
    crate::request::python_can_read(&built.args)?;
    Ok(built)
}

impl Built {
    fn set_headline(&mut self, raw: &str) {
        let h = raw.trim();
        if !h.is_empty() && self.headline.is_none() {
            self.headline = Some(h.to_owned());
        }
    }
}

/// One parameter's value, typed by the tool's schema (or usage examples). DeepSeek marks
/// values `string="true"` or `string="false"`: where the tool declares no type for the
/// parameter, `string="false"` means the value is JSON (`3`, `true`, `[1, 2]`), read as such
/// when it reads; otherwise the schema decides and the value stays text by default.
fn type_param(tool: &Tool, p: &Param<'_>) -> Result<Value, Reason> {
    let untyped = tool
        .param(p.name)
        .is_none_or(|d| d.kinds().all(|k| k == ctb_schema::Kind::Any));
    let json_marked = p
        .attrs
        .iter()
        .any(|(k, v)| *k == "string" && v.trim().eq_ignore_ascii_case("false"));
    if untyped && json_marked {
        if let Ok(v) = ctb_json::parse(p.value.trim()) {
            return Ok(v);
        }
    }
    tool.type_value(p.name, p.value).map_err(type_reason)
}

/// Arguments written as one JSON object (or, as OpenAI's API writes them, as a string that
/// holds one).
fn json_args(raw: &str) -> Result<Map<String, Value>, Reason> {
    match ctb_json::parse(raw) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(Value::String(s)) => match ctb_json::parse(&s) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Reason::BadArgument),
        },
        _ => Err(Reason::BadArgument),
    }
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

/// Tags around a reasoning block in the prose (`<think>...</think>`, as Qwen, DeepSeek and GLM
/// write them): the tags go, the reasoning stays as thoughts.
const REASONING_TAGS: [&str; 4] = ["<think>", "</think>", "<thinking>", "</thinking>"];

/// The prose before the call as a list of thoughts: one per paragraph (blank-line separated),
/// each trimmed; a fenced code block stays whole, with its fences, inside its paragraph. The
/// tags of a reasoning block are dropped and its text kept: it is what the model thought.
fn split_thoughts(prose: &str) -> Vec<String> {
    let stripped;
    // Every reasoning tag has `think` right after a `<` or a `/`: one search tells whether
    // any can be there.
    let b = prose.as_bytes();
    let tagged =
        memchr::memmem::find_iter(b, b"think").any(|i| i > 0 && matches!(b[i - 1], b'<' | b'/'));
    let prose = if tagged && REASONING_TAGS.iter().any(|t| prose.contains(t)) {
        let mut s = prose.to_owned();
        for t in REASONING_TAGS {
            s = s.replace(t, "\n\n");
        }
        stripped = s;
        stripped.as_str()
    } else {
        prose
    };
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

fn push_thought(out: &mut Vec<String>, prose: &str, para: Option<(usize, usize)>) {
    let Some((start, end)) = para else {
        return;
    };
    let t = prose[start..end].trim();
    if t.is_empty() {
        return;
    }
    if t.contains('\r') {
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
