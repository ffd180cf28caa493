//! Python bindings for `claude-tool-bridge`, built by maturin into the `claude_tool_bridge`
//! wheel (module `claude_tool_bridge._native`, abi3: one wheel for CPython 3.10 and newer).
//!
//! This crate only converts types and maps errors; every decision is made by the facade
//! crate. No Rust panic crosses into Python: each entry point runs under
//! [`std::panic::catch_unwind`] and turns a panic into the "leave the reply alone" answer
//! (`Decision` with outcome `untouched`, reason `internal_error`; no early stop; a turn plan
//! that covers nothing), or into a `BridgeError` where no such neutral answer exists.
//!
//! Settings are read here, at the edge: JSON or YAML text is parsed into a JSON value and
//! handed to [`Config::from_value`](claude_tool_bridge::Config::from_value), which lays it over
//! the defaults. The text readers are plain Rust and can be used without Python:
//!
//! ```
//! use _native::{parse_config_json, parse_config_yaml};
//! let (config, warnings) = parse_config_json(r#"{"enabled": false, "colour": 1}"#).unwrap();
//! assert!(!config.enabled);
//! assert_eq!(warnings, ["unknown key `colour` ignored"]);
//! let (config, _) = parse_config_yaml("models: [gpt]\n").unwrap();
//! assert_eq!(config.models.as_slice(), ["gpt"]);
//! ```

mod convert;
mod json;
mod str_cache;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use claude_tool_bridge as ctb;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::Value;

create_exception!(
    _native,
    BridgeError,
    PyRuntimeError,
    "Raised when the bridge fails internally (never for a reply it merely cannot use)."
);

/// Runs `f`, turning a panic into `fallback()`.
fn guarded<T>(f: impl FnOnce() -> T, fallback: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| fallback())
}

/// Runs `f`, turning a panic into a `BridgeError`.
fn guarded_py<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(BridgeError::new_err(format!("internal error in {what}"))))
}

/// A settings document's warnings: each one's key and its line of text.
type KeyedWarnings = Vec<(String, String)>;

/// Builds the config from a parsed document, with each warning's key.
fn config_from_value(value: Value) -> Result<(ctb::Config, KeyedWarnings), String> {
    let (config, warnings) = ctb::Config::from_value(value).map_err(|e| e.to_string())?;
    Ok((config, keyed(&warnings)))
}

fn keyed(warnings: &[ctb::ConfigWarning]) -> KeyedWarnings {
    warnings
        .iter()
        .map(|w| (w.key().to_owned(), w.to_string()))
        .collect()
}

fn texts(warnings: KeyedWarnings) -> Vec<String> {
    warnings.into_iter().map(|(_, text)| text).collect()
}

/// JSON text as a document; blank text is `null` (the defaults).
fn json_document(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text).map_err(|e| format!("JSON: {e}"))
}

/// YAML text as a document.
fn yaml_document(text: &str) -> Result<Value, String> {
    let yaml: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(text).map_err(|e| format!("YAML: {e}"))?;
    serde_json::to_value(yaml).map_err(|e| format!("YAML: {e}"))
}

/// Reads settings from JSON text (a saved `config.json`): the settings and one warning per
/// unknown key or unusable value (that key keeps its default). Blank text gives the defaults.
pub fn parse_config_json(text: &str) -> Result<(ctb::Config, Vec<String>), String> {
    let (config, warnings) = config_from_value(json_document(text)?)?;
    Ok((config, texts(warnings)))
}

/// Reads settings from YAML text (as in `default_config.yaml`); see [`parse_config_json`].
pub fn parse_config_yaml(text: &str) -> Result<(ctb::Config, Vec<String>), String> {
    let (config, warnings) = config_from_value(yaml_document(text)?)?;
    Ok((config, texts(warnings)))
}

fn to_value_error(msg: String) -> PyErr {
    PyValueError::new_err(msg)
}

/// A set of tools the model may call, looked up by name.
#[pyclass(module = "claude_tool_bridge._native", name = "Catalog")]
#[derive(Clone)]
pub struct PyCatalog {
    inner: ctb::Catalog,
}

