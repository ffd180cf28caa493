//! Which chat models the bridge acts on: [`ModelPatterns`].

use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::meta::Regex;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;

use ctb_invoke::{Family, Form, Forms};

/// A list of model patterns that cannot be compiled: too many, one too long, or more than the
/// matcher's size limit. Its `Display` says which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(String);

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

/// Longest pattern accepted, and longest model name looked at (a longer name never matches).
pub const MAX_PATTERN_LEN: usize = 1024;

/// Most patterns in one list (`models`, or one family's). With [`MAX_PATTERN_LEN`] this bounds
/// a list at 32 KiB of pattern text: the worst such list (wildcards and non-ASCII letters
/// throughout) compiles in about 50 ms into about 4 MB.
pub const MAX_PATTERNS: usize = 32;

/// The compiled automaton's size limit, above what the largest list accepted needs.
const NFA_SIZE_LIMIT: usize = 16 << 20;

/// Compiled pattern lists kept for reuse (settings are read again and again, and change
/// rarely).
const RECENT_LISTS: usize = 16;

/// A list of patterns matched against the LiteLLM model name
/// (`openrouter/anthropic/claude-sonnet-4.6`, `anthropic/claude-...`), compiled once.
///
/// A pattern is matched case-insensitively. With `*` (any run of characters) or `?` (one
/// character) it must match the whole name; without them it matches anywhere in the name.
/// Blank patterns match nothing. All patterns are compiled into one
/// [`regex_automata::meta::Regex`] when the list is built, so a lookup is one search over the
/// name, whatever the number of patterns (the hand-written matcher this replaces lowered both
/// strings into new vectors and compared them window by window, for every pattern, on every
/// turn).
///
/// Compiling takes time linear in the patterns' total length (the regex is built without
/// capture groups and without a literal prefilter: with them, building and the first search
/// grew quadratically with the number of patterns, seconds for a few thousand), and a list is
/// bounded: at most [`MAX_PATTERNS`] patterns of at most [`MAX_PATTERN_LEN`] bytes. The last
/// few lists compiled are kept, so reading the same settings again compiles nothing.
///
/// ```
/// use claude_tool_bridge::ModelPatterns;
///
/// let patterns = ModelPatterns::new(["claude", "openai/*-mini"]).unwrap();
/// assert!(patterns.matches("openrouter/anthropic/Claude-Sonnet-4.6"));
/// assert!(patterns.matches("openai/gpt-5-mini"));
/// assert!(!patterns.matches("openai/gpt-5-mini-2026"));
/// assert_eq!(patterns.as_slice(), ["claude", "openai/*-mini"]);
/// ```
#[derive(Clone)]
pub struct ModelPatterns {
    patterns: Vec<String>,
    /// `None` when no pattern can match (empty list, or only blank patterns). Shared, so a
    /// cloned config also shares the regex's search caches (cloning a `Regex` itself starts
    /// an empty cache pool, and the first search then builds a cache).
    matcher: Option<Arc<Regex>>,
}

impl ModelPatterns {
    /// Compiles `patterns`. Fails ([`PatternError`]) for more than
    /// [`MAX_PATTERNS`] patterns or a pattern longer than [`MAX_PATTERN_LEN`] bytes.
    pub fn new<I, S>(patterns: I) -> Result<Self, PatternError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let patterns: Vec<String> = patterns
            .into_iter()
            .take(MAX_PATTERNS + 1)
            .map(Into::into)
            .collect();
        if patterns.len() > MAX_PATTERNS {
            return Err(PatternError(format!(
                "more than {MAX_PATTERNS} model patterns"
            )));
        }
        if let Some(long) = patterns.iter().find(|p| p.len() > MAX_PATTERN_LEN) {
            return Err(PatternError(too_long(long.len())));
        }
        let matcher = compiled(&patterns)?;
        Ok(Self { patterns, matcher })
    }

    /// The models covered by default: every family's default patterns, compiled once per
    /// process (a clone shares the compiled matcher), so `Config::default()` stays cheap.
    pub(crate) fn default_models() -> Self {
        static MODELS: OnceLock<ModelPatterns> = OnceLock::new();
        MODELS
            .get_or_init(|| {
                let all = ctb_invoke::registry::FAMILIES
                    .iter()
                    .flat_map(|row| row.patterns.iter().copied());
                Self::new(all).unwrap_or_else(|_| Self::none())
            })
            .clone()
    }

    /// No patterns: matches nothing.
    pub(crate) fn none() -> Self {
        Self {
            patterns: Vec::new(),
            matcher: None,
        }
    }

    /// Whether one of the patterns matches the model name `name`.
    pub fn matches(&self, name: &str) -> bool {
        name.len() <= MAX_PATTERN_LEN && self.matcher.as_ref().is_some_and(|m| m.is_match(name))
    }

    /// The patterns as given.
    pub fn as_slice(&self) -> &[String] {
        &self.patterns
    }

    /// The patterns as given.
    pub fn iter(&self) -> std::slice::Iter<'_, String> {
        self.patterns.iter()
    }
}

