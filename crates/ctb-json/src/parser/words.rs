//! Bare words: keywords (`true`, `None`, `undefined`), unquoted text, function calls and
//! JSONP wrappers, regular expressions.

use super::{Build, Parser, Res, Slot};
use crate::chars::{
    is_ident, is_ident_start, is_unquoted_delimiter, is_url_char, is_url_start, is_ws, quote_at,
};

impl<B: Build> Parser<'_, B> {
    pub(super) fn keyword(&mut self) -> Option<B::V> {
        let b = self.b;
        let start = self.i;
        let mut j = start;
        while b.get(j).is_some_and(|&c| is_ident(c)) {
            j += 1;
        }
        let word = &self.s[start..j];
        let v = if word.eq_ignore_ascii_case("true") {
            Some(true)
        } else if word.eq_ignore_ascii_case("false") {
            Some(false)
        } else if word.eq_ignore_ascii_case("null")
            || word.eq_ignore_ascii_case("undefined")
            || word == "None"
            || word == "NaN"
            || word == "Infinity"
        {
            None
        } else {
            return None;
        };
        self.i = j;
        Some(match v {
            Some(b) => self.out.boolean(b),
            None => self.out.null(),
        })
    }

    /// For partial input: whether the number or keyword starting here runs to the end of the
    /// text unfinished. A number is finished when it ends in a digit (`12` is kept, though
    /// more digits may have followed; `1.`, `-` and `1e` are not); a keyword when it is
    /// whole (`tru` is not). Other words are unquoted text, kept as far as they go.
    pub(super) fn cut_off_scalar(&self) -> bool {
        let b = self.b;
        let start = self.i;
        let mut end = start;
        // the characters of numbers (`-1.5e+3`, `0x1F`, `1_000`) and of keywords
        while end < b.len() && (is_ident(b[end]) || matches!(b[end], b'.' | b'+' | b'-')) {
            end += 1;
        }
        if end < b.len() || end == start {
            return false;
        }
        let word = self.s[start..end].trim_start_matches(['-', '+']);
        if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            let hex = word.len() > 2 && (word.starts_with("0x") || word.starts_with("0X"));
            let last = b[end - 1];
            let finished = if hex {
                last.is_ascii_hexdigit()
            } else {
                last.is_ascii_digit()
            };
            return !finished;
        }
        const CASELESS: [&str; 4] = ["true", "false", "null", "undefined"];
        const EXACT: [&str; 5] = ["True", "False", "None", "NaN", "Infinity"];
        let unfinished = |k: &str| word.len() < k.len() && k.is_char_boundary(word.len());
        CASELESS
            .iter()
            .any(|k| unfinished(k) && k[..word.len()].eq_ignore_ascii_case(word))
            || EXACT.iter().any(|k| unfinished(k) && k.starts_with(word))
    }

    /// Unquoted text (a key when `is_key`), or a function call like `NumberLong("2")` or a
    /// JSONP wrapper `callback({...});`, which stands for its argument.
    pub(super) fn unquoted(&mut self, is_key: bool) -> Res<Option<Unquoted<B::V>>> {
        let b = self.b;
        let len = b.len();
        let start = self.i;
        let mut i = start;
        if b.get(i).is_some_and(|&c| is_ident_start(c)) {
            while b.get(i).is_some_and(|&c| is_ident(c)) {
                i += 1;
            }
            let mut j = i;
            while b.get(j).is_some_and(|&c| is_ws(c)) {
                j += 1;
            }
            if b.get(j) == Some(&b'(') {
                self.i = j + 1;
                self.enter()?;
                let v = self.value_or_null(Slot::Other)?;
                self.leave();
                if self.peek() == Some(b')') {
                    self.i += 1;
                    if self.peek() == Some(b';') {
                        self.i += 1;
                    }
                }
                return Ok(Some(Unquoted::Call((start, i), v)));
            }
        }
        while i < len
            && !is_unquoted_delimiter(b[i])
            && quote_at(b, i).is_none()
            && !(is_key && b[i] == b':')
        {
            i += 1;
        }
        if i > start && b[i - 1] == b':' && is_url_start(&b[start..(i + 2).min(len)]) {
            while i < len && is_url_char(b[i]) {
                i += 1;
            }
        }
        if i == start {
            return Ok(None);
        }
        while i > start && is_ws(b[i - 1]) {
            i -= 1;
        }
        self.i = i;
        if b.get(i) == Some(&b'"') {
            self.i += 1; // the end quote of a string whose start quote was missing
        }
        Ok(Some(Unquoted::Text(start, i)))
    }

    /// A JavaScript regular expression `/.../`, kept as text.
    pub(super) fn regex(&mut self) -> Option<B::V> {
        let b = self.b;
        if self.peek() != Some(b'/') {
            return None;
        }
        let start = self.i;
        let mut i = start + 1;
        while i < b.len() && (b[i] != b'/' || b[i - 1] == b'\\') {
            i += 1;
        }
        i = (i + 1).min(b.len());
        self.i = i;
        let s = self.s;
        Some(self.out.text(&s[start..i]))
    }
}

/// What unquoted text turned out to be.
pub(super) enum Unquoted<V> {
    /// Text at this byte range (`undefined` stands for `null` as a value).
    Text(usize, usize),
    /// A function call: the name's byte range and the argument.
    Call((usize, usize), V),
}
