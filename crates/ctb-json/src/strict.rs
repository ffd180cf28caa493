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

/// Reads strict JSON through `builder`; `None` when the text is something else.
pub(crate) fn build<U: Builder>(s: &str, builder: &mut U) -> Option<U::Value> {
    if !ends_like_a_document(s.as_bytes()) {
        return None;
    }
    let mut r = Strict {
        s,
        b: s.as_bytes(),
        i: 0,
        depth: 0,
        builder,
        values: Vec::new(),
        keys: Vec::new(),
        own: String::new(),
    };
    r.ws();
    let v = r.value()?;
    r.ws();
    (r.i == r.b.len()).then_some(v)
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

    fn value(&mut self) -> Option<U::Value> {
        let b = self.b;
        match *b.get(self.i)? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => {
                let mark = self.own.len();
                let t = self.string()?;
                let v = self.builder.string(t.get(self.s, &self.own));
                self.own.truncate(mark);
                Some(v)
            }
            b't' => self.word(b"true").then(|| self.builder.boolean(true)),
            b'f' => self.word(b"false").then(|| self.builder.boolean(false)),
            b'n' => self.word(b"null").then(|| self.builder.null()),
            _ => {
                let start = self.i;
                self.i = strict_number_end(b, start)?;
                if !self.ends_here() {
                    return None;
                }
                Some(self.builder.number(&self.s[start..self.i]))
            }
        }
    }

    fn word(&mut self, w: &[u8]) -> bool {
        if !self.b[self.i..].starts_with(w) {
            return false;
        }
        self.i += w.len();
        self.ends_here()
    }

    fn enter(&mut self) -> Option<()> {
        // the tolerant reader's limit, where it reports `TooDeep`
        self.depth += 1;
        (self.depth < MAX_DEPTH).then_some(())
    }

    fn array(&mut self) -> Option<U::Value> {
        self.enter()?;
        self.i += 1;
        let start = self.values.len();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
        } else {
            loop {
                let v = self.value()?;
                self.values.push(v);
                self.ws();
                match self.b.get(self.i)? {
                    b',' => {
                        self.i += 1;
                        self.ws();
                    }
                    b']' => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(self.builder.array(self.values.drain(start..)))
    }

    fn object(&mut self) -> Option<U::Value> {
        self.enter()?;
        self.i += 1;
        let (vstart, kstart, mark) = (self.values.len(), self.keys.len(), self.own.len());
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
        } else {
            loop {
                if self.b.get(self.i) != Some(&b'"') {
                    return None;
                }
                let key = self.string()?;
                self.keys.push(key);
                self.ws();
                if self.b.get(self.i) != Some(&b':') {
                    return None;
                }
                self.i += 1;
                self.ws();
                let v = self.value()?;
                self.values.push(v);
                self.ws();
                match self.b.get(self.i)? {
                    b',' => {
                        self.i += 1;
                        self.ws();
                    }
                    b'}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
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
    /// decoded into `self.own`.
    fn string(&mut self) -> Option<Text> {
        let (s, b) = (self.s, self.b);
        let start = self.i + 1;
        let k = find_json_special(b, start, b.len());
        match *b.get(k)? {
            b'"' => {
                self.i = k + 1;
                Some(Text {
                    start,
                    end: k,
                    own: false,
                })
            }
            b'\\' => {
                let from = self.own.len();
                self.own.push_str(&s[start..k]);
                self.i = escaped_rest(s, k, &mut self.own)?;
                Some(Text {
                    start: from,
                    end: self.own.len(),
                    own: true,
                })
            }
            // a raw control character: the tolerant reader decides
            _ => None,
        }
    }
}

/// Decodes the rest of a string, from the escape at `k`, into `text`; returns the offset
/// after its closing quote.
fn escaped_rest(s: &str, mut k: usize, text: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    let mut run = k;
    loop {
        match *b.get(k)? {
            b'"' => {
                text.push_str(&s[run..k]);
                return Some(k + 1);
            }
            b'\\' => {
                text.push_str(&s[run..k]);
                let (c, len) = match *b.get(k + 1)? {
                    // the escaped character starts the next run
                    b'"' | b'\\' | b'/' => {
                        run = k + 1;
                        k = find_json_special(b, k + 2, b.len());
                        continue;
                    }
                    b'b' => ('\u{8}', 2),
                    b'f' => ('\u{c}', 2),
                    b'n' => ('\n', 2),
                    b'r' => ('\r', 2),
                    b't' => ('\t', 2),
                    b'u' => unicode_escape(b, k)?,
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

/// The character of the `\uXXXX` escape at `k` (a whole surrogate pair, `\uXXXX\uXXXX`), and
/// the escape's length; `None` for a malformed escape or an unpaired surrogate.
fn unicode_escape(b: &[u8], k: usize) -> Option<(char, usize)> {
    if hex_run(b, k + 2, 4) != 4 {
        return None;
    }
    let code = hex_value(&b[k + 2..k + 6]);
    if !(0xD800..0xE000).contains(&code) {
        return Some((char::from_u32(code)?, 6));
    }
    let low = (code < 0xDC00
        && b.get(k + 6) == Some(&b'\\')
        && b.get(k + 7) == Some(&b'u')
        && hex_run(b, k + 8, 4) == 4)
        .then(|| hex_value(&b[k + 8..k + 12]))
        .filter(|l| (0xDC00..0xE000).contains(l))?;
    let c = char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))?;
    Some((c, 12))
}
