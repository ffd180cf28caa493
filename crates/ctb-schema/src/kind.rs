//! Parameter types and the conversions between raw text, JSON values and those types.

use serde_json::{Number, Value};

/// The JSON type a parameter (or one alternative of a union) asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// Text, kept byte for byte.
    String,
    /// A whole number (any size; the digits are kept).
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
    /// JSON `null`.
    Null,
    /// No type given: raw text stays text, JSON values stay as they are.
    Any,
}

impl Kind {
    /// The JSON Schema name of the kind (`"any"` for [`Kind::Any`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Array => "array",
            Kind::Object => "object",
            Kind::Null => "null",
            Kind::Any => "any",
        }
    }

    /// Reads a JSON Schema type name.
    pub fn from_schema_name(name: &str) -> Option<Kind> {
        Some(match name {
            "string" => Kind::String,
            "integer" => Kind::Integer,
            "number" => Kind::Number,
            "boolean" => Kind::Boolean,
            "array" => Kind::Array,
            "object" => Kind::Object,
            "null" => Kind::Null,
            _ => return None,
        })
    }

    /// The kind an example value shows (`null` tells nothing and gives [`Kind::Any`]).
    pub fn of_example(value: &Value) -> Kind {
        match value {
            Value::String(_) => Kind::String,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(n) => {
                if is_integral_text(&n.to_string()) {
                    Kind::Integer
                } else {
                    Kind::Number
                }
            }
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
            Value::Null => Kind::Any,
        }
    }

    /// Whether `value` already is of this kind (no conversion needed).
    fn holds(self, value: &Value) -> bool {
        match (self, value) {
            (Kind::Any, _) => true,
            (Kind::String, Value::String(_)) => true,
            (Kind::Integer, Value::Number(n)) => parse_integer(&n.to_string()).is_some(),
            (Kind::Number, Value::Number(_)) => true,
            (Kind::Boolean, Value::Bool(_)) => true,
            (Kind::Array, Value::Array(_)) => true,
            (Kind::Object, Value::Object(_)) => true,
            (Kind::Null, Value::Null) => true,
            _ => false,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One alternative of a parameter's type: a kind and, optionally, the only values allowed
/// (from `enum` / `const`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Alt {
    pub(crate) kind: Kind,
    pub(crate) allowed: Option<Vec<Value>>,
}

impl Alt {
    pub(crate) fn plain(kind: Kind) -> Self {
        Alt {
            kind,
            allowed: None,
        }
    }

    /// Converts raw text (as written between tags) to this alternative.
    pub(crate) fn type_raw(&self, raw: &str) -> Option<Value> {
        let value = match self.kind {
            Kind::String | Kind::Any => Value::String(raw.to_owned()),
            Kind::Integer => Value::Number(parse_integer(raw.trim())?),
            Kind::Number => Value::Number(parse_number(raw.trim())?),
            Kind::Boolean => Value::Bool(parse_bool(raw.trim())?),
            Kind::Null => {
                let t = raw.trim();
                if t.is_empty() || t == "null" {
                    Value::Null
                } else {
                    return None;
                }
            }
            Kind::Array => match parse_delimited(raw, '[', ']')? {
                v @ Value::Array(_) => v,
                _ => return None,
            },
            Kind::Object => match parse_delimited(raw, '{', '}')? {
                v @ Value::Object(_) => v,
                _ => return None,
            },
        };
        self.check_allowed(value)
    }

    /// Keeps a JSON value that already is of this kind.
    pub(crate) fn keep_json(&self, value: &Value) -> Option<Value> {
        if !self.kind.holds(value) {
            return None;
        }
        let value = match (self.kind, value) {
            (Kind::Integer, Value::Number(n)) => Value::Number(parse_integer(&n.to_string())?),
            _ => value.clone(),
        };
        self.check_allowed(value)
    }

    /// Converts a JSON value of another kind to this alternative.
    pub(crate) fn convert_json(&self, value: &Value) -> Option<Value> {
        match (self.kind, value) {
            (Kind::String, Value::Number(_) | Value::Bool(_)) => {
                self.check_allowed(Value::String(value.to_string()))
            }
            (Kind::String, _) => None,
            (Kind::Boolean, Value::Number(n)) => match n.to_string().as_str() {
                "0" => self.check_allowed(Value::Bool(false)),
                "1" => self.check_allowed(Value::Bool(true)),
                _ => None,
            },
            (_, Value::String(s)) => self.type_raw(s),
            _ => None,
        }
    }

    /// Applies `enum`/`const`: the value must be one of the allowed ones. A string that matches
    /// a listed string only after trimming and ignoring ASCII case becomes the listed string.
    fn check_allowed(&self, value: Value) -> Option<Value> {
        let Some(allowed) = &self.allowed else {
            return Some(value);
        };
        if allowed.iter().any(|a| same_value(a, &value)) {
            return Some(value);
        }
        if let Value::String(s) = &value {
            let t = s.trim();
            return allowed
                .iter()
                .find(|a| matches!(a, Value::String(m) if m.eq_ignore_ascii_case(t)))
                .cloned();
        }
        None
    }
}

/// Reads `raw` with the tolerant parser when, trimmed, it starts with `open` and ends with
/// `close`: no text is dropped around the value and a cut-off value is not completed.
fn parse_delimited(raw: &str, open: char, close: char) -> Option<Value> {
    let t = raw.trim();
    if !(t.starts_with(open) && t.ends_with(close)) {
        return None;
    }
    ctb_json::parse(t).ok()
}

/// Equality where numbers compare by value (`1` equals `1.0`).
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y
                || x.to_string() == y.to_string()
                || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        _ => a == b,
    }
}

