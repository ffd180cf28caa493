//! Kimi K3's XTML: special tokens `<|open|>`, `<|close|>` and `<|sep|>` around tag names and
//! attributes written as text.
//!
//! ```text
//! <|open|>tools<|sep|>
//!   <|open|>call tool="NAME" index="1"<|sep|>
//!     <|open|>argument key="K" type="string"<|sep|>raw text<|close|>argument<|sep|>
//!     <|open|>argument key="n" type="number"<|sep|>42<|close|>argument<|sep|>
//!   <|close|>call<|sep|>
//! <|close|>tools<|sep|>
//! ```
//!
//! (the renderer writes no white space between the markers; white space between the blocks is
//! allowed). The call's body is either argument blocks or one `<|open|>json type="object"<|sep|>`
//! block holding the whole argument object. What is read, and refused:
//! - a value runs to the first `<|close|>argument<|sep|>`; no `<|open|>`, `<|close|>` or
//!   `<|sep|>` may stand inside it (nothing escapes a marker, so one there means the structure
//!   broke: the call is refused rather than cut short);
//! - `type="string"` values are text as written ([`ValueKind::Text`]); `number`, `boolean`,
//!   `null`, `object` and `array` values must be one JSON value of that type
//!   ([`ValueKind::Json`], kept as written); another type word, or no type, breaks the call;
//! - attributes are written in the renderer's order with double quotes (`tool` then `index`,
//!   `key` then `type`); the renderer escapes `&` and `"` in them as `&amp;` and `&quot;`. A
//!   name or key that holds `&` is refused: the call's spans are byte ranges of the reply, so an
//!   unescaped name cannot be represented, and no tool catalog has such a name. `<` and line
//!   breaks are refused there too (a marker inside an attribute means the tag broke);
//! - anything else between the blocks, a repeated key, or a json block that is not one JSON
//!   object breaks the call; `index` is digits and otherwise ignored;
//! - the call ends just past its `<|close|>call<|sep|>`; the rest of the section is the tail.

use std::ops::Range;

use super::{duplicate, need, ready, ws};
use crate::grammar::{Body, RawParam, Spans, Step, ValueKind, settle};
use crate::json::whole;
use crate::lex::{Meter, Poll, next_lt, starts_with};
use crate::vocab::kimi_k3::{
    ARG_CLOSE, ARG_OPEN, CALL_CLOSE, CALL_OPEN, CLOSE, INDEX_ATTR, JSON_CLOSE, JSON_OPEN, OPEN,
    RESPONSE_CLOSE, SEP, THINK_CLOSE, TOOLS_CLOSE, TOOLS_OPEN, TYPE_ATTR,
};

/// What ends the text of a call that broke.
pub(crate) const ENDS: &[&str] = &[CALL_CLOSE, TOOLS_CLOSE];

/// Longest tool name or key read.
const MAX_NAME: usize = 256;
/// Longest `index` or `type` value read.
const MAX_WORD: usize = 16;

/// A value's declared type (or the json block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    String,
    Number,
    Boolean,
    Null,
    Object,
    Array,
    /// The `<|open|>json type="object"<|sep|>` block: the whole argument object.
    Block,
}

impl Type {
    fn from_word(word: &[u8]) -> Option<Self> {
        Some(match word {
            b"string" => Type::String,
            b"number" => Type::Number,
            b"boolean" => Type::Boolean,
            b"null" => Type::Null,
            b"object" => Type::Object,
            b"array" => Type::Array,
            _ => return None,
        })
    }

