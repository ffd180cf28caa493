//! Tolerant JSON for Python: `repair_json(text) -> str` and `loads(text, partial=False)`.
//!
//! `loads` builds Python objects directly while `ctb_json` reads the text (through
//! [`ctb_json::Builder`]), with no `serde_json::Value` in between: `dict`, `list`, `str`,
//! `int` (any size), `float`, `bool` and `None`, as `json.loads` would give them. Short
//! strings that repeat (keys, mostly) are made once per call. Input that cannot be read at all raises `ValueError` with a
//! one-line message; a panic inside Rust raises `BridgeError` instead of crossing into Python.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ctb_json::{Builder, Input};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString};

use crate::BridgeError;

/// Builds Python objects for `ctb_json::build`.
struct PyBuilder<'py> {
    py: Python<'py>,
    /// Recently made short strings, by a hash of their text (most objects repeat a few keys,
    /// and many values repeat too).
    keys: Vec<Option<(Box<str>, Bound<'py, PyString>)>>,
    /// The cache's size (a power of two), for the text at hand.
    slots: usize,
    /// The first error Python raised while building (a `MemoryError`, say).
    error: Option<PyErr>,
}

/// Strings longer than this are not kept for reuse.
const KEY_CACHE_MAX_LEN: usize = 64;
/// Slots in the string cache (a power of two).
const KEY_CACHE_SLOTS: usize = 1024;

impl<'py> PyBuilder<'py> {
    fn new(py: Python<'py>, text_len: usize) -> Self {
        PyBuilder {
            py,
            keys: Vec::new(),
            // about one slot for every 32 bytes of text
            slots: (text_len / 32)
                .clamp(16, KEY_CACHE_SLOTS)
                .next_power_of_two(),
            error: None,
        }
    }

    /// `r`'s value, or `None` after noting the error.
    fn keep(&mut self, r: PyResult<Bound<'py, PyAny>>) -> Bound<'py, PyAny> {
        r.unwrap_or_else(|e| {
            self.error.get_or_insert(e);
            self.py.None().into_bound(self.py)
        })
    }

    /// A `str` for `k`, the same object as the last time `k` came up when it is short: keys
    /// and short values repeat, and a repeated key's hash is computed once.
    fn cached_str(&mut self, k: &str) -> Bound<'py, PyString> {
        match self.cached(k) {
            Some(obj) => obj.clone(),
            None => PyString::new(self.py, k),
        }
    }

    /// The cached `str` for `k` (made now if need be), or `None` for a long `k`.
    #[inline]
    fn cached(&mut self, k: &str) -> Option<&Bound<'py, PyString>> {
        if k.len() > KEY_CACHE_MAX_LEN {
            return None;
        }
        if self.keys.is_empty() {
            self.keys.resize_with(self.slots, || None);
        }
        let slot = &mut self.keys[(quick_hash(k.as_bytes()) as usize) & (self.slots - 1)];
        if !matches!(slot, Some((text, _)) if &**text == k) {
            *slot = Some((k.into(), PyString::new(self.py, k)));
        }
        slot.as_ref().map(|(_, obj)| obj)
    }
}

impl<'py> Builder for PyBuilder<'py> {
    type Value = Bound<'py, PyAny>;

    fn null(&mut self) -> Self::Value {
        self.py.None().into_bound(self.py)
    }
    fn boolean(&mut self, b: bool) -> Self::Value {
        match b.into_pyobject(self.py) {
            Ok(v) => v.to_owned().into_any(),
            Err(never) => match never {},
        }
    }
    fn number(&mut self, text: &str) -> Self::Value {
        let py = self.py;
        if !text.contains(['.', 'e', 'E']) {
            if let Ok(n) = text.parse::<i64>() {
                return match n.into_pyobject(py) {
                    Ok(v) => v.into_any(),
                    Err(never) => match never {},
                };
            }
            if let Ok(n) = text.parse::<u64>() {
                return match n.into_pyobject(py) {
                    Ok(v) => v.into_any(),
                    Err(never) => match never {},
                };
            }
            // bigger than 64 bits: Python's own int() keeps every digit
            let r = py.get_type::<PyInt>().call1((text,));
            return self.keep(r);
        }
        PyFloat::new(py, text.parse::<f64>().unwrap_or(f64::NAN)).into_any()
    }
    fn string(&mut self, text: &str) -> Self::Value {
        self.cached_str(text).into_any()
    }
    fn array(&mut self, items: impl ExactSizeIterator<Item = Self::Value>) -> Self::Value {
        let r = PyList::new(self.py, items).map(Bound::into_any);
        self.keep(r)
    }
    fn object<'k>(
        &mut self,
        members: impl ExactSizeIterator<Item = (&'k str, Self::Value)>,
    ) -> Self::Value {
        let dict = PyDict::new(self.py);
        for (k, v) in members {
            let set = match self.cached(k) {
                Some(key) => dict.set_item(key, v),
                None => dict.set_item(PyString::new(self.py, k), v),
            };
            if let Err(e) = set {
                self.error.get_or_insert(e);
            }
        }
        dict.into_any()
    }
}

/// A hash of a short string from its length and its first and last eight bytes (a
/// collision only costs a new `str`).
#[inline]
fn quick_hash(k: &[u8]) -> u64 {
    let n = k.len().min(8);
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    head[..n].copy_from_slice(&k[..n]);
    tail[..n].copy_from_slice(&k[k.len() - n..]);
    let mixed =
        u64::from_le_bytes(head) ^ u64::from_le_bytes(tail).rotate_left(29) ^ k.len() as u64;
    mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

/// A one-line message for a reading error, with line and column.
fn value_error(text: &str, e: ctb_json::Error) -> PyErr {
    let (line, col) = e.line_col(text);
    PyValueError::new_err(format!("cannot read JSON: {e} (line {line}, column {col})"))
}

fn internal(what: &str) -> PyErr {
    BridgeError::new_err(format!("internal error in {what}"))
}

/// The value of `text`, read tolerantly (JSON as language models write it: single quotes,
/// unquoted keys, comments, trailing commas, Python literals, prose or a code fence around
/// it). With `partial=True`, `text` is a stream cut off at its end: what is complete is kept,
/// an unfinished string as far as it goes, and an unfinished number, keyword, key or member is
/// left out. Raises ValueError when no value can be read.
#[pyfunction]
#[pyo3(signature = (text, partial=false))]
pub(crate) fn loads<'py>(
    py: Python<'py>,
    text: &str,
    partial: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let end = if partial {
        Input::Partial
    } else {
        Input::Complete
    };
    let mut builder = PyBuilder::new(py, text.len());
    let read = catch_unwind(AssertUnwindSafe(|| {
        ctb_json::build(text, end, &mut builder)
    }))
    .map_err(|_| internal("loads"))?;
    if let Some(e) = builder.error.take() {
        return Err(e);
    }
    read.map_err(|e| value_error(text, e))
}

/// `text` repaired into compact, valid JSON (the value `loads(text)` gives, as JSON text).
/// Raises ValueError when no value can be read.
#[pyfunction]
pub(crate) fn repair_json(py: Python<'_>, text: &str) -> PyResult<String> {
    let repaired = py.detach(|| catch_unwind(|| ctb_json::repair(text)));
    match repaired {
        Ok(r) => r.map_err(|e| value_error(text, e)),
        Err(_) => Err(internal("repair_json")),
    }
}
