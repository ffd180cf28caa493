//! Translates Claude's native tool-call text into Agent Zero JSON tool requests.
//!
//! Agent Zero, in chat mode, wants every tool call as one JSON object
//! `{"thoughts", "headline", "tool_name", "tool_args"}`. Claude models often write their
//! native call markup instead. This crate is the bridge's facade: it composes the grammar
//! ([`ctb_invoke`]), tolerant JSON ([`ctb_json`]), schema typing ([`ctb_schema`]), stop strings
//! and loop detection ([`ctb_guard`]) and the prose policy ([`ctb_prose`]) into two entry points:
//!
//! - [`translate`]: one reply in, one [`Decision`] out, no state;
//! - [`Session`]: one per agent, for a streamed conversation: the stop strings to ask for,
//!   early stop while streaming, loops, discards and re-asks, prose answers.
//!
//! Whenever the bridge is not sure, the decision is [`Outcome::Untouched`] and carries the
//! reply byte for byte, with a [`Reason`] saying why. A translation carries the call in no
//! host's format ([`Decision::call`], a [`ToolCall`]), and Agent Zero's request rendered from
//! it ([`Decision::request`], and as the text of [`Decision::reply`]); [`first_call`] gives
//! the same call without deciding anything else.
//!
//! ```
//! use claude_tool_bridge::{Catalog, Config, FinishReason, Outcome, Session};
//!
//! let catalog = Catalog::agent_zero();
//! let mut session = Session::new(Config::default());
//!
//! // Start of a turn: the stop strings to send to the provider.
//! let plan = session.begin_turn("anthropic/claude-sonnet-4-5", &[]);
//! assert!(plan.covered && plan.stops.len() <= 4);
//!
//! // While streaming: stop as soon as the first call is complete (and translates).
//! let mut stopped = None;
//! for delta in ["court\n<invoke name=\"memory_load\">\n<parameter name=\"query\">",
//!               "vpn setup</parameter>\n<parameter name=\"limit\">3</parameter>\n</invoke>",
//!               "\n<function_results>made up</function_results>"] {
//!     if let Some(reply) = session.feed(delta, &catalog) {
//!         stopped = Some(reply);
//!         break;
//!     }
//! }
//! let reply = stopped.expect("the call completed");
//!
//! // The finished reply: what Agent Zero should see.
//! let decision = session.finish(&reply, FinishReason::Stop, &catalog).unwrap();
//! assert_eq!(decision.outcome, Outcome::Translated);
//! let request = decision.request.unwrap();
//! assert_eq!(request["tool_name"], "memory_load");
//! assert_eq!(request["tool_args"]["limit"], 3); // typed from the schema
//! let call = decision.call.unwrap(); // the same call, for any host
//! assert_eq!((call.name.as_str(), call.family.code()), ("memory_load", "claude"));
//! assert_eq!(request, call.agent_zero_request());
//! ```

mod arguments;
mod config;
mod context;
mod decision;
mod echo;
mod model_patterns;
mod policy;
mod reading;
mod request;
mod session;
mod tool_call;
mod translate;

pub use config::{Config, ConfigError, ConfigErrorKind, ConfigWarning, WarningKind};
pub use context::Context;
pub use ctb_guard::FinishReason;
pub use ctb_invoke::{Family, Form, Forms};
pub use ctb_schema::Catalog;
pub use decision::{Decision, Outcome, Reason};
pub use echo::{Echoes, MAX_ECHO_BYTES};
pub use model_patterns::{
    MAX_PATTERN_LEN, MAX_PATTERNS, ModelFamilies, ModelForms, ModelPatterns, PatternError,
};
pub use reading::MAX_REPLY_BYTES;
pub use request::{MAX_INTEGER_DIGITS, holds_json_request, render_request};
pub use session::{Session, SessionError, TurnPlan};
pub use tool_call::ToolCall;
pub use translate::{first_call, first_call_with, translate, translate_with};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
