//! The bridge's settings: one typed struct, its defaults, and one way in,
//! [`Config::from_value`].
//!
//! The defaults live in [`Config::default`] and nowhere else. Saved settings arrive as a
//! parsed document (a [`serde_json::Value`]; reading YAML or JSON text is the job of the edges:
//! the `ctb` command line tool and the Python binding), and [`Config::from_value`] lays them
//! over the defaults key by key. A document saved by an older version, lacking newer keys,
//! still loads. An unknown key or a value of the wrong type becomes a [`ConfigWarning`]; only a
//! document whose top level is not a mapping is an error.
//!
//! A value that cannot be used falls back for its own key only, and never towards doing more:
//!
//! - `enabled`: anything but `true` or `false` (`"false"`, `null`, a number, a value the edge
//!   could not read at all) turns the bridge **off**; only a missing key takes the default;
//! - `models`: a list item that is not text, or is longer than [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN),
//!   and the items past [`MAX_PATTERNS`](crate::MAX_PATTERNS) are left out and the rest used; a
//!   value that is not a list (or one text) at all covers **no model**. A bad `models` never
//!   covers more than what was written;
//! - `families`: an unknown family name is left out, a family whose value is not a list keeps
//!   its default patterns, bad items are left out as for `models` (the family only picks stop
//!   strings, it never widens coverage);
//! - `forms`: an unknown form code is left out and the rest of its list used; a pattern whose
//!   value is not a list has its models read for **no form** (a call they write is left as it
//!   is); a pattern too long, and the entries past [`MAX_PATTERNS`](crate::MAX_PATTERNS), are
//!   left out. A bad `forms` never has a model read for a form it did not name;
//! - every other key keeps its default.
//!
//! An edge that reads the document itself (the Python binding reads a dict) may find a value
//! it cannot turn into JSON at all (`NaN`, an object): [`Config::from_entries`] takes such a
//! value as unreadable, and it falls back like any other unusable value of its key.
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

use ctb_invoke::{Family, Form};

use crate::model_patterns::{
    MAX_PATTERN_LEN, MAX_PATTERNS, ModelFamilies, ModelForms, ModelPatterns, too_long,
};

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
    /// The markup forms a deployment says its models write, by model name pattern, in place
    /// of their family's (see [`ModelForms`]): for a chat template that asks a model for
    /// another family's form. Empty by default.
    pub forms: ModelForms,
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
            forms: ModelForms::default(),
        }
    }
}

impl Config {
    /// The keys the config knows, in the order they are documented.
    pub const KEYS: [&'static str; 10] = [
        "enabled",
        "models",
        "families",
        "early_stop",
        "stop_sequence",
        "loop_guard",
        "prose_as_response",
        "prose_min_chars",
        "all_forms",
        "forms",
    ];

    /// Builds a config from a parsed document: the defaults, with each key the document sets
    /// laid over them. `null` gives the defaults. Returns the config and one warning per
    /// unknown key or unusable value, in document order (see the module documentation for
    /// what an unusable value falls back to).
    ///
    /// # Errors
    /// [`ConfigErrorKind::NotAMapping`] when the document is neither a mapping nor `null`.
    pub fn from_value(value: Value) -> Result<(Self, Vec<ConfigWarning>), ConfigError> {
        match value {
            Value::Null => Ok((Self::default(), Vec::new())),
            Value::Object(map) => Ok(Self::from_entries(
                map.into_iter().map(|(key, value)| (key, Ok(value))),
            )),
            other => Err(ConfigError::new(
                ConfigErrorKind::NotAMapping,
                format!(
                    "the settings must be a mapping of keys to values, not {}",
                    describe(&other)
                ),
            )),
        }
    }