/// Whether a value matches one of `allowed` the lenient way enums are matched.
pub(crate) fn matches_any(value: &Value, allowed: &[Value]) -> bool {
    allowed.iter().any(|a| {
        same_value(a, value)
            || matches!((a, value), (Value::String(x), Value::String(y)) if x.eq_ignore_ascii_case(y.trim()))
    })
}

fn is_integral_text(text: &str) -> bool {
    let t = text.strip_prefix('-').unwrap_or(text);
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// `true`/`false` in any ASCII case, or `1`/`0`.
fn parse_bool(t: &str) -> Option<bool> {
    if t.eq_ignore_ascii_case("true") || t == "1" {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") || t == "0" {
        Some(false)
    } else {
        None
    }
}

fn digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn strip_zeros(int: &str) -> &str {
    let t = int.trim_start_matches('0');
    if t.is_empty() { "0" } else { t }
}

/// An optional sign, digits, and optionally a fraction of zeros only (`-12`, `+7`, `007`, `3.0`).
/// The result is built from the digit text, so any size keeps every digit.
pub(crate) fn parse_integer(t: &str) -> Option<Number> {
    let (neg, rest) = split_sign(t);
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    if int.is_empty() || !digits(int) {
        return None;
    }
    if let Some(f) = frac {
        if !f.bytes().all(|b| b == b'0') {
            return None;
        }
    }
    let int = strip_zeros(int);
    let text = if neg && int != "0" {
        format!("-{int}")
    } else {
        int.to_owned()
    };
    serde_json::from_str(&text).ok()
}

fn split_sign(t: &str) -> (bool, &str) {
    if let Some(r) = t.strip_prefix('-') {
        (true, r)
    } else if let Some(r) = t.strip_prefix('+') {
        (false, r)
    } else {
        (false, t)
    }
}

/// A decimal number in the forms people write (`+1`, `.5`, `5.`, `007.5`, `1e-3`), normalised to
/// JSON number text and built from that text (no precision lost).
pub(crate) fn parse_number(t: &str) -> Option<Number> {
    let (neg, rest) = split_sign(t);
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let mut text = String::with_capacity(t.len() + 2);
    if neg {
        text.push('-');
    }
    text.push_str(strip_zeros(int));
    if !frac.is_empty() {
        text.push('.');
        text.push_str(frac);
    }
    if let Some(e) = exp {
        let (eneg, edigits) = split_sign(e);
        if edigits.is_empty() || !digits(edigits) {
            return None;
        }
        text.push('e');
        if eneg {
            text.push('-');
        }
        text.push_str(edigits);
    }
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(
            parse_integer("007").map(|n| n.to_string()),
            Some("7".into())
        );
        assert_eq!(parse_integer("-0").map(|n| n.to_string()), Some("0".into()));
        assert_eq!(
            parse_integer("+3.00").map(|n| n.to_string()),
            Some("3".into())
        );
        assert_eq!(parse_integer("3.5"), None);
        assert_eq!(parse_integer("1e3"), None);
        assert_eq!(parse_integer(""), None);
        assert_eq!(parse_integer("-"), None);
        let big = "123456789012345678901234567890";
        assert_eq!(parse_integer(big).map(|n| n.to_string()), Some(big.into()));
    }

    #[test]
    fn numbers() {
        assert_eq!(
            parse_number(".5").map(|n| n.to_string()),
            Some("0.5".into())
        );
        assert_eq!(parse_number("5.").map(|n| n.to_string()), Some("5".into()));
        assert_eq!(
            parse_number("-1E+3").map(|n| n.to_string()),
            Some("-1e+3".into())
        );
        assert_eq!(parse_number("."), None);
        assert_eq!(parse_number("NaN"), None);
        assert_eq!(parse_number("1e"), None);
    }
}