/// Which model family a covered model belongs to: per family, name patterns. The family picks
/// the stop strings the provider is asked for and the markup forms its replies are read for
/// (both from its row of the registry, [`ctb_invoke::registry`]). A model no family's
/// patterns match gets Claude's stops and is read for every form.
///
/// ```
/// use claude_tool_bridge::{Config, Family};
///
/// let config = Config::default();
/// assert_eq!(config.families.family_of("openrouter/z-ai/glm-4.7"), Some(Family::GLM));
/// assert_eq!(config.families.family_of("openrouter/moonshotai/kimi-k2"), Some(Family::KIMI));
/// assert_eq!(config.families.family_of("some/other-model"), None);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ModelFamilies {
    /// In the registry's order.
    patterns: Vec<(Family, ModelPatterns)>,
}

impl ModelFamilies {
    /// The family of the model `name`: the first whose patterns match, if any.
    pub fn family_of(&self, name: &str) -> Option<Family> {
        self.patterns
            .iter()
            .find(|(_, p)| p.matches(name))
            .map(|(f, _)| *f)
    }

    /// The patterns of `family`.
    pub fn patterns(&self, family: Family) -> Option<&ModelPatterns> {
        self.patterns
            .iter()
            .find(|(f, _)| *f == family)
            .map(|(_, p)| p)
    }

    /// Replaces the patterns of `family`.
    pub(crate) fn set(&mut self, family: Family, patterns: ModelPatterns) {
        if let Some(slot) = self.patterns.iter_mut().find(|(f, _)| *f == family) {
            slot.1 = patterns;
        }
    }
}

impl Default for ModelFamilies {
    /// Every family with its default patterns, compiled once per process.
    fn default() -> Self {
        static DEFAULT: OnceLock<ModelFamilies> = OnceLock::new();
        DEFAULT
            .get_or_init(|| Self {
                patterns: Family::all()
                    .map(|f| {
                        let p = ModelPatterns::new(f.row().patterns.iter().copied())
                            .unwrap_or_else(|_| ModelPatterns::none());
                        (f, p)
                    })
                    .collect(),
            })
            .clone()
    }
}

impl std::fmt::Debug for ModelFamilies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.patterns.iter().map(|(k, v)| (k.code(), v)))
            .finish()
    }
}

impl serde::Serialize for ModelFamilies {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.patterns.len()))?;
        for (family, patterns) in &self.patterns {
            map.serialize_entry(family.code(), patterns)?;
        }
        map.end()
    }
}

/// The markup forms a deployment says its models write, by model name pattern: for a chat
/// template that asks one family's model for another family's form (DeepSeek V4 served with a
/// template that asks for Qwen3-Coder's `<function=...>` calls, say). The first entry whose
/// pattern matches a model's name gives the forms its replies are read for, in place of its
/// family's ([`Config::forms_for`](crate::Config::forms_for)); the family still picks the stop
/// strings and the reasoning marks. Empty by default.
///
/// ```
/// use claude_tool_bridge::{Config, Form, Forms};
/// use serde_json::json;
///
/// let (config, warnings) =
///     Config::from_value(json!({"forms": {"*deepseek-v4*": ["qwen3_coder"]}})).unwrap();
/// assert!(warnings.is_empty());
/// let model = "hosted_vllm/deepseek-v4-flash";
/// assert_eq!(config.forms.forms_of(model), Some(Forms::of(&[Form::QWEN3_CODER])));
/// assert_eq!(config.forms_for(model), Forms::of(&[Form::QWEN3_CODER]));
/// assert_eq!(config.forms.forms_of("deepseek/deepseek-chat"), None);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModelForms {
    /// In the settings' order: the pattern, compiled, and the forms as written (each once).
    entries: Vec<(ModelPatterns, Vec<Form>)>,
}

