//! Agent Zero prompt text: usage examples in fences, MCP schema sections, and tool headings.

use serde_json::Value;

use crate::kind::{Alt, Kind};
use crate::schema::tool_from_schema;
use crate::tool::{Param, Source, Tool};

/// The marker Agent Zero prints before an MCP tool's JSON Schema.
const MCP_MARKER: &str = "Input schema for tool_args:";
/// Bytes after an MCP schema searched for the `"tool_name": "..."` of its usage block.
const MCP_NAME_WINDOW: usize = 1024;

/// Names used as placeholders in Agent Zero's format explanations, never real tools.
const PLACEHOLDER_NAMES: &[&str] = &["name_of_tool", "tool_name", "tool", "..."];

/// Words that can appear on an `args:` line without being parameter names.
const STOPWORDS: &[&str] = &[
    "optional",
    "required",
    "and",
    "or",
    "any",
    "of",
    "plus",
    "exactly",
    "one",
    "none",
    "the",
    "a",
    "an",
    "with",
    "to",
    "string",
    "list",
    "text",
    "default",
    "inclusive",
];

/// Every tool the text teaches, in order of first appearance (same names not yet merged).
pub(crate) fn tools_from_prompt(text: &str) -> Vec<Tool> {
    let mut out = Vec::new();
    let mut prose = Prose::default();
    // (char, run length, content start, whether the info string says JSON)
    let mut fence: Option<(u8, usize, usize, bool)> = None;
    let mut pos = 0;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let line = &text[pos..end];
        let trimmed = line.trim();
        if line.contains(MCP_MARKER) {
            if let Some(tool) = mcp_tool(text, pos, end) {
                out.push(tool);
            }
        }
        match fence {
            Some((ch, len, start, is_json)) => {
                if fence_run(trimmed).is_some_and(|(c, l)| c == ch && l >= len)
                    && trimmed.bytes().all(|b| b == ch)
                {
                    if is_json {
                        out.extend(example_tool(&text[start..pos]));
                    }
                    fence = None;
                }
            }
            None => {
                let opener = line.trim_start();
                if let Some((ch, len)) = fence_run(opener) {
                    let info = opener[len..].trim().to_ascii_lowercase();
                    fence = Some((ch, len, end, info.starts_with("json")));
                } else {
                    prose.line(trimmed, &mut out);
                }
            }
        }
        pos = end;
    }
    if let Some((_, _, start, true)) = fence {
        out.extend(example_tool(&text[start.min(text.len())..]));
    }
    prose.flush(&mut out);
    out
}

/// A fence opener: three or more backticks or tildes.
fn fence_run(s: &str) -> Option<(u8, usize)> {
    let ch = *s.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = s.bytes().take_while(|&b| b == ch).count();
    (len >= 3).then_some((ch, len))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 256
        && !PLACEHOLDER_NAMES.contains(&name)
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.' | '/'))
}

/// Reads a usage example (tolerantly) and returns the tool it calls, typed from its values.
pub(crate) fn example_tool(block: &str) -> Option<Tool> {
    if !block.contains("tool_name") {
        return None;
    }
    let value = read_example(block)?;
    tool_from_request(&value)
}

/// A tool learned from one request object `{"tool_name": .., "tool_args": {..}}`.
pub(crate) fn tool_from_request(value: &Value) -> Option<Tool> {
    let name = value.get("tool_name")?.as_str()?.trim();
    if !valid_name(name) {
        return None;
    }
    let mut tool = Tool::new(name);
    tool.source = Source::Examples;
    if let Some(Value::Object(args)) = value.get("tool_args") {
        for (k, v) in args {
            tool.push_param(Param::new(k.clone(), vec![Alt::plain(Kind::of_example(v))]));
        }
    }
    Some(tool)
}

fn read_example(block: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(block) {
        return Some(v);
    }
    let cleaned = clean_example(block);
    if let Ok(v) = serde_json::from_str::<Value>(&cleaned) {
        return Some(v);
    }
    ctb_json::parse(block)
        .or_else(|_| ctb_json::parse(&cleaned))
        .ok()
}

