//! Tool catalogs and schema-driven typing of call arguments.
//!
//! A [`Catalog`] is built from JSON tool definitions (Anthropic / MCP / OpenAI shapes) or from
//! Agent Zero prompt text (usage examples in fences, MCP "Input schema for tool_args:"
//! sections, tool headings), or taken from the bundled [`Catalog::agent_zero`]. A [`Tool`] then
//! turns the raw text a model wrote between parameter tags into JSON values of the types the
//! schema (or, failing that, the examples) asks for, and nothing else: a string parameter stays
//! a string byte for byte.
//!
//! ```
//! use ctb_schema::Catalog;
//!
//! let catalog = Catalog::agent_zero();
//! let tool = catalog.get("code_execution_tool").expect("bundled");
//! let args = tool
//!     .type_args([("runtime", "terminal"), ("session", " 0 "), ("reset", "false"), ("code", "echo 123")])
//!     .expect("valid");
//! assert_eq!(
//!     serde_json::Value::Object(args).to_string(),
//!     r#"{"runtime":"terminal","session":0,"reset":false,"code":"echo 123"}"#
//! );
//! ```
//!
//! # Catalog input
//!
//! [`Catalog::from_text`] tells the two formats apart by content: text that parses as strict
//! JSON and is an array or an object without a `tool_name` key is read as tool definitions (a
//! lone request object teaches its one tool); everything else as Agent Zero prompt text.
//!
//! * Definitions: an array of `{"name", "description"?, "input_schema"}` (also `inputSchema`
//!   and `parameters`), `{"tools": [...]}`, an MCP `{"result": {"tools": [...]}}`, OpenAI
//!   `{"type": "function", "function": {"name", "parameters"}}` entries, Agent Zero's MCP
//!   listing `{"server.tool": {...}}`, or a single definition object. An entry without a name
//!   is an error.
//! * Prompt text, read line by line:
//!   - every ```` ``` ```` / `~~~` fence whose info string starts with `json` and holds a
//!     request (`"tool_name"`, `"tool_args"`) teaches that tool and the kinds of its example
//!     values (`"..."` is a string like any other; `null` teaches nothing). Examples are read
//!     strictly, then with `...` lines, `//` comments and trailing commas removed, then with
//!     `ctb_json::parse`. Placeholder names such as `name_of_tool` are ignored;
//!   - every line holding "Input schema for tool_args:" (Agent Zero's MCP section) is followed
//!     by a JSON Schema (or nothing: no declared parameters); the tool is named by the
//!     `"tool_name"` of the usage block after it, else by the last heading before it;
//!   - a `### name` heading whose section has an arguments line (`args:`, `common args:`, any
//!     label of at most six words holding `args`/`arg`/`params`/`parameters`/`arguments`) or an
//!     `actions:`/`methods:` line, and a bullet `` - `name`: args ... `` or
//!     `` - `tool:method`: ... ``, declare a tool from prose. Its parameters are the names on
//!     the arguments line (backticked ones if any, else plain identifiers), or the backticked
//!     heads of the bullets under a bare `args:` line; they are untyped except `name[]`
//!     (array) and `name{..}` (object).
//!
//!   Prompt text that teaches no tool is an error.
//!
//! # Merging
//!
//! Definitions of one name are merged by strength ([`Source`]: schema > examples > prose). The
//! stronger keeps its types, `required` and description and gains the typed parameters only
//! the weaker one declares (untyped prose names add nothing). Between two schemas the later wins outright; two example-learned (or
//! prose) definitions are united: a parameter seen with several kinds accepts all of them,
//! structured kinds tried before strings.
//!
//! # Lookup
//!
//! [`Catalog::get`] / [`Catalog::lookup`]: the exact name first. A `tool:method` name that is
//! not listed falls back to the base tool `tool` ([`Match::Base`]). When `tool:method` entries
//! exist and `tool` is not listed (or is known from prose only), `tool` and unlisted
//! `tool:other` names resolve to a tool merged from all of them plus a string `action`
//! parameter, with nothing required ([`Match::Merged`]; Agent Zero 2.6 passes the method as
//! `action`). Names are case-sensitive; MCP `server.tool` names have no fallback.
//!
//! # Bundled catalog
//!
//! `data/agent_zero.json` describes Agent Zero's built-in tools (both the `tool:method` names of
//! 1.x and the `action` style of 2.6), typed after the tools' prompts and code. It requires
//! only what a tool cannot run without: `code` for `code_execution_tool` when `runtime` is
//! `terminal`, `python` or `nodejs` (the tool reads it unconditionally then). Every other
//! missing argument is left to the tool, which answers with its own message.
//!
//! # Typing rules ([`Tool::type_args`], raw text)
//!
//! * A declared parameter is converted only to the kinds its schema lists, tried in order
//!   (`type` arrays, `anyOf`/`oneOf` branches, `$ref` followed, `allOf` gives its first typed
//!   part, `enum`/`const` without `type` give the kinds of their values, `nullable: true` adds
//!   null). Undeclared parameters and parameters without a type stay strings.
//! * `string`: the raw text exactly, never trimmed (`"123"`, `"007"`, `{"a": 1}` stay text).
//! * Other kinds trim surrounding whitespace first. `integer`: optional sign, digits, and an
//!   optional all-zero fraction (`+7`, `007` and `3.0` become `7`, `7`, `3`); `number`: decimal
//!   with optional fraction and exponent (`.5` and `5.` allowed); both are built from the digit
//!   text, so big numbers keep every digit. `boolean`: `true`/`false` in any ASCII case, or
//!   `1`/`0`. `null`: `null` or empty. `array`/`object`: the trimmed text must start and end
//!   with the brackets (`[`..`]`, `{`..`}`) and is read with `ctb_json::parse` (tolerant); the
//!   result must be of that kind. Items and properties are not typed further.
//! * `enum`/`const`: the value must be listed (numbers compare by value); a string matching a
//!   listed string only after trimming and ignoring ASCII case becomes the listed string.
//! * A value no listed kind accepts is a [`TypeError::Mismatch`]: the caller leaves the call
//!   alone. A repeated parameter keeps its first value.
//!
//! # Typing rules ([`Tool::type_json_args`], JSON values)
//!
//! A value that already has a listed kind is kept (integral numbers normalised for
//! `integer`); otherwise the listed kinds are tried in order: a string is read by the raw-text
//! rules, a number or boolean becomes its JSON text for `string`, `0`/`1` become booleans;
//! anything else is a mismatch. Undeclared parameters are kept as they are.
//!
//! # Required parameters
//!
//! Typing never checks them: the caller merges all arguments and then asks
//! [`Tool::missing_required`] (or [`Tool::check_required`]), which also honours simple
//! conditional requirements (`if: {properties: {P: {enum|const}}}, then: {required}`, at the
//! top or in `allOf`). Tools learned from examples or prose require nothing.