impl ModelForms {
    /// The forms the first entry matching the model `name` names (possibly none at all), or
    /// `None` when no entry matches.
    pub fn forms_of(&self, name: &str) -> Option<Forms> {
        self.entries
            .iter()
            .find(|(pattern, _)| pattern.matches(name))
            .map(|(_, forms)| Forms::of(forms))
    }

    /// The entries: each pattern and the forms it names, in the settings' order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[Form])> {
        self.entries.iter().map(|(p, f)| {
            (
                p.as_slice().first().map_or("", String::as_str),
                f.as_slice(),
            )
        })
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Adds an entry (a pattern compiled alone, at most [`MAX_PATTERN_LEN`] bytes).
    pub(crate) fn push(&mut self, pattern: ModelPatterns, forms: Vec<Form>) {
        self.entries.push((pattern, forms));
    }
}

impl std::fmt::Debug for ModelForms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(
                self.iter()
                    .map(|(p, forms)| (p, forms.iter().map(|f| f.code()).collect::<Vec<_>>())),
            )
            .finish()
    }
}

impl serde::Serialize for ModelForms {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (pattern, forms) in self.iter() {
            let codes: Vec<&str> = forms.iter().map(|f| f.code()).collect();
            map.serialize_entry(pattern, &codes)?;
        }
        map.end()
    }
}

/// Why a pattern of `len` bytes is refused.
pub(crate) fn too_long(len: usize) -> String {
    format!("model pattern of {len} bytes is longer than {MAX_PATTERN_LEN}")
}

/// The matcher for `patterns` (at most [`MAX_PATTERNS`], each at most [`MAX_PATTERN_LEN`]
/// bytes): one of the lists compiled lately, or compiled now and kept.
fn compiled(patterns: &[String]) -> Result<Option<Arc<Regex>>, PatternError> {
    type Recent = Vec<(Vec<String>, Option<Arc<Regex>>)>;
    static RECENT: Mutex<Recent> = Mutex::new(Vec::new());
    if let Ok(mut recent) = RECENT.lock() {
        if let Some(at) = recent.iter().position(|(list, _)| list == patterns) {
            let hit = recent.remove(at);
            let matcher = hit.1.clone();
            recent.push(hit);
            return Ok(matcher);
        }
    }
    let matcher = build(patterns)?;
    if let Ok(mut recent) = RECENT.lock() {
        if recent.len() >= RECENT_LISTS {
            recent.remove(0);
        }
        recent.push((patterns.to_vec(), matcher.clone()));
    }
    Ok(matcher)
}

/// Compiles `patterns` into one regex: `None` when none of them can match (none, or only
/// blank ones).
fn build(patterns: &[String]) -> Result<Option<Arc<Regex>>, PatternError> {
    let sources: Vec<String> = patterns
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(to_regex)
        .collect();
    if sources.is_empty() {
        return Ok(None);
    }
    // Only "does one match" is asked: no capture groups (their per-pattern slots made the
    // first search quadratic in the number of patterns), and no literal prefilter (its
    // construction was quadratic too, and a model name is short).
    let config = Regex::config()
        .auto_prefilter(false)
        .which_captures(WhichCaptures::None)
        .nfa_size_limit(Some(NFA_SIZE_LIMIT));
    let built = Regex::builder()
        .configure(config)
        .syntax(syntax::Config::new().case_insensitive(true))
        .build_many(&sources)
        .map_err(|e| PatternError(e.to_string()))?;
    Ok(Some(Arc::new(built)))
}

/// One pattern as a regular expression: literal text escaped, `*` and `?` as wildcards, a
/// pattern with wildcards anchored at both ends.
fn to_regex(pattern: &str) -> String {
    let glob = pattern.contains(['*', '?']);
    let mut out = String::with_capacity(pattern.len() + 8);
    if glob {
        out.push('^');
    }
    for c in pattern.chars() {
        match c {
            '*' => out.push_str("(?s:.*)"),
            '?' => out.push_str("(?s:.)"),
            c if regex_meta(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    if glob {
        out.push('$');
    }
    out
}

/// Characters with a meaning in the regex syntax (escaping any other is an error there).
fn regex_meta(c: char) -> bool {
    matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    )
}

impl PartialEq for ModelPatterns {
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl Eq for ModelPatterns {}

impl std::fmt::Debug for ModelPatterns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.patterns).finish()
    }
}

