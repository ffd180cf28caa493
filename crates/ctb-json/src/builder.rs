//! The public hook for building values of your own type while reading: [`Builder`], with
//! [`ValueBuilder`] for `serde_json::Value` (what [`crate::parse`] uses).

use serde_json::{Map, Number, Value};

/// Makes values of some type from what the reader finds, so that a caller (a Python binding,
/// say) can build its own objects without a `serde_json::Value` in between.
///
/// The reader calls it bottom-up: scalars first, then each array with its items and each
/// object with its members, in document order, the root last. Strict JSON is read on a fast
/// path that calls the builder as it goes; when the text turns out not to be strict JSON, the
/// values made so far are dropped and the text is read again tolerantly, so a builder may make
/// values that end up nowhere (it should have no other side effects). A key may appear twice
/// in one object (JSON allows it): the later member should win, keeping the first one's
/// place, as `serde_json` does.
///
/// ```
/// use ctb_json::{Builder, Input};
///
/// /// Counts the values instead of building them.
/// struct Count;
///
/// impl Builder for Count {
///     type Value = usize;
///     fn null(&mut self) -> usize { 1 }
///     fn boolean(&mut self, _: bool) -> usize { 1 }
///     fn number(&mut self, _: &str) -> usize { 1 }
///     fn string(&mut self, _: &str) -> usize { 1 }
///     fn array(&mut self, items: impl ExactSizeIterator<Item = usize>) -> usize {
///         1 + items.sum::<usize>()
///     }
///     fn object<'k>(&mut self, members: impl ExactSizeIterator<Item = (&'k str, usize)>) -> usize {
///         1 + members.map(|(_, n)| n).sum::<usize>()
///     }
/// }
///
/// assert_eq!(ctb_json::build("{'a': [1, 2, True], b: null", Input::Complete, &mut Count), Ok(6));
/// ```
pub trait Builder {
    /// A finished value.
    type Value;

    /// `null` (also what `None`, `undefined`, `NaN` and `Infinity` read as).
    fn null(&mut self) -> Self::Value;
    /// `true` or `false`.
    fn boolean(&mut self, b: bool) -> Self::Value;
    /// A number, as valid JSON number text (`-12`, `0.5`, `6.02e23`); it may be too big or too
    /// precise for a machine number.
    fn number(&mut self, text: &str) -> Self::Value;
    /// A string.
    fn string(&mut self, text: &str) -> Self::Value;
    /// An array of these items (exactly `items.len()` of them).
    fn array(&mut self, items: impl ExactSizeIterator<Item = Self::Value>) -> Self::Value;
    /// An object with these members, in document order (exactly `members.len()` of them).
    fn object<'k>(
        &mut self,
        members: impl ExactSizeIterator<Item = (&'k str, Self::Value)>,
    ) -> Self::Value;
}

/// Builds `serde_json::Value`s: what [`crate::parse`] returns.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValueBuilder;

impl Builder for ValueBuilder {
    type Value = Value;

    fn null(&mut self) -> Value {
        Value::Null
    }
    fn boolean(&mut self, b: bool) -> Value {
        Value::Bool(b)
    }
    fn number(&mut self, text: &str) -> Value {
        // Small integers directly; serde_json keeps them with the same digits.
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.len() <= 18
            && !digits.is_empty()
            && digits.bytes().all(|c| c.is_ascii_digit())
            && (digits.len() == 1 || !digits.starts_with('0'))
            && text != "-0"
        {
            if let Ok(n) = text.parse::<i64>() {
                return Value::Number(n.into());
            }
        }
        match text.parse::<Number>() {
            Ok(n) => Value::Number(n),
            // only without serde_json's `arbitrary_precision` (`1e400`)
            Err(_) => Value::String(text.to_owned()),
        }
    }
    fn string(&mut self, text: &str) -> Value {
        Value::String(text.to_owned())
    }
    fn array(&mut self, items: impl ExactSizeIterator<Item = Value>) -> Value {
        Value::Array(items.collect())
    }
    fn object<'k>(&mut self, members: impl ExactSizeIterator<Item = (&'k str, Value)>) -> Value {
        let mut map = Map::with_capacity(members.len());
        for (k, v) in members {
            map.insert(k.to_owned(), v);
        }
        Value::Object(map)
    }
}
