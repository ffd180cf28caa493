//! The fast path of [`crate::build`]: text that is strict JSON (RFC 8259), read without any
//! of the tolerant reader's looks around and built straight through the [`Builder`].
//!
//! On strict JSON the tolerant reader gives exactly what serde_json gives (tested
//! differentially), and so does this reader. It gives up (`None`) at the first thing strict
//! JSON does not allow, or that the tolerant reader reads its own way: a comment, a single
//! quote, a trailing comma, a raw control character or an unpaired surrogate in a string,
//! nesting [`MAX_DEPTH`] deep, text after the value, the end of the text inside a value. The
//! caller then reads the whole text again, tolerantly, and the values made so far are dropped.
//! To waste little on text that is cut off (a stream), [`build`] is only tried on a text that
//! ends like a whole document.

use crate::builder::Builder;
use crate::chars::{find_json_special, hex_run, hex_value, strict_number_end};
use crate::parser::MAX_DEPTH;

/// Reads strict JSON through `builder`; `None` when the text is something else. With
/// `partial`, the text may be strict JSON cut off at its end, read the way
/// [`crate::Input::Partial`] says (the tolerant reader's prefix tests check that both agree).
pub(crate) fn build<U: Builder>(s: &str, partial: bool, builder: &mut U) -> Option<U::Value> {
    if !partial && !ends_like_a_document(s.as_bytes()) {
        return None;
    }
    let mut r = Strict {
        s,
        b: s.as_bytes(),
        i: 0,
        depth: 0,
        partial,
        builder,
        values: Vec::new(),
        keys: Vec::new(),
        own: String::new(),
    };
    r.ws();
    // a root cut off before it was anything is no value: the tolerant reader says why
    let v = r.value()??;
    r.ws();
    (r.i == r.b.len()).then_some(v)
}

