//! The one policy over a reply's reading that both entry points follow: [`translate`]
//! (stateless) and [`Session`](crate::Session) (which adds the turn's rules around it). Which
//! call counts (the first, complete, in the reply's own voice, not copied from what the agent
//! received, usable with the catalog), and when a JSON request around it wins.
//!
//! [`translate`]: crate::translate

use std::panic::{AssertUnwindSafe, catch_unwind};

use ctb_invoke::{Found, NoCall};

use crate::arguments::build_call;
use crate::reading::Reading;
use crate::tool_call::ToolCall;
use crate::{Catalog, Context, Decision, Outcome, Reason, render_request};

/// Runs `f`, turning a panic into "leave `reply` alone" ([`Reason::InternalError`]).
pub(crate) fn guarded(reply: &str, f: impl FnOnce() -> Decision) -> Decision {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Decision::untouched(reply, Reason::InternalError))
}

/// The reading of a whole `reply` in `context` (a call written as the last thing of the
/// reasoning counted, for a family whose models mean it).
pub(crate) fn read<'a>(reply: &'a str, context: &Context) -> Reading<'a> {
    Reading::new(reply, context.scanner(), false).with_call_ending_reasoning(context)
}

/// Why the first call of a reading is not accepted, and what is known of it.
pub(crate) struct Refused {
    pub(crate) reason: Reason,
    /// The first call is unfinished inside a parameter value.
    pub(crate) in_parameter: bool,
    /// Where the first call ends, when it is complete.
    pub(crate) call_end: Option<usize>,
}

impl Refused {
    fn new(reason: Reason) -> Self {
        Self {
            reason,
            in_parameter: false,
            call_end: None,
        }
    }
}

/// The first call of `reading`, when it is complete, not copied from what the agent received
/// and usable with `catalog`, as a host-neutral [`ToolCall`]. Whether a JSON request surrounds
/// it is not asked here.
pub(crate) fn accepted_call(
    reading: &Reading<'_>,
    catalog: &Catalog,
    context: &Context,
) -> Result<ToolCall, Refused> {
    if reading.exact_request {
        // A reply that is exactly one JSON request holds no call (and was not read for one).
        return Err(Refused::new(Reason::NoCall));
    }
    let whole = !reading.windowed();
    let call = match &reading.found {
        Found::Call(call) => call,
        Found::Incomplete { in_parameter, .. } if whole => {
            return Err(Refused {
                in_parameter: *in_parameter,
                ..Refused::new(Reason::Incomplete)
            });
        }
        Found::Nothing(NoCall::Quoted) if whole => return Err(Refused::new(Reason::Quoted)),
        Found::Nothing(NoCall::NoTags) if whole => return Err(Refused::new(Reason::NoCall)),
        _ => return Err(Refused::new(Reason::TooLarge)),
    };
    let refused = |reason| Refused {
        call_end: Some(call.end),
        ..Refused::new(reason)
    };
    // A call copied from what the agent received is the model quoting it.
    if context.echoed(reading.reply, call) {
        return Err(refused(Reason::Echoed));
    }
    build_call(reading.reply, call, catalog).map_err(refused)
}

/// A decision and what led to it.
pub(crate) struct Analysis {
    pub(crate) decision: Decision,
    /// The first call is unfinished inside a parameter value.
    pub(crate) in_parameter: bool,
    /// The first call is complete and makes a request (whether or not a JSON request outside
    /// it takes precedence).
    pub(crate) call_usable: bool,
    /// Where the first call ends, when it is complete (usable or not).
    pub(crate) call_end: Option<usize>,
}

/// Reads `reply` in `context` and decides (see [`decide`]).
pub(crate) fn analyse(reply: &str, catalog: &Catalog, context: &Context) -> Analysis {
    decide(&read(reply, context), catalog, context)
}

/// The stateless decision on a reading: the first call, when it is complete, not copied from
/// what the agent received and makes a request, is translated, unless a JSON request surrounds
/// it; otherwise the reply is left alone with the reason.
pub(crate) fn decide(reading: &Reading<'_>, catalog: &Catalog, context: &Context) -> Analysis {
    let reply = reading.reply;
    if reading.exact_request {
        return Analysis {
            decision: Decision::untouched(reply, Reason::JsonRequestPresent),
            in_parameter: false,
            call_usable: false,
            call_end: None,
        };
    }
    let call = match accepted_call(reading, catalog, context) {
        Ok(call) => call,
        Err(refused) => {
            // Without a call to translate, a JSON request anywhere in the reply is what
            // Agent Zero reads.
            let reason = match refused.reason {
                Reason::Incomplete | Reason::Quoted | Reason::NoCall if reading.json_request() => {
                    Reason::JsonRequestPresent
                }
                reason => reason,
            };
            return Analysis {
                decision: Decision::untouched(reply, reason),
                in_parameter: refused.in_parameter,
                call_usable: false,
                call_end: refused.call_end,
            };
        }
    };
    let call_end = Some(call.span.end);
    // A JSON request around the call wins: Agent Zero (or its context doctor) reads it,
    // whether it comes before or after the call or its strings enclose it. When the stream is
    // stopped at the end of the call, one written after it never arrives. JSON inside the call
    // is a value's text, not a request.
    let decision = if reading.json_request() {
        Decision::untouched(reply, Reason::JsonRequestPresent)
    } else {
        translated(call)
    };
    Analysis {
        decision,
        in_parameter: false,
        call_usable: true,
        call_end,
    }
}

/// The translation of `call`: Agent Zero's request rendered from it.
#[allow(deprecated)] // `form` and `prose` are filled for readers of the older fields.
fn translated(call: ToolCall) -> Decision {
    let request = call.agent_zero_request();
    Decision {
        outcome: Outcome::Translated,
        reply: render_request(&request),
        request: Some(request),
        reason: Reason::Translated,
        retry_without_stops: false,
        form: Some(call.form),
        prose: Some(call.prose.clone()),
        call: Some(call),
    }
}