#[pymethods]
impl PyCatalog {
    /// An empty catalog.
    #[new]
    fn new() -> Self {
        Self {
            inner: ctb::Catalog::new(),
        }
    }

    /// Reads JSON tool definitions or Agent Zero prompt text (tool prompts, MCP schemas).
    #[staticmethod]
    fn from_text(text: &str) -> PyResult<Self> {
        guarded_py("Catalog.from_text", || {
            ctb::Catalog::from_text(text)
                .map(|inner| Self { inner })
                .map_err(|e| to_value_error(e.to_string()))
        })
    }

    /// Agent Zero's built-in tools, bundled with the wheel.
    #[staticmethod]
    fn agent_zero() -> PyResult<Self> {
        guarded_py("Catalog.agent_zero", || {
            Ok(Self {
                inner: ctb::Catalog::agent_zero(),
            })
        })
    }

    /// Adds every tool of `other` (a later definition of a name replaces an earlier one).
    /// `other` may be this catalog itself: it is read before this one is changed.
    fn extend(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<()> {
        guarded_py("Catalog.extend", || {
            let tools = other.try_borrow()?.inner.clone();
            slf.try_borrow_mut()?.inner.extend(tools);
            Ok(())
        })
    }

    fn __len__(&self) -> usize {
        guarded(|| self.inner.len(), || 0)
    }

    fn __contains__(&self, name: &str) -> bool {
        guarded(|| self.inner.get(name).is_some(), || false)
    }

    fn __repr__(&self) -> String {
        format!("Catalog(<{} tools>)", self.__len__())
    }
}

/// The bridge's settings.
#[pyclass(module = "claude_tool_bridge._native", name = "Config", frozen)]
#[derive(Clone)]
pub struct PyConfig {
    inner: ctb::Config,
    warnings: KeyedWarnings,
}

impl PyConfig {
    fn wrap(document: Result<Value, String>) -> PyResult<Self> {
        let (inner, warnings) = document
            .and_then(config_from_value)
            .map_err(to_value_error)?;
        Ok(Self { inner, warnings })
    }
}

#[pymethods]
impl PyConfig {
    /// The defaults.
    #[new]
    fn new() -> Self {
        Self {
            inner: ctb::Config::default(),
            warnings: Vec::new(),
        }
    }

    /// Settings from JSON text (a saved `config.json`). Unknown keys and values of the wrong
    /// type are reported in `warnings` (the key keeps its default); unreadable text raises
    /// ValueError.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        guarded_py("Config.from_json", || Self::wrap(json_document(text)))
    }

    /// Settings from YAML text (`default_config.yaml`).
    #[staticmethod]
    fn from_yaml(text: &str) -> PyResult<Self> {
        guarded_py("Config.from_yaml", || Self::wrap(yaml_document(text)))
    }

    /// Settings from a dict (a saved `config.json` as Agent Zero hands it over), key by key:
    /// a value that is not a JSON value (`NaN`, an object, a dict holding itself) is an
    /// unusable value of its own key only, reported in `warnings`. A top level that is not
    /// a dict raises ValueError. The patterns compile without the GIL.
    #[staticmethod]
    fn from_dict(py: Python<'_>, settings: &Bound<'_, PyAny>) -> PyResult<Self> {
        guarded_py("Config.from_dict", || {
            let Some(entries) = convert::to_entries(settings)? else {
                return Self::wrap(Ok(convert::to_value(settings)?));
            };
            let (inner, warnings) = py.detach(|| ctb::Config::from_entries(entries));
            Ok(Self {
                inner,
                warnings: keyed(&warnings),
            })
        })
    }