    /// As [`Config::from_value`], for a mapping whose values an edge read one by one: an
    /// `Err` is a value that could not be read at all (the text says why); it counts as an
    /// unusable value of its key, so it never affects another key.
    ///
    /// ```
    /// use claude_tool_bridge::Config;
    /// use serde_json::json;
    ///
    /// let (config, warnings) = Config::from_entries([
    ///     ("enabled".to_owned(), Err("it holds NaN".to_owned())),
    ///     ("early_stop".to_owned(), Ok(json!(false))),
    /// ]);
    /// assert!(!config.enabled); // an unreadable `enabled` never turns the bridge on
    /// assert!(!config.early_stop);
    /// assert_eq!(warnings[0].to_string(),
    ///            "`enabled` cannot be read (it holds NaN); the bridge is off until this is fixed");
    /// ```
    pub fn from_entries<I>(entries: I) -> (Self, Vec<ConfigWarning>)
    where
        I: IntoIterator<Item = (String, Result<Value, String>)>,
    {
        let mut config = Self::default();
        let mut warnings = Warnings(Vec::new());
        for (key, value) in entries {
            let value = match value {
                Ok(value) => value,
                Err(why) => {
                    let kind = WarningKind::Unreadable(why);
                    match key.as_str() {
                        "enabled" => config.enabled = false,
                        "models" => config.models = ModelPatterns::none(),
                        k if Self::KEYS.contains(&k) => {}
                        _ => {
                            warnings.push(&key, None, WarningKind::UnknownKey, Fallback::Ignored);
                            continue;
                        }
                    }
                    let fallback = fallback_of(&key);
                    warnings.push(&key, None, kind, fallback);
                    continue;
                }
            };
            match key.as_str() {
                "enabled" => {
                    if let Some(kind) = set_bool(&mut config.enabled, &value) {
                        config.enabled = false;
                        warnings.push(&key, None, kind, Fallback::Off);
                    }
                }
                "models" => set_models(&mut config.models, &value, &mut warnings),
                "families" => set_families(&mut config.families, &value, &mut warnings),
                "forms" => set_forms(&mut config.forms, &value, &mut warnings),
                "early_stop" | "stop_sequence" | "loop_guard" | "prose_as_response"
                | "all_forms" => {
                    let slot = match key.as_str() {
                        "early_stop" => &mut config.early_stop,
                        "stop_sequence" => &mut config.stop_sequence,
                        "loop_guard" => &mut config.loop_guard,
                        "all_forms" => &mut config.all_forms,
                        _ => &mut config.prose_as_response,
                    };
                    if let Some(kind) = set_bool(slot, &value) {
                        warnings.push(&key, None, kind, fallback_of(&key));
                    }
                }
                "prose_min_chars" => {
                    if let Some(kind) = set_count(&mut config.prose_min_chars, &value) {
                        warnings.push(&key, None, kind, fallback_of(&key));
                    }
                }
                _ => warnings.push(&key, None, WarningKind::UnknownKey, Fallback::Ignored),
            }
        }
        (config, warnings.0)
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
    pub fn family_of(&self, model: &str) -> Option<Family> {
        self.families.family_of(model)
    }

    /// The markup forms `model`'s replies are read for: every form with `all_forms`; the
    /// forms the first `forms` entry matching its name names; else its family's own
    /// ([`Family::forms`]); none for a model of no family (a model that never leaks a call
    /// writes no markup of its own, so any it writes is a quotation, from documentation say).
    pub fn forms_for(&self, model: &str) -> ctb_invoke::Forms {
        if self.all_forms {
            return ctb_invoke::Forms::ALL;
        }
        if let Some(named) = self.forms.forms_of(model) {
            return named;
        }
        match self.family_of(model) {
            Some(family) => family.forms(),
            None => ctb_invoke::Forms::NONE,
        }
    }
}

/// The family names the settings know, from the registry: `claude, minimax, ...`.
fn family_codes() -> String {
    let codes: Vec<&str> = ctb_invoke::registry::FAMILIES
        .iter()
        .map(|r| r.code)
        .collect();
    codes.join(", ")
}

/// The markup form codes the settings know, from the registry: `claude, minimax, ...`.
fn form_codes() -> String {
    let codes: Vec<&str> = Form::all().map(Form::code).collect();
    codes.join(", ")
}

/// Why a settings document could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq, Copy)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The top level is not a mapping of keys to values.
    NotAMapping,
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
    /// A model pattern that cannot be used (too long, or one too many).
    BadPattern(String),
    /// A name under `families` that is not a model family.
    UnknownFamily(String),
    /// A code under `forms` that is not a markup form.
    UnknownForm(String),
    /// A value the edge could not read at all (the text says why).
    Unreadable(String),
}

/// What a key falls back to when its value is not used as given.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fallback {
    /// The key's default, compact JSON (shown when short).
    Default(String),
    /// `enabled`: the bridge is off.
    Off,
    /// `models`: no model is covered.
    NoModels,
    /// The offending item is left out, the rest of the value is used.
    LeftOut,
    /// The items past the limit are left out.
    PastLimit,
    /// `forms`: the models the entry's pattern matches are read for no form.
    NoForms,
    /// An unknown key: ignored.
    Ignored,
}

