//! The tolerant reader: one forward pass of recursive descent with a depth cap. What it finds
//! goes to a [`Build`]: a `serde_json::Value` for `parse`, compact JSON text for `repair`.
//!
//! Linear time: every loop consumes input or stops. The only places that look further than
//! they consume are a string's first pass (which may be thrown away and redone in a more
//! conservative mode), the look past a closing quote, and the search for the end of a
//! triple-quoted string. The first two are charged to a work budget proportional to the input
//! length; once it is spent, strings are read in the conservative mode straight away and the
//! look past a quote no longer skips comments. The third is memoised.
//!
//! The reader is split along its grammar: [`document`] (fences, prose, several values),
//! [`containers`] (objects, arrays, tuples), [`strings`], [`numbers`], [`words`] (keywords,
//! unquoted text, calls, regular expressions) and [`trivia`] (whitespace, comments, commas).

mod containers;
mod document;
mod numbers;
mod strings;
mod trivia;
mod words;

use crate::build::{Build, StrBuf};
use crate::{Error, ErrorKind, Input};

use words::Unquoted;

/// Nesting of objects, arrays and calls is limited to fewer than this many levels (127 at
/// most), exactly like serde_json's own limit, so whatever [`crate::repair`] prints,
/// serde_json can read back, and valid JSON that serde_json refuses for its depth is refused
/// here too.
pub const MAX_DEPTH: usize = 128;

/// Texts must be shorter than this (4 GiB) to be read at all: offsets are kept in 32 bits.
pub const MAX_INPUT: usize = u32::MAX as usize;

/// The reader's state: the input, the position, and what it writes to.
pub(crate) struct Parser<'a, B: Build> {
    /// Receives the values read.
    pub(crate) out: B,
    /// A reusable buffer for string contents.
    scratch: B::Str,
    /// The input, and the same as bytes.
    s: &'a str,
    b: &'a [u8],
    /// The read position (a byte offset on a character boundary).
    pub(crate) i: usize,
    /// Open objects, arrays, tuples and calls.
    depth: usize,
    /// The most of them open at once so far.
    deepest: usize,
    /// Work left for looks ahead and string passes that are thrown away.
    budget: isize,
    /// For `"""`, `'''` and "```": no closing triple exists at or after this offset.
    triple_miss: [usize; 3],
    /// The last look past a comma for the next member: where it started, and its answer (so
    /// that a string read twice is charged for it once).
    member_follows: (usize, bool),
    /// Whether the last object or array read was closed by its own bracket.
    pub(crate) last_closed: bool,
    /// How the end of the text is read.
    input: Input,
}

/// Where a value stands. Rules of where a string ends depend on it: in an object member's
/// value, a quote followed by a comma ends the string only when the next member follows
/// (`{"text": "Use "quotes", please"}`); in an array item whose end quote is missing before
/// the array's `]`, commas split plain words into items (`["hello, world]`); a key's end
/// quote can be missing only before a `}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// An object member's value.
    Member,
    /// An array item.
    Item,
    /// An object key.
    Key,
    /// Anywhere else: the root, a call's argument, a tuple's item.
    Other,
}

type Res<T> = Result<T, Error>;

impl<'a, B: Build> Parser<'a, B> {
    pub(crate) fn new(s: &'a str, input: Input, out: B) -> Self {
        let budget = isize::try_from(s.len()).unwrap_or(isize::MAX / 4);
        Parser {
            scratch: out.new_str(),
            out,
            s,
            b: s.as_bytes(),
            i: 0,
            depth: 0,
            deepest: 0,
            budget: budget.saturating_mul(2).saturating_add(16 * 1024),
            triple_miss: [usize::MAX; 3],
            member_follows: (usize::MAX, false),
            last_closed: false,
            input,
        }
    }

    fn err(&self, kind: ErrorKind, offset: usize) -> Error {
        Error::new(kind, offset.min(self.b.len()))
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn at(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    fn enter(&mut self) -> Res<()> {
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        if self.depth >= MAX_DEPTH {
            return Err(self.err(ErrorKind::TooDeep, self.i));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}

impl<B: Build> Parser<'_, B> {
    /// A value, or `null` where the text has none (`{"a": }`, a cut-off input).
    fn value_or_null(&mut self, slot: Slot) -> Res<B::V> {
        Ok(match self.value(slot)? {
            Some(v) => v,
            None => self.out.null(),
        })
    }

    /// A value with the whitespace and comments around it.
    fn value(&mut self, slot: Slot) -> Res<Option<B::V>> {
        self.skip_ws();
        let v = self.value_inner(slot)?;
        self.skip_ws();
        Ok(v)
    }

    fn value_inner(&mut self, slot: Slot) -> Res<Option<B::V>> {
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        match c {
            b'{' => return self.object().map(Some),
            b'[' => return self.array().map(Some),
            b'(' => return self.tuple().map(Some),
            b'}' | b']' | b',' | b':' | b')' => return Ok(None),
            _ if self.input == Input::Partial && self.cut_off_scalar() => {
                self.i = self.b.len();
                return Ok(None);
            }
            b'0'..=b'9' | b'-' | b'+' | b'.' => {
                if let Some(v) = self.number() {
                    return Ok(Some(v));
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                if matches!(c, b'I' | b'N') {
                    if let Some(v) = self.number() {
                        return Ok(Some(v)); // Infinity, NaN
                    }
                }
                if let Some(v) = self.keyword() {
                    return Ok(Some(v));
                }
            }
            _ => {
                if self.string_value(slot)? {
                    return Ok(Some(self.out.string(&mut self.scratch)));
                }
            }
        }
        match self.unquoted(false)? {
            Some(Unquoted::Text(a, b)) => {
                let s = self.s;
                return Ok(Some(if &s[a..b] == "undefined" {
                    self.out.null()
                } else {
                    self.out.text(&s[a..b])
                }));
            }
            Some(Unquoted::Call(_, v)) => return Ok(Some(v)),
            None => {}
        }
        Ok(self.regex())
    }
}
