//! The stateless entry points: one reply in, one decision (or the call alone) out, by the
//! policy ([`crate::policy`]) over the reply's one reading.

use crate::policy::{Refused, accepted_call, analyse, guarded, read};
use crate::{Catalog, Context, Decision, Reason, ToolCall};

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

/// The first call of `reply`, by the rules [`translate`] follows (a quoted, unfinished or
/// unknown call, one without arguments or missing a required one, is not a call; the
/// [`Reason`] says why), without the Agent Zero request shape: for harnesses that want the
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
    accepted_call(&read(reply, context), catalog, context).map_err(|r: Refused| r.reason)
}
