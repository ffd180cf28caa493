//! The bridge's settings: one typed struct, read from YAML or JSON.
//!
//! Every field has a default, so a config saved by an older version (lacking newer keys)
//! still loads. Unknown keys and values of the wrong type are reported as warnings and
//! otherwise ignored (the field keeps its default); only text that is not YAML/JSON at all,
//! or whose top level is not a mapping, is an error.
//!
//! Model patterns (`models`) are matched against the LiteLLM model name
//! (`openrouter/anthropic/claude-sonnet-4.6`, `anthropic/claude-...`), case-insensitively:
//! a pattern with `*` (any run of characters) or `?` (one character) must match the whole
//! name; a pattern without them matches anywhere in the name (a substring). The default,
//! `["claude"]`, covers every Claude model whatever the provider prefix.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Settings of the bridge; every field has a default, so an old saved config still loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Master switch.
    pub enabled: bool,
    /// Chat models covered: patterns matched against the LiteLLM model name (see the module
    /// docs for the syntax).
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
            models: DEFAULT_MODELS.iter().map(|m| (*m).to_owned()).collect(),
            early_stop: true,
            stop_sequence: true,
            loop_guard: true,
            prose_as_response: true,
            prose_min_chars: 800,
        }
    }
}

/// The models covered by default: every family whose models write their call text (their
/// LiteLLM names hold one of these).
const DEFAULT_MODELS: [&str; 9] = [
    "claude", "minimax", "deepseek", "qwen", "glm", "kimi", "moonshot", "gpt-oss", "grok",
];

/// A config text that cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Longest model name or pattern looked at (longer ones never match).
const MAX_NAME: usize = 1024;

impl Config {
    /// The keys the config knows, in the order they are documented.
    pub const KEYS: [&'static str; 7] = [
        "enabled",
        "models",
        "early_stop",
        "stop_sequence",
        "loop_guard",
        "prose_as_response",
        "prose_min_chars",
    ];

    /// Reads a YAML document (JSON is YAML too). Returns the config and the warnings
    /// (unknown keys, values of the wrong type). An empty document gives the defaults.
    pub fn from_yaml_str(text: &str) -> Result<(Self, Vec<String>), ConfigError> {
        if text.trim().is_empty() {
            return Ok((Self::default(), Vec::new()));
        }
        let yaml: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(text).map_err(|e| ConfigError(format!("YAML: {e}")))?;
        let value = serde_json::to_value(yaml).map_err(|e| ConfigError(format!("YAML: {e}")))?;
        Self::from_value(value)
    }

    /// Reads a JSON document (a saved `config.json`). Same rules as [`Config::from_yaml_str`].
    pub fn from_json_str(text: &str) -> Result<(Self, Vec<String>), ConfigError> {
        if text.trim().is_empty() {
            return Ok((Self::default(), Vec::new()));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| ConfigError(format!("JSON: {e}")))?;
        Self::from_value(value)
    }

    /// Reads either format: JSON when the text starts with `{`, YAML otherwise.
    pub fn from_str_any(text: &str) -> Result<(Self, Vec<String>), ConfigError> {
        if text.trim_start().starts_with('{') {
            Self::from_json_str(text)
        } else {
            Self::from_yaml_str(text)
        }
    }

    /// Builds a config from a parsed document: defaults, overridden key by key.
    pub fn from_value(value: Value) -> Result<(Self, Vec<String>), ConfigError> {
        let map = match value {
            Value::Null => return Ok((Self::default(), Vec::new())),
            Value::Object(map) => map,
            other => {
                return Err(ConfigError(format!(
                    "the config must be a mapping of keys to values, not {}",
                    kind_of(&other)
                )));
            }
        };
        let mut config = Self::default();
        let mut warnings = Vec::new();
        for (key, value) in map {
            let result = match key.as_str() {
                "enabled" => set(&mut config.enabled, value),
                "models" => set_models(&mut config.models, value),
                "early_stop" => set(&mut config.early_stop, value),
                "stop_sequence" => set(&mut config.stop_sequence, value),
                "loop_guard" => set(&mut config.loop_guard, value),
                "prose_as_response" => set(&mut config.prose_as_response, value),
                "prose_min_chars" => set(&mut config.prose_min_chars, value),
                _ => {
                    warnings.push(format!("unknown key `{key}` ignored"));
                    continue;
                }
            };
            if let Err(e) = result {
                warnings.push(format!("key `{key}`: {e}; the default is used"));
            }
        }
        Ok((config, warnings))
    }

