//! Python objects <-> JSON values, directly (no JSON text in between).
//!
//! Settings arrive as a Python dict and leave the same way; a tool request leaves as a dict.
//! Going through `json.dumps`/`json.loads` would cost a text round trip and let Python's
//! own errors (`RecursionError`, a `KeyError` from an odd mapping) escape; here every
//! failure is one `ValueError` that says where.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// Deepest nesting accepted from Python (a dict that holds itself would recurse forever).
pub(crate) const MAX_DEPTH: usize = 64;

/// A Python value as JSON: `None`, `bool`, `int`, finite `float`, `str`, `list`/`tuple`,
/// and `dict` with `str` keys. Anything else is a `ValueError` naming the place.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let mut path = Vec::new();
    convert(obj, &mut path).map_err(PyValueError::new_err)
}

/// A settings document read key by key: each key with its value, or why it cannot be read.
pub(crate) type Entries = Vec<(String, Result<Value, String>)>;

/// A settings dict, key by key: each value as JSON, or why it cannot be read (`NaN`, an
/// object, a dict that holds itself), so that one unreadable value costs its own key only.
/// A key that is not a `str` is named by its `str()` (it is no setting, so it is ignored).
/// `None` when `obj` is not a dict at all.
pub(crate) fn to_entries(obj: &Bound<'_, PyAny>) -> PyResult<Option<Entries>> {
    let Ok(dict) = obj.cast::<PyDict>() else {
        return Ok(None);
    };
    let mut entries = Vec::with_capacity(dict.len());
    for (key, value) in dict.iter() {
        let name = match key.cast::<PyString>() {
            Ok(text) => text.to_str().map(str::to_owned),
            Err(_) => key.str().and_then(|s| s.to_str().map(str::to_owned)),
        };
        let name = name.unwrap_or_else(|_| format!("<a key of type {}>", type_name(&key)));
        let mut path = vec![name.clone()];
        let value = convert(&value, &mut path).map_err(|why| {
            // "`enabled` holds NaN, ..." reads "it holds NaN, ..." under the key's warning.
            match why.strip_prefix(&format!("`{name}` ")) {
                Some(rest) => format!("it {rest}"),
                None => why,
            }
        });
        entries.push((name, value));
    }
    Ok(Some(entries))
}

fn convert(obj: &Bound<'_, PyAny>, path: &mut Vec<String>) -> Result<Value, String> {
    if path.len() > MAX_DEPTH {
        return Err(format!(
            "{} is nested more than {MAX_DEPTH} levels deep (does a dict or list hold itself?)",
            place(path)
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(n) = i.extract::<i64>() {
            return Ok(Value::from(n));
        }
        if let Ok(n) = i.extract::<u64>() {
            return Ok(Value::from(n));
        }
        let digits = i.str().map_err(|e| e.to_string())?;
        let digits = digits.to_cow().map_err(|e| e.to_string())?;
        return digits
            .parse::<Number>()
            .map(Value::Number)
            .map_err(|_| format!("{} holds an integer JSON cannot carry", place(path)));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| {
                format!(
                    "{} holds {}, which is not a finite number",
                    place(path),
                    f.value()
                )
            });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_str()
            .map(|s| Value::String(s.to_owned()))
            .map_err(|_| format!("{} holds text that is not valid UTF-8", place(path)));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (key, value) in dict.iter() {
            let Ok(key) = key.cast::<PyString>() else {
                return Err(format!(
                    "{} has a key of type {}; keys must be text",
                    place(path),
                    type_name(&key)
                ));
            };
            let key = key
                .to_str()
                .map_err(|_| format!("{} has a key that is not valid UTF-8", place(path)))?
                .to_owned();
            path.push(key.clone());
            let value = convert(&value, path)?;
            path.pop();
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter().map_err(|e| e.to_string())?.enumerate() {
            let item = item.map_err(|e| e.to_string())?;
            path.push(format!("[{i}]"));
            items.push(convert(&item, path)?);
            path.pop();
        }
        return Ok(Value::Array(items));
    }
    Err(format!(
        "{} holds a value of type {}; only None, bool, int, float, str, list, tuple and dict \
         with str keys can be settings",
        place(path),
        type_name(obj)
    ))
}

/// Where in the settings a value sits, for messages: `the top level`, `key`, `key[2].x`
/// (long paths keep their first steps).
fn place(path: &[String]) -> String {
    const SHOWN: usize = 4;
    if path.is_empty() {
        return "the top level".to_owned();
    }
    let mut out = String::from("`");
    for (i, part) in path.iter().take(SHOWN).enumerate() {
        if i > 0 && !part.starts_with('[') {
            out.push('.');
        }
        out.push_str(part);
    }
    if path.len() > SHOWN {
        out.push_str("...");
    }
    out.push('`');
    out
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// A JSON value as plain Python objects (dicts keep the member order).
pub(crate) fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number(py, n)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Integers stay exact at any size (the workspace keeps every digit); the rest is a float.
fn number<'py>(py: Python<'py>, n: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    let text = n.to_string();
    if text.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
        return py.get_type::<PyInt>().call1((text,));
    }
    py.get_type::<PyFloat>().call1((text,))
}
