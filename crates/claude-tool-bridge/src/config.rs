//! The bridge's settings: one typed struct, its defaults, and one way in,
//! [`Config::from_value`].
//!
//! The defaults live in [`Config::default`] and nowhere else. Saved settings arrive as a
//! parsed document (a [`serde_json::Value`]; reading YAML or JSON text is the job of the edges:
//! the `ctb` command line tool and the Python binding), and [`Config::from_value`] lays them
//! over the defaults key by key. A document saved by an older version, lacking newer keys,
//! still loads. An unknown key or a value of the wrong type becomes a [`ConfigWarning`] and the
//! key keeps its default; only a document whose top level is not a mapping is an error.
//!
//! ```
//! use claude_tool_bridge::Config;
//! use serde_json::json;
//!
//! let (config, warnings) =
//!     Config::from_value(json!({"early_stop": false, "prose_min_chars": "many", "colour": 1}))
//!         .unwrap();
//! assert!(!config.early_stop);
//! assert_eq!(config.prose_min_chars, 800); // the default: "many" is not a number
//! let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
//! assert_eq!(text, [
//!     "`prose_min_chars` must be a whole number of 0 or more, not a string (\"many\"); \
//!      the default (800) is used",
//!     "unknown key `colour` ignored",
//! ]);
//! assert_eq!(config.overrides(), json!({"early_stop": false}).as_object().unwrap().clone());
//! ```

use serde::Serialize;
use serde_json::{Map, Value};

use ctb_guard::ModelFamily;

use crate::model_patterns::{ModelFamilies, ModelPatterns};

/// Settings of the bridge. [`Config::default`] holds every default.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Master switch.
    pub enabled: bool,
    /// Chat models covered: patterns matched against the LiteLLM model name (see
    /// [`ModelPatterns`] for the syntax). By default every family's models; `["claude"]`
    /// restricts the bridge to Claude.
    pub models: ModelPatterns,
    /// Which family a covered model belongs to, by name patterns per family: it picks the
    /// stop strings. Saved settings replace the patterns of the families they name.
    pub families: ModelFamilies,
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
    /// Read every family's markup form in every model's replies, not only the forms of the
    /// model's own family (off by default: another family's syntax in a reply is then a
    /// quotation, the safer reading).
    pub all_forms: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            enabled: true,
            models: ModelPatterns::default_models(),
            families: ModelFamilies::default(),
            early_stop: true,
            stop_sequence: true,
            loop_guard: true,
            prose_as_response: true,
            prose_min_chars: 800,
            all_forms: false,
        }
    }
}

impl Config {
    /// The keys the config knows, in the order they are documented.
    pub const KEYS: [&'static str; 9] = [
        "enabled",
        "models",
        "families",
        "early_stop",
        "stop_sequence",
        "loop_guard",
        "prose_as_response",
        "prose_min_chars",
        "all_forms",
    ];

    /// Builds a config from a parsed document: the defaults, with each key the document sets
    /// laid over them. `null` gives the defaults. Returns the config and one warning per
    /// unknown key or unusable value (that key keeps its default), in document order.
    pub fn from_value(value: Value) -> Result<(Self, Vec<ConfigWarning>), ConfigError> {
        let map = match value {
            Value::Null => return Ok((Self::default(), Vec::new())),
            Value::Object(map) => map,
            other => {
                return Err(ConfigError::new(
                    ConfigErrorKind::NotAMapping,
                    format!(
                        "the settings must be a mapping of keys to values, not {}",
                        describe(&other)
                    ),
                ));
            }
        };
        let mut config = Self::default();
        let mut warnings = Vec::new();
        let mut defaults: Option<Value> = None;
        for (key, value) in map {
            let problem = match key.as_str() {
                "enabled" => set_bool(&mut config.enabled, &value),
                "models" => set_models(&mut config.models, &value),
                "families" => set_families(&mut config.families, &value),
                "early_stop" => set_bool(&mut config.early_stop, &value),
                "stop_sequence" => set_bool(&mut config.stop_sequence, &value),
                "loop_guard" => set_bool(&mut config.loop_guard, &value),
                "prose_as_response" => set_bool(&mut config.prose_as_response, &value),
                "prose_min_chars" => set_count(&mut config.prose_min_chars, &value),
                "all_forms" => set_bool(&mut config.all_forms, &value),
                _ => Some(WarningKind::UnknownKey),
            };
            if let Some(kind) = problem {
                let defaults = defaults.get_or_insert_with(|| Self::default().to_value());
                let default = defaults.get(&key).map(compact);
                warnings.push(ConfigWarning { key, kind, default });
            }
        }
        Ok((config, warnings))
    }

