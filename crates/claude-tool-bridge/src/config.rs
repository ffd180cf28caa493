//! The bridge's settings (STUB: issue 4 completes loading and model matching).

use serde::{Deserialize, Serialize};

/// Settings of the bridge; every field has a default, so an old saved config still loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Master switch.
    pub enabled: bool,
    /// Chat models covered: patterns matched against the LiteLLM model name.
    pub models: Vec<String>,
    /// Ask Agent Zero to stop reading the stream once the first call is complete.
    pub early_stop: bool,
    /// Ask the provider to stop at the end of the first call.
    pub stop_sequence: bool,
    /// Stop and discard degenerate looping replies.
    pub loop_guard: bool,
    /// Send long prose answers through the `response` tool.
    pub prose_as_response: bool,
    /// Minimum length (characters) of a prose answer sent through `response`.
    pub prose_min_chars: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            enabled: true,
            models: vec!["claude".to_owned()],
            early_stop: true,
            stop_sequence: true,
            loop_guard: true,
            prose_as_response: true,
            prose_min_chars: 800,
        }
    }
}