/// One key of a settings document that was not used as given. Its `Display` is one line for
/// a person to read, saying what is used instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    key: String,
    /// Where inside the key's value, when not the value as a whole (`models[2]`,
    /// `families.kimi`).
    place: Option<String>,
    kind: WarningKind,
    fallback: Fallback,
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
        let place = self.place.as_deref().unwrap_or(&self.key);
        match &self.kind {
            WarningKind::UnknownKey => return write!(f, "unknown key `{place}` ignored"),
            WarningKind::UnknownFamily(name) => write!(
                f,
                "`{place}`: `{name}` is not a model family ({})",
                family_codes()
            )?,
            WarningKind::UnknownForm(code) => write!(
                f,
                "`{place}`: `{code}` is not a markup form ({})",
                form_codes()
            )?,
            WarningKind::BadValue { expected, found } => {
                write!(f, "`{place}` must be {expected}, not {found}")?
            }
            WarningKind::BadPattern(why) => write!(f, "`{place}`: {why}")?,
            WarningKind::Unreadable(why) => write!(f, "`{place}` cannot be read ({why})")?,
        }
        match &self.fallback {
            // A long default (the model lists) is named, not printed.
            Fallback::Default(text) if text.len() <= 40 => {
                write!(f, "; the default ({text}) is used")
            }
            Fallback::Default(_) => f.write_str("; the default is used"),
            Fallback::Off => f.write_str("; the bridge is off until this is fixed"),
            Fallback::NoModels => f.write_str("; no model is covered until this is fixed"),
            Fallback::LeftOut => f.write_str("; it is left out"),
            Fallback::PastLimit => write!(
                f,
                "; the patterns after the first {MAX_PATTERNS} are left out"
            ),
            Fallback::Ignored => f.write_str("; ignored"),
            Fallback::NoForms => {
                f.write_str("; the models it matches are read for no form until this is fixed")
            }
        }
    }
}

/// The warnings of one document, in order.
struct Warnings(Vec<ConfigWarning>);

impl Warnings {
    fn push(&mut self, key: &str, place: Option<String>, kind: WarningKind, fallback: Fallback) {
        self.0.push(ConfigWarning {
            key: key.to_owned(),
            place,
            kind,
            fallback,
        });
    }
}

/// What an unusable value of `key` falls back to.
fn fallback_of(key: &str) -> Fallback {
    match key {
        "enabled" => Fallback::Off,
        "models" => Fallback::NoModels,
        _ => {
            let default = Config::default().to_value();
            Fallback::Default(default.get(key).map(compact).unwrap_or_default())
        }
    }
}

fn bad_value(expected: &'static str, value: &Value) -> WarningKind {
    WarningKind::BadValue {
        expected,
        found: describe(value),
    }
}

fn bad(expected: &'static str, value: &Value) -> Option<WarningKind> {
    Some(bad_value(expected, value))
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

const PATTERNS: &str = "a list of model name patterns";

/// `models` takes a list of text patterns, or one text (a single pattern). Bad items are left
/// out; a value that is no list at all covers no model.
fn set_models(slot: &mut ModelPatterns, value: &Value, warnings: &mut Warnings) {
    *slot = match usable_patterns("models", "models", value, warnings) {
        Some(patterns) => compile("models", None, patterns, warnings, Fallback::NoModels),
        None => {
            warnings.push(
                "models",
                None,
                bad_value(PATTERNS, value),
                Fallback::NoModels,
            );
            None
        }
    }
    .unwrap_or_else(ModelPatterns::none);
}

/// The usable patterns of a pattern list (`None` when `value` is no list or text at all), a
/// warning for each item left out.
fn usable_patterns<'v>(
    key: &str,
    place: &str,
    value: &'v Value,
    warnings: &mut Warnings,
) -> Option<Vec<&'v str>> {
    let items: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) => items.iter().collect(),
        _ => return None,
    };
    let mut patterns = Vec::with_capacity(items.len().min(MAX_PATTERNS));
    for (i, item) in items.iter().enumerate() {
        if patterns.len() == MAX_PATTERNS {
            let why = format!("{} patterns, more than {MAX_PATTERNS}", items.len());
            warnings.push(
                key,
                Some(place.to_owned()),
                WarningKind::BadPattern(why),
                Fallback::PastLimit,
            );
            break;
        }
        let at = || Some(format!("{place}[{i}]"));
        match item.as_str() {
            Some(text) if text.len() > MAX_PATTERN_LEN => warnings.push(
                key,
                at(),
                WarningKind::BadPattern(too_long(text.len())),
                Fallback::LeftOut,
            ),
            Some(text) => patterns.push(text),
            None => warnings.push(
                key,
                at(),
                WarningKind::BadValue {
                    expected: "a model name pattern (text)",
                    found: describe(item),
                },
                Fallback::LeftOut,
            ),
        }
    }
    Some(patterns)
}