    /// Every setting as a JSON object, defaults included (the shape `from_value` reads).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The settings that differ from the defaults: what needs saving so that a later
    /// release's new defaults still reach every key the user left alone.
    pub fn overrides(&self) -> Map<String, Value> {
        let (Value::Object(mine), Value::Object(defaults)) =
            (self.to_value(), Self::default().to_value())
        else {
            return Map::new();
        };
        let mut out = Map::new();
        for (key, value) in mine {
            let default = defaults.get(&key);
            if default == Some(&value) {
                continue;
            }
            // `families` is read family by family over the defaults, so only the families
            // that differ need saving.
            if let (Value::Object(families), Some(Value::Object(default))) = (&value, default) {
                let changed: Map<String, Value> = families
                    .iter()
                    .filter(|(family, patterns)| default.get(*family) != Some(*patterns))
                    .map(|(family, patterns)| (family.clone(), patterns.clone()))
                    .collect();
                out.insert(key, Value::Object(changed));
                continue;
            }
            out.insert(key, value);
        }
        out
    }

    /// Whether the bridge acts for `model` (a LiteLLM model name): the bridge is enabled and
    /// one of the `models` patterns matches.
    pub fn covers(&self, model: &str) -> bool {
        self.enabled && self.models.matches(model)
    }

    /// The family of `model` (see [`ModelFamilies`]), if its patterns match one; a model of
    /// none gets Claude's stop strings.
    pub fn family_of(&self, model: &str) -> Option<ModelFamily> {
        self.families.family_of(model)
    }

    /// The markup forms `model`'s replies are read for: its family's own
    /// ([`ModelFamily::forms`]), or every form for a model of no family or with `all_forms`.
    pub fn forms_for(&self, model: &str) -> ctb_invoke::Forms {
        match self.family_of(model) {
            Some(family) if !self.all_forms => family.forms(),
            _ => ctb_invoke::Forms::ALL,
        }
    }
}

/// Why a settings document could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq, Copy)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The top level is not a mapping of keys to values.
    NotAMapping,
    /// A model pattern that cannot be compiled (longer than
    /// [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN)).
    BadPattern,
}

/// A settings document that cannot be used; see [`ConfigError::kind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    kind: ConfigErrorKind,
    message: String,
}

impl ConfigError {
    pub(crate) fn new(kind: ConfigErrorKind, message: String) -> Self {
        Self { kind, message }
    }

    /// What went wrong.
    pub fn kind(&self) -> ConfigErrorKind {
        self.kind
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// What is wrong with one key of a settings document.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WarningKind {
    /// A key the config does not know (perhaps from another version); it is ignored.
    UnknownKey,
    /// A value of the wrong type or out of range for the key.
    BadValue {
        /// What the key takes, in words ("true or false").
        expected: &'static str,
        /// What it got, in words, with the value when it is short ("a string (\"yes\")").
        found: String,
    },
    /// A `models` list with a pattern that cannot be compiled.
    BadPattern(String),
}

/// One key of a settings document that was not used as given. Its `Display` is one line for
/// a person to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    key: String,
    kind: WarningKind,
    /// The key's default, compact JSON (None for an unknown key).
    default: Option<String>,
}

impl ConfigWarning {
    /// The key concerned.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What is wrong with it.
    pub fn kind(&self) -> &WarningKind {
        &self.kind
    }
}

impl std::fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = &self.key;
        // A long default (the model lists) is named, not printed.
        let default = match self.default.as_deref() {
            Some(text) if text.len() <= 40 => format!("the default ({text})"),
            _ => "the default".to_owned(),
        };
        match &self.kind {
            WarningKind::UnknownKey => write!(f, "unknown key `{key}` ignored"),
            WarningKind::BadValue { expected, found } => {
                write!(
                    f,
                    "`{key}` must be {expected}, not {found}; {default} is used"
                )
            }
            WarningKind::BadPattern(why) => write!(f, "`{key}`: {why}; {default} is used"),
        }
    }
}

fn bad(expected: &'static str, value: &Value) -> Option<WarningKind> {
    Some(WarningKind::BadValue {
        expected,
        found: describe(value),
    })
}

fn set_bool(slot: &mut bool, value: &Value) -> Option<WarningKind> {
    match value {
        Value::Bool(b) => {
            *slot = *b;
            None
        }
        other => bad("true or false", other),
    }
}

fn set_count(slot: &mut usize, value: &Value) -> Option<WarningKind> {
    match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
        Some(n) => {
            *slot = n;
            None
        }
        None => bad("a whole number of 0 or more", value),
    }
}

