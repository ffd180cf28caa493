//! Mistral, Devstral 2 and Mistral Small 4: `[TOOL_CALLS]` and then one of
//!
//! ```text
//! [TOOL_CALLS]NAME[ARGS]{"k": "v"}                 tokenizer v11 and later
//! [TOOL_CALLS]NAME[CALL_ID]abc123def[ARGS]{...}    v11 with a call id
//! [TOOL_CALLS]NAME{"k": "v"}                       without [ARGS]
//! [TOOL_CALLS] [{"name": "NAME", "arguments": {...}}, ...]    tokenizer v2/v3: an array
//! ```
//!
//! There is no closing token: the call ends where its JSON value ends, and that value must be
//! well-formed JSON (checked a byte at a time, so a closing bracket inside a string does not end
//! it and a broken value breaks the call where it breaks). The arguments are one JSON object
//! ([`Spans::json`]).
//!
//! - The name is `[A-Za-z0-9_.-]` (starting with a letter, a digit or `_`) directly after the
//!   token; `[ARGS]` (or `[CALL_ID]`, a letters-and-digits id, `[ARGS]`) or `{` directly after
//!   the name. White space is allowed only between `[ARGS]` and the object.
//! - In the array form (white space allowed before `[` and between `[` and `{`), only the first
//!   element is read ([`CallObject`]): it must be an object whose members are `name` (a string
//!   holding a name as above, without escapes), `arguments` (an object) and optionally `id` (a
//!   string), each once.
//!   The call ends just past that element's `}`: the elements after it are later calls, which
//!   are not used, so they are the tail and are not read (as the rest of a Kimi section is).
//! - Text after the call (prose, a second `[TOOL_CALLS]`, `[/TOOL_CALLS]`) is the tail.

use super::{CallObject, name_byte_dotted as name_byte, need, ws};
use crate::grammar::{Body, Spans, Step, settle};
use crate::json::{Mode, Reader};
use crate::lex::{Meter, Poll, starts_with};
use crate::vocab::mistral::{ARGS, CALL_ID, ID_MEMBER, TOOL_CALLS};

/// What ends the text of a call that broke: nothing, the form has no closing token.
pub(crate) const ENDS: &[&str] = &[];

/// Longest tool name or call id read.
const MAX_NAME: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// `[TOOL_CALLS]`.
    Token,
    /// What follows it: a name, or the array.
    AfterToken,
    /// White space, then `[`.
    ArrayOpen,
    /// White space, then the first element's `{`.
    FirstItem,
    /// The first element, from `start`: its members as they are read.
    Item {
        start: usize,
        reader: Reader,
        object: CallObject,
    },
    /// The name, from this offset.
    Name(usize),
    /// At the `[` after the name: `[ARGS]` or `[CALL_ID]`.
    Marker,
    /// The call id, from this offset.
    CallId(usize),
    /// `[ARGS]` after the call id.
    Args,
    /// White space, then the arguments' `{`.
    BeforeObject,
    /// The arguments, from `start`.
    Object { start: usize, reader: Reader },
    /// Decided: every later step answers the same.
    Decided(Step),
}

/// A Mistral call being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mistral {
    pos: usize,
    state: State,
}

