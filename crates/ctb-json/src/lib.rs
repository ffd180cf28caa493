//! Tolerant JSON for text written by language models.
//!
//! STUB: the real implementation (issue 3) replaces the internals; the public API below is the
//! contract other crates build on.
//!
//! ```
//! let v = ctb_json::parse("{'a': 1,}").unwrap_or_default();
//! # let _ = v;
//! ```

use serde_json::Value;

/// What went wrong while reading JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No JSON value in the input.
    Empty,
    /// Input that cannot be read as JSON even tolerantly.
    Unexpected,
    /// Nesting deeper than the limit.
    TooDeep,
}

/// An error with the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
}

impl Error {
    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// Byte offset into the input.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// 1-based line and column (in characters) of the offset within `input`.
    pub fn line_col(&self, input: &str) -> (usize, usize) {
        let upto = &input[..self.offset.min(input.len())];
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} at byte {}", self.kind, self.offset)
    }
}

impl std::error::Error for Error {}

/// Reads `input` tolerantly into a value.
pub fn parse(input: &str) -> Result<Value, Error> {
    serde_json::from_str(input.trim()).map_err(|_| Error {
        kind: ErrorKind::Unexpected,
        offset: 0,
    })
}

/// Repairs `input` into compact, valid JSON text.
pub fn repair(input: &str) -> Result<String, Error> {
    parse(input).map(|v| v.to_string())
}

/// The first JSON value found in a longer text.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstValue {
    /// Byte offset of the value's first character.
    pub start: usize,
    /// Byte offset just past the value's last character.
    pub end: usize,
    /// Whether the root was explicitly closed (`}` / `]` present) rather than repaired.
    pub closed: bool,
    /// The value read.
    pub value: Value,
}

/// Finds the first object (from the first `{`) in `text`, the way Agent Zero's extractor does.
pub fn first_object(text: &str) -> Option<FirstValue> {
    let start = text.find('{')?;
    let mut de = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let value = de.next()?.ok()?;
    Some(FirstValue {
        start,
        end: start + de.byte_offset(),
        closed: true,
        value,
    })
}