    /// Whether a JSON value starting with `c` is of this type.
    fn starts(self, c: u8) -> bool {
        match self {
            Type::String => c == b'"',
            Type::Number => c == b'-' || c.is_ascii_digit(),
            Type::Boolean => c == b't' || c == b'f',
            Type::Null => c == b'n',
            Type::Object | Type::Block => c == b'{',
            Type::Array => c == b'[',
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// An optional `<|close|>think<|sep|>` or `<|close|>response<|sep|>`.
    Channel,
    /// `<|open|>tools<|sep|>`.
    Section,
    /// White space, then `<|open|>call tool="`.
    CallOpen,
    /// The tool name, from this offset.
    Tool(usize),
    /// ` index="` or `<|sep|>`.
    AfterTool,
    /// The index, from this offset.
    Index(usize),
    /// The `<|sep|>` after the index.
    CallSep,
    /// White space, then the call's closer, an argument, or (first and only) a json block.
    Children,
    /// The key, from this offset.
    Key(usize),
    /// ` type="`.
    TypeAttr,
    /// The type word, from this offset.
    Type(usize),
    /// The `<|sep|>` that ends an argument's opening.
    ArgSep(Type),
    /// A value, from `start`, up to its closer.
    Value { start: usize, ty: Type },
    /// After the json block: white space, then the call's closer.
    AfterJson,
    /// Decided: every later step answers the same.
    Decided(Step),
}

/// A Kimi K3 call being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Xtml {
    pos: usize,
    state: State,
    /// The argument being read: where its opening starts, its key and its type word.
    arg: usize,
    key: Range<usize>,
    ty: Range<usize>,
}

impl Xtml {
    /// A call whose section starts at `at`: at `<|open|>tools<|sep|>`, or at a channel close
    /// (`<|close|>think<|sep|>`, `<|close|>response<|sep|>`) followed directly by it.
    pub(crate) fn new(at: usize) -> Self {
        Self {
            pos: at,
            state: State::Channel,
            arg: at,
            key: at..at,
            ty: at..at,
        }
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match self.state {
            State::Decided(step) => return Err(step),
            State::Channel => {
                let mut undecided = false;
                for close in [THINK_CLOSE, RESPONSE_CLOSE] {
                    match starts_with(b, self.pos, close, meter) {
                        Poll::Ready(true) => {
                            self.pos += close.len();
                            return Ok(State::Section);
                        }
                        Poll::Pending => undecided = true,
                        Poll::Ready(false) => {}
                    }
                }
                if undecided {
                    return Err(Step::Pending);
                }
                State::Section
            }
            State::Section => {
                need(b, &mut self.pos, TOOLS_OPEN, meter)?;
                State::CallOpen
            }
            State::CallOpen => {
                ws(b, &mut self.pos, meter)?;
                need(b, &mut self.pos, CALL_OPEN, meter)?;
                State::Tool(self.pos)
            }
            State::Tool(start) => {
                let end = attr_value(b, start, &mut self.pos, MAX_NAME, name_byte, meter)?;
                if end == start {
                    return Err(Step::Failed(start));
                }
                spans.name = start..end;
                self.pos = end + 1;
                State::AfterTool
            }
            State::AfterTool => {
                let index = starts_with(b, self.pos, INDEX_ATTR, meter);
                if index == Poll::Ready(true) {
                    self.pos += INDEX_ATTR.len();
                    return Ok(State::Index(self.pos));
                }
                match (index, starts_with(b, self.pos, SEP, meter)) {
                    (_, Poll::Ready(true)) => {
                        self.pos += SEP.len();
                        State::Children
                    }
                    (Poll::Ready(false), Poll::Ready(false)) => {
                        return Err(Step::Failed(self.pos));
                    }
                    _ => return Err(Step::Pending),
                }
            }
            State::Index(start) => {
                let end = attr_value(b, start, &mut self.pos, MAX_WORD, is_digit, meter)?;
                if end == start {
                    return Err(Step::Failed(start));
                }
                self.pos = end + 1;
                State::CallSep
            }
            State::CallSep => {
                need(b, &mut self.pos, SEP, meter)?;
                State::Children
            }
            State::Children => {
                let at = ws(b, &mut self.pos, meter)?;
                let first = spans.params.is_empty();
                let mut undecided = false;
                for lit in [CALL_CLOSE, ARG_OPEN, JSON_OPEN] {
                    if lit == JSON_OPEN && !first {
                        continue;
                    }
                    match starts_with(b, at, lit, meter) {
                        Poll::Ready(true) => {
                            self.pos = at + lit.len();
                            return Ok(match lit {
                                CALL_CLOSE => match duplicate(text, &spans.params) {
                                    Some(dup) => State::Decided(Step::Failed(dup)),
                                    None => State::Decided(Step::Done(self.pos)),
                                },
                                ARG_OPEN => {
                                    self.arg = at;
                                    State::Key(self.pos)
                                }
                                _ => State::Value {
                                    start: self.pos,
                                    ty: Type::Block,
                                },
                            });
                        }
                        Poll::Pending => undecided = true,
                        Poll::Ready(false) => {}
                    }
                }
                if undecided {
                    return Err(Step::Pending);
                }
                State::Decided(Step::Failed(at))
            }
            State::Key(start) => {
                let end = attr_value(b, start, &mut self.pos, MAX_NAME, key_byte, meter)?;
                if end == start {
                    return Err(Step::Failed(start));
                }
                self.key = start..end;
                self.pos = end + 1;
                State::TypeAttr
            }
            State::TypeAttr => {
                need(b, &mut self.pos, TYPE_ATTR, meter)?;
                State::Type(self.pos)
            }
            State::Type(start) => {
                let end = attr_value(b, start, &mut self.pos, MAX_WORD, is_lower, meter)?;
                let Some(ty) = Type::from_word(&b[start..end]) else {
                    return Err(Step::Failed(start));
                };
                self.ty = start..end;
                self.pos = end + 1;
                State::ArgSep(ty)
            }
            State::ArgSep(ty) => {
                need(b, &mut self.pos, SEP, meter)?;
                State::Value {
                    start: self.pos,
                    ty,
                }
            }
            State::Value { start, ty } => {
                let closer = if ty == Type::Block {
                    JSON_CLOSE
                } else {
                    ARG_CLOSE
                };
                let end = value_end(b, &mut self.pos, closer, meter)?;
                self.pos = end + closer.len();
                let kind = if ty == Type::String {
                    ValueKind::Text
                } else {
                    let value = whole(&b[..end], start, meter).map_err(Step::Failed)?;
                    if !ty.starts(b[value.start]) {
                        return Err(Step::Failed(value.start));
                    }
                    if ty == Type::Block {
                        spans.json = Some(value);
                        return Ok(State::AfterJson);
                    }
                    ValueKind::Json
                };
                // The attribute names are the literals' own bytes.
                let key_attr = self.arg + ARG_OPEN.len() - "key=\"".len();
                let type_attr = self.key.end + 1 + TYPE_ATTR.len() - "type=\"".len();
                spans.params.push(RawParam {
                    name: self.key.clone(),
                    value: start..end,
                    attrs: vec![
                        (key_attr..key_attr + 3, self.key.clone()),
                        (type_attr..type_attr + 4, self.ty.clone()),
                    ],
                    kind,
                });
                State::Children
            }
            State::AfterJson => {
                ws(b, &mut self.pos, meter)?;
                need(b, &mut self.pos, CALL_CLOSE, meter)?;
                State::Decided(Step::Done(self.pos))
            }
        })
    }
}

