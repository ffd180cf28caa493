//! Tolerant JSON: reads the JSON that language models write and repairs it, in linear time.
//!
//! Models quote with `'`, `` ` `` or typographic quotes, leave keys and values unquoted, add
//! trailing commas and comments (`//`, `/* */`, `#`), write Python's `True`/`False`/`None`,
//! forget to escape inner quotes and newlines, cut the output short, and wrap the value in a
//! Markdown fence or in prose. This crate reads all of that into a [`serde_json::Value`]:
//!
//! - [`parse`] reads a whole text into a value; [`repair`] writes the same value as compact
//!   JSON text (directly, without building the value first, copying what is already valid).
//! - [`parse_partial`] and [`repair_partial`] read a stream cut off at its end, the way
//!   `jiter`'s partial mode does: what is complete is kept, what the cut left unfinished is
//!   left out (a string is kept as far as it goes). [`Input`] says how the end is read.
//! - [`build`] reads into a value type of your own through a [`Builder`] (no
//!   `serde_json::Value` in between); [`ValueBuilder`] is the one `parse` uses.
//! - [`first_object`] and [`first_value`] read the first object (or array) of a longer text and
//!   say where it starts and ends and whether its closing bracket was really there, the way
//!   Agent Zero's own extractor reads a reply; [`object_roots`] lists every closed top-level
//!   object, as Agent Zero's `extract_json_root_strings` does.
//! - [`skim_object`] lists the members of a strict JSON object as written, decoding nothing (to
//!   look at one member of a large document cheaply).
//! - [`to_string_pretty`] and [`write_string`] write JSON text exactly as serde_json does, with
//!   strings copied in runs rather than byte by byte.
//!
//! Valid JSON reads to exactly the value `serde_json` gives, and everything JSON5 accepts to
//! JSON5's value (both tested differentially). For broken JSON the rules follow jsonrepair,
//! with additions from Python's json_repair and everything Agent Zero's `DirtyJson` accepts;
//! `docs/json-divergences.md` lists where and why they differ.
//!
//! All offsets ([`Error::offset`], [`FirstValue::start`], [`FirstValue::end`]) are byte
//! offsets into the input, on character boundaries. Nesting [`MAX_DEPTH`] levels deep or more
//! is an error rather than a stack overflow, and no input makes the reader panic or do more than
//! linear work: it is one forward pass, and the few places that look ahead draw on a budget
//! proportional to the input length.
//!
//! ```
//! use serde_json::json;
//!
//! let v = ctb_json::parse("{'a': 1, b: [True, None,], // note\n}").unwrap();
//! assert_eq!(v, json!({"a": 1, "b": [true, null]}));
//!
//! assert_eq!(ctb_json::repair("{\"a\": \"unterminated").unwrap(), r#"{"a":"unterminated"}"#);
//!
//! let reply = "Let me look.\n{\"tool_name\": \"response\", \"tool_args\": {\"text\": \"hi\"}} done";
//! let first = ctb_json::first_object(reply).unwrap();
//! assert!(first.closed);
//! assert_eq!(&reply[first.start..first.end], r#"{"tool_name": "response", "tool_args": {"text": "hi"}}"#);
//! ```

mod build;
mod builder;
mod chars;
mod parser;
mod skim;
mod strict;
mod tape;
mod write;

use serde_json::Value;

pub use builder::{Builder, ValueBuilder};
pub use parser::{MAX_DEPTH, MAX_INPUT};
pub use skim::{RawMember, skim_object};
pub use write::{to_string_pretty, write_string};

/// What went wrong while reading JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No JSON value in the input (empty, or only whitespace and comments).
    Empty,
    /// Input that cannot be read as JSON even tolerantly.
    Unexpected,
    /// Nesting [`MAX_DEPTH`] levels deep or more.
    TooDeep,
    /// An object member without a key, like `{:2}`.
    KeyExpected,
    /// An object key followed by something that is not a colon or a value, like `{"a",`.
    ColonExpected,
    /// A `\u` escape without four hexadecimal digits (not at the end of the input).
    InvalidEscape,
    /// A raw control character other than tab, newline, carriage return, backspace or form
    /// feed inside a string.
    ControlCharacter,
    /// A text of [`MAX_INPUT`] bytes or more.
    TooLarge,
}

/// An error with the byte offset where it was found.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// The offset in the high 56 bits, the kind in the low 8: one machine word, so that the
    /// reader's results travel in registers.
    repr: u64,
}

