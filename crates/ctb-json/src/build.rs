//! What the reader writes to: compact JSON text written as it goes ([`TextBuild`], for
//! `repair`, with no tree in between), or a tape of values for a [`crate::Builder`]
//! ([`crate::tape::Tape`], for `parse` and `build`). The reader calls the same methods in the
//! same order for both, so both give the same result: the text reads back (with serde_json)
//! to the value.
//!
//! A string's text is collected in the builder's own kind of buffer ([`StrBuf`]): plain text
//! for the value, JSON-escaped text for `repair`, so that `repair` copies each run of ordinary
//! characters once, straight from the input, and never escapes a string a second time.

use serde_json::Value;

/// A buffer for a string's text, as the reader finds it.
pub(crate) trait StrBuf {
    /// Whether the buffer holds JSON-escaped text, so that an escape the input writes the
    /// JSON way (`\\"`, `\\n`, `\\u00e9`) is copied as it is instead of decoded.
    const JSON: bool;
    /// Text with no `"`, backslash or control character in it (a run straight from the input).
    fn push_plain(&mut self, s: &str);
    /// Any text.
    fn push_text(&mut self, s: &str);
    /// One character.
    fn push_char(&mut self, c: char);
    /// Appends another buffer's text.
    fn append(&mut self, other: &Self);
    fn clear(&mut self);
    /// Drops trailing spaces, tabs and carriage returns.
    fn trim_end_spaces(&mut self);
    /// The plain text written so far, to decode escapes into directly (`None` for JSON text,
    /// which keeps escapes as they are).
    fn decoded(&mut self) -> Option<&mut String>;
}

impl StrBuf for String {
    const JSON: bool = false;
    #[inline]
    fn push_plain(&mut self, s: &str) {
        self.push_str(s);
    }
    #[inline]
    fn push_text(&mut self, s: &str) {
        self.push_str(s);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.push(c);
    }
    fn append(&mut self, other: &Self) {
        self.push_str(other);
    }
    fn clear(&mut self) {
        String::clear(self);
    }
    fn trim_end_spaces(&mut self) {
        let n = self.trim_end_matches([' ', '\t', '\r']).len();
        self.truncate(n);
    }
    fn decoded(&mut self) -> Option<&mut String> {
        Some(self)
    }
}

/// A string's text as the inside of a JSON string literal: escaped the way serde_json escapes
/// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, `\u00XX` for other control characters).
#[derive(Debug, Default)]
pub(crate) struct Escaped(pub(crate) String);

impl StrBuf for Escaped {
    const JSON: bool = true;
    #[inline]
    fn push_plain(&mut self, s: &str) {
        self.0.push_str(s);
    }
    fn push_text(&mut self, s: &str) {
        escape_into(&mut self.0, s);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        match c {
            '"' => self.0.push_str("\\\""),
            '\\' => self.0.push_str("\\\\"),
            c if u32::from(c) < 0x20 => push_escape(&mut self.0, c as u8),
            c => self.0.push(c),
        }
    }
    fn append(&mut self, other: &Self) {
        self.0.push_str(&other.0);
    }
    fn clear(&mut self) {
        self.0.clear();
    }
    fn trim_end_spaces(&mut self) {
        let b = self.0.as_bytes();
        let mut n = b.len();
        loop {
            if n > 0 && b[n - 1] == b' ' {
                n -= 1;
            } else if n >= 2 && matches!(b[n - 1], b't' | b'r') && b[n - 2] == b'\\' {
                // `\t` or `\r`, unless that backslash is itself escaped (`\\t` is `\` and `t`)
                let run = b[..n - 1].iter().rev().take_while(|&&c| c == b'\\').count();
                if run % 2 == 0 {
                    break;
                }
                n -= 2;
            } else {
                break;
            }
        }
        self.0.truncate(n);
    }
    fn decoded(&mut self) -> Option<&mut String> {
        None
    }
}