mod defs;
mod kind;
mod prompt;
mod schema;
mod tool;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use kind::Kind;
pub use tool::{Param, Source, Tool, TypeError};

/// The bundled definitions of Agent Zero's built-in tools.
const AGENT_ZERO_JSON: &str = include_str!("../data/agent_zero.json");

/// Catalog text larger than this is refused (bounds the work per input).
pub const MAX_CATALOG_BYTES: usize = 32 * 1024 * 1024;

/// An error building a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError(pub String);

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CatalogError {}

/// How [`Catalog::lookup`] found a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Match {
    /// The name is listed as written.
    Exact,
    /// `tool:method` is not listed; the base tool `tool` is.
    Base,
    /// Only `name:method` tools are listed; the tool is merged from them.
    Merged,
}

impl Match {
    /// A short lowercase name (`"exact"`, `"base"`, `"merged"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "exact",
            Match::Base => "base",
            Match::Merged => "merged",
        }
    }
}

/// A tool found by [`Catalog::lookup`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lookup<'a> {
    /// The definition used.
    pub tool: &'a Tool,
    /// How it was found.
    pub how: Match,
}

/// A set of tools, looked up by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    merged: Vec<Tool>,
    merged_index: HashMap<String, usize>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Agent Zero's built-in tools, bundled with the crate (`data/agent_zero.json`).
    pub fn agent_zero() -> Self {
        static BUNDLED: OnceLock<Catalog> = OnceLock::new();
        BUNDLED
            .get_or_init(|| Catalog::from_text(AGENT_ZERO_JSON).unwrap_or_default())
            .clone()
    }

    /// Reads JSON tool definitions or Agent Zero prompt text, told apart by content (see the
    /// crate documentation).
    pub fn from_text(text: &str) -> Result<Self, CatalogError> {
        if text.len() > MAX_CATALOG_BYTES {
            return Err(CatalogError(format!(
                "catalog text is larger than {MAX_CATALOG_BYTES} bytes"
            )));
        }
        let body = text.trim_start_matches('\u{feff}').trim();
        let mut json_error = None;
        if body.starts_with('[') || body.starts_with('{') {
            // Definitions are machine-written: they must be strict JSON. A document that is
            // not may still be prompt text that happens to start with a brace.
            match serde_json::from_str::<serde_json::Value>(body) {
                Ok(v) if defs::looks_like_defs(&v) => {
                    return Ok(Self::from_tools(defs::tools_from_json(&v)?));
                }
                Ok(v) => {
                    if let Some(tool) = prompt::tool_from_request(&v) {
                        return Ok(Self::from_tools([tool]));
                    }
                }
                Err(e) => json_error = Some(e),
            }
        }
        let tools = prompt::tools_from_prompt(text);
        if tools.is_empty() {
            return Err(CatalogError(match json_error {
                Some(e) => {
                    format!("no tools found: not valid JSON ({e}) and no Agent Zero tool prompt")
                }
                None => "no tools found: no JSON tool definitions, usage examples or MCP schemas"
                    .to_owned(),
            }));
        }
        Ok(Self::from_tools(tools))
    }

    /// A catalog of the given tools, merged by name as [`Catalog::insert`] does.
    pub fn from_tools(tools: impl IntoIterator<Item = Tool>) -> Self {
        let mut c = Catalog::new();
        for t in tools {
            c.insert_one(t);
        }
        c.rebuild_merged();
        c
    }

    /// Adds one tool, merging it with a definition of the same name (see the crate docs).
    pub fn insert(&mut self, tool: Tool) {
        self.insert_one(tool);
        self.rebuild_merged();
    }

    /// Adds every tool of `other`, merging same names as [`Catalog::insert`] does (between two
    /// schemas, the later definition replaces the earlier one).
    pub fn extend(&mut self, other: Catalog) {
        for t in other.tools {
            self.insert_one(t);
        }
        self.rebuild_merged();
    }

    /// Looks up a tool by the name the model wrote, with the `tool:method` fallbacks.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.lookup(name).map(|l| l.tool)
    }

    /// Looks up a tool and tells how it was found.
    pub fn lookup(&self, name: &str) -> Option<Lookup<'_>> {
        // Merged tools are keyed by base names (no `:`), so they never hide a listed method.
        if let Some(tool) = self.get_merged(name) {
            return Some(Lookup {
                tool,
                how: Match::Merged,
            });
        }
        if let Some(tool) = self.get_exact(name) {
            return Some(Lookup {
                tool,
                how: Match::Exact,
            });
        }
        let (base, _) = name.split_once(':')?;
        if let Some(tool) = self.get_merged(base) {
            return Some(Lookup {
                tool,
                how: Match::Merged,
            });
        }
        self.get_exact(base).map(|tool| Lookup {
            tool,
            how: Match::Base,
        })
    }

    fn get_merged(&self, name: &str) -> Option<&Tool> {
        self.merged_index
            .get(name)
            .and_then(|&i| self.merged.get(i))
    }

    /// The tool listed under exactly this name.
    pub fn get_exact(&self, name: &str) -> Option<&Tool> {
        self.index.get(name).and_then(|&i| self.tools.get(i))
    }

    /// Whether [`Catalog::get`] finds the name.
    pub fn contains(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// The listed tools, in order of first definition.
    pub fn iter(&self) -> std::slice::Iter<'_, Tool> {
        self.tools.iter()
    }

    /// The listed names, in order of first definition.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools.iter().map(|t| t.name.as_str())
    }

    /// Number of listed tools (merged `tool:method` bases are not counted).
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the catalog has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    fn insert_one(&mut self, tool: Tool) {
        match self
            .index
            .get(&tool.name)
            .and_then(|&i| self.tools.get_mut(i))
        {
            Some(old) => merge(old, tool),
            None => {
                self.index.insert(tool.name.clone(), self.tools.len());
                self.tools.push(tool);
            }
        }
    }

    fn rebuild_merged(&mut self) {
        self.merged.clear();
        self.merged_index.clear();
        for t in &self.tools {
            let Some((base, _)) = t.name.split_once(':') else {
                continue;
            };
            let listed = self.get_exact(base);
            if base.is_empty() || listed.is_some_and(|b| b.source != Source::Prose) {
                continue;
            }
            let i = match self.merged_index.get(base) {
                Some(&i) => i,
                None => {
                    let mut m = listed.cloned().unwrap_or_else(|| Tool::new(base));
                    m.source = listed.map_or(t.source, |b| b.source);
                    m.required.clear();
                    m.conditions.clear();
                    if m.param("action").is_none() {
                        m.push_param(Param::new(
                            "action".to_owned(),
                            vec![kind::Alt::plain(Kind::String)],
                        ));
                    }
                    self.merged_index.insert(base.to_owned(), self.merged.len());
                    self.merged.push(m);
                    self.merged.len() - 1
                }
            };
            if let Some(m) = self.merged.get_mut(i) {
                m.source = m.source.min(t.source);
                for p in t.params() {
                    match m.param_mut(p.name()) {
                        Some(mp) => mp.merge_learned(p),
                        None => m.push_param(p.clone()),
                    }
                }
            }
        }
    }
}

