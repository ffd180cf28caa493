//! Per-agent state carried from turn to turn (STUB: issue 4 implements it).

use crate::{Catalog, Config, Decision, FinishReason};

/// What the bridge asks for at the start of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnPlan {
    /// Whether the chat model is covered by the configuration at all.
    pub covered: bool,
    /// The full stop list to send to the provider (the model's own stops first).
    pub stops: Vec<String>,
}

/// One agent's bridge state.
#[derive(Debug, Clone)]
pub struct Session {
    config: Config,
}

impl Session {
    /// A new session with `config`.
    pub fn new(config: Config) -> Self {
        Self { config }
    }
    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// Starts a turn for `model` whose own stop list is `model_stops`.
    pub fn begin_turn(&mut self, model: &str, model_stops: &[String]) -> TurnPlan {
        let _ = model;
        TurnPlan {
            covered: true,
            stops: model_stops.to_vec(),
        }
    }
    /// Feeds a streamed delta; returns the completed reply text when the stream should stop now.
    pub fn feed(&mut self, delta: &str) -> Option<String> {
        let _ = delta;
        None
    }
    /// Decides what to do with the finished reply.
    pub fn finish(&mut self, reply: &str, finish: FinishReason, catalog: &Catalog) -> Decision {
        let _ = finish;
        crate::translate(reply, catalog, &self.config)
    }
}