/// `models` takes a list of text patterns, or one text (a single pattern).
fn set_models(slot: &mut ModelPatterns, value: &Value) -> Option<WarningKind> {
    const EXPECTED: &str = "a list of model name patterns";
    let patterns: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => {
            let mut texts = Vec::with_capacity(items.len());
            for item in items {
                match item.as_str() {
                    Some(s) => texts.push(s),
                    None => return bad(EXPECTED, value),
                }
            }
            texts
        }
        other => return bad(EXPECTED, other),
    };
    match ModelPatterns::new(patterns) {
        Ok(compiled) => {
            *slot = compiled;
            None
        }
        Err(e) => Some(WarningKind::BadPattern(e.to_string())),
    }
}

/// `families` takes a mapping of family names (`claude`, `minimax`, `deepseek`, `qwen`, `glm`,
/// `kimi`, `gpt_oss`, `grok`) to pattern lists; the families it names get those patterns, the
/// others keep theirs. An unknown family name, or a list that is not one, leaves every family
/// as it was.
fn set_families(slot: &mut ModelFamilies, value: &Value) -> Option<WarningKind> {
    const EXPECTED: &str = "a mapping of family names (claude, minimax, deepseek, qwen, glm, kimi, gpt_oss, grok) to lists of model name patterns";
    let Value::Object(map) = value else {
        return bad(EXPECTED, value);
    };
    let mut next = slot.clone();
    for (name, patterns) in map {
        let Some(family) = ModelFamily::from_code(name) else {
            return bad(EXPECTED, value);
        };
        let mut compiled = next
            .patterns(family)
            .cloned()
            .unwrap_or_else(ModelPatterns::none);
        if let Some(problem) = set_models(&mut compiled, patterns) {
            return Some(problem);
        }
        next.set(family, compiled);
    }
    *slot = next;
    None
}