impl Mistral {
    /// A call whose `[TOOL_CALLS]` starts at `at`.
    pub(crate) fn new(at: usize) -> Self {
        Self {
            pos: at,
            state: State::Token,
        }
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match &mut self.state {
            State::Decided(step) => return Err(*step),
            State::Token => {
                need(b, &mut self.pos, TOOL_CALLS, meter)?;
                State::AfterToken
            }
            State::AfterToken => {
                let Some(&c) = b.get(self.pos) else {
                    return Err(Step::Pending);
                };
                meter.read(self.pos, self.pos + 1);
                match c {
                    c if c.is_ascii_alphanumeric() || c == b'_' => State::Name(self.pos),
                    b'[' => State::ArrayOpen,
                    c if c.is_ascii_whitespace() => State::ArrayOpen,
                    _ => State::Decided(Step::Failed(self.pos)),
                }
            }
            State::ArrayOpen => {
                let at = ws(b, &mut self.pos, meter)?;
                if b[at] != b'[' {
                    return Err(Step::Failed(at));
                }
                self.pos = at + 1;
                State::FirstItem
            }
            State::FirstItem => {
                let at = ws(b, &mut self.pos, meter)?;
                if b[at] != b'{' {
                    return Err(Step::Failed(at));
                }
                State::Item {
                    start: at,
                    reader: Reader::new(at, Mode::MEMBERS),
                    object: CallObject::new(&[ID_MEMBER]),
                }
            }
            State::Item {
                start,
                reader,
                object,
            } => match reader.poll(b, false, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(event) => match object.event(text, *start, event, spans) {
                    Ok(None) => State::Item {
                        start: *start,
                        reader: reader.clone(),
                        object: *object,
                    },
                    Ok(Some(end)) => State::Decided(Step::Done(end)),
                    Err(at) => State::Decided(Step::Failed(at)),
                },
            },
            State::Name(start) => {
                let start = *start;
                let limit = (start + MAX_NAME + 1).min(b.len());
                let from = self.pos;
                let end = b[from..limit]
                    .iter()
                    .position(|c| !name_byte(*c))
                    .map(|k| from + k);
                meter.read(from, end.map_or(limit, |e| e + 1));
                let Some(end) = end else {
                    if limit == start + MAX_NAME + 1 {
                        return Err(Step::Failed(start));
                    }
                    self.pos = limit;
                    return Err(Step::Pending);
                };
                spans.name = start..end;
                self.pos = end;
                match b[end] {
                    b'[' => State::Marker,
                    b'{' => State::Object {
                        start: end,
                        reader: Reader::new(end, Mode::VALUE),
                    },
                    _ => State::Decided(Step::Failed(end)),
                }
            }
            State::Marker => {
                let args = starts_with(b, self.pos, ARGS, meter);
                if args == Poll::Ready(true) {
                    self.pos += ARGS.len();
                    return Ok(State::BeforeObject);
                }
                match (args, starts_with(b, self.pos, CALL_ID, meter)) {
                    (_, Poll::Ready(true)) => {
                        self.pos += CALL_ID.len();
                        State::CallId(self.pos)
                    }
                    (Poll::Ready(false), Poll::Ready(false)) => {
                        State::Decided(Step::Failed(self.pos))
                    }
                    _ => return Err(Step::Pending),
                }
            }
            State::CallId(start) => {
                let start = *start;
                let limit = (start + MAX_NAME + 1).min(b.len());
                let from = self.pos;
                let end = b[from..limit]
                    .iter()
                    .position(|c| !c.is_ascii_alphanumeric())
                    .map(|k| from + k);
                meter.read(from, end.map_or(limit, |e| e + 1));
                match end {
                    Some(end) if end > start && b[end] == b'[' => {
                        self.pos = end;
                        State::Args
                    }
                    Some(end) => State::Decided(Step::Failed(end)),
                    None if limit == start + MAX_NAME + 1 => State::Decided(Step::Failed(start)),
                    None => {
                        self.pos = limit;
                        return Err(Step::Pending);
                    }
                }
            }
            State::Args => {
                need(b, &mut self.pos, ARGS, meter)?;
                State::BeforeObject
            }
            State::BeforeObject => {
                let at = ws(b, &mut self.pos, meter)?;
                if b[at] != b'{' {
                    return Err(Step::Failed(at));
                }
                State::Object {
                    start: at,
                    reader: Reader::new(at, Mode::VALUE),
                }
            }
            State::Object { start, reader } => {
                let start = *start;
                let end = json_end(reader, b, meter)?;
                spans.json = Some(start..end);
                State::Decided(Step::Done(end))
            }
        })
    }
}

impl Body for Mistral {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }
}

/// The end of the JSON value a reader is reading.
fn json_end(reader: &mut Reader, b: &[u8], meter: &mut Meter) -> Result<usize, Step> {
    match reader.poll_end(b, false, meter) {
        Poll::Pending => Err(Step::Pending),
        Poll::Ready(Ok(end)) => Ok(end),
        Poll::Ready(Err(at)) => Err(Step::Failed(at)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soup() {
        let pieces = [
            "f",
            "f[ARGS]",
            "f{\"a\": 1}",
            " [{\"name\": \"f\", \"arguments\": {}}",
            ARGS,
            ARGS,
            CALL_ID,
            "a1",
            " ",
            "[",
            "]",
            "{\"a\": [1, \"}\"]}",
            "{",
            "}",
            "{\"name\": \"f\", \"arguments\": {}}",
            "\"id\": \"x\"",
            ",",
            ":",
            "\"",
            "\\",
            "\n",
            "é",
            TOOL_CALLS,
        ];
        super::super::cases::run_soup(TOOL_CALLS, &pieces, &|at| Box::new(Mistral::new(at)));
    }
}
