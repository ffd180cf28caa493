//! The first call of a reply as a plain value, for hosts other than Agent Zero.

use std::ops::Range;

use ctb_invoke::{Family, Form, Found, NoCall};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::arguments::build_call;
use crate::reading::Reading;
use crate::{Catalog, Context, Reason};

/// A tool call read from a reply, in no host's request format: the family it was written in,
/// the tool, the arguments typed by the catalog, the prose before it and where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// arguments of a tool that does not declare them are not included.
    pub arguments: Map<String, Value>,
    /// The text before the call as written (a residue word and trailing white space excluded;
    /// a form's framing tokens stay: [`Form::unframe`] gives the words alone).
    pub prose: String,
    /// The call's bytes in the reply (a wrapper's closing tag, if any, is after it).
    pub span: Range<usize>,
}

fn family_code<S: serde::Serializer>(family: &Family, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(family.code())
}

fn form_code<S: serde::Serializer>(form: &Form, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(form.code())
}

/// The first call of `reply`, by the rules [`translate`](crate::translate) follows (a quoted,
/// unfinished or unknown call, one without arguments or missing a required one, is not a call;
/// the [`Reason`] says why), without the Agent Zero request shape: for harnesses that want the
/// parser and typing only. A JSON request elsewhere in the reply does not matter here.
///
/// ```
/// use claude_tool_bridge::{Catalog, first_call};
///
/// let reply = "Checking.\n<tool_call>\n<function=memory_load>\n<parameter=query>\nvpn\n</parameter>\n\
///              <parameter=limit>\n3\n</parameter>\n</function>\n</tool_call>";
/// let call = first_call(reply, &Catalog::agent_zero()).unwrap();
/// assert_eq!(call.form.code(), "qwen3_coder");
/// assert_eq!(call.family.code(), "qwen");
/// assert_eq!(call.name, "memory_load");
/// assert_eq!(call.arguments["limit"], 3);
/// assert_eq!(call.prose, "Checking.");
/// ```
pub fn first_call(reply: &str, catalog: &Catalog) -> Result<ToolCall, Reason> {
    first_call_with(reply, catalog, &Context::default())
}

/// [`first_call`] in a [`Context`]: only the forms the model writes are calls, and a call
/// copied from what the agent received is not one ([`Reason::Echoed`]).
pub fn first_call_with(
    reply: &str,
    catalog: &Catalog,
    context: &Context,
) -> Result<ToolCall, Reason> {
    let reading = Reading::new(reply, context.scanner(), false).with_call_ending_reasoning(context);
    let whole = !reading.windowed();
    let call = match &reading.found {
        Found::Call(call) => call,
        Found::Incomplete { .. } if whole => return Err(Reason::Incomplete),
        Found::Nothing(NoCall::Quoted) if whole => return Err(Reason::Quoted),
        Found::Nothing(NoCall::NoTags) if whole => return Err(Reason::NoCall),
        _ => return Err(Reason::TooLarge),
    };
    if context.echoed(reply, call) {
        return Err(Reason::Echoed);
    }
    let built = build_call(reply, call, catalog)?;
    Ok(ToolCall {
        form: call.form,
        family: call.form.family(),
        name: built.tool,
        arguments: built.args,
        prose: reply[..call.prose_end].to_owned(),
        span: call.start..call.end,
    })
}
