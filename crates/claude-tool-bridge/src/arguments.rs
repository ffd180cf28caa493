//! A call made ready for any host: the tool looked up, the arguments typed by its schema,
//! `thoughts`, `headline` and an argument-wrapping `tool_args`/`args` lifted out of them. How a
//! host's request is written is not this module's business ([`crate::request`] renders Agent
//! Zero's).

use ctb_invoke::{Args, Call, Param, ValueKind};
use ctb_schema::{Tool, TypeError};
use serde_json::{Map, Value};

use crate::tool_call::ToolCall;
use crate::{Catalog, Reason};

/// Parameters the bridge lifts to the top level of the request instead of typing them.
const THOUGHTS: &str = "thoughts";
const HEADLINE: &str = "headline";
const TOOL_ARGS: &str = "tool_args";
const ARGS: &str = "args";

/// The call `call` of `reply` as a [`ToolCall`]: looks the tool up, types the arguments and
/// lifts `thoughts`, `headline` and an argument-wrapping `tool_args`/`args` out of them; checks
/// that arguments are there and the required ones present, and that Python can read them.
pub(crate) fn build_call(
    reply: &str,
    call: &Call<'_>,
    catalog: &Catalog,
) -> Result<ToolCall, Reason> {
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
    let mut built = ToolCall {
        form: call.form,
        family: call.form.family(),
        name,
        arguments: Map::with_capacity(match &call.args {
            Args::Params(params) => params.len(),
            Args::Json(_) => 0,
        }),
        prose: reply[..call.prose_end].to_owned(),
        span: call.start..call.end,
        thoughts: Vec::new(),
        headline: None,
    };
    match &call.args {
        Args::Params(params) => {
            for p in params {
                let declared = tool.param(p.name).is_some();
                match p.name {
                    THOUGHTS if !declared => built.thoughts.extend(thoughts_param(p.value)),
                    HEADLINE if !declared => set_headline(&mut built, p.value),
                    TOOL_ARGS | ARGS if !declared => {
                        for (k, v) in wrapped_args(tool, p.value)? {
                            built.arguments.entry(k).or_insert(v);
                        }
                    }
                    name => {
                        if !built.arguments.contains_key(name) {
                            let v = type_param(tool, p)?;
                            built.arguments.insert(name.to_owned(), v);
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
                            set_headline(&mut built, h);
                        }
                    }
                    _ => {
                        built.arguments.entry(name).or_insert(value);
                    }
                }
            }
            built.arguments = tool.type_json_args(built.arguments).map_err(type_reason)?;
        }
    }
    if built.arguments.is_empty() {
        return Err(Reason::NoArguments);
    }
    if tool.missing_required(&built.arguments).is_some() {
        return Err(Reason::MissingArgument);
    }
    crate::request::python_can_read(&built.arguments)?;
    Ok(built)
}

/// Keeps `raw` as the call's headline when it is the first non-blank one.
fn set_headline(call: &mut ToolCall, raw: &str) {
    let h = raw.trim();
    if !h.is_empty() && call.headline.is_none() {
        call.headline = Some(h.to_owned());
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
}