impl Body for Xtml {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }

    fn in_parameter(&self) -> bool {
        matches!(self.state, State::Value { .. })
    }
}

/// Where a value that runs from `*pos` ends: the offset of its `closer`. A `<|open|>`,
/// `<|close|>` or `<|sep|>` before it breaks the call there.
fn value_end(b: &[u8], pos: &mut usize, closer: &str, meter: &mut Meter) -> Result<usize, Step> {
    loop {
        let Some(lt) = next_lt(b, pos, meter) else {
            return Err(Step::Pending);
        };
        if ready(starts_with(b, lt, closer, meter))? {
            return Ok(lt);
        }
        let mut undecided = false;
        for marker in [OPEN, CLOSE, SEP] {
            match starts_with(b, lt, marker, meter) {
                Poll::Ready(true) => return Err(Step::Failed(lt)),
                Poll::Pending => undecided = true,
                Poll::Ready(false) => {}
            }
        }
        if undecided {
            return Err(Step::Pending);
        }
        *pos = lt + 1;
    }
}

/// An attribute value that starts at `start`, resumed at `*pos`: the offset of its closing
/// quote. A byte `ok` refuses, or more than `max` bytes, breaks the call.
fn attr_value(
    b: &[u8],
    start: usize,
    pos: &mut usize,
    max: usize,
    ok: fn(u8) -> bool,
    meter: &mut Meter,
) -> Result<usize, Step> {
    let limit = (start + max + 1).min(b.len());
    let from = *pos;
    if let Some(k) = b[from..limit].iter().position(|&c| c == b'"' || !ok(c)) {
        let i = from + k;
        meter.read(from, i + 1);
        return if b[i] == b'"' {
            Ok(i)
        } else {
            Err(Step::Failed(i))
        };
    }
    meter.read(from, limit);
    *pos = limit;
    if limit == start + max + 1 {
        Err(Step::Failed(start))
    } else {
        Err(Step::Pending)
    }
}

/// A byte of a tool name: not white space or a control byte, not `&` (an entity) or `<`.
fn name_byte(c: u8) -> bool {
    c > b' ' && c != 0x7f && c != b'&' && c != b'<'
}

/// A byte of a key: as a name's, and spaces.
fn key_byte(c: u8) -> bool {
    c == b' ' || name_byte(c)
}

fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

fn is_lower(c: u8) -> bool {
    c.is_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soup() {
        let arg = "<|open|>argument key=\"k\" type=\"string\"<|sep|>v<|close|>argument<|sep|>";
        let pieces = [
            arg,
            arg,
            "<|open|>argument key=\"n\" type=\"number\"<|sep|>",
            "1",
            "x",
            "{}",
            ARG_CLOSE,
            CALL_CLOSE,
            CALL_CLOSE,
            JSON_OPEN,
            JSON_CLOSE,
            " ",
            "\n",
            "\"",
            "<",
            "&amp;",
            SEP,
            OPEN,
            CLOSE,
            TYPE_ATTR,
            INDEX_ATTR,
            "é",
        ];
        let head = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|>";
        super::super::cases::run_soup(head, &pieces, &|at| Box::new(Xtml::new(at)));
    }
}
