//! One tool: its parameters, what it requires, and the typing of call arguments.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::kind::{Alt, Kind, matches_any};

/// Where a tool's definition came from, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// Learned from prose only: a tool heading or bullet and the parameter names it lists.
    /// Every parameter is a string.
    Prose,
    /// Learned from usage examples: parameter types are the types of the example values.
    Examples,
    /// A JSON Schema (JSON tool definitions, an MCP section, or the bundled catalog).
    Schema,
}

impl Source {
    /// A short lowercase name (`"schema"`, `"examples"`, `"prose"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Prose => "prose",
            Source::Examples => "examples",
            Source::Schema => "schema",
        }
    }
}

/// Why arguments could not be typed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TypeError {
    /// A value does not convert to the type the schema asks for.
    Mismatch {
        /// Parameter name.
        param: String,
        /// What the schema wanted, e.g. "integer" or "integer|null".
        expected: String,
    },
}

impl std::fmt::Display for TypeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TypeError::Mismatch { param, expected } => {
                write!(f, "parameter `{param}` is not a valid {expected}")
            }
        }
    }
}

impl std::error::Error for TypeError {}

/// One declared parameter of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    name: String,
    alts: Vec<Alt>,
}

impl Param {
    pub(crate) fn new(name: String, alts: Vec<Alt>) -> Self {
        let alts = if alts.is_empty() {
            vec![Alt::plain(Kind::Any)]
        } else {
            alts
        };
        Param { name, alts }
    }

    /// The parameter name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The accepted kinds, in the order they are tried.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.alts.iter().map(|a| a.kind)
    }

    /// The alternatives in the order they are tried: each kind with the only values it allows
    /// (`enum` / `const`), if any.
    pub fn alternatives(&self) -> impl Iterator<Item = (Kind, Option<&[Value]>)> + '_ {
        self.alts.iter().map(|a| (a.kind, a.allowed.as_deref()))
    }

    /// The values allowed for the first alternative that lists any (`enum` / `const`).
    pub fn allowed(&self) -> Option<&[Value]> {
        self.alts.iter().find_map(|a| a.allowed.as_deref())
    }

    /// The expected type as text: kinds joined by `|`, e.g. `integer|null`.
    pub fn expected(&self) -> String {
        let mut out = String::new();
        for (i, a) in self.alts.iter().enumerate() {
            if i > 0 {
                out.push('|');
            }
            out.push_str(a.kind.as_str());
        }
        out
    }

    /// Adds alternatives learned from another example; strings go last so structured kinds
    /// are tried first.
    pub(crate) fn merge_learned(&mut self, other: &Param) {
        for alt in &other.alts {
            if !self.alts.iter().any(|a| a.kind == alt.kind) {
                self.alts.push(alt.clone());
            }
        }
        if self.alts.len() > 1 {
            self.alts.retain(|a| a.kind != Kind::Any);
            self.alts
                .sort_by_key(|a| matches!(a.kind, Kind::String | Kind::Any));
        }
    }

    /// Types raw text written between tags.
    pub fn type_raw(&self, raw: &str) -> Result<Value, TypeError> {
        self.alts
            .iter()
            .find_map(|a| a.type_raw(raw))
            .ok_or_else(|| self.mismatch())
    }

    /// Types a value that already is JSON: a value of a listed kind is kept (first pass), else
    /// it is converted to the first listed kind that accepts it.
    pub fn type_json(&self, value: &Value) -> Result<Value, TypeError> {
        self.alts
            .iter()
            .find_map(|a| a.keep_json(value))
            .or_else(|| self.alts.iter().find_map(|a| a.convert_json(value)))
            .ok_or_else(|| self.mismatch())
    }

    fn mismatch(&self) -> TypeError {
        TypeError::Mismatch {
            param: self.name.clone(),
            expected: self.expected(),
        }
    }
}

/// "When `param` has one of `values`, these parameters are required too" (from a JSON Schema
/// `if`/`then`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Condition {
    pub(crate) param: String,
    pub(crate) values: Vec<Value>,
    pub(crate) then_required: Vec<String>,
}

