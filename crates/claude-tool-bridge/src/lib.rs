//! Translates Claude's native tool-call text into Agent Zero JSON tool requests.
//!
//! (Crate docs are written in full once the API settles.)

mod config;
mod decision;
mod session;
mod translate;

pub use config::{Config, ConfigError};
pub use ctb_schema::Catalog;
pub use decision::{Decision, FinishReason, Outcome, Reason};
pub use session::{Session, TurnPlan};
pub use translate::{MAX_REPLY_BYTES, holds_json_request, render_request, translate};
