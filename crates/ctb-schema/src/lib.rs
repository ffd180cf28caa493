//! Tool catalogs and schema-driven typing of call arguments.
//!
//! STUB: replaced by the real implementation; the public API below is the contract.

use serde_json::{Map, Value};

/// An error building a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError(pub String);

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CatalogError {}

/// Why arguments could not be typed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TypeError {
    /// A value does not convert to the type the schema asks for.
    Mismatch {
        /// Parameter name.
        param: String,
        /// What the schema wanted, e.g. "integer".
        expected: String,
    },
    /// A required parameter is absent.
    MissingRequired {
        /// Parameter name.
        param: String,
    },
}

/// One tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Name as the model writes it (`text_editor:read`, `server.tool`).
    pub name: String,
}

impl Tool {
    /// Types raw parameter values (as written between tags) by this tool's schema.
    pub fn type_args<'a>(
        &self,
        args: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Map<String, Value>, TypeError> {
        Ok(args
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
            .collect())
    }
    /// Types values that already are JSON (from a `tool_args` object) by this tool's schema.
    pub fn type_json_args(
        &self,
        args: Map<String, Value>,
    ) -> Result<Map<String, Value>, TypeError> {
        Ok(args)
    }
}

/// A set of tools, looked up by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    tools: Vec<Tool>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }
    /// Agent Zero's built-in tools, bundled with the crate.
    pub fn agent_zero() -> Self {
        Self::default()
    }
    /// Reads JSON tool definitions or Agent Zero prompt text, told apart by content.
    pub fn from_text(_text: &str) -> Result<Self, CatalogError> {
        Ok(Self::default())
    }
    /// Adds every tool of `other` (a later definition of a name replaces an earlier one).
    pub fn extend(&mut self, other: Catalog) {
        self.tools.extend(other.tools);
    }
    /// Looks up a tool by the name the model wrote.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }
    /// Whether the catalog has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}