impl serde::Serialize for ModelPatterns {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.patterns.serialize(serializer)
    }
}

impl<'a> IntoIterator for &'a ModelPatterns {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.patterns.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, name: &str) -> bool {
        ModelPatterns::new([pattern]).unwrap().matches(name)
    }

    #[test]
    fn substring_and_glob() {
        let cases: &[(&str, &str, bool)] = &[
            ("claude", "openrouter/anthropic/claude-sonnet-4.6", true),
            ("claude", "anthropic/Claude-Opus-5-5", true),
            ("claude", "openai/gpt-5", false),
            ("anthropic/*sonnet*", "Anthropic/claude-sonnet-5-5", true),
            ("anthropic/*sonnet", "anthropic/claude-sonnet-5-5", false),
            ("*claude-?onnet*", "x/claude-sonnet-5", true),
            ("*", "anything", true),
            ("", "claude", false),
            ("   ", "claude", false),
            (" claude ", "claude", true),
            // Regex syntax in a pattern is literal text.
            ("claude.4", "claude-4", false),
            ("claude.4", "x/claude.4", true),
            ("(a|b)", "b", false),
            ("a+b", "xa+by", true),
            ("[x]", "[x]", true),
            ("ä", "Ä", true),
        ];
        for &(pattern, name, want) in cases {
            assert_eq!(matches(pattern, name), want, "{pattern:?} vs {name:?}");
        }
    }

    #[test]
    fn limits() {
        assert!(!matches("claude", &"x".repeat(2000)));
        assert!(matches("*", &"x".repeat(MAX_PATTERN_LEN)));
        let long = "c".repeat(MAX_PATTERN_LEN + 1);
        let err = ModelPatterns::new([long]).unwrap_err();
        assert_eq!(err.to_string(), too_long(MAX_PATTERN_LEN + 1));
        assert!(
            !ModelPatterns::new(Vec::<String>::new())
                .unwrap()
                .matches("claude")
        );
    }

    #[test]
    fn many_patterns_are_one_search() {
        let many: Vec<String> = (0..MAX_PATTERNS).map(|i| format!("model-{i}")).collect();
        let p = ModelPatterns::new(many.clone()).unwrap();
        assert!(p.matches("provider/model-31-x"));
        assert!(!p.matches("provider/model-x"));
        assert_eq!(p.as_slice().len(), MAX_PATTERNS);
        let too_many = many.into_iter().chain(["one-more".to_owned()]);
        let err = ModelPatterns::new(too_many).unwrap_err();

        assert_eq!(err.to_string(), "more than 32 model patterns");
    }

    /// Reading the same settings again compiles nothing: the matcher of an equal list is
    /// the one compiled before.
    #[test]
    fn an_equal_list_reuses_its_matcher() {
        let list = || ["cache-test-a", "cache-test-*b"];
        let first = ModelPatterns::new(list()).unwrap();
        let second = ModelPatterns::new(list()).unwrap();
        let (Some(a), Some(b)) = (&first.matcher, &second.matcher) else {
            panic!("both lists can match");
        };
        assert!(Arc::ptr_eq(a, b));
        let other = ModelPatterns::new(["cache-test-c"]).unwrap();
        assert!(!Arc::ptr_eq(a, other.matcher.as_ref().unwrap()));
    }

    /// The largest list accepted (32 patterns of 1024 bytes, wildcards and non-ASCII
    /// letters throughout) compiles and matches.
    #[test]
    fn the_largest_list_compiles() {
        let big: Vec<String> = (0..MAX_PATTERNS)
            .map(|i| {
                let mut p = format!("*p{i}-");
                while p.len() + "ä?b*".len() <= MAX_PATTERN_LEN {
                    p.push_str("ä?b*");
                }
                p
            })
            .collect();
        let name = big[7].replace('*', "").replace('?', "x").to_uppercase();
        let p = ModelPatterns::new(big).unwrap();
        assert!(!p.matches(&"x".repeat(MAX_PATTERN_LEN)));
        assert!(p.matches(&name));
    }
}
