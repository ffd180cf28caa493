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
use crate::chars::{
    find_json_special, hex_run, hex_value, json_special_lanes, read_word, strict_number_end,
};
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
        scratch: String::new(),
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

/// Where a string's text is: a range of the input, or of [`Strict::own`] (a key with
/// escapes, decoded).
#[derive(Debug, Clone, Copy)]
struct Text {
    start: usize,
    end: usize,
    own: bool,
}

impl Text {
    #[inline]
    fn get<'t>(self, input: &'t str, own: &'t str) -> &'t str {
        if self.own {
            &own[self.start..self.end]
        } else {
            &input[self.start..self.end]
        }
    }
}

/// A string just read: a range of the input, or (with escapes) the text in
/// [`Strict::scratch`].
#[derive(Debug, Clone, Copy)]
enum Str {
    Input { start: usize, end: usize },
    Scratch,
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
    /// The keys with escapes of the open objects, decoded.
    own: String,
    /// The last string with escapes, decoded (its buffer reused from one to the next).
    scratch: String,
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
                let text = match self.string()?.0 {
                    Str::Input { start, end } => &self.s[start..end],
                    Str::Scratch => &self.scratch,
                };
                Some(Some(self.builder.string(text)))
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
                    let key = match key {
                        Str::Input { start, end } => Text {
                            start,
                            end,
                            own: false,
                        },
                        Str::Scratch => {
                            let start = self.own.len();
                            self.own.push_str(&self.scratch);
                            Text {
                                start,
                                end: self.own.len(),
                                own: true,
                            }
                        }
                    };
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
    /// decoded into `self.scratch`; and whether its closing quote was there (only a partial
    /// reading takes a string the end of the text cuts off: as far as it goes, without an
    /// unfinished escape).
    #[inline]
    fn string(&mut self) -> Option<(Str, bool)> {
        let b = self.b;
        let start = self.i + 1;
        let k = find_json_special(b, start, b.len());
        match b.get(k) {
            Some(b'"') => {
                self.i = k + 1;
                Some((Str::Input { start, end: k }, true))
            }
            Some(b'\\') => {
                let mut text = std::mem::take(&mut self.scratch).into_bytes();
                text.clear();
                if text.capacity() == 0 {
                    // room for most strings at once (what is left of the text is more than
                    // enough)
                    text.reserve((b.len() - start).min(1 << 16));
                }
                text.extend_from_slice(&b[start..k]);
                let (end, closed) = unescape(b, k, self.partial, &mut text)?;
                // escapes decode to whole characters: this only checks it
                self.scratch = String::from_utf8(text).ok()?;
                self.i = end;
                Some((Str::Scratch, closed))
            }
            None if self.partial => {
                self.i = b.len();
                Some((
                    Str::Input {
                        start,
                        end: b.len(),
                    },
                    false,
                ))
            }
            // a raw control character: the tolerant reader decides
            _ => None,
        }
    }
}

/// Decodes the rest of a string, from the escape at `k`, onto `text`; returns the offset
/// after its closing quote and `true`, or (with `partial`) the end of the text and `false`
/// when the string is cut off there. Plain runs are copied eight bytes at a time (the bytes
/// after the run's end are copied too, then cut off).
fn unescape(b: &[u8], mut k: usize, partial: bool, text: &mut Vec<u8>) -> Option<(usize, bool)> {
    loop {
        // `b[k]` is a backslash
        let Some(&e) = b.get(k + 1) else {
            return partial.then_some((b.len(), false));
        };
        if let Some(c) = simple_escape(e) {
            text.push(c);
            k += 2;
        } else if e == b'u' {
            match unicode_escape(b, k) {
                Escape::Char(c, len) => {
                    text.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    k += len;
                }
                // an escape the end of the text cuts off is dropped
                Escape::Cut if partial => return Some((b.len(), false)),
                _ => return None,
            }
        } else {
            return None;
        }
        // the plain run up to the next `"`, backslash or control character
        loop {
            if k + 8 > b.len() {
                while k < b.len() && b[k] >= 0x20 && b[k] != b'"' && b[k] != b'\\' {
                    text.push(b[k]);
                    k += 1;
                }
                break;
            }
            let word = read_word(b, k);
            text.extend_from_slice(&word.to_le_bytes());
            let found = json_special_lanes(word);
            if found != 0 {
                let at = (found.trailing_zeros() / 8) as usize;
                text.truncate(text.len() - 8 + at);
                k += at;
                break;
            }
            k += 8;
        }
        match b.get(k) {
            Some(b'"') => return Some((k + 1, true)),
            Some(b'\\') => {}
            None if partial => return Some((b.len(), false)),
            // the end of a whole text inside a string, or a raw control character: the
            // tolerant reader decides
            _ => return None,
        }
    }
}

/// The character a backslash and `e` stand for (`\n`: a line feed), but for `\u`.
#[inline]
fn simple_escape(e: u8) -> Option<u8> {
    // a table, not a `match`: the escapes in a text come in no predictable order, and a
    // jump on each one costs more than the load
    Some(SIMPLE_ESCAPES[usize::from(e)]).filter(|&c| c != 0)
}

/// [`simple_escape`]'s answers; 0 for no simple escape.
static SIMPLE_ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0c;
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
    t
};

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
    use crate::builder::ValueBuilder;
    use crate::{Input, parser, tape};

    /// What the tolerant reader alone gives.
    fn tolerant(text: &str, end: Input) -> Option<serde_json::Value> {
        let mut builder = ValueBuilder;
        let mut p = parser::Parser::new(text, end, tape::Tape::new(&mut builder, text));
        let v = p.document().ok()?;
        p.out.finish(v)
    }

    /// Strings whose escapes fall at every offset of the eight-byte runs, as values and as
    /// keys, whole and cut off at every byte: the fast path reads them as the tolerant
    /// reader does (or leaves them to it).
    #[test]
    fn escapes_at_every_offset_read_as_the_tolerant_reader_reads_them() {
        let pieces = [
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\u00e9",
            "\\ud83d\\ude00",
            "é",
            "中",
            "😀",
            "\\t",
        ];
        let mut checked = 0;
        for run in 0..18 {
            for (i, a) in pieces.iter().enumerate() {
                let b = pieces[(i + run) % pieces.len()];
                let string = format!(
                    "\"{}{a}{}{b}{}\"",
                    "x".repeat(run),
                    "y".repeat(17 - run),
                    "z".repeat(run % 9)
                );
                let text = format!("[{string}, {{{string}: {string}}}]");
                let strict = super::build(&text, false, &mut ValueBuilder);
                assert!(strict.is_some(), "{text}");
                assert_eq!(strict, tolerant(&text, Input::Complete), "{text}");
                for cut in (1..text.len()).filter(|&c| text.is_char_boundary(c)) {
                    let prefix = &text[..cut];
                    if let Some(v) = super::build(prefix, true, &mut ValueBuilder) {
                        assert_eq!(Some(v), tolerant(prefix, Input::Partial), "{prefix}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

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
