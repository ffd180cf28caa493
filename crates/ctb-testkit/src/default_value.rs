//! What serde_json's `Value` is when serde_json is built with default features, for benches
//! that compare with "serde_json with default features".
//!
//! One binary links one serde_json, and the workspace turns on `preserve_order` (an `IndexMap`
//! with SipHash for every object) and `arbitrary_precision` (numbers kept as text). serde_json's
//! `Value` with default features is a `BTreeMap` of owned strings and plain `u64`/`i64`/`f64`
//! numbers; [`DefaultValue`] is that type, filled through the same `deserialize_any` path
//! `Value` uses, so serde_json does the same scanning, unescaping and allocating as in a
//! default build. One difference remains: in this build serde_json hands numbers over as text,
//! which [`DefaultValue`] turns back into a number at the cost of one small allocation.
//!
//! ```
//! use ctb_testkit::DefaultValue;
//! let v: DefaultValue = serde_json::from_str(r#"{"a": [1, -2, 0.5, "x", null]}"#).unwrap();
//! assert!(matches!(v, DefaultValue::Object(_)));
//! ```

use std::collections::BTreeMap;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// What serde_json's `Value` is when serde_json is built with default features: objects in a
/// `BTreeMap`, numbers as `u64`/`i64`/`f64`.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    /// A JSON null.
    Null,
    /// A JSON bool.
    Bool(bool),
    /// A JSON u64.
    U64(u64),
    /// A JSON i64.
    I64(i64),
    /// A JSON f64.
    F64(f64),
    /// A JSON string.
    String(String),
    /// A JSON array.
    Array(Vec<DefaultValue>),
    /// A JSON object.
    Object(BTreeMap<String, DefaultValue>),
}

/// serde_json's name for a number handed over as text (`arbitrary_precision`).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl<'de> Deserialize<'de> for DefaultValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DefaultVisitor)
    }
}

struct DefaultVisitor;

impl<'de> Visitor<'de> for DefaultVisitor {
    type Value = DefaultValue;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<DefaultValue, E> {
        Ok(DefaultValue::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<DefaultValue, E> {
        Ok(DefaultValue::I64(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<DefaultValue, E> {
        Ok(DefaultValue::U64(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<DefaultValue, E> {
        Ok(DefaultValue::F64(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<DefaultValue, E> {
        Ok(DefaultValue::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<DefaultValue, E> {
        Ok(DefaultValue::String(v))
    }
    fn visit_unit<E>(self) -> Result<DefaultValue, E> {
        Ok(DefaultValue::Null)
    }
    fn visit_none<E>(self) -> Result<DefaultValue, E> {
        Ok(DefaultValue::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DefaultValue, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(DefaultValue::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DefaultValue, A::Error> {
        let mut members = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == NUMBER_TOKEN {
                let text: String = map.next_value()?;
                return Ok(if let Ok(n) = text.parse() {
                    DefaultValue::U64(n)
                } else if let Ok(n) = text.parse() {
                    DefaultValue::I64(n)
                } else {
                    DefaultValue::F64(text.parse().unwrap_or(f64::NAN))
                });
            }
            members.insert(key, map.next_value()?);
        }
        Ok(DefaultValue::Object(members))
    }
}
