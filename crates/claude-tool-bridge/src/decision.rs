//! What the bridge decided about one reply.

use ctb_invoke::Form;
use serde::Serialize;

use crate::tool_call::ToolCall;

/// The kind of decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The reply was rewritten into a JSON tool request.
    Translated,
    /// A prose answer was sent through the `response` tool.
    Prose,
    /// The reply should be thrown away and the turn asked again.
    Discard,
    /// The reply goes to Agent Zero as it is.
    Untouched,
}

impl Outcome {
    /// The snake_case code (`translated`, `prose`, `discard`, `untouched`), as printed by `ctb`
    /// and returned to Python.
    pub fn code(self) -> &'static str {
        match self {
            Self::Translated => "translated",
            Self::Prose => "prose",
            Self::Discard => "discard",
            Self::Untouched => "untouched",
        }
    }
}

/// Why the bridge decided what it did: a short, stable, machine-readable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reason {
    /// A native call was translated.
    Translated,
    /// A stopped reply's half closing tag was completed, then the call translated.
    CompletedAfterStop,
    /// No native call and nothing else to do.
    NoCall,
    /// The reply already holds a JSON tool request.
    JsonRequestPresent,
    /// The only call is quoted: in code, raw HTML, invented results, a JSON string, a block
    /// quote, a broken call's value, the middle of a line, or in a form the model does not
    /// write.
    Quoted,
    /// The call is copied from what the agent received (a tool result, a fetched page): the
    /// model is quoting it.
    Echoed,
    /// The call is cut off (no closing tag).
    Incomplete,
    /// The tool is not in the catalog.
    UnknownTool,
    /// A required argument is missing.
    MissingArgument,
    /// An argument cannot be converted to its schema type.
    BadArgument,
    /// The call has no arguments.
    NoArguments,
    /// The chat model is not covered by the configuration.
    ModelNotCovered,
    /// Something inside the bridge failed; nothing was changed.
    InternalError,
    /// The reply is too large to inspect (hard cap on work per reply).
    TooLarge,
    /// A prose answer was sent through `response`.
    Prose,
    /// A degenerate loop: discard and ask again.
    Loop,
    /// Stopped at the end of a call that turned out unusable: ask again without stops.
    StoppedWithoutCall,
    /// A call was cut inside a parameter by a stop string: ask again without stops.
    CutInsideParameter,
    /// Two replies were discarded in a row already; this one goes through.
    DiscardLimit,
}

impl Reason {
    /// The snake_case code, as printed by `ctb` and returned to Python.
    pub fn code(self) -> &'static str {
        match self {
            Self::Translated => "translated",
            Self::CompletedAfterStop => "completed_after_stop",
            Self::NoCall => "no_call",
            Self::JsonRequestPresent => "json_request_present",
            Self::Quoted => "quoted",
            Self::Echoed => "echoed",
            Self::Incomplete => "incomplete",
            Self::UnknownTool => "unknown_tool",
            Self::MissingArgument => "missing_argument",
            Self::BadArgument => "bad_argument",
            Self::NoArguments => "no_arguments",
            Self::ModelNotCovered => "model_not_covered",
            Self::InternalError => "internal_error",
            Self::TooLarge => "too_large",
            Self::Prose => "prose",
            Self::Loop => "loop",
            Self::StoppedWithoutCall => "stopped_without_call",
            Self::CutInsideParameter => "cut_inside_parameter",
            Self::DiscardLimit => "discard_limit",
        }
    }
}

/// What to do with one reply.
///
/// A translation carries the host-neutral [`ToolCall`] it rests on ([`Decision::call`]) and
/// Agent Zero's request rendered from it ([`Decision::request`], and as text in
/// [`Decision::reply`]); a host of its own (an API's `tool_calls`, say) reads the call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The kind of decision.
    pub outcome: Outcome,
    /// The exact text Agent Zero should see (the original reply when untouched).
    pub reply: String,
    /// Agent Zero's tool request, when one was produced: rendered from [`Decision::call`] for
    /// a translation ([`ToolCall::agent_zero_request`]), the `response` request for a prose
    /// answer.
    pub request: Option<serde_json::Value>,
    /// Why.
    pub reason: Reason,
    /// For a discard: ask again with the stop strings off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub retry_without_stops: bool,
    /// For a translation: the markup form the call was written in (its owner is
    /// [`Form::family`]).
    #[deprecated(
        since = "0.1.0",
        note = "read `call`: `decision.call.as_ref().map(|c| c.form)`"
    )]
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "form_code")]
    pub form: Option<Form>,
    /// For a translation: the text before the call as written (a residue word and the white
    /// space before the call excluded), for hosts that show it beside the call. A form's
    /// framing tokens (gpt-oss's channel headers, say) stay, so that text a host released as
    /// it arrived is always the start of it; [`Form::unframe`] gives the words alone.
    #[deprecated(
        since = "0.1.0",
        note = "read `call`: `decision.call.as_ref().map(|c| &c.prose)`"
    )]
    #[serde(skip)]
    pub prose: Option<String>,
    /// For a translation: the call, in no host's format (form, family, tool, typed
    /// arguments, the prose before it, where it is). `None` for every other outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<ToolCall>,
}

fn form_code<S: serde::Serializer>(form: &Option<Form>, s: S) -> Result<S::Ok, S::Error> {
    match form {
        Some(f) => s.serialize_str(f.code()),
        None => s.serialize_none(),
    }
}

impl Decision {
    /// A decision that leaves `reply` as it is.
    #[allow(deprecated)] // the older fields stay filled for their readers
    pub fn untouched(reply: &str, reason: Reason) -> Self {
        Self {
            outcome: Outcome::Untouched,
            reply: reply.to_owned(),
            request: None,
            reason,
            retry_without_stops: false,
            form: None,
            prose: None,
            call: None,
        }
    }

    /// A decision that asks for `reply` to be dropped and the turn asked again.
    #[allow(deprecated)]
    pub(crate) fn discard(reply: &str, reason: Reason, retry_without_stops: bool) -> Self {
        Self {
            outcome: Outcome::Discard,
            retry_without_stops,
            ..Self::untouched(reply, reason)
        }
    }

    /// A prose answer sent as Agent Zero's `request` (the `response` tool), rendered as
    /// `reply`.
    #[allow(deprecated)]
    pub(crate) fn prose_answer(reply: String, request: serde_json::Value) -> Self {
        Self {
            outcome: Outcome::Prose,
            reply,
            request: Some(request),
            reason: Reason::Prose,
            retry_without_stops: false,
            form: None,
            prose: None,
            call: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Outcome, Reason};

    #[test]
    fn codes_are_the_serialized_names() {
        for o in [
            Outcome::Translated,
            Outcome::Prose,
            Outcome::Discard,
            Outcome::Untouched,
        ] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.code());
        }
        for r in [
            Reason::Translated,
            Reason::CompletedAfterStop,
            Reason::JsonRequestPresent,
            Reason::DiscardLimit,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.code());
        }
    }
}