/// The escape serde_json writes for each control character.
const CONTROL_ESCAPES: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007", "\\b",
    "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011", "\\u0012",
    "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019", "\\u001a",
    "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// Appends the escape serde_json writes for a byte JSON text must escape (`"`, `\\`, below
/// 0x20). The common ones are written as constants, which the compiler copies inline at every
/// escape; the rarer ones are out of line.
#[inline(always)]
fn push_escape(out: &mut String, c: u8) {
    match c {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        c => push_rare_escape(out, c),
    }
}

/// [`push_escape`] for a control character other than a line feed.
#[inline(never)]
fn push_rare_escape(out: &mut String, c: u8) {
    match c {
        b'\t' => out.push_str("\\t"),
        b'\r' => out.push_str("\\r"),
        c => out.push_str(CONTROL_ESCAPES[usize::from(c & 0x1F)]),
    }
}

/// Appends `s` escaped for a JSON string literal (without the quotes).
///
/// Eight bytes at a time: the text is searched a word at a time for the next byte to escape
/// (every such byte is ASCII, so it lies on a character boundary), and the plain run before it
/// is appended with one copy.
pub(crate) fn escape_into(out: &mut String, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    let mut run = 0;
    let mut i = 0;
    while i + 8 <= b.len() {
        // Two words per test where two are left: one branch per 16 plain bytes.
        let (found, base) = if i + 16 <= b.len() {
            let (first, second) = (
                crate::chars::json_special_mask(b, i),
                crate::chars::json_special_mask(b, i + 8),
            );
            match (first, second) {
                (0, 0) => {
                    i += 16;
                    continue;
                }
                (0, m) => (m, i + 8),
                (m, _) => (m, i),
            }
        } else {
            match crate::chars::json_special_mask(b, i) {
                0 => {
                    i += 8;
                    continue;
                }
                m => (m, i),
            }
        };
        let at = base + (found.trailing_zeros() / 8) as usize;
        out.push_str(&s[run..at]);
        push_escape(out, b[at]);
        run = at + 1;
        i = run;
    }
    while i < b.len() {
        let c = b[i];
        if c < 0x20 || c == b'"' || c == b'\\' {
            out.push_str(&s[run..i]);
            push_escape(out, c);
            run = i + 1;
        }
        i += 1;
    }
    out.push_str(&s[run..]);
}

/// Receives the values the reader finds, in document order.
pub(crate) trait Build {
    /// A finished value.
    type V;
    /// A string's text while it is read.
    type Str: StrBuf;
    /// An empty string buffer.
    fn new_str(&self) -> Self::Str;
    /// An array being filled.
    type Arr;
    /// An object being filled.
    type Obj;

    fn null(&mut self) -> Self::V;
    fn boolean(&mut self, b: bool) -> Self::V;
    /// `repaired` is valid JSON number text; `raw` is what the input said, used as a string if
    /// the number cannot be represented.
    fn number(&mut self, repaired: &str, raw: &str) -> Self::V;
    /// A string; the buffer is left empty.
    fn string(&mut self, s: &mut Self::Str) -> Self::V;
    /// A string from the input as is.
    fn text(&mut self, s: &str) -> Self::V;

    fn is_string(&self, v: &Self::V) -> bool;
    fn is_object(&self, v: &Self::V) -> bool;
    fn is_array(&self, v: &Self::V) -> bool;
    /// Takes back the last value built, which must be a string, and returns its text.
    fn take_string(&mut self, v: Self::V) -> Self::Str;
    /// Forgets the last value built.
    fn discard(&mut self, v: Self::V);

    fn arr_begin(&mut self) -> Self::Arr;
    /// Called before reading each item; [`Build::arr_abort_item`] undoes it when no item came.
    fn arr_item(&mut self, a: &mut Self::Arr);
    fn arr_abort_item(&mut self, a: &mut Self::Arr);
    fn arr_push(&mut self, a: &mut Self::Arr, v: Self::V);
    fn arr_end(&mut self, a: Self::Arr) -> Self::V;
    /// A new array whose first item is `v` (the last value built).
    fn arr_wrap(&mut self, v: Self::V) -> Self::Arr;
    /// The only item of `a`, instead of the array.
    fn arr_unwrap_single(&mut self, a: Self::Arr) -> Self::V;

    fn obj_begin(&mut self) -> Self::Obj;
    /// The key of the next member, before its value is read; the buffer is left empty.
    fn obj_key(&mut self, o: &mut Self::Obj, key: &mut Self::Str);
    fn obj_value(&mut self, o: &mut Self::Obj, v: Self::V);
    /// Whether the object already has a member with this key (only asked once per text, for
    /// a key the end of the text cuts off, so it need not be fast).
    fn obj_has_key(&self, o: &Self::Obj, key: &Self::Str) -> bool;
    /// Drops the member whose key was given last.
    fn obj_abort_member(&mut self, o: &mut Self::Obj);
    fn obj_end(&mut self, o: Self::Obj) -> Self::V;
    /// Reopens the last value built, an object, to add members.
    fn obj_reopen(&mut self, v: Self::V) -> Self::Obj;
    /// Whether the last member's value is an array.
    fn obj_last_is_array(&self, o: &Self::Obj) -> bool;
    /// Appends the items of `v` (an array, the last value built) to the last member's array.
    fn obj_extend_last(&mut self, o: &mut Self::Obj, v: Self::V);
}

// ----- text -------------------------------------------------------------------------------

/// Writes compact JSON text.
pub(crate) struct TextBuild {
    pub(crate) out: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Scalar,
    Str,
    /// An array; whether it is empty.
    Arr(bool),
    /// An object; whether it is empty.
    Obj(bool),
}

/// A value written at `start..` of the output, packed in one non-zero word (start in the high
/// bits, kind in the low three) so that results carrying it travel in registers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextVal(std::num::NonZeroU64);

impl TextVal {
    #[inline]
    fn new(start: usize, kind: Kind) -> Self {
        let code: u64 = match kind {
            Kind::Scalar => 1,
            Kind::Str => 2,
            Kind::Arr(false) => 3,
            Kind::Arr(true) => 4,
            Kind::Obj(false) => 5,
            Kind::Obj(true) => 6,
        };
        let packed = ((start as u64) << 3) | code;
        TextVal(std::num::NonZeroU64::new(packed).unwrap_or(std::num::NonZeroU64::MIN))
    }
    #[inline]
    fn start(self) -> usize {
        (self.0.get() >> 3) as usize
    }
    #[inline]
    fn kind(self) -> Kind {
        match self.0.get() & 7 {
            2 => Kind::Str,
            3 => Kind::Arr(false),
            4 => Kind::Arr(true),
            5 => Kind::Obj(false),
            6 => Kind::Obj(true),
            _ => Kind::Scalar,
        }
    }
}

pub(crate) struct TextArr {
    start: usize,
    count: usize,
    item_start: usize,
    last: Kind,
}

pub(crate) struct TextObj {
    start: usize,
    count: usize,
    member_start: usize,
    last: Option<Kind>,
}

impl TextBuild {
    pub(crate) fn with_capacity(n: usize) -> Self {
        TextBuild {
            out: String::with_capacity(n),
        }
    }

    #[inline]
    fn scalar(&mut self, text: &str) -> TextVal {
        let start = self.out.len();
        match text.as_bytes() {
            [c] => self.out.push(char::from(*c)),
            _ => self.out.push_str(text),
        }
        TextVal::new(start, Kind::Scalar)
    }
}

impl Build for TextBuild {
    type V = TextVal;
    type Str = Escaped;
    type Arr = TextArr;
    type Obj = TextObj;

    fn new_str(&self) -> Escaped {
        Escaped::default()
    }

    fn null(&mut self) -> TextVal {
        self.scalar("null")
    }
    fn boolean(&mut self, b: bool) -> TextVal {
        self.scalar(if b { "true" } else { "false" })
    }
    fn number(&mut self, repaired: &str, _raw: &str) -> TextVal {
        self.scalar(repaired)
    }
    fn string(&mut self, s: &mut Escaped) -> TextVal {
        let start = self.out.len();
        self.out.reserve(s.0.len() + 2);
        self.out.push('"');
        self.out.push_str(&s.0);
        self.out.push('"');
        s.0.clear();
        TextVal::new(start, Kind::Str)
    }
    fn text(&mut self, s: &str) -> TextVal {
        let start = self.out.len();
        self.out.push('"');
        escape_into(&mut self.out, s);
        self.out.push('"');
        TextVal::new(start, Kind::Str)
    }
    fn is_string(&self, v: &TextVal) -> bool {
        v.kind() == Kind::Str
    }
    fn is_object(&self, v: &TextVal) -> bool {
        matches!(v.kind(), Kind::Obj(_))
    }
    fn is_array(&self, v: &TextVal) -> bool {
        matches!(v.kind(), Kind::Arr(_))
    }
    fn take_string(&mut self, v: TextVal) -> Escaped {
        // the literal just written, without its quotes (rare: only for keys found late)
        let literal = &self.out[v.start()..];
        let text = Escaped(literal[1..literal.len() - 1].to_owned());
        self.out.truncate(v.start());
        text
    }
    fn discard(&mut self, v: TextVal) {
        self.out.truncate(v.start());
    }

    fn arr_begin(&mut self) -> TextArr {
        let start = self.out.len();
        self.out.push('[');
        TextArr {
            start,
            count: 0,
            item_start: start + 1,
            last: Kind::Scalar,
        }
    }
    fn arr_item(&mut self, a: &mut TextArr) {
        a.item_start = self.out.len();
        if a.count > 0 {
            self.out.push(',');
        }
    }
    fn arr_abort_item(&mut self, a: &mut TextArr) {
        self.out.truncate(a.item_start);
    }
    fn arr_push(&mut self, a: &mut TextArr, v: TextVal) {
        a.count += 1;
        a.last = v.kind();
    }
    fn arr_end(&mut self, a: TextArr) -> TextVal {
        self.out.push(']');
        TextVal::new(a.start, Kind::Arr(a.count == 0))
    }
    fn arr_wrap(&mut self, v: TextVal) -> TextArr {
        self.out.insert(v.start(), '[');
        TextArr {
            start: v.start(),
            count: 1,
            item_start: self.out.len(),
            last: v.kind(),
        }
    }
    fn arr_unwrap_single(&mut self, a: TextArr) -> TextVal {
        self.out.remove(a.start);
        TextVal::new(a.start, a.last)
    }

    fn obj_begin(&mut self) -> TextObj {
        let start = self.out.len();
        self.out.push('{');
        TextObj {
            start,
            count: 0,
            member_start: start + 1,
            last: None,
        }
    }
    fn obj_key(&mut self, o: &mut TextObj, key: &mut Escaped) {
        o.member_start = self.out.len();
        if o.count > 0 {
            self.out.push(',');
        }
        self.out.push('"');
        self.out.push_str(&key.0);
        self.out.push_str("\":");
        key.0.clear();
    }
    fn obj_value(&mut self, o: &mut TextObj, v: TextVal) {
        o.count += 1;
        o.last = Some(v.kind());
    }
    fn obj_has_key(&self, o: &TextObj, key: &Escaped) -> bool {
        // the members written so far, closed, are a JSON object
        let text = format!("{}}}", &self.out[o.start..]);
        let key = serde_json::from_str::<String>(&format!("\"{}\"", key.0));
        match (serde_json::from_str::<Value>(&text), key) {
            (Ok(Value::Object(m)), Ok(k)) => m.contains_key(&k),
            _ => false,
        }
    }
    fn obj_abort_member(&mut self, o: &mut TextObj) {
        self.out.truncate(o.member_start);
    }
    fn obj_end(&mut self, o: TextObj) -> TextVal {
        self.out.push('}');
        TextVal::new(o.start, Kind::Obj(o.count == 0))
    }
    fn obj_reopen(&mut self, v: TextVal) -> TextObj {
        if self.out.ends_with('}') {
            self.out.pop();
        }
        TextObj {
            start: v.start(),
            count: usize::from(v.kind() != Kind::Obj(true)),
            member_start: self.out.len(),
            last: None,
        }
    }
    fn obj_last_is_array(&self, o: &TextObj) -> bool {
        matches!(o.last, Some(Kind::Arr(_)))
    }
    fn obj_extend_last(&mut self, o: &mut TextObj, v: TextVal) {
        let (Some(Kind::Arr(prev_empty)), Kind::Arr(new_empty)) = (o.last, v.kind()) else {
            return;
        };
        // `...,"k":[1]` followed by `[2]` at v.start(): join them into `[1,2]`
        if v.start() == 0 || self.out.as_bytes().get(v.start() - 1) != Some(&b']') {
            return;
        }
        let sep = if prev_empty || new_empty { "" } else { "," };
        self.out.replace_range(v.start() - 1..v.start() + 1, sep);
        o.last = Some(Kind::Arr(prev_empty && new_empty));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(f: impl FnOnce(&mut Escaped)) -> String {
        let mut e = Escaped::default();
        f(&mut e);
        e.0
    }

    #[test]
    fn escaped_text_is_what_serde_json_writes() {
        for text in [
            "",
            "plain",
            "a\"b\\c",
            "tab\there\nnew\r\u{8}\u{c}",
            "\u{0}\u{1f}\u{7f}é😀",
        ] {
            let want = serde_json::to_string(text).unwrap();
            let want = &want[1..want.len() - 1];
            assert_eq!(escaped(|e| e.push_text(text)), want, "{text:?}");
            assert_eq!(escaped(|e| text.chars().for_each(|c| e.push_char(c))), want);
        }
    }

    #[test]
    fn escaped_trim_keeps_escaped_backslashes() {
        let trimmed = |text: &str| {
            escaped(|e| {
                e.push_text(text);
                e.trim_end_spaces();
            })
        };
        assert_eq!(trimmed("a \t\r "), "a");
        assert_eq!(trimmed("a\\t"), "a\\\\t"); // a backslash and a `t`
        assert_eq!(trimmed("a\\\t"), "a\\\\"); // a backslash, then a tab
        assert_eq!(trimmed(" \t"), "");
        let mut plain = String::from("x \t\r");
        plain.trim_end_spaces();
        assert_eq!(plain, "x");
    }

    #[test]
    fn escape_into_writes_what_serde_json_writes() {
        let pieces = [
            "a", "é", "中", "😀", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "\u{7f}", " ",
        ];
        // every string of up to four pieces, at every offset from a word boundary and from a
        // boundary of the two-word step
        let mut texts = Vec::new();
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in pieces {
                        texts.push(format!("{a}{b}{c}{d}"));
                    }
                }
            }
        }
        for text in texts {
            for pad in 0..17 {
                let s = format!("{}{text}{}", "x".repeat(pad), "y".repeat(17 - pad));
                let mut out = String::from("<");
                escape_into(&mut out, &s);
                let want = serde_json::to_string(&s).expect("serde_json writes it");
                assert_eq!(out, format!("<{}", &want[1..want.len() - 1]), "{s:?}");
            }
        }
    }
}