/// Whether `rest` is the start of a JSON number that is not one yet (`-`, `1.`, `2e`, `2e+`).
fn number_prefix(rest: &[u8]) -> bool {
    let digits = |i: usize| rest[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = usize::from(rest.first() == Some(&b'-'));
    match rest.get(i) {
        None => return i > 0,
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        Some(_) => return false,
    }
    if rest.get(i) == Some(&b'.') {
        i += 1;
        let n = digits(i);
        if n == 0 {
            return i == rest.len();
        }
        i += n;
    }
    if matches!(rest.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(rest.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        // with exponent digits it is a number already
        return i == rest.len();
    }
    // digits (and a fraction) are a number already, or something else follows
    false
}

/// Whether the text ends the way a whole JSON document does: with `}` or `]` after a `{` or
/// `[` at the start, or at all for a scalar.
fn ends_like_a_document(b: &[u8]) -> bool {
    let first = b.iter().find(|c| !c.is_ascii_whitespace());
    let last = b.iter().rev().find(|c| !c.is_ascii_whitespace());
    match (first, last) {
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')) => true,
        (Some(b'{' | b'['), _) | (None, _) => false,
        _ => true,
    }
}

/// Where a string's text is: a range of the input, or of [`Strict::own`] (decoded escapes).
#[derive(Debug, Clone, Copy)]
struct Text {
    start: usize,
    end: usize,
    own: bool,
}

impl Text {
    fn get<'t>(self, input: &'t str, own: &'t str) -> &'t str {
        if self.own {
            &own[self.start..self.end]
        } else {
            &input[self.start..self.end]
        }
    }
}

struct Strict<'a, 'b, U: Builder> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
    /// Whether the end of the text may cut a value off (a stream).
    partial: bool,
    builder: &'b mut U,
    /// The items and member values of the open containers.
    values: Vec<U::Value>,
    /// The keys of the open objects.
    keys: Vec<Text>,
    /// Decoded strings: the keys of the open objects, and the string being read.
    own: String,
}

impl<U: Builder> Strict<'_, '_, U> {
    #[inline]
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.i += 1;
        }
    }

    /// Whether the value that ended at `self.i` is followed by what may follow a value.
    #[inline]
    fn ends_here(&self) -> bool {
        matches!(
            self.b.get(self.i),
            None | Some(b' ' | b'\n' | b'\t' | b'\r' | b',' | b']' | b'}')
        )
    }

    /// The value at `self.i`. `None`: not strict JSON. `Some(None)`: a value the end of the
    /// text cut off and that is left out (partial reading only: a number that does not end in
    /// a digit, an unfinished keyword, nothing at all).
    fn value(&mut self) -> Option<Option<U::Value>> {
        let b = self.b;
        let Some(&c) = b.get(self.i) else {
            return self.partial.then_some(None);
        };
        match c {
            b'{' => self.object().map(Some),
            b'[' => self.array().map(Some),
            b'"' => {
                let mark = self.own.len();
                let (t, _) = self.string()?;
                let v = self.builder.string(t.get(self.s, &self.own));
                self.own.truncate(mark);
                Some(Some(v))
            }
            b't' => self.word(b"true", |u| u.boolean(true)),
            b'f' => self.word(b"false", |u| u.boolean(false)),
            b'n' => self.word(b"null", |u| u.null()),
            _ => {
                let start = self.i;
                if let Some(end) = strict_number_end(b, start) {
                    self.i = end;
                    if self.ends_here() {
                        return Some(Some(self.builder.number(&self.s[start..end])));
                    }
                    return None;
                }
                // a number the end of the text cut off before it was one (`-`, `1.`, `1e`)
                if self.partial && number_prefix(&b[start..]) {
                    self.i = b.len();
                    return Some(None);
                }
                None
            }
        }
    }

    fn word(
        &mut self,
        w: &[u8],
        make: impl FnOnce(&mut U) -> U::Value,
    ) -> Option<Option<U::Value>> {
        let rest = &self.b[self.i..];
        if rest.starts_with(w) {
            self.i += w.len();
            return self.ends_here().then(|| Some(make(self.builder)));
        }
        if self.partial && w.starts_with(rest) {
            // `tru`: cut off
            self.i = self.b.len();
            return Some(None);
        }
        None
    }

    fn enter(&mut self) -> Option<()> {
        // the tolerant reader's limit, where it reports `TooDeep`
        self.depth += 1;
        (self.depth < MAX_DEPTH).then_some(())
    }

    /// Whether the text has ended here: fine when reading a stream (containers close), not
    /// strict JSON otherwise.
    #[inline]
    fn at_end(&self) -> Option<bool> {
        if self.i < self.b.len() {
            Some(false)
        } else {
            self.partial.then_some(true)
        }
    }

    fn array(&mut self) -> Option<U::Value> {
        self.enter()?;
        self.i += 1;
        let start = self.values.len();
        self.ws();
        if !self.at_end()? {
            if self.b[self.i] == b']' {
                self.i += 1;
            } else {
                loop {
                    match self.value()? {
                        Some(v) => self.values.push(v),
                        None => break,
                    }
                    if !self.next_item(b']')? {
                        break;
                    }
                }
            }
        }
        self.depth -= 1;
        Some(self.builder.array(self.values.drain(start..)))
    }

    /// After an element or member: `,` and another follows (`true`), or the container's
    /// `close` (or the end of a partial text) ends it (`false`); anything else is not strict.
    #[inline]
    fn next_item(&mut self, close: u8) -> Option<bool> {
        self.ws();
        if self.at_end()? {
            return Some(false);
        }
        match self.b[self.i] {
            b',' => {
                self.i += 1;
                self.ws();
                Some(true)
            }
            c if c == close => {
                self.i += 1;
                Some(false)
            }
            _ => None,
        }
    }

    fn object(&mut self) -> Option<U::Value> {
        self.enter()?;
        self.i += 1;
        let (vstart, kstart, mark) = (self.values.len(), self.keys.len(), self.own.len());
        self.ws();
        if !self.at_end()? {
            if self.b[self.i] == b'}' {
                self.i += 1;
            } else {
                loop {
                    if self.at_end()? {
                        break;
                    }
                    if self.b[self.i] != b'"' {
                        return None;
                    }
                    let (key, closed) = self.string()?;
                    self.ws();
                    if !closed || self.at_end()? {
                        break; // a key and nothing more: the member is left out
                    }
                    if self.b[self.i] != b':' {
                        return None;
                    }
                    self.i += 1;
                    self.ws();
                    let Some(v) = self.value()? else {
                        break; // the value cut off: the member is left out
                    };
                    self.keys.push(key);
                    self.values.push(v);
                    if !self.next_item(b'}')? {
                        break;
                    }
                }
            }
        }
        self.depth -= 1;
        let (input, own) = (self.s, self.own.as_str());
        let keys = self.keys.drain(kstart..).map(|t| t.get(input, own));
        let v = self.builder.object(keys.zip(self.values.drain(vstart..)));
        self.own.truncate(mark);
        Some(v)
    }

    /// The string at `self.i` (a `"`): a range of the input when it has no escape, otherwise
    /// decoded into `self.own`; and whether its closing quote was there (only a partial
    /// reading takes a string the end of the text cuts off: as far as it goes, without an
    /// unfinished escape).
    fn string(&mut self) -> Option<(Text, bool)> {
        let (s, b) = (self.s, self.b);
        let start = self.i + 1;
        let k = find_json_special(b, start, b.len());
        match b.get(k) {
            Some(b'"') => {
                self.i = k + 1;
                let t = Text {
                    start,
                    end: k,
                    own: false,
                };
                Some((t, true))
            }
            Some(b'\\') => {
                let from = self.own.len();
                self.own.push_str(&s[start..k]);
                let (end, closed) = escaped_rest(s, k, self.partial, &mut self.own)?;
                self.i = end;
                let t = Text {
                    start: from,
                    end: self.own.len(),
                    own: true,
                };
                Some((t, closed))
            }
            None if self.partial => {
                self.i = b.len();
                let t = Text {
                    start,
                    end: b.len(),
                    own: false,
                };
                Some((t, false))
            }
            // a raw control character: the tolerant reader decides
            _ => None,
        }
    }
}