impl ErrorKind {
    const ALL: [ErrorKind; 8] = [
        ErrorKind::Empty,
        ErrorKind::Unexpected,
        ErrorKind::TooDeep,
        ErrorKind::KeyExpected,
        ErrorKind::ColonExpected,
        ErrorKind::InvalidEscape,
        ErrorKind::ControlCharacter,
        ErrorKind::TooLarge,
    ];
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: usize) -> Self {
        let code = ErrorKind::ALL.iter().position(|k| *k == kind).unwrap_or(1) as u64;
        let offset = (offset as u64).min(u64::MAX >> 8);
        Error {
            repr: (offset << 8) | code,
        }
    }
    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::ALL
            .get((self.repr & 0xFF) as usize)
            .copied()
            .unwrap_or(ErrorKind::Unexpected)
    }
    /// Byte offset into the input.
    pub fn offset(&self) -> usize {
        usize::try_from(self.repr >> 8).unwrap_or(usize::MAX)
    }
    /// 1-based line and column (in characters) of the offset within `input`.
    pub fn line_col(&self, input: &str) -> (usize, usize) {
        let mut end = self.offset().min(input.len());
        while !input.is_char_boundary(end) {
            end -= 1;
        }
        let upto = &input[..end];
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind())
            .field("offset", &self.offset())
            .finish()
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind() {
            ErrorKind::Empty => "no JSON value",
            ErrorKind::Unexpected => "unexpected character",
            ErrorKind::TooDeep => "nesting too deep",
            ErrorKind::KeyExpected => "object key expected",
            ErrorKind::ColonExpected => "colon expected",
            ErrorKind::InvalidEscape => "invalid unicode escape",
            ErrorKind::ControlCharacter => "control character in string",
            ErrorKind::TooLarge => "text too large",
        };
        write!(f, "{what} at byte {}", self.offset())
    }
}

impl std::error::Error for Error {}

/// How the reader takes the end of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Input {
    /// The whole text. What the end cuts off is completed the way jsonrepair does it: a
    /// member without a value gets `null` (`{"a"` is `{"a": null}`), a number is finished
    /// (`1.` is `1.0`, `-` is `-0`), a cut-off word is text (`tru` is `"tru"`), and a string
    /// that ends with a closing bracket it never opened is taken as missing its end quote
    /// (`{"a": "b}` is `{"a": "b"}`).
    #[default]
    Complete,
    /// A stream cut off at its end (what `jiter`'s partial mode reads, with its
    /// `trailing-strings` option): a member or item whose value is not complete yet is left
    /// out (`{"a": 1, "b": tr` is `{"a": 1}`), except a string, which is kept as far as it
    /// goes, exactly (`{"a": "x, y` is `{"a": "x, y"}`). A number that ends in a digit counts
    /// as complete (`12` stays `12`); a dangling escape is dropped. Everything before the end
    /// is read as tolerantly as in [`Input::Complete`].
    Partial,
}

/// Reads `input` tolerantly into a value.
///
/// The text may hold prose or a Markdown fence around the value; several values one after
/// the other (NDJSON, or `{...}{...}`) become an array. Text after a complete object or
/// array is ignored.
pub fn parse(input: &str) -> Result<Value, Error> {
    build(input, Input::Complete, &mut ValueBuilder)
}

/// Reads `input`, a stream cut off at its end, into a value: [`parse`] with the end read as
/// [`Input::Partial`] says. Every member and item complete before the cut is there, with its
/// final value.
///
/// ```
/// use serde_json::json;
///
/// let cut = r#"{"tool_name": "response", "tool_args": {"text": "Hello, wor"#;
/// assert_eq!(
///     ctb_json::parse_partial(cut).unwrap(),
///     json!({"tool_name": "response", "tool_args": {"text": "Hello, wor"}})
/// );
/// assert_eq!(ctb_json::parse_partial(r#"[1, 2, tr"#).unwrap(), json!([1, 2]));
/// ```
pub fn parse_partial(input: &str) -> Result<Value, Error> {
    build(input, Input::Partial, &mut ValueBuilder)
}

/// Reads `input` like [`parse`] (or [`parse_partial`], as `end` says) and gives the value made
/// by `builder`: your own value type, built directly (see [`Builder`]).
pub fn build<B: Builder>(input: &str, end: Input, builder: &mut B) -> Result<B::Value, Error> {
    // strict JSON first: the same result, read much faster; anything else from the start
    if input.len() < MAX_INPUT {
        if let Some(v) = strict::build(input, end == Input::Partial, builder) {
            return Ok(v);
        }
    }
    let mut p = parser::Parser::new(input, end, tape::Tape::new(builder, input));
    let v = p.document()?;
    p.out
        .finish(v)
        .ok_or_else(|| Error::new(ErrorKind::Empty, input.len()))
}

/// Repairs `input` into compact, valid JSON text: the value [`parse`] reads, written directly
/// without building it first. serde_json reads the text back to that value (numbers may be
/// spelled differently, like `1e3` for `1e+3`, and a duplicated key appears twice, the last one
/// winning).
pub fn repair(input: &str) -> Result<String, Error> {
    repair_as(input, Input::Complete)
}

/// Repairs `input`, a stream cut off at its end, into compact JSON text: the value
/// [`parse_partial`] reads.
pub fn repair_partial(input: &str) -> Result<String, Error> {
    repair_as(input, Input::Partial)
}

fn repair_as(input: &str, end: Input) -> Result<String, Error> {
    let out = build::TextBuild::with_capacity(input.len() + 16);
    let mut p = parser::Parser::new(input, end, out);
    p.document()?;
    Ok(p.out.out)
}