impl<'a> IntoIterator for &'a Catalog {
    type Item = &'a Tool;
    type IntoIter = std::slice::Iter<'a, Tool>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Merges `new` into `old` (same name) by strength; see the crate docs.
fn merge(old: &mut Tool, new: Tool) {
    use std::cmp::Ordering;
    match new.source.cmp(&old.source) {
        Ordering::Equal if new.source == Source::Schema => *old = new,
        Ordering::Equal => {
            for p in new.params() {
                match old.param_mut(p.name()) {
                    Some(op) => op.merge_learned(p),
                    None => old.push_param(p.clone()),
                }
            }
            if old.description.is_none() {
                old.description = new.description;
            }
        }
        Ordering::Greater => {
            let weaker = std::mem::replace(old, new);
            fill_gaps(old, &weaker);
        }
        Ordering::Less => fill_gaps(old, &new),
    }
}

/// Adds the parameters only `weaker` declares; untyped ones add nothing and are skipped.
fn fill_gaps(stronger: &mut Tool, weaker: &Tool) {
    for p in weaker.params() {
        if stronger.param(p.name()).is_none() && p.kinds().any(|k| k != Kind::Any) {
            stronger.push_param(p.clone());
        }
    }
    if stronger.description.is_none() {
        stronger.description.clone_from(&weaker.description);
    }
}