/// One tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Name as the model writes it (`text_editor:read`, `server.tool`).
    pub name: String,
    pub(crate) description: Option<String>,
    params: Vec<Param>,
    index: HashMap<String, usize>,
    pub(crate) required: Vec<String>,
    pub(crate) conditions: Vec<Condition>,
    pub(crate) source: Source,
}

impl Tool {
    /// A tool with no declared parameters: every argument passes through as a string.
    pub fn new(name: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            description: None,
            params: Vec::new(),
            index: HashMap::new(),
            required: Vec::new(),
            conditions: Vec::new(),
            source: Source::Prose,
        }
    }

    /// The description, when the definition had one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Where the definition came from.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The declared parameters, in declaration order.
    pub fn params(&self) -> impl Iterator<Item = &Param> + '_ {
        self.params.iter()
    }

    /// One declared parameter.
    pub fn param(&self, name: &str) -> Option<&Param> {
        // Names are unique ([`Tool::push_param`]); a few are compared faster than one is
        // hashed.
        if self.params.len() <= 8 {
            return self.params.iter().find(|p| p.name == name);
        }
        self.index.get(name).and_then(|&i| self.params.get(i))
    }

    pub(crate) fn param_mut(&mut self, name: &str) -> Option<&mut Param> {
        self.index.get(name).and_then(|&i| self.params.get_mut(i))
    }

    /// Declares a parameter; a name declared twice keeps its first declaration.
    pub(crate) fn push_param(&mut self, param: Param) {
        if !self.index.contains_key(&param.name) {
            self.index.insert(param.name.clone(), self.params.len());
            self.params.push(param);
        }
    }

    /// The parameters that are always required (schema `required`; none for tools learned
    /// from examples or prose).
    pub fn required(&self) -> impl Iterator<Item = &str> + '_ {
        self.required.iter().map(String::as_str)
    }

    /// The first required parameter absent from `args` (the typed arguments of a call), taking
    /// conditional requirements (`if`/`then`) into account. A key that is present counts,
    /// whatever its value.
    pub fn missing_required(&self, args: &Map<String, Value>) -> Option<&str> {
        if let Some(p) = self
            .required
            .iter()
            .find(|p| !args.contains_key(p.as_str()))
        {
            return Some(p);
        }
        self.conditions
            .iter()
            .filter(|c| {
                args.get(&c.param)
                    .is_some_and(|v| matches_any(v, &c.values))
            })
            .flat_map(|c| c.then_required.iter())
            .find(|p| !args.contains_key(p.as_str()))
            .map(String::as_str)
    }

    /// Types one raw value; an undeclared parameter stays a string.
    pub fn type_value(&self, name: &str, raw: &str) -> Result<Value, TypeError> {
        match self.param(name) {
            Some(p) => p.type_raw(raw),
            None => Ok(Value::String(raw.to_owned())),
        }
    }

    /// Types raw parameter values (as written between tags) by this tool's schema.
    ///
    /// Order is kept; a repeated name keeps its first value. Required parameters are not
    /// checked here (see [`Tool::missing_required`]).
    pub fn type_args<'a>(
        &self,
        args: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Map<String, Value>, TypeError> {
        let mut out = Map::new();
        for (name, raw) in args {
            if out.contains_key(name) {
                continue;
            }
            let value = self.type_value(name, raw)?;
            out.insert(name.to_owned(), value);
        }
        Ok(out)
    }

    /// Types values that already are JSON (from a `tool_args` object) by this tool's schema.
    ///
    /// A value of a declared kind is kept; a string is converted when the schema asks for a
    /// non-string kind; a number or boolean becomes its JSON text when the schema asks for a
    /// string; anything else is a [`TypeError::Mismatch`]. Undeclared parameters are kept as
    /// they are. Required parameters are not checked here.
    pub fn type_json_args(
        &self,
        args: Map<String, Value>,
    ) -> Result<Map<String, Value>, TypeError> {
        let mut out = Map::new();
        for (name, value) in args {
            let value = match self.param(&name) {
                Some(p) => p.type_json(&value)?,
                None => value,
            };
            out.insert(name, value);
        }
        Ok(out)
    }
}