/// Makes an example strict JSON where that is easy: drops lines that are only `...`,
/// `//` comments and trailing commas (all outside strings).
fn clean_example(block: &str) -> String {
    let mut kept = String::with_capacity(block.len());
    for line in block.split_inclusive('\n') {
        let t = line.trim().trim_end_matches(',');
        if t == "..." || t == "…" {
            continue;
        }
        kept.push_str(line);
    }
    let b = kept.as_bytes();
    let mut out = String::with_capacity(kept.len());
    let mut in_str = false;
    let mut esc = false;
    let mut copy_from = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                out.push_str(&kept[copy_from..i]);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                copy_from = i;
                continue;
            }
            b',' => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if matches!(b.get(j), Some(b'}' | b']')) {
                    out.push_str(&kept[copy_from..i]);
                    copy_from = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&kept[copy_from..]);
    out
}

/// An MCP section whose marker line is `line_start..line_end`. The schema is read only up to
/// the next marker, so the work over all sections stays linear in the text.
fn mcp_tool(text: &str, line_start: usize, line_end: usize) -> Option<Tool> {
    let rest = &text[line_end..];
    let rest = match rest.find(MCP_MARKER) {
        Some(i) => &rest[..i],
        None => rest,
    };
    let body = rest.trim_start();
    let body_at = line_end + (rest.len() - body.len());
    let mut schema = None;
    let mut after = line_end;
    if body.starts_with('{') {
        let mut de = serde_json::Deserializer::from_str(body).into_iter::<Value>();
        if let Some(Ok(v)) = de.next() {
            after = body_at + de.byte_offset();
            schema = Some(v);
        } else if let Some(fv) = ctb_json::first_object(body) {
            after = body_at + fv.end;
            schema = Some(fv.value);
        }
    }
    let name = usage_name(text, after).or_else(|| heading_name(&text[..line_start]))?;
    if !valid_name(&name) {
        return None;
    }
    Some(tool_from_schema(name, None, schema.as_ref()))
}

/// The `"tool_name": "..."` of the usage block right after an MCP schema.
fn usage_name(text: &str, from: usize) -> Option<String> {
    let mut to = (from + MCP_NAME_WINDOW).min(text.len());
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    let window = &text[from..to];
    let window = match window.find(MCP_MARKER) {
        Some(i) => &window[..i],
        None => window,
    };
    let at = window.find("\"tool_name\"")?;
    let after = window[at + "\"tool_name\"".len()..].trim_start();
    let after = after.strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let end = after.find('"')?;
    Some(after[..end].trim().to_owned())
}

/// The name in the last `### name:` heading of `before` (its last few KiB).
fn heading_name(before: &str) -> Option<String> {
    let mut from = before.len().saturating_sub(MCP_NAME_WINDOW * 4);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    before[from..].lines().rev().find_map(|l| {
        let t = l.trim();
        let name = t.strip_prefix('#')?.trim_start_matches('#').trim();
        let name = name.strip_suffix(':').unwrap_or(name).trim();
        valid_name(name).then(|| name.to_owned())
    })
}

/// Tools described in prose: a `### name` heading whose section has an `args:`-like line, and
/// `- \`name\`: args ...` / `- \`tool:method\`: ...` bullets.
#[derive(Default)]
struct Prose {
    /// The tool of the current `###` section and whether its section confirmed it.
    current: Option<(Tool, bool)>,
    /// Inside a bullet list of parameters that follows a bare `args:` line.
    in_arg_list: bool,
}

