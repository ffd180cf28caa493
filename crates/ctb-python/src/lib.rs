//! Python bindings for `claude-tool-bridge`, built by maturin into the `claude_tool_bridge`
//! wheel (module `claude_tool_bridge._native`, abi3: one wheel for CPython 3.10 and newer).
//!
//! This crate only converts types and maps errors; every decision is made by the facade
//! crate. No Rust panic crosses into Python: each entry point runs under
//! [`std::panic::catch_unwind`] and turns a panic into the "leave the reply alone" answer
//! (`Decision` with outcome `untouched`, reason `internal_error`; no early stop; a turn plan
//! that covers nothing), or into a `BridgeError` where no such neutral answer exists.
//!
//! The conversion helpers are plain Rust and can be used without Python:
//!
//! ```
//! use _native::parse_config_json;
//! let (config, warnings) = parse_config_json(r#"{"enabled": false, "colour": 1}"#).unwrap();
//! assert!(!config.enabled);
//! assert_eq!(warnings.len(), 1);
//! assert!(warnings[0].contains("colour"));
//! ```

mod json;

use std::panic::{AssertUnwindSafe, catch_unwind};

use claude_tool_bridge as ctb;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

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

/// Reads settings from JSON text (a saved `config.json`): the settings and one warning per
/// unknown key or value of the wrong type (that key keeps its default).
pub fn parse_config_json(text: &str) -> Result<(ctb::Config, Vec<String>), String> {
    ctb::Config::from_json_str(text).map_err(|e| e.to_string())
}

/// Reads settings from YAML text (as in `default_config.yaml`); see [`parse_config_json`].
pub fn parse_config_yaml(text: &str) -> Result<(ctb::Config, Vec<String>), String> {
    ctb::Config::from_yaml_str(text).map_err(|e| e.to_string())
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
    fn extend(&mut self, other: &PyCatalog) -> PyResult<()> {
        guarded_py("Catalog.extend", || {
            self.inner.extend(other.inner.clone());
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
    warnings: Vec<String>,
}

impl PyConfig {
    fn wrap(parsed: Result<(ctb::Config, Vec<String>), String>) -> PyResult<Self> {
        let (inner, warnings) = parsed.map_err(to_value_error)?;
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
        guarded_py("Config.from_json", || Self::wrap(parse_config_json(text)))
    }

    /// Settings from YAML text (`default_config.yaml`).
    #[staticmethod]
    fn from_yaml(text: &str) -> PyResult<Self> {
        guarded_py("Config.from_yaml", || Self::wrap(parse_config_yaml(text)))
    }

    /// Settings from a dict (converted through JSON).
    #[staticmethod]
    fn from_dict(py: Python<'_>, settings: &Bound<'_, PyDict>) -> PyResult<Self> {
        let text: String = py
            .import("json")?
            .call_method1("dumps", (settings,))?
            .extract()?;
        Self::from_json(&text)
    }

    /// One line per unknown key or wrongly typed value found while loading.
    #[getter]
    fn warnings(&self) -> Vec<String> {
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
        let text = self.to_json()?;
        py.import("json")?.call_method1("loads", (text,))
    }

    #[getter]
    fn enabled(&self) -> bool {
        self.inner.enabled
    }

    #[getter]
    fn models(&self) -> Vec<String> {
        self.inner.models.clone()
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
    /// The full stop list for the provider (the model's own stops first, four at most).
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
    /// The exact text Agent Zero should see.
    #[pyo3(get)]
    reply: String,
    /// The tool request as JSON text, when one was produced.
    #[pyo3(get)]
    request_json: Option<String>,
    /// A short, stable code saying why.
    #[pyo3(get)]
    reason: &'static str,
    /// For a discard: ask again with the stop strings off.
    #[pyo3(get)]
    retry_without_stops: bool,
}

impl PyDecision {
    fn from_decision(d: ctb::Decision) -> Self {
        Self {
            outcome: d.outcome.code(),
            request_json: d
                .request
                .as_ref()
                .and_then(|v| serde_json::to_string(v).ok()),
            reply: d.reply,
            reason: d.reason.code(),
            retry_without_stops: d.retry_without_stops,
        }
    }

    fn internal_error(reply: &str) -> Self {
        Self::from_decision(ctb::Decision::untouched(reply, ctb::Reason::InternalError))
    }
}

#[pymethods]
impl PyDecision {
    /// The tool request as a dict, or None.
    #[getter]
    fn request<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.request_json {
            None => Ok(None),
            Some(text) => Ok(Some(
                py.import("json")?.call_method1("loads", (text.as_str(),))?,
            )),
        }
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
            self.reply.chars().count()
        )
    }
}

/// One agent's bridge state, carried from turn to turn.
#[pyclass(module = "claude_tool_bridge._native", name = "Session")]
pub struct PySession {
    inner: ctb::Session,
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
            })
        })
    }

    /// Starts a turn for `model_name` whose own stop list is `model_stops`.
    #[pyo3(signature = (model_name, model_stops=Vec::new()))]
    fn begin_turn(&mut self, model_name: &str, model_stops: Vec<String>) -> PyTurnPlan {
        let fallback_stops = model_stops.clone();
        guarded(
            || {
                let plan = self.inner.begin_turn(model_name, &model_stops);
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

    /// Feeds one streamed delta; returns the completed reply when the stream should stop now.
    fn feed(&mut self, delta: &str) -> Option<String> {
        guarded(|| self.inner.feed(delta), || None)
    }

    /// Decides what to do with the finished reply.
    #[pyo3(signature = (reply, finish_reason, catalog))]
    fn finish(
        &mut self,
        reply: &str,
        finish_reason: Option<&str>,
        catalog: &PyCatalog,
    ) -> PyDecision {
        guarded(
            || {
                let finish = finish_reason
                    .map(ctb::FinishReason::from_name)
                    .unwrap_or(ctb::FinishReason::Unknown);
                PyDecision::from_decision(self.inner.finish(reply, finish, &catalog.inner))
            },
            || PyDecision::internal_error(reply),
        )
    }
}

/// The stateless translation of one reply.
#[pyfunction]
fn translate(reply: &str, catalog: &PyCatalog, config: &PyConfig) -> PyDecision {
    guarded(
        || PyDecision::from_decision(ctb::translate(reply, &catalog.inner, &config.inner)),
        || PyDecision::internal_error(reply),
    )
}

/// The `claude_tool_bridge._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCatalog>()?;
    m.add_class::<PyConfig>()?;
    m.add_class::<PyTurnPlan>()?;
    m.add_class::<PyDecision>()?;
    m.add_class::<PySession>()?;
    m.add_function(wrap_pyfunction!(translate, m)?)?;
    m.add_function(wrap_pyfunction!(json::loads, m)?)?;
    m.add_function(wrap_pyfunction!(json::repair_json, m)?)?;
    m.add("BridgeError", m.py().get_type::<BridgeError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