    /// One line per unknown key or wrongly typed value found while loading.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        texts(self.warnings.clone())
    }

    /// The same warnings, each with the key it is about (an unknown key: that key).
    #[getter]
    fn warnings_by_key(&self) -> KeyedWarnings {
        self.warnings.clone()
    }

    /// The settings as JSON text (every key, defaults filled in).
    fn to_json(&self) -> PyResult<String> {
        guarded_py("Config.to_json", || {
            serde_json::to_string(&self.inner).map_err(|e| BridgeError::new_err(e.to_string()))
        })
    }

    /// The settings as a dict (every key, defaults filled in).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guarded_py("Config.to_dict", || {
            convert::to_python(py, &self.inner.to_value())
        })
    }

    /// Only the settings that differ from the defaults, as a dict: what to save so that a
    /// later release's new defaults reach every key the user left alone.
    fn overrides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guarded_py("Config.overrides", || {
            convert::to_python(py, &Value::Object(self.inner.overrides()))
        })
    }

    #[getter]
    fn enabled(&self) -> bool {
        self.inner.enabled
    }

    #[getter]
    fn models(&self) -> Vec<String> {
        self.inner.models.as_slice().to_vec()
    }

    /// Each family's model name patterns, as a new dict.
    #[getter]
    fn families<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guarded_py("Config.families", || {
            let value = serde_json::to_value(&self.inner.families)
                .map_err(|e| BridgeError::new_err(e.to_string()))?;
            convert::to_python(py, &value)
        })
    }

    /// The family of `model` by the family patterns, or None when none matches (such a model
    /// gets Claude's stop strings and is read for every markup form).
    fn family_of(&self, model: &str) -> Option<&'static str> {
        guarded(|| self.inner.family_of(model).map(|f| f.code()), || None)
    }

    #[getter]
    fn all_forms(&self) -> bool {
        self.inner.all_forms
    }

    /// The markup forms named per model name pattern, as a new dict.
    #[getter]
    fn forms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guarded_py("Config.forms", || {
            let value = serde_json::to_value(&self.inner.forms)
                .map_err(|e| BridgeError::new_err(e.to_string()))?;
            convert::to_python(py, &value)
        })
    }

    /// The markup forms `model`'s replies are read for, as codes in the registry's order.
    fn forms_for(&self, model: &str) -> Vec<&'static str> {
        guarded(
            || {
                self.inner
                    .forms_for(model)
                    .iter()
                    .map(|f| f.code())
                    .collect()
            },
            Vec::new,
        )
    }

    /// The forms the first `forms` entry matching `model` names, or None when none matches.
    fn named_forms(&self, model: &str) -> Option<Vec<&'static str>> {
        guarded(
            || {
                self.inner
                    .forms
                    .forms_of(model)
                    .map(|forms| forms.iter().map(|f| f.code()).collect())
            },
            || None,
        )
    }

    #[getter]
    fn early_stop(&self) -> bool {
        self.inner.early_stop
    }

    #[getter]
    fn stop_sequence(&self) -> bool {
        self.inner.stop_sequence
    }

    #[getter]
    fn loop_guard(&self) -> bool {
        self.inner.loop_guard
    }

    #[getter]
    fn prose_as_response(&self) -> bool {
        self.inner.prose_as_response
    }

    #[getter]
    fn prose_min_chars(&self) -> usize {
        self.inner.prose_min_chars
    }

    fn __repr__(&self) -> String {
        format!(
            "Config({})",
            serde_json::to_string(&self.inner).unwrap_or_default()
        )
    }
}

/// What the bridge asks for at the start of a turn.
#[pyclass(module = "claude_tool_bridge._native", name = "TurnPlan", frozen)]
pub struct PyTurnPlan {
    /// Whether the chat model is covered by the configuration.
    #[pyo3(get)]
    covered: bool,
    /// The full stop list for the provider: the model's own stops first, all of them; the
    /// bridge adds its own only while the list holds fewer than four.
    #[pyo3(get)]
    stops: Vec<String>,
}

#[pymethods]
impl PyTurnPlan {
    fn __repr__(&self) -> String {
        format!(
            "TurnPlan(covered={}, stops={:?})",
            if self.covered { "True" } else { "False" },
            self.stops
        )
    }
}