/// Compiles usable patterns; `None` (and a warning) should the regex engine refuse them.
fn compile(
    key: &str,
    place: Option<String>,
    patterns: Vec<&str>,
    warnings: &mut Warnings,
    fallback: Fallback,
) -> Option<ModelPatterns> {
    match ModelPatterns::new(patterns) {
        Ok(compiled) => Some(compiled),
        Err(e) => {
            warnings.push(key, place, WarningKind::BadPattern(e.to_string()), fallback);
            None
        }
    }
}

/// `families` takes a mapping of family names (`claude`, `minimax`, `deepseek`, `qwen`, `glm`,
/// `kimi`, `gpt_oss`, `grok`) to pattern lists; the families it names get those patterns, the
/// others keep theirs. An unknown family name is left out; a family whose value is no list
/// keeps its default patterns; bad items are left out.
fn set_families(slot: &mut ModelFamilies, value: &Value, warnings: &mut Warnings) {
    const EXPECTED: &str = "a mapping of model family names to lists of model name patterns";
    let Value::Object(map) = value else {
        let kind = bad_value(EXPECTED, value);
        warnings.push("families", None, kind, fallback_of("families"));
        return;
    };
    for (name, patterns) in map {
        let place = format!("families.{name}");
        let Some(family) = Family::from_code(name) else {
            warnings.push(
                "families",
                None,
                WarningKind::UnknownFamily(name.clone()),
                Fallback::LeftOut,
            );
            continue;
        };
        let default = Fallback::Default(compact(&serde_json::json!(family.row().patterns)));
        let Some(usable) = usable_patterns("families", &place, patterns, warnings) else {
            warnings.push(
                "families",
                Some(place),
                bad_value(PATTERNS, patterns),
                default,
            );
            continue;
        };
        if let Some(compiled) = compile("families", Some(place), usable, warnings, default) {
            slot.set(family, compiled);
        }
    }
}