/// A value in words: its kind, and the value itself when it is short.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    };
    let text = compact(value);
    if matches!(value, Value::Array(_) | Value::Object(_)) || text.chars().count() > 40 {
        kind.to_owned()
    } else {
        format!("{kind} ({text})")
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(value: Value) -> (Config, Vec<String>) {
        let (c, w) = Config::from_value(value).unwrap();
        (c, w.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn defaults_and_old_configs() {
        assert_eq!(load(Value::Null), (Config::default(), vec![]));
        assert_eq!(load(json!({})), (Config::default(), vec![]));
        let (c, w) = load(json!({"enabled": true, "early_stop": false}));
        assert!(!c.early_stop);
        assert!(c.stop_sequence && c.loop_guard && c.prose_as_response);
        assert_eq!(c.prose_min_chars, 800);
        assert!(w.is_empty());
    }

    #[test]
    fn every_key_round_trips_through_to_value() {
        let (c, w) = load(json!({
            "enabled": false, "models": ["*sonnet*", "opus"], "early_stop": false,
            "stop_sequence": false, "loop_guard": false, "prose_as_response": false,
            "prose_min_chars": 1200, "families": {"claude": ["*opus*"], "glm": ["zai"]},
            "all_forms": true,
        }));
        assert!(w.is_empty());
        let value = c.to_value();
        assert_eq!(
            value.as_object().unwrap().keys().collect::<Vec<_>>(),
            Config::KEYS.iter().collect::<Vec<_>>()
        );
        assert_eq!(load(value).0, c);
        assert_eq!(c.overrides().len(), Config::KEYS.len());
        assert_eq!(
            c.overrides()["families"],
            json!({"claude": ["*opus*"], "glm": ["zai"]}),
            "only the families that differ are saved"
        );
        assert_eq!(load(Value::Object(c.overrides())).0, c);
        assert!(Config::default().overrides().is_empty());
    }

    #[test]
    fn warnings_read_well() {
        let cases: &[(Value, &str)] = &[
            (json!({"colour": "blue"}), "unknown key `colour` ignored"),
            (
                json!({"loop_guard": "no_thanks"}),
                "`loop_guard` must be true or false, not a string (\"no_thanks\"); \
                 the default (true) is used",
            ),
            (
                json!({"early_stop": 1}),
                "`early_stop` must be true or false, not a number (1); the default (true) is used",
            ),
            (
                json!({"prose_min_chars": -5}),
                "`prose_min_chars` must be a whole number of 0 or more, not a number (-5); \
                 the default (800) is used",
            ),
            (
                json!({"prose_min_chars": 1.5}),
                "`prose_min_chars` must be a whole number of 0 or more, not a number (1.5); \
                 the default (800) is used",
            ),
            (
                json!({"models": 5}),
                "`models` must be a list of model name patterns, not a number (5); \
                 the default is used",
            ),
            (
                json!({"models": ["claude", 3]}),
                "`models` must be a list of model name patterns, not a list; \
                 the default is used",
            ),
            (
                json!({"enabled": null}),
                "`enabled` must be true or false, not null; the default (true) is used",
            ),
            (
                json!({"enabled": {"a": 1}}),
                "`enabled` must be true or false, not a mapping; the default (true) is used",
            ),
            (
                json!({"models": ["x".repeat(1025)]}),
                "`models`: model pattern of 1025 bytes is longer than 1024; \
                 the default is used",
            ),
            (
                json!({"families": {"llama": ["llama"]}}),
                "`families` must be a mapping of family names (claude, minimax, deepseek, \
                 qwen, glm, kimi, gpt_oss, grok) to lists of model name patterns, not a \
                 mapping; the default is used",
            ),
            (
                json!({"families": {"glm": ["glm"], "kimi": 3}}),
                "`families` must be a list of model name patterns, not a number (3); \
                 the default is used",
            ),
            (
                json!({"families": ["glm"]}),
                "`families` must be a mapping of family names (claude, minimax, deepseek, \
                 qwen, glm, kimi, gpt_oss, grok) to lists of model name patterns, not a \
                 list; the default is used",
            ),
        ];
        for (doc, want) in cases {
            let (c, w) = load(doc.clone());
            assert_eq!(c, Config::default(), "{doc}");
            assert_eq!(w, [*want], "{doc}");
        }
    }

    #[test]
    fn a_single_model_pattern_may_be_a_string() {
        let (c, w) = load(json!({"models": "gpt"}));
        assert!(w.is_empty());
        assert_eq!(c.models.as_slice(), ["gpt"]);
        assert!(c.covers("openai/gpt-5") && !c.covers("anthropic/claude-x"));
        assert_eq!(
            c.overrides(),
            *json!({"models": ["gpt"]}).as_object().unwrap()
        );
    }

    #[test]
    fn a_document_that_is_not_a_mapping_is_an_error() {
        for (doc, what) in [
            (json!([1, 2]), "a list"),
            (json!("x"), "a string (\"x\")"),
            (json!(3), "a number (3)"),
        ] {
            let err = Config::from_value(doc).unwrap_err();
            assert_eq!(err.kind(), ConfigErrorKind::NotAMapping);
            assert_eq!(
                err.to_string(),
                format!("the settings must be a mapping of keys to values, not {what}")
            );
        }
    }

    #[test]
    fn coverage() {
        let c = Config::default();
        assert!(c.covers("openrouter/anthropic/claude-sonnet-4.6"));
        assert!(c.covers("anthropic/Claude-Opus-5-5"));
        assert!(!c.covers("openai/gpt-5"));
        let off = Config {
            enabled: false,
            ..Config::default()
        };
        assert!(!off.covers("anthropic/claude-sonnet-5-5"));
    }

    #[test]
    fn families_pick_the_stop_strings() {
        let c = Config::default();
        for (model, family) in [
            (
                "openrouter/anthropic/claude-sonnet-4.6",
                ModelFamily::Claude,
            ),
            ("openrouter/minimax/minimax-m2", ModelFamily::MiniMax),
            ("deepseek/deepseek-chat", ModelFamily::DeepSeek),
            ("openrouter/qwen/qwen3-coder", ModelFamily::Qwen),
            ("openrouter/z-ai/glm-4.7", ModelFamily::Glm),
            ("openrouter/moonshotai/kimi-k2", ModelFamily::Kimi),
            ("groq/openai/gpt-oss-120b", ModelFamily::GptOss),
            ("xai/grok-4", ModelFamily::Grok),
        ] {
            assert_eq!(c.family_of(model), Some(family), "{model}");
        }
        assert_eq!(c.family_of("openai/gpt-5"), None);
        let (c, w) = load(json!({"families": {"glm": ["zai-*"]}}));
        assert!(w.is_empty());
        assert_eq!(c.family_of("zai-coder"), Some(ModelFamily::Glm));
        assert_eq!(c.family_of("openrouter/z-ai/glm-4.7"), None);
        assert_eq!(
            c.family_of("openrouter/moonshotai/kimi-k2"),
            Some(ModelFamily::Kimi)
        );
    }

    #[test]
    fn a_model_reads_its_family_forms() {
        use ctb_invoke::{Family, Forms};
        let c = Config::default();
        assert_eq!(
            c.forms_for("anthropic/claude-sonnet-4-5"),
            Forms::of(&[Family::Claude])
        );
        assert!(
            c.forms_for("openrouter/deepseek/deepseek-v3.2")
                .contains(Family::Claude)
        );
        assert!(
            !c.forms_for("openrouter/qwen/qwen3-coder")
                .contains(Family::Claude)
        );
        assert_eq!(c.forms_for("openai/gpt-5"), Forms::ALL);
        let (all, w) = load(json!({"all_forms": true}));
        assert!(w.is_empty());
        assert_eq!(all.forms_for("anthropic/claude-sonnet-4-5"), Forms::ALL);
    }
}