/// What to do with one reply.
#[pyclass(module = "claude_tool_bridge._native", name = "Decision", frozen)]
pub struct PyDecision {
    /// `translated`, `prose`, `discard` or `untouched`.
    #[pyo3(get)]
    outcome: &'static str,
    /// The exact text Agent Zero should see: the `str` given, when the reply is left as it
    /// is (no copy is made), else a new one.
    #[pyo3(get)]
    reply: Py<PyString>,
    /// Agent Zero's tool request, when one was produced.
    request: Option<Value>,
    /// A short, stable code saying why.
    #[pyo3(get)]
    reason: &'static str,
    /// For a discard: ask again with the stop strings off.
    #[pyo3(get)]
    retry_without_stops: bool,
    /// For a translation: the call, as `first_call` gives one (span in characters).
    call: Option<Value>,
    /// The markup form of the call read, when the decision rests on one.
    #[pyo3(get)]
    form: Option<&'static str>,
    /// The model family that writes that form.
    #[pyo3(get)]
    family: Option<&'static str>,
    /// For a translation: the text before the call as written.
    #[pyo3(get)]
    prose: Option<String>,
}

/// A call as Python sees it: a dict of its form and family codes, the tool name, the typed
/// arguments, the prose before it, `span` as character indices into `text` (the text the call
/// was read in), and the `thoughts` and `headline` the model wrote as arguments.
fn call_value(call: &ctb::ToolCall, text: &str) -> Value {
    // Python indexes a str by character, not by UTF-8 byte.
    let chars = |range: std::ops::Range<usize>| text.get(range).map_or(0, |s| s.chars().count());
    let start = chars(0..call.span.start);
    let end = start + chars(call.span.clone());
    serde_json::json!({
        "form": call.form.code(),
        "family": call.family.code(),
        "name": call.name,
        "arguments": call.arguments,
        "prose": call.prose,
        "span": [start, end],
        "thoughts": call.thoughts,
        "headline": call.headline,
    })
}

impl PyDecision {
    /// `given` is the reply the decision was made about: handed back as it is when the
    /// decision leaves the text alone.
    fn from_decision(d: ctb::Decision, given: &Bound<'_, PyString>, text: &str) -> Self {
        let reply = if d.reply == text {
            given.clone().unbind()
        } else {
            PyString::new(given.py(), &d.reply).unbind()
        };
        let call = d.call.as_ref();
        Self {
            outcome: d.outcome.code(),
            reply,
            reason: d.reason.code(),
            retry_without_stops: d.retry_without_stops,
            form: call.map(|c| c.form.code()),
            family: call.map(|c| c.family.code()),
            prose: call.map(|c| c.prose.clone()),
            call: call.map(|c| call_value(c, text)),
            request: d.request,
        }
    }

    fn internal_error(given: &Bound<'_, PyString>) -> Self {
        Self {
            outcome: ctb::Outcome::Untouched.code(),
            request: None,
            reply: given.clone().unbind(),
            reason: ctb::Reason::InternalError.code(),
            retry_without_stops: false,
            call: None,
            form: None,
            family: None,
            prose: None,
        }
    }
}

#[pymethods]
impl PyDecision {
    /// Agent Zero's tool request as a dict (a new one on every access), or None.
    #[getter]
    fn request<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        guarded_py("Decision.request", || {
            self.request
                .as_ref()
                .map(|value| convert::to_python(py, value))
                .transpose()
        })
    }

    /// For a translation, the call as a dict (a new one on every access), as `first_call`
    /// gives one; else None.
    #[getter]
    fn call<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        guarded_py("Decision.call", || {
            self.call
                .as_ref()
                .map(|value| convert::to_python(py, value))
                .transpose()
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Decision(outcome={:?}, reason={:?}, retry_without_stops={}, reply=<{} chars>)",
            self.outcome,
            self.reason,
            if self.retry_without_stops {
                "True"
            } else {
                "False"
            },
            Python::attach(|py| self.reply.bind(py).len().unwrap_or(0))
        )
    }
}

/// The texts the agent received and the model did not write (tool results, fetched pages):
/// a call copied from one of them is a quotation.
#[pyclass(module = "claude_tool_bridge._native", name = "Echoes")]
#[derive(Clone, Default)]
pub struct PyEchoes {
    inner: Arc<ctb::Echoes>,
}