/// `forms` takes a mapping of model name patterns to lists of markup form codes (or one
/// code). An unknown code, or an item that is not text, is left out and the rest used; a
/// pattern whose value is no list or text at all names no form (its models read none); a
/// pattern too long, and the entries past [`MAX_PATTERNS`], are left out.
fn set_forms(slot: &mut ModelForms, value: &Value, warnings: &mut Warnings) {
    const EXPECTED: &str = "a mapping of model name patterns to lists of markup form codes";
    const CODES: &str = "a list of markup form codes";
    let Value::Object(map) = value else {
        let kind = bad_value(EXPECTED, value);
        warnings.push("forms", None, kind, fallback_of("forms"));
        return;
    };
    let mut forms = ModelForms::default();
    for (pattern, codes) in map {
        if forms.len() == MAX_PATTERNS {
            let why = format!("{} patterns, more than {MAX_PATTERNS}", map.len());
            warnings.push(
                "forms",
                None,
                WarningKind::BadPattern(why),
                Fallback::PastLimit,
            );
            break;
        }
        if pattern.len() > MAX_PATTERN_LEN {
            let kind = WarningKind::BadPattern(too_long(pattern.len()));
            warnings.push("forms", None, kind, Fallback::LeftOut);
            continue;
        }
        let place = format!("forms.{pattern}");
        let items: Vec<&Value> = match codes {
            Value::String(_) => vec![codes],
            Value::Array(items) => items.iter().collect(),
            other => {
                warnings.push(
                    "forms",
                    Some(place),
                    bad_value(CODES, other),
                    Fallback::NoForms,
                );
                Vec::new()
            }
        };
        let mut named: Vec<Form> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = || Some(format!("forms.{pattern}[{i}]"));
            match item.as_str() {
                Some(code) => match Form::from_code(code.trim()) {
                    Some(form) if !named.contains(&form) => named.push(form),
                    Some(_) => {}
                    None => warnings.push(
                        "forms",
                        at(),
                        WarningKind::UnknownForm(code.to_owned()),
                        Fallback::LeftOut,
                    ),
                },
                None => warnings.push(
                    "forms",
                    at(),
                    bad_value("a markup form code (text)", item),
                    Fallback::LeftOut,
                ),
            }
        }
        match ModelPatterns::new([pattern.as_str()]) {
            Ok(compiled) => forms.push(compiled, named),
            Err(e) => {
                let place = Some(format!("forms.{pattern}"));
                warnings.push(
                    "forms",
                    place,
                    WarningKind::BadPattern(e.to_string()),
                    Fallback::LeftOut,
                );
            }
        }
    }
    *slot = forms;
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
            "all_forms": true, "forms": {"*deepseek-v4*": ["qwen3_coder", "hermes"], "x": []},
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

    /// Each document gives exactly one warning, and the config the defaults with `changed`
    /// laid over them: an unusable value affects its own key only, and never towards doing
    /// more (an unreadable `enabled` is off, an unreadable `models` covers less).
    #[test]
    fn warnings_read_well_and_unusable_values_fail_closed() {
        let many: Vec<String> = (0..40).map(|i| format!("m{i}")).collect();
        let codes: Vec<&str> = ctb_invoke::registry::Family::all()
            .map(|f| f.code())
            .collect();
        let not_a_family = format!(
            "`families`: `acme` is not a model family ({}); it is left out",
            codes.join(", ")
        );
        let form_codes: Vec<&str> = Form::all().map(Form::code).collect();
        let not_a_form = format!(
            "`forms.v4[1]`: `qwen3` is not a markup form ({}); it is left out",
            form_codes.join(", ")
        );
        let cases: &[(Value, &str, Value)] = &[
            (
                json!({"colour": "blue"}),
                "unknown key `colour` ignored",
                json!({}),
            ),
            (
                json!({"loop_guard": "no_thanks"}),
                "`loop_guard` must be true or false, not a string (\"no_thanks\"); \
                 the default (true) is used",
                json!({}),
            ),
            (
                json!({"early_stop": 1}),
                "`early_stop` must be true or false, not a number (1); the default (true) is used",
                json!({}),
            ),
            (
                json!({"prose_min_chars": -5}),
                "`prose_min_chars` must be a whole number of 0 or more, not a number (-5); \
                 the default (800) is used",
                json!({}),
            ),
            (
                json!({"prose_min_chars": 1.5}),
                "`prose_min_chars` must be a whole number of 0 or more, not a number (1.5); \
                 the default (800) is used",
                json!({}),
            ),
            (
                json!({"enabled": null}),
                "`enabled` must be true or false, not null; the bridge is off until this is fixed",
                json!({"enabled": false}),
            ),
            (
                json!({"enabled": "false"}),
                "`enabled` must be true or false, not a string (\"false\"); the bridge is off \
                 until this is fixed",
                json!({"enabled": false}),
            ),
            (
                json!({"enabled": "true"}),
                "`enabled` must be true or false, not a string (\"true\"); the bridge is off \
                 until this is fixed",
                json!({"enabled": false}),
            ),
            (
                json!({"enabled": {"a": 1}}),
                "`enabled` must be true or false, not a mapping; the bridge is off until this \
                 is fixed",
                json!({"enabled": false}),
            ),
            (
                json!({"models": 5}),
                "`models` must be a list of model name patterns, not a number (5); no model is \
                 covered until this is fixed",
                json!({"models": []}),
            ),
            (
                json!({"models": null}),
                "`models` must be a list of model name patterns, not null; no model is covered \
                 until this is fixed",
                json!({"models": []}),
            ),
            (
                json!({"models": ["claude", 3]}),
                "`models[1]` must be a model name pattern (text), not a number (3); it is left out",
                json!({"models": ["claude"]}),
            ),
            (
                json!({"models": ["x".repeat(1025), "glm"]}),
                "`models[0]`: model pattern of 1025 bytes is longer than 1024; it is left out",
                json!({"models": ["glm"]}),
            ),
            (
                json!({"models": many}),
                "`models`: 40 patterns, more than 32; the patterns after the first 32 are left out",
                json!({"models": many[..32]}),
            ),
            (
                json!({"families": {"acme": ["acme"], "glm": ["zai"]}}),
                &not_a_family,
                json!({"families": {"glm": ["zai"]}}),
            ),
            (
                json!({"families": {"glm": ["zai"], "kimi": 3}}),
                "`families.kimi` must be a list of model name patterns, not a number (3); \
                 the default ([\"kimi\",\"moonshot\"]) is used",
                json!({"families": {"glm": ["zai"]}}),
            ),
            (
                json!({"families": {"qwen": ["qwen", false]}}),
                "`families.qwen[1]` must be a model name pattern (text), not a boolean (false); \
                 it is left out",
                json!({}),
            ),
            (
                json!({"families": ["glm"]}),
                "`families` must be a mapping of model family names to lists of model name \
                 patterns, not a list; the default is used",
                json!({}),
            ),
            (
                json!({"forms": {"v4": ["qwen3_coder", "qwen3"]}}),
                &not_a_form,
                json!({"forms": {"v4": ["qwen3_coder"]}}),
            ),
            (
                json!({"forms": {"v4": ["hermes", 7]}}),
                "`forms.v4[1]` must be a markup form code (text), not a number (7); it is left out",
                json!({"forms": {"v4": ["hermes"]}}),
            ),
            (
                json!({"forms": {"v4": {"qwen3_coder": true}}}),
                "`forms.v4` must be a list of markup form codes, not a mapping; the models it \
                 matches are read for no form until this is fixed",
                json!({"forms": {"v4": []}}),
            ),
            (
                json!({"forms": ["qwen3_coder"]}),
                "`forms` must be a mapping of model name patterns to lists of markup form \
                 codes, not a list; the default ({}) is used",
                json!({}),
            ),
            (
                json!({"forms": {"x".repeat(1025): ["glm"], "v4": "glm"}}),
                "`forms`: model pattern of 1025 bytes is longer than 1024; it is left out",
                json!({"forms": {"v4": ["glm"]}}),
            ),
        ];
        for (doc, want, changed) in cases {
            let (c, w) = load(doc.clone());
            assert_eq!(w, [*want], "{doc}");
            assert_eq!(Value::Object(c.overrides()), *changed, "{doc}");
        }
    }

    /// A value the edge could not read falls back for its own key only.
    #[test]
    fn unreadable_values_affect_their_key_only() {
        let unreadable = |key: &str| (key.to_owned(), Err("it holds NaN".to_owned()));
        let (c, w) = Config::from_entries([
            unreadable("prose_min_chars"),
            ("enabled".to_owned(), Ok(json!(false))),
            unreadable("colour"),
            unreadable("models"),
            unreadable("families"),
            ("early_stop".to_owned(), Ok(json!(false))),
        ]);
        assert!(!c.enabled, "the saved `enabled: false` holds");
        assert!(!c.early_stop);
        assert_eq!(c.prose_min_chars, 800);
        assert!(c.models.as_slice().is_empty() && !c.models.matches("anthropic/claude-x"));
        assert_eq!(c.families, ModelFamilies::default());
        let w: Vec<String> = w.iter().map(ToString::to_string).collect();
        assert_eq!(
            w,
            [
                "`prose_min_chars` cannot be read (it holds NaN); the default (800) is used",
                "unknown key `colour` ignored",
                "`models` cannot be read (it holds NaN); no model is covered until this is fixed",
                "`families` cannot be read (it holds NaN); the default is used",
            ]
        );
        let (c, _) = Config::from_entries([unreadable("enabled")]);
        assert!(!c.enabled);
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
            ("openrouter/anthropic/claude-sonnet-4.6", Family::CLAUDE),
            ("openrouter/minimax/minimax-m2", Family::MINIMAX),
            ("deepseek/deepseek-chat", Family::DEEPSEEK),
            ("openrouter/qwen/qwen3-coder", Family::QWEN),
            ("openrouter/z-ai/glm-4.7", Family::GLM),
            ("openrouter/moonshotai/kimi-k2", Family::KIMI),
            ("groq/openai/gpt-oss-120b", Family::GPT_OSS),
            ("xai/grok-4", Family::GROK),
        ] {
            assert_eq!(c.family_of(model), Some(family), "{model}");
        }
        assert_eq!(c.family_of("openai/gpt-5"), None);
        let (c, w) = load(json!({"families": {"glm": ["zai-*"]}}));
        assert!(w.is_empty());
        assert_eq!(c.family_of("zai-coder"), Some(Family::GLM));
        assert_eq!(c.family_of("openrouter/z-ai/glm-4.7"), None);
        assert_eq!(
            c.family_of("openrouter/moonshotai/kimi-k2"),
            Some(Family::KIMI)
        );
    }

    #[test]
    fn a_model_reads_its_family_forms() {
        use ctb_invoke::{Form, Forms};
        let c = Config::default();
        assert_eq!(
            c.forms_for("anthropic/claude-sonnet-4-5"),
            Forms::of(&[Form::CLAUDE])
        );
        assert!(
            c.forms_for("openrouter/deepseek/deepseek-v3.2")
                .contains(Form::CLAUDE)
        );
        assert!(
            !c.forms_for("openrouter/qwen/qwen3-coder")
                .contains(Form::CLAUDE)
        );
        // A model of no family reads none: a call it writes is a quotation.
        assert_eq!(c.forms_for("openai/gpt-5"), Forms::NONE);
        let (all, w) = load(json!({"all_forms": true}));
        assert!(w.is_empty());
        assert_eq!(all.forms_for("anthropic/claude-sonnet-4-5"), Forms::ALL);
        assert_eq!(all.forms_for("openai/gpt-5"), Forms::ALL);
        // Settings that give it a family give it that family's forms.
        let (named, w) = load(json!({"families": {"qwen": ["my-local"]}}));
        assert!(w.is_empty());
        assert!(named.forms_for("my-local-model").contains(Form::HERMES));
    }

    /// A deployment names the forms its models write: the first matching entry replaces the
    /// family's forms (the family still picks the stops); `all_forms` still reads every form;
    /// a bad entry never has a model read for a form it did not name.
    #[test]
    fn a_deployment_names_the_forms_its_models_write() {
        use ctb_invoke::{Form, Forms};
        let (c, w) = load(json!({"forms": {
            "*deepseek-v4*": ["qwen3_coder"],
            "deepseek": ["claude"],
            "my-local": "hermes",
            "broken": 3,
            "unknown": ["qwen3"],
        }}));
        assert_eq!(w.len(), 2, "{w:?}");
        let v4 = "hosted_vllm/deepseek-v4-flash";
        assert_eq!(c.forms_for(v4), Forms::of(&[Form::QWEN3_CODER]));
        assert_eq!(c.family_of(v4), Some(Family::DEEPSEEK), "the family stays");
        // Entries are tried in order: the first match wins.
        assert_eq!(
            c.forms_for("deepseek/deepseek-chat"),
            Forms::of(&[Form::CLAUDE])
        );
        // A model of no family gets the forms named for it.
        assert_eq!(c.forms_for("my-local-model"), Forms::of(&[Form::HERMES]));
        // A value that is no list, or only unknown codes: no form is read.
        assert_eq!(c.forms_for("broken-model"), Forms::NONE);
        assert_eq!(c.forms_for("unknown-model"), Forms::NONE);
        // Others keep their family's forms.
        assert_eq!(
            c.forms_for("openrouter/qwen/qwen3-coder"),
            Family::QWEN.forms()
        );
        let (all, _) = load(json!({"all_forms": true, "forms": {"v4": ["glm"]}}));
        assert_eq!(all.forms_for("v4"), Forms::ALL);
        let context = crate::Context::for_model(&c, v4);
        assert_eq!(context.forms, Forms::of(&[Form::QWEN3_CODER]));
        assert_eq!(context.family, Some(Family::DEEPSEEK));

        // At most MAX_PATTERNS entries.
        let many: serde_json::Map<String, Value> = (0..40)
            .map(|i| (format!("*/m{i}"), json!(["glm"])))
            .collect();
        let (c, w) = load(json!({"forms": many}));
        assert_eq!(c.forms.len(), MAX_PATTERNS);
        assert_eq!(
            w,
            ["`forms`: 40 patterns, more than 32; the patterns after the first 32 are left out"]
        );
        assert_eq!(c.forms_for("p/m3"), Forms::of(&[Form::GLM]));
        assert_eq!(c.forms_for("p/m35"), Forms::NONE, "no family, no entry");
    }
}
