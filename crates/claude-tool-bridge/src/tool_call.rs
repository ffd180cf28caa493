//! The host-neutral call: what the bridge read and accepted, in no host's request format.
//! Every host's request is rendered from it (Agent Zero's in [`crate::request`], the LiteLLM
//! callback's `tool_calls` in Python).

use std::ops::Range;

use ctb_invoke::{Family, Form};
use serde::Serialize;
use serde_json::{Map, Value};

/// A tool call read from a reply, in no host's request format: the form and family it was
/// written in, the tool, the arguments typed by the catalog, the prose before it and where it
/// is. [`first_call`](crate::first_call) returns one; a translated [`Decision`](crate::Decision)
/// carries the one it rests on ([`Decision::call`](crate::Decision::call)), and
/// [`ToolCall::agent_zero_request`] renders Agent Zero's request from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The markup form the call was written in.
    #[serde(serialize_with = "form_code")]
    pub form: Form,
    /// The family that writes that form.
    #[serde(serialize_with = "family_code")]
    pub family: Family,
    /// The tool name: as written, or as the catalog lists it when the model wrote it in another
    /// case.
    pub name: String,
    /// The arguments, typed by the tool's schema (a value stays text unless the schema, or a
    /// JSON form's own typing, says otherwise). `thoughts` and `headline` written as
    /// arguments of a tool that does not declare them are not included: they are
    /// [`ToolCall::thoughts`] and [`ToolCall::headline`].
    pub arguments: Map<String, Value>,
    /// The text before the call as written (a residue word and trailing white space excluded;
    /// a form's framing tokens stay: [`Form::unframe`] gives the words alone).
    pub prose: String,
    /// The call's bytes in the text decided on (a wrapper's closing tag, if any, is after it).
    /// For a reply a stop cut at the end of its call, the call runs to the reply's end.
    pub span: Range<usize>,
    /// What the model wrote as a `thoughts` argument of a tool that does not declare one, in
    /// order: a JSON array's strings, or the argument's non-blank lines.
    pub thoughts: Vec<String>,
    /// The first non-blank `headline` argument the model wrote for a tool that does not
    /// declare one, trimmed.
    pub headline: Option<String>,
}

fn family_code<S: serde::Serializer>(family: &Family, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(family.code())
}

fn form_code<S: serde::Serializer>(form: &Form, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(form.code())
}