#[pymethods]
impl PyEchoes {
    /// An index of `texts` (any iterable of str), most recent first: past
    /// `MAX_ECHO_BYTES` the rest is not indexed.
    #[new]
    #[pyo3(signature = (texts=None))]
    fn new(texts: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let mut echoes = ctb::Echoes::new();
        if let Some(texts) = texts {
            for item in texts.try_iter()? {
                let item = item?;
                let text: &str = item.extract()?;
                guarded(|| echoes.add(text), || ());
            }
        }
        Ok(Self {
            inner: Arc::new(echoes),
        })
    }

    /// Adds one text.
    fn add(&mut self, text: &str) {
        guarded(|| Arc::make_mut(&mut self.inner).add(text), || ());
    }

    /// Whether `markup` appears in one of the texts (modulo white space, the namespace
    /// prefix and HTML entities).
    fn __contains__(&self, markup: &str) -> bool {
        guarded(|| self.inner.contains(markup), || false)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Bytes of normalised text held.
    #[getter]
    fn indexed_bytes(&self) -> usize {
        self.inner.indexed_bytes()
    }

    /// Bytes of the texts given that were not indexed (the index was full).
    #[getter]
    fn skipped_bytes(&self) -> usize {
        self.inner.skipped_bytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "Echoes(<{} texts, {} bytes>)",
            self.inner.len(),
            self.inner.indexed_bytes()
        )
    }
}

/// The context of a stateless call: the forms `model` writes, and the echoes.
fn context_of(model: Option<&str>, echoes: Option<&PyEchoes>) -> ctb::Context {
    let mut context = match model {
        Some(m) => ctb::Context::for_model(&ctb::Config::default(), m),
        None => ctb::Context::default(),
    };
    if let Some(e) = echoes {
        context = context.with_echoes(Arc::clone(&e.inner));
    }
    context
}

/// One agent's bridge state, carried from turn to turn.
#[pyclass(module = "claude_tool_bridge._native", name = "Session")]
pub struct PySession {
    inner: ctb::Session,
    /// For `advance`: bytes and characters fed this turn, and the settled point in both.
    fed: (usize, usize),
    settled: (usize, usize),
}

#[pymethods]
impl PySession {
    /// A new session with `config` (the defaults when omitted).
    #[new]
    #[pyo3(signature = (config=None))]
    fn new(config: Option<&PyConfig>) -> PyResult<Self> {
        guarded_py("Session()", || {
            let config = config.map(|c| c.inner.clone()).unwrap_or_default();
            Ok(Self {
                inner: ctb::Session::new(config),
                fed: (0, 0),
                settled: (0, 0),
            })
        })
    }

    /// Starts a turn for `model_name` whose own stop list is `model_stops`; `echoes` are the
    /// texts the agent received.
    #[pyo3(signature = (model_name, model_stops=Vec::new(), echoes=None))]
    fn begin_turn(
        &mut self,
        model_name: &str,
        model_stops: Vec<String>,
        echoes: Option<&PyEchoes>,
    ) -> PyTurnPlan {
        let fallback_stops = model_stops.clone();
        self.fed = (0, 0);
        self.settled = (0, 0);
        guarded(
            || {
                let echoes = echoes.map(|e| Arc::clone(&e.inner));
                let plan = self.inner.begin_turn_with(model_name, &model_stops, echoes);
                PyTurnPlan {
                    covered: plan.covered,
                    stops: plan.stops,
                }
            },
            || PyTurnPlan {
                covered: false,
                stops: fallback_stops,
            },
        )
    }

    /// Feeds one streamed delta (or several joined); returns the text to hand on when the
    /// stream should stop now: the first call is complete and translates with `catalog`.
    fn feed(&mut self, delta: &str, catalog: &PyCatalog) -> Option<String> {
        guarded(|| self.inner.feed(delta, &catalog.inner), || None)
    }

    /// As `feed`, scanning every delta; also how many characters of the text fed so far are
    /// settled (never part of the first call's markup, nor the residue word or white space
    /// before it). It never decreases.
    fn advance(&mut self, delta: &str, catalog: &PyCatalog) -> (Option<String>, usize) {
        self.fed.0 += delta.len();
        self.fed.1 += delta.chars().count();
        let (stop, bytes) = guarded(
            || self.inner.advance(delta, &catalog.inner),
            || (None, self.settled.0),
        );
        if bytes >= self.fed.0 {
            self.settled = self.fed;
        } else if bytes > self.settled.0 {
            let received = self.inner.received();
            let chars = received
                .get(self.settled.0..bytes)
                .map_or(0, |s| s.chars().count());
            self.settled = (bytes, self.settled.1 + chars);
        }
        (stop, self.settled.1)
    }

