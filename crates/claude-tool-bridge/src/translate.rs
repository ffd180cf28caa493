//! The stateless policy: one reply in, one decision out, over the reply's one reading.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use ctb_invoke::registry::Reasoning;
use ctb_invoke::{Family, Forms, Found, NoCall, Scanner};

use crate::arguments::build_request;
use crate::reading::Reading;
use crate::{Catalog, Config, Decision, Echoes, Outcome, Reason, render_request};

/// What the bridge knows about a reply besides its text: the markup forms its model writes
/// (a call in another form is a quotation) and what the agent received (a call copied from
/// there is an echo). The default reads every form and knows of no echoes.
///
/// ```
/// use claude_tool_bridge::{Catalog, Config, Context, Outcome, Reason, translate_with};
///
/// // A Claude model quoting Qwen's documentation: Qwen's syntax is a quotation for it.
/// let reply = "The Qwen docs show:\n<tool_call>\n{\"name\": \"search_engine\", \
///              \"arguments\": {\"query\": \"x\"}}\n</tool_call>";
/// let claude = Context::for_model(&Config::default(), "anthropic/claude-sonnet-4-5");
/// let d = translate_with(reply, &Catalog::agent_zero(), &claude);
/// assert_eq!((d.outcome, d.reason), (Outcome::Untouched, Reason::Quoted));
/// let qwen = Context::for_model(&Config::default(), "openrouter/qwen/qwen3-coder");
/// assert_eq!(translate_with(reply, &Catalog::agent_zero(), &qwen).outcome, Outcome::Translated);
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Context {
    /// The markup forms the reply is read for.
    pub forms: Forms,
    /// What the agent received, when known.
    pub echoes: Option<Arc<Echoes>>,
    /// The model's family, when its name picks one.
    pub family: Option<Family>,
    /// The reasoning the reply starts inside, when the model's chat template opens it in the
    /// prompt ([`ctb_invoke::registry::FamilyRow::reasoning_in_prompt`]).
    pub reasoning_in_prompt: Option<Reasoning>,
}

impl Context {
    /// The context of a reply by `model` under `config`: the forms its family writes (none
    /// when no family's patterns match the name, every form with `all_forms`), whether its
    /// reply starts inside reasoning, no echoes.
    pub fn for_model(config: &Config, model: &str) -> Self {
        let family = config.family_of(model);
        Self {
            forms: config.forms_for(model),
            echoes: None,
            family,
            reasoning_in_prompt: family.and_then(|f| f.reasoning_in_prompt(model)),
        }
    }

    /// A context that reads `forms`, knows no model and no echoes.
    pub fn with_forms(forms: Forms) -> Self {
        Self {
            forms,
            ..Self::default()
        }
    }

    /// Whether a call written as the last thing of the reasoning, followed only by its closer,
    /// is meant ([`ctb_invoke::registry::FamilyRow::call_ends_reasoning`]).
    pub(crate) fn call_ends_reasoning(&self) -> bool {
        self.family.is_some_and(|f| f.row().call_ends_reasoning)
    }

    /// The same context with `echoes`, the texts the agent received.
    #[must_use]
    pub fn with_echoes(mut self, echoes: Arc<Echoes>) -> Self {
        self.echoes = Some(echoes);
        self
    }

    /// A scanner for this context's forms (and the reasoning the reply starts in).
    pub(crate) fn scanner(&self) -> Scanner {
        let scanner = Scanner::with_forms(self.forms);
        match self.reasoning_in_prompt {
            Some(reasoning) => scanner.starting_in_reasoning(reasoning),
            None => scanner,
        }
    }

    /// Whether `call` (of `reply`) is copied from what the agent received: its markup, or a
    /// call of the same tool with the same argument values, in any encoding.
    pub(crate) fn echoed(&self, reply: &str, call: &ctb_invoke::Call<'_>) -> bool {
        self.echoes
            .as_ref()
            .is_some_and(|e| e.echoes(&reply[call.head..call.end], call))
    }
}

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

/// Runs `f`, turning a panic into "leave `reply` alone" ([`Reason::InternalError`]).
pub(crate) fn guarded(reply: &str, f: impl FnOnce() -> Decision) -> Decision {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Decision::untouched(reply, Reason::InternalError))
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
    decide(
        &Reading::new(reply, context.scanner(), false).with_call_ending_reasoning(context),
        catalog,
        context,
    )
}

/// The stateless decision on a reading: the first call, when it is complete, not copied from
/// what the agent received and makes a request, is translated, unless a JSON request surrounds
/// it; otherwise the reply is left alone with the reason.
pub(crate) fn decide(reading: &Reading<'_>, catalog: &Catalog, context: &Context) -> Analysis {
    let reply = reading.reply;
    let untouched = |reason| Analysis {
        decision: Decision::untouched(reply, reason),
        in_parameter: false,
        call_usable: false,
        call_end: None,
    };
    let json_or = |otherwise| {
        if reading.json_request() {
            Reason::JsonRequestPresent
        } else {
            otherwise
        }
    };
    if reading.exact_request {
        return untouched(Reason::JsonRequestPresent);
    }
    let windowed = reading.windowed();
    let call = match &reading.found {
        Found::Call(call) => call,
        Found::Incomplete { in_parameter, .. } if !windowed => {
            return Analysis {
                in_parameter: *in_parameter,
                ..untouched(json_or(Reason::Incomplete))
            };
        }
        Found::Nothing(NoCall::Quoted) if !windowed => return untouched(json_or(Reason::Quoted)),
        Found::Nothing(NoCall::NoTags) if !windowed => return untouched(json_or(Reason::NoCall)),
        _ => return untouched(Reason::TooLarge),
    };
    // A call copied from what the agent received is the model quoting it.
    if context.echoed(reply, call) {
        return Analysis {
            call_end: Some(call.end),
            ..untouched(Reason::Echoed)
        };
    }
    let request = match build_request(reply, call, catalog) {
        Ok(request) => request,
        Err(reason) => {
            return Analysis {
                call_end: Some(call.end),
                ..untouched(reason)
            };
        }
    };
    // A JSON request around the call wins: Agent Zero (or its context doctor) reads it,
    // whether it comes before or after the call or its strings enclose it. When the stream is
    // stopped at the end of the call, one written after it never arrives. JSON inside the call
    // is a value's text, not a request.
    let decision = if reading.json_request() {
        Decision::untouched(reply, Reason::JsonRequestPresent)
    } else {
        Decision {
            outcome: Outcome::Translated,
            reply: render_request(&request),
            request: Some(request),
            reason: Reason::Translated,
            retry_without_stops: false,
            form: Some(call.form),
            prose: Some(reply[..call.prose_end].to_owned()),
        }
    };
    Analysis {
        decision,
        in_parameter: false,
        call_usable: true,
        call_end: Some(call.end),
    }
}
