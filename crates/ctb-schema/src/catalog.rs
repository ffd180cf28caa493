//! The catalog: tools by name, built from definitions or prompt text, merged by strength.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::kind::{self, Kind};
use crate::tool::{Param, Source, Tool};
use crate::{defs, prompt};

/// The bundled definitions of Agent Zero's built-in tools.
const AGENT_ZERO_JSON: &str = include_str!("../data/agent_zero.json");

/// Catalog text larger than this is refused (bounds the work per input).
pub const MAX_CATALOG_BYTES: usize = 32 * 1024 * 1024;

/// What kind of input a catalog could not be built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CatalogErrorKind {
    /// The text is larger than [`MAX_CATALOG_BYTES`].
    TooLarge,
    /// Neither JSON tool definitions nor prompt text that teaches a tool; or definitions that
    /// list no tool.
    NoTools,
    /// A JSON tool definition that cannot be used (no name, a schema that is not an object).
    BadDefinition,
}

/// An error building a catalog: its kind and a one-line message.
///
/// ```
/// use ctb_schema::{Catalog, CatalogErrorKind};
/// let e = Catalog::from_text("[]").unwrap_err();
/// assert_eq!(e.kind(), CatalogErrorKind::NoTools);
/// let e = Catalog::from_text(r#"[{"name": "x", "input_schema": 5}]"#).unwrap_err();
/// assert_eq!(e.kind(), CatalogErrorKind::BadDefinition);
/// assert!(e.to_string().contains("input_schema"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError {
    kind: CatalogErrorKind,
    message: String,
}

impl CatalogError {
    pub(crate) fn new(kind: CatalogErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The kind of error.
    pub fn kind(&self) -> CatalogErrorKind {
        self.kind
    }
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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
    /// Listed under the same name in another case, and no other name matches that way
    /// (`Bash` for `bash`); the request should use the listed name.
    Folded,
}

impl Match {
    /// A short lowercase name (`"exact"`, `"base"`, `"merged"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "exact",
            Match::Base => "base",
            Match::Merged => "merged",
            Match::Folded => "folded",
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
    /// Lowercased names: the tool, or `None` when several names fold to it.
    folded: HashMap<String, Option<usize>>,
    merged: Vec<Tool>,
    merged_index: HashMap<String, usize>,
    /// Whether `tool:method` names reach a listed tool (Agent Zero dispatches them to the
    /// tool's method): true for Agent Zero's catalogs, false for a client's JSON definitions,
    /// whose names are exactly the tools it offers.
    methods: bool,
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
            .get_or_init(|| {
                Catalog::from_text(AGENT_ZERO_JSON)
                    .unwrap_or_default()
                    .with_methods(true)
            })
            .clone()
    }

    /// The same catalog, where `tool:method` names reach a listed `tool` when `methods` (Agent
    /// Zero's dispatch), or only names it lists (a client's tools).
    #[must_use]
    pub fn with_methods(mut self, methods: bool) -> Self {
        self.methods = methods;
        self
    }

    /// Whether `tool:method` names reach a listed tool ([`Catalog::with_methods`]).
    pub fn methods(&self) -> bool {
        self.methods
    }

    /// Reads JSON tool definitions or Agent Zero prompt text, told apart by content (see the
    /// crate documentation).
    pub fn from_text(text: &str) -> Result<Self, CatalogError> {
        if text.len() > MAX_CATALOG_BYTES {
            return Err(CatalogError::new(
                CatalogErrorKind::TooLarge,
                format!("catalog text is larger than {MAX_CATALOG_BYTES} bytes"),
            ));
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
        // Agent Zero's prompt text: its tools take `tool:method` names.
        let tools = prompt::tools_from_prompt(text);
        if tools.is_empty() {
            return Err(CatalogError::new(
                CatalogErrorKind::NoTools,
                match json_error {
                    Some(e) => format!(
                        "no tools found: not valid JSON ({e}) and no Agent Zero tool prompt"
                    ),
                    None => {
                        "no tools found: no JSON tool definitions, usage examples or MCP schemas"
                            .to_owned()
                    }
                },
            ));
        }
        Ok(Self::from_tools(tools).with_methods(true))
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
        self.methods |= other.methods;
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
        if let Some((base, _)) = name.split_once(':').filter(|_| self.methods) {
            if let Some(tool) = self.get_merged(base) {
                return Some(Lookup {
                    tool,
                    how: Match::Merged,
                });
            }
            if let Some(tool) = self.get_exact(base) {
                return Some(Lookup {
                    tool,
                    how: Match::Base,
                });
            }
        }
        self.get_folded(name)
    }

    /// The one listed tool whose name equals `name` ignoring case.
    fn get_folded(&self, name: &str) -> Option<Lookup<'_>> {
        let i = (*self.folded.get(&name.to_lowercase())?)?;
        self.tools.get(i).map(|tool| Lookup {
            tool,
            how: Match::Folded,
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
                let at = self.tools.len();
                self.index.insert(tool.name.clone(), at);
                self.folded
                    .entry(tool.name.to_lowercase())
                    .and_modify(|slot| *slot = None)
                    .or_insert(Some(at));
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