impl Prose {
    fn line(&mut self, t: &str, out: &mut Vec<Tool>) {
        if let Some(level) = heading_level(t) {
            self.in_arg_list = false;
            if level <= 3 {
                self.flush(out);
            }
            if level == 3 {
                let name = t[3..].trim();
                let name = name.strip_suffix(':').unwrap_or(name).trim();
                if valid_name(name) {
                    let mut tool = Tool::new(name);
                    tool.source = Source::Prose;
                    self.current = Some((tool, false));
                }
            }
            return;
        }
        let bullet = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "));
        if self.in_arg_list {
            if let Some(b) = bullet {
                if let Some((name, _)) = backticked_head(b) {
                    if let Some((tool, _)) = &mut self.current {
                        add_param(tool, name);
                    }
                    return;
                }
            }
            self.in_arg_list = false;
        }
        if let Some(b) = bullet {
            if let Some((name, rest)) = backticked_head(b) {
                let rest = rest.trim_start();
                let lower = rest.to_ascii_lowercase();
                if valid_name(name) && (name.contains(':') || lower.starts_with("arg")) {
                    let mut tool = Tool::new(name);
                    tool.source = Source::Prose;
                    // Only backticked names: the rest of a bullet is usually prose.
                    if rest.contains('`') {
                        for p in params_on_line(rest) {
                            add_param(&mut tool, p);
                        }
                    }
                    out.push(tool);
                    return;
                }
            }
        }
        let Some((key, rest)) = t.split_once(':') else {
            return;
        };
        let key = key.trim().to_ascii_lowercase();
        let is_args = is_args_key(&key);
        let is_actions = matches!(key.as_str(), "actions" | "methods");
        if let Some((tool, confirmed)) = &mut self.current {
            if is_args || is_actions {
                *confirmed = true;
            }
            if is_args {
                if rest.trim().is_empty() {
                    self.in_arg_list = true;
                } else {
                    for p in params_on_line(rest) {
                        add_param(tool, p);
                    }
                }
            }
        }
    }

    fn flush(&mut self, out: &mut Vec<Tool>) {
        if let Some((tool, true)) = self.current.take() {
            out.push(tool);
        }
        self.in_arg_list = false;
    }
}

/// A short label (at most six words) holding `args`, `arg`, `params`, `parameters` or
/// `arguments`: `args`, `common args`, `Minimal args after loading the skill`.
fn is_args_key(key: &str) -> bool {
    const WORDS: &[&str] = &["args", "arg", "params", "parameters", "arguments"];
    let mut n = 0;
    let mut found = false;
    for w in key.split_whitespace() {
        n += 1;
        found |= WORDS.contains(&w);
    }
    found && n <= 6
}

fn heading_level(t: &str) -> Option<usize> {
    let n = t.bytes().take_while(|&b| b == b'#').count();
    (n > 0 && t.as_bytes().get(n) == Some(&b' ')).then_some(n)
}

/// `` `name`: rest `` at the start of a bullet.
fn backticked_head(b: &str) -> Option<(&str, &str)> {
    let inner = b.strip_prefix('`')?;
    let end = inner.find('`')?;
    let rest = inner[end + 1..].strip_prefix(':')?;
    Some((&inner[..end], rest))
}

/// Parameter names on an args line: the backticked words if there are any, else the plain
/// identifier-like words that are not filler.
fn params_on_line(rest: &str) -> Vec<&str> {
    if rest.contains('`') {
        return rest
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|w| param_token_ok(w))
            .collect();
    }
    rest.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !STOPWORDS.contains(&w.to_ascii_lowercase().as_str()))
        .filter(|w| param_token_ok(w))
        .collect()
}

fn param_token_ok(w: &str) -> bool {
    let base = w.find(['[', '{']).map_or(w, |i| &w[..i]);
    !base.is_empty()
        && base.len() <= 128
        && base
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Declares a prose parameter: `name[]` is an array, `name{...}` an object, else any.
fn add_param(tool: &mut Tool, token: &str) {
    if !param_token_ok(token) {
        return;
    }
    let (name, kind) = match token.find(['[', '{']) {
        Some(i) if token.as_bytes()[i] == b'[' => (&token[..i], Kind::Array),
        Some(i) => (&token[..i], Kind::Object),
        None => (token, Kind::Any),
    };
    tool.push_param(Param::new(name.to_owned(), vec![Alt::plain(kind)]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_makes_examples_strict() {
        let block =
            "{\n  ...\n  \"a\": \"x // not a comment\", // a comment\n  \"b\": [1, 2,],\n}\n";
        let v: Value = serde_json::from_str(&clean_example(block)).expect("strict after cleaning");
        assert_eq!(v.to_string(), r#"{"a":"x // not a comment","b":[1,2]}"#);
    }

    #[test]
    fn prose_params() {
        assert_eq!(
            params_on_line(" `message`, optional `title`, `state[]`"),
            ["message", "title", "state[]"]
        );
        assert_eq!(
            params_on_line(" action path (inclusive optional)"),
            ["action", "path"]
        );
    }
}