    /// Decides what to do with the finished reply. Raises `BridgeError` when no turn is open
    /// (`begin_turn` was not called, or `finish` was called twice for one turn).
    #[pyo3(signature = (reply, finish_reason, catalog))]
    fn finish(
        &mut self,
        reply: &Bound<'_, PyString>,
        finish_reason: Option<&str>,
        catalog: &PyCatalog,
    ) -> PyResult<PyDecision> {
        let text = reply.to_str()?;
        guarded(
            || {
                let finish = finish_reason
                    .map(ctb::FinishReason::from_name)
                    .unwrap_or(ctb::FinishReason::Unknown);
                self.inner
                    .finish(text, finish, &catalog.inner)
                    .map(|d| PyDecision::from_decision(d, reply, text))
                    .map_err(|e| BridgeError::new_err(e.to_string()))
            },
            || Ok(PyDecision::internal_error(reply)),
        )
    }
}

/// The stateless translation of one reply: read for the forms `model` writes (every form
/// without one), a call copied from `echoes` left alone.
#[pyfunction]
#[pyo3(signature = (reply, catalog, *, model=None, echoes=None))]
fn translate(
    reply: &Bound<'_, PyString>,
    catalog: &PyCatalog,
    model: Option<&str>,
    echoes: Option<&PyEchoes>,
) -> PyResult<PyDecision> {
    let text = reply.to_str()?;
    Ok(guarded(
        || {
            let context = context_of(model, echoes);
            let d = ctb::translate_with(text, &catalog.inner, &context);
            PyDecision::from_decision(d, reply, text)
        },
        || PyDecision::internal_error(reply),
    ))
}

/// The first call of `reply` without the Agent Zero request shape, as a dict (`form`, `family`,
/// `name`, `arguments` typed by the catalog, `prose` before the call, `span` as the call's
/// start and end indices in `reply`, the `thoughts` and `headline` written as arguments), or
/// None when the reply holds no usable call.
#[pyfunction]
#[pyo3(signature = (reply, catalog, *, model=None, echoes=None))]
fn first_call<'py>(
    py: Python<'py>,
    reply: &str,
    catalog: &PyCatalog,
    model: Option<&str>,
    echoes: Option<&PyEchoes>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    guarded_py("first_call", || {
        let context = context_of(model, echoes);
        let Ok(call) = ctb::first_call_with(reply, &catalog.inner, &context) else {
            return Ok(None);
        };
        convert::to_python(py, &call_value(&call, reply)).map(Some)
    })
}

/// `prose` (the text before a call in the markup form named `form`) without the form's framing
/// tokens: the words between them, each piece trimmed, joined by blank lines; unchanged when
/// it holds none. ValueError for a form name the registry does not know.
#[pyfunction]
fn unframe(form: &str, prose: &str) -> PyResult<String> {
    let Some(form) = ctb::Form::from_code(form) else {
        return Err(PyValueError::new_err(format!(
            "unknown markup form: {form:?}"
        )));
    };
    Ok(form.unframe(prose).into_owned())
}

/// The `claude_tool_bridge._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCatalog>()?;
    m.add_class::<PyConfig>()?;
    m.add_class::<PyTurnPlan>()?;
    m.add_class::<PyDecision>()?;
    m.add_class::<PySession>()?;
    m.add_class::<PyEchoes>()?;
    m.add("MAX_ECHO_BYTES", ctb::MAX_ECHO_BYTES)?;
    m.add_function(wrap_pyfunction!(translate, m)?)?;
    m.add_function(wrap_pyfunction!(first_call, m)?)?;
    m.add_function(wrap_pyfunction!(unframe, m)?)?;
    m.add_function(wrap_pyfunction!(json::loads, m)?)?;
    m.add_function(wrap_pyfunction!(json::repair_json, m)?)?;
    m.add("BridgeError", m.py().get_type::<BridgeError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
