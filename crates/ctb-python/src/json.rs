//! Tolerant JSON for Python: `repair_json(text) -> str` and `loads(text, partial=False)`.
//!
//! `loads` builds Python objects directly while `ctb_json` reads the text (through
//! [`ctb_json::Builder`]), with no `serde_json::Value` in between: `dict`, `list`, `str`,
//! `int` (any size), `float`, `bool` and `None`, as `json.loads` would give them. A short
//! string (a key, mostly) is made once and found again in later calls
//! ([`crate::str_cache`]). Input that cannot be read at all raises `ValueError` with a
//! one-line message; a panic inside Rust raises `BridgeError` instead of crossing into Python.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::MutexGuard;

use ctb_json::{Builder, Input};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString};

use crate::BridgeError;
use crate::str_cache::{self, StrCache};

/// Builds Python objects for `ctb_json::build`.
struct PyBuilder<'py> {
    py: Python<'py>,
    /// The process's short strings (see [`StrCache`]); `None` while another call holds them.
    strings: Option<MutexGuard<'static, StrCache>>,
    /// The first error Python raised while building (a `MemoryError`, say).
    error: Option<PyErr>,
}

impl<'py> PyBuilder<'py> {
    fn new(py: Python<'py>) -> Self {
        PyBuilder {
            py,
            strings: StrCache::try_lock(),
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

    /// A `str` for `k`: for a short `k`, the one made for the same text before (keys and
    /// short values repeat, within a document and from one document to the next). Python
    /// has one object for each string of one character or none already.
    #[inline]
    fn str(&mut self, k: &str) -> Bound<'py, PyString> {
        match self.kept(k) {
            Some(s) => s.clone(),
            None => PyString::new(self.py, k),
        }
    }

    /// The kept `str` for `k` when `k` is short and the cache is there.
    #[inline]
    fn kept(&mut self, k: &str) -> Option<&Bound<'py, PyString>> {
        match &mut self.strings {
            Some(cache) if (2..=str_cache::MAX_LEN).contains(&k.len()) => cache.get(self.py, k),
            _ => None,
        }
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
        match read_number(text) {
            Number::Int(n) => match n.into_pyobject(py) {
                Ok(v) => v.into_any(),
                Err(never) => match never {},
            },
            Number::Float(f) => PyFloat::new(py, f).into_any(),
            Number::UInt(n) => match n.into_pyobject(py) {
                Ok(v) => v.into_any(),
                Err(never) => match never {},
            },
            Number::BigInt => {
                // Python's own int() keeps every digit
                let r = py.get_type::<PyInt>().call1((text,));
                self.keep(r)
            }
        }
    }
    fn string(&mut self, text: &str) -> Self::Value {
        self.str(text).into_any()
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
            // a kept key goes in by reference (no count taken and dropped)
            let set = match self.kept(k) {
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

/// A JSON number, as Python reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Number {
    /// An integer that fits 64 bits, signed.
    Int(i64),
    /// A positive integer that fits 64 bits only unsigned.
    UInt(u64),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// An integer beyond 64 bits.
    BigInt,
}

/// Powers of ten a `f64` holds exactly.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Reads JSON number text (`-12`, `0.5`, `6.02e23`) in one pass. An integer that fits 64
/// bits and a float whose digits fit 53 bits with a power of ten up to 22 are computed here
/// (one exact conversion and one correctly rounded operation: Clinger's fast path); any
/// other float goes to the standard library's parser.
fn read_number(text: &str) -> Number {
    let (negative, b) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        b => (false, b),
    };
    let digit = |i: usize| b.get(i).filter(|c| c.is_ascii_digit()).map(|c| c - b'0');
    // the digits so far, while they fit
    let mut mantissa: Option<u64> = Some(0);
    let mut i = 0;
    while let Some(d) = digit(i) {
        mantissa = mantissa.and_then(|m| m.checked_mul(10)?.checked_add(u64::from(d)));
        i += 1;
    }
    if i == b.len() {
        return match mantissa {
            _ if i == 0 => Number::BigInt,
            Some(m) if negative => 0i64
                .checked_sub_unsigned(m)
                .map_or(Number::BigInt, Number::Int),
            Some(m) => i64::try_from(m).map_or(Number::UInt(m), Number::Int),
            None => Number::BigInt,
        };
    }
    let slow = || Number::Float(text.parse::<f64>().unwrap_or(f64::NAN));
    let mut exp10: i64 = 0;
    if b[i] == b'.' {
        i += 1;
        while let Some(d) = digit(i) {
            mantissa = mantissa.and_then(|m| m.checked_mul(10)?.checked_add(u64::from(d)));
            exp10 -= 1;
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative_exp = b.get(i) == Some(&b'-');
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let mut e: i64 = 0;
        while let Some(d) = digit(i) {
            e = (e * 10 + i64::from(d)).min(100_000);
            i += 1;
        }
        exp10 += if negative_exp { -e } else { e };
    }
    let Some(mantissa) = mantissa.filter(|&m| m <= 1 << 53 && i == b.len()) else {
        return slow();
    };
    let Some(&power) = EXACT_POW10.get(exp10.unsigned_abs() as usize) else {
        return slow();
    };
    // both exact: one rounding, the correct one
    let m = mantissa as f64;
    let f = if exp10 < 0 { m / power } else { m * power };
    Number::Float(if negative { -f } else { f })
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
    let mut builder = PyBuilder::new(py);
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