/// The first JSON value found in a longer text.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstValue<V = Value> {
    /// Byte offset of the value's first character.
    pub start: usize,
    /// Byte offset just past the value's last character: the closing bracket when `closed`
    /// (a doubled `}}` at the end of a root object counts as its closing brace, as in Agent
    /// Zero), otherwise where reading stopped.
    pub end: usize,
    /// Whether the root was explicitly closed (`}` / `]` present) rather than repaired.
    pub closed: bool,
    /// The value read.
    pub value: V,
}

/// Finds the first object (from the first `{`) in `text`, the way Agent Zero's extractor does:
/// the object is read tolerantly from there, a doubled `{{ ... }}` counts as one object, and
/// `closed` says whether its closing brace was really there. `None` when the text has no `{`
/// or the object cannot be read at all.
pub fn first_object(text: &str) -> Option<FirstValue> {
    let start = text.find('{')?;
    read_root_at(text, start)
}

/// [`first_object`] with the value made by `builder` (a check that needs no tree, say).
///
/// ```
/// use ctb_json::{Builder, first_object_built};
///
/// /// Whether a value is a non-empty string, or an object with a `"name"` that is one.
/// struct Named;
/// impl Builder for Named {
///     type Value = bool;
///     fn null(&mut self) -> bool { false }
///     fn boolean(&mut self, _: bool) -> bool { false }
///     fn number(&mut self, _: &str) -> bool { false }
///     fn string(&mut self, text: &str) -> bool { !text.is_empty() }
///     fn array(&mut self, _: impl ExactSizeIterator<Item = bool>) -> bool { false }
///     fn object<'k>(&mut self, mut m: impl ExactSizeIterator<Item = (&'k str, bool)>) -> bool {
///         m.any(|(k, v)| k == "name" && v)
///     }
/// }
///
/// let found = first_object_built("Sure: {name: 'x', tags: [1, 2]} ok", &mut Named).unwrap();
/// assert!(found.value && found.closed);
/// ```
pub fn first_object_built<B: Builder>(text: &str, builder: &mut B) -> Option<FirstValue<B::Value>> {
    let start = text.find('{')?;
    read_root_with(text, start, builder)
}

/// Finds the first object or array (from the first `{` or `[`) in `text`, read like
/// [`first_object`].
pub fn first_value(text: &str) -> Option<FirstValue> {
    let start = text.find(['{', '['])?;
    read_root_at(text, start)
}

/// Every top-level object in `text` whose closing brace is really there, in order: what Agent
/// Zero's `extract_json_root_strings` finds. Candidate starts are the `{` at depth 0 of a quick
/// scan that counts brackets and skips quoted text inside them; each candidate is read like
/// [`first_object`], but only up to the next candidate, which keeps the whole call linear.
/// Like Agent Zero, a text that starts with `[` has no roots.
pub fn object_roots(text: &str) -> Vec<FirstValue> {
    if text.trim_start().starts_with('[') {
        return Vec::new();
    }
    let starts = root_starts(text);
    let mut roots = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        if let Some(found) = read_root_at(&text[..end], start) {
            if found.closed {
                roots.push(found);
            }
        }
    }
    roots
}

/// Offsets of the `{` that open a top-level object, by bracket counting with quoted text
/// (`"`, `'`, `` ` ``, with backslash escapes) skipped inside brackets.
fn root_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &c) in text.as_bytes().iter().enumerate() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            b'"' | b'\'' | b'`' if depth > 0 => quote = Some(c),
            b'{' => {
                if depth == 0 {
                    starts.push(i);
                }
                depth += 1;
            }
            b'[' if depth > 0 => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            _ => {}
        }
    }
    starts
}

fn read_root_at(text: &str, start: usize) -> Option<FirstValue> {
    read_root_with(text, start, &mut ValueBuilder)
}

fn read_root_with<B: Builder>(
    text: &str,
    start: usize,
    builder: &mut B,
) -> Option<FirstValue<B::Value>> {
    // A text that is one strict JSON value from `start` to its end (a reply that is exactly a
    // request) is read on the fast path: the tolerant reading gives the same value there.
    let rest = &text[start..];
    if rest.len() < MAX_INPUT {
        if let Some(value) = strict::build(rest, false, builder) {
            return Some(FirstValue {
                start,
                end: start + rest.trim_end_matches([' ', '\t', '\n', '\r']).len(),
                closed: true,
                value,
            });
        }
    }
    let mut p = parser::Parser::new(text, Input::Complete, tape::Tape::new(builder, text));
    p.i = start;
    let root = p.root_value().ok()??;
    let value = p.out.finish(root)?;
    let closed = p.last_closed;
    let mut end = p.i;
    if closed && text.as_bytes().get(end) == Some(&b'}') && text.as_bytes()[start] == b'{' {
        end += 1; // Agent Zero reads `}}` at the root as one closing brace
    }
    Some(FirstValue {
        start,
        end,
        closed,
        value,
    })
}