    /// Whether the bridge acts for `model` (a LiteLLM model name): the bridge is enabled and
    /// one of the `models` patterns matches.
    pub fn covers(&self, model: &str) -> bool {
        self.enabled && self.models.iter().any(|p| pattern_matches(p, model))
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn set<T: serde::de::DeserializeOwned>(slot: &mut T, value: Value) -> Result<(), String> {
    let described = kind_of(&value);
    *slot = serde_json::from_value(value).map_err(|_| format!("unexpected {described}"))?;
    Ok(())
}

/// `models` takes a list of strings, or one string (a single pattern).
fn set_models(slot: &mut Vec<String>, value: Value) -> Result<(), String> {
    match value {
        Value::String(s) => {
            *slot = vec![s];
            Ok(())
        }
        other => set(slot, other),
    }
}

/// Matches `name` against one model pattern (see the module docs): case-insensitive;
/// with `*`/`?` a whole-name glob, otherwise a substring.
pub(crate) fn pattern_matches(pattern: &str, name: &str) -> bool {
    let pattern = pattern.trim();
    if pattern.is_empty() || pattern.len() > MAX_NAME || name.len() > MAX_NAME {
        return false;
    }
    let pattern: Vec<char> = pattern.chars().flat_map(char::to_lowercase).collect();
    let name: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    if !pattern.iter().any(|c| matches!(c, '*' | '?')) {
        return name.windows(pattern.len()).any(|w| w == pattern.as_slice());
    }
    glob(&pattern, &name)
}

/// Wildcard match with one backtracking point (the last `*`): O(pattern * name) at worst,
/// both capped at [`MAX_NAME`].
fn glob(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_old_configs() {
        let (c, w) = Config::from_yaml_str("").unwrap();
        assert_eq!(c, Config::default());
        assert!(w.is_empty());
        let (c, w) = Config::from_json_str(r#"{"enabled": true, "early_stop": false}"#).unwrap();
        assert!(!c.early_stop);
        assert!(c.stop_sequence && c.loop_guard && c.prose_as_response);
        assert_eq!(c.prose_min_chars, 800);
        assert!(w.is_empty());
    }

    #[test]
    fn yaml_with_unknown_and_bad_keys_warns() {
        let text = "enabled: true\nmodels:\n  - \"*sonnet*\"\n  - opus\nloop_guard: no_thanks\nprose_min_chars: 1200\ncolour: blue\n";
        let (c, w) = Config::from_yaml_str(text).unwrap();
        assert_eq!(c.models, vec!["*sonnet*", "opus"]);
        assert!(c.loop_guard, "bad value keeps the default");
        assert_eq!(c.prose_min_chars, 1200);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w.iter().any(|m| m.contains("colour")));
        assert!(w.iter().any(|m| m.contains("loop_guard")));
    }

    #[test]
    fn broken_documents_are_errors() {
        assert!(Config::from_json_str("{").is_err());
        assert!(Config::from_yaml_str("- a\n- b").is_err());
        assert!(Config::from_yaml_str("key: [unclosed").is_err());
        let (c, _) = Config::from_str_any("models: gpt").unwrap();
        assert_eq!(c.models, vec!["gpt"]);
    }

    #[test]
    fn model_patterns() {
        let c = Config::default();
        assert!(c.covers("openrouter/anthropic/claude-sonnet-4.6"));
        assert!(c.covers("anthropic/Claude-Opus-5-5"));
        assert!(!c.covers("openai/gpt-5"));
        let off = Config {
            enabled: false,
            ..Config::default()
        };
        assert!(!off.covers("anthropic/claude-sonnet-5-5"));
        assert!(pattern_matches(
            "anthropic/*sonnet*",
            "Anthropic/claude-sonnet-5-5"
        ));
        assert!(!pattern_matches(
            "anthropic/*sonnet",
            "anthropic/claude-sonnet-5-5"
        ));
        assert!(pattern_matches("*claude-?onnet*", "x/claude-sonnet-5"));
        assert!(!pattern_matches("", "claude"));
        assert!(!pattern_matches("claude", &"x".repeat(2000)));
        assert!(pattern_matches("*", "anything"));
    }
}