/// Decodes the rest of a string, from the escape at `k`, into `text`; returns the offset
/// after its closing quote and `true`, or (with `partial`) the end of the text and `false`
/// when the string is cut off there.
fn escaped_rest(s: &str, mut k: usize, partial: bool, text: &mut String) -> Option<(usize, bool)> {
    let b = s.as_bytes();
    let mut run = k;
    loop {
        let Some(&c) = b.get(k) else {
            if !partial {
                return None;
            }
            text.push_str(&s[run..]);
            return Some((b.len(), false));
        };
        match c {
            b'"' => {
                text.push_str(&s[run..k]);
                return Some((k + 1, true));
            }
            b'\\' => {
                text.push_str(&s[run..k]);
                let (c, len) = match b.get(k + 1) {
                    // the escaped character starts the next run
                    Some(b'"' | b'\\' | b'/') => {
                        run = k + 1;
                        k = find_json_special(b, k + 2, b.len());
                        continue;
                    }
                    Some(b'b') => ('\u{8}', 2),
                    Some(b'f') => ('\u{c}', 2),
                    Some(b'n') => ('\n', 2),
                    Some(b'r') => ('\r', 2),
                    Some(b't') => ('\t', 2),
                    Some(b'u') => match unicode_escape(b, k) {
                        Escape::Char(c, len) => (c, len),
                        // an escape the end of the text cuts off is dropped
                        Escape::Cut if partial => return Some((b.len(), false)),
                        _ => return None,
                    },
                    None if partial => return Some((b.len(), false)),
                    _ => return None,
                };
                text.push(c);
                k += len;
                run = k;
            }
            // a raw control character: the tolerant reader decides
            _ => return None,
        }
        k = find_json_special(b, k, b.len());
    }
}

/// A `\u` escape.
enum Escape {
    /// The character and the escape's length (a surrogate pair is one escape).
    Char(char, usize),
    /// Cut off by the end of the text: `\u00`, or a high surrogate whose low half is missing
    /// or unfinished there.
    Cut,
    /// Anything else: malformed, or an unpaired surrogate.
    Bad,
}

/// The `\uXXXX` escape at `k` (a whole surrogate pair, `\uXXXX\uXXXX`).
fn unicode_escape(b: &[u8], k: usize) -> Escape {
    let digits = hex_run(b, k + 2, 4);
    if digits < 4 {
        return if k + 2 + digits == b.len() {
            Escape::Cut
        } else {
            Escape::Bad
        };
    }
    let code = hex_value(&b[k + 2..k + 6]);
    if !(0xD800..0xE000).contains(&code) {
        return char::from_u32(code).map_or(Escape::Bad, |c| Escape::Char(c, 6));
    }
    if code >= 0xDC00 {
        return Escape::Bad;
    }
    let rest = &b[k + 6..];
    let low = (rest.len() >= 6 && rest[0] == b'\\' && rest[1] == b'u' && hex_run(rest, 2, 4) == 4)
        .then(|| hex_value(&rest[2..6]));
    match low {
        Some(low) if (0xDC00..0xE000).contains(&low) => {
            char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                .map_or(Escape::Bad, |c| Escape::Char(c, 12))
        }
        Some(_) => Escape::Bad,
        None => {
            // the rest of the text is the start of `\uXXXX`, or nothing
            let cut = rest.len() < 6
                && rest.first().is_none_or(|&c| c == b'\\')
                && rest.get(1).is_none_or(|&c| c == b'u')
                && rest.iter().skip(2).all(u8::is_ascii_hexdigit);
            if cut { Escape::Cut } else { Escape::Bad }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::number_prefix;

    #[test]
    fn number_prefixes() {
        for p in ["-", "1.", "0.", "-12.", "1e", "1E", "1e+", "1.5e-", "0e"] {
            assert!(number_prefix(p.as_bytes()), "{p}");
        }
        for p in [
            "", "1", "12", "1.5", "1e5", "6E.1", "1.e", "01", "-a", ".5", "1e5.", "+1", "1e+-",
        ] {
            assert!(!number_prefix(p.as_bytes()), "{p}");
        }
    }
}
