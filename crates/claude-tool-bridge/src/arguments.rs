//! A call made ready for a request: the tool looked up, the arguments typed by its schema,
//! `thoughts`, `headline` and an argument-wrapping `tool_args`/`args` lifted out, and the prose
//! before the call split into thoughts.

use ctb_invoke::{Args, Call, Param, ValueKind};
use ctb_schema::{Tool, TypeError};
use serde_json::{Map, Value};

use crate::request::{default_headline, request};
use crate::{Catalog, Reason};

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

pub(crate) fn build_request(
    reply: &str,
    call: &Call<'_>,
    catalog: &Catalog,
) -> Result<Value, Reason> {
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
        thoughts: split_thoughts(&call.form.unframe(&reply[..call.prose_end])),
        headline: None,
        args: Map::with_capacity(match &call.args {
            Args::Params(params) => params.len(),
            Args::Json(_) => 0,
        }),
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

/// One parameter's value, typed by the tool's schema (or usage examples). A value the form
/// marks as JSON ([`ValueKind::Json`]: Kimi K3's typed arguments; DeepSeek's
/// `string="false"`), where the tool declares no type for the parameter, is read as JSON
/// (`3`, `true`, `[1, 2]`) when it reads; otherwise the schema decides and the value stays
/// text by default. A value written in the form's own literal syntax is typed through the JSON
/// the grammar converted it to ([`ValueKind::Converted`]: Gemma 4's objects and arrays,
/// MiniMax-M3's child elements), as a JSON-marked value is.
fn type_param(tool: &Tool, p: &Param<'_>) -> Result<Value, Reason> {
    let raw = match &p.kind {
        ValueKind::Converted(json) => json.as_str(),
        _ => p.value,
    };
    let untyped = tool
        .param(p.name)
        .is_none_or(|d| d.kinds().all(|k| k == ctb_schema::Kind::Any));
    let json_marked = !matches!(p.kind, ValueKind::Text)
        || p.attrs
            .iter()
            .any(|(k, v)| *k == "string" && v.trim().eq_ignore_ascii_case("false"));
    if untyped && json_marked {
        if let Ok(v) = ctb_json::parse(raw.trim()) {
            return Ok(v);
        }
    }
    // A string the grammar converted from the form's own quotes (Gemma 4's plain `"..."`, a
    // Python literal) is typed as a JSON string is, not by its quotes.
    if let ValueKind::Converted(json) = &p.kind {
        if let Ok(text @ Value::String(_)) = ctb_json::parse(json) {
            return match tool.param(p.name) {
                Some(d) => d.type_json(&text).map_err(type_reason),
                None => Ok(text),
            };
        }
    }
    tool.type_value(p.name, raw).map_err(type_reason)
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
    fn values_marked_json_or_converted_are_typed_as_json() {
        use ctb_invoke::{Param, ValueKind};
        use serde_json::json;

        let catalog = crate::Catalog::from_text(
            r#"[{"name": "t", "input_schema": {"type": "object", "properties": {
                "obj": {"type": "object"}, "n": {"type": "integer"}, "s": {"type": "string"}}}}]"#,
        )
        .unwrap();
        let tool = catalog.lookup("t").unwrap().tool;
        let param = |name, value, kind| Param {
            name,
            value,
            attrs: Vec::new(),
            kind,
        };
        let converted = || ValueKind::Converted(r#"{"a":"x"}"#.to_owned());
        let cases = [
            // Converted: the grammar's JSON, typed by the schema or read as JSON when untyped.
            (
                param("obj", "{a:<|\"|>x<|\"|>}", converted()),
                json!({"a": "x"}),
            ),
            (
                param("free", "{a:<|\"|>x<|\"|>}", converted()),
                json!({"a": "x"}),
            ),
            (
                param("s", "{a:<|\"|>x<|\"|>}", converted()),
                json!(r#"{"a":"x"}"#),
            ),
            // Json: read as JSON where the schema gives no type; the schema decides otherwise.
            (param("free", "[1, 2]", ValueKind::Json), json!([1, 2])),
            (param("n", "7", ValueKind::Json), json!(7)),
            (param("s", "7", ValueKind::Json), json!("7")),
            // A converted string: its text, typed by the schema.
            (
                param("s", "'a\\nb'", ValueKind::Converted(r#""a\nb""#.to_owned())),
                json!("a\nb"),
            ),
            (
                param("n", "'7'", ValueKind::Converted(r#""7""#.to_owned())),
                json!(7),
            ),
            (
                param("free", "'7'", ValueKind::Converted(r#""7""#.to_owned())),
                json!("7"),
            ),
            // Text stays text where the schema gives no type.
            (param("free", "[1, 2]", ValueKind::Text), json!("[1, 2]")),
        ];
        for (p, want) in cases {
            assert_eq!(super::type_param(tool, &p).ok(), Some(want), "{p:?}");
        }
        let bad = param("n", "{a:1}", ValueKind::Converted(r#"{"a":1}"#.to_owned()));
        assert!(super::type_param(tool, &bad).is_err());
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
