//! Gemma 4: `<|tool_call>call:NAME{ARGS}<tool_call|>`, the arguments in the chat template's own
//! literal syntax:
//!
//! ```text
//! <|tool_call>call:search{query:<|"|>rust "nom"<|"|>,limit:5,filters:{lang:<|"|>en<|"|>},tags:[<|"|>a<|"|>]}<tool_call|>
//! ```
//!
//! - keys are bare (`query`) or between `<|"|>` tokens (a key that is not a word);
//! - a string runs from `<|"|>` to the next `<|"|>`, raw: no escapes, anything else in it is
//!   text (there is no way to write the token itself inside a string);
//! - a string in plain double quotes (`command:"ls"`, `data_refs:["a"]`, `opts:{"mode": "x"}`:
//!   Gemma 4 writes these too, vllm-project/vllm #51284) is read as a JSON string: JSON's
//!   escapes, no raw line break; a key may be one too;
//! - numbers, `true`, `false` and `null` are bare and must be JSON literals (a bare word such as
//!   `London` breaks the call);
//! - objects and arrays nest in the same syntax.
//!
//! Top-level arguments become parameters: a string is [`ValueKind::Text`] (the bytes between
//! the tokens or the plain quotes), a plain string with an escape [`ValueKind::Converted`] (the
//! JSON string as written, its value too), a bare literal [`ValueKind::Json`] (as written), an
//! object or array [`ValueKind::Converted`] with the JSON the grammar wrote from it (its value
//! is the literal as written). White space between the parts is allowed; every other byte between `{` and its `}`
//! must be read by this grammar. The call ends just past `<tool_call|>`, or past the turn end
//! `<turn|>` when the model closes with it right after the `}`; anything else after the `}`
//! (white space, a second `call:`) breaks it. Single quotes `'`, the parenthesis syntax,
//! a stray `:` before `call:`, a top-level key in plain quotes with an escape (a parameter's
//! name is its bytes as written), a repeated key and an unterminated string are refused (the
//! last is never complete).

use std::ops::Range;

use super::{duplicate, need, push_json_string, ready, ws};
use crate::grammar::{Body, RawParam, Spans, Step, ValueKind, settle};
use crate::json::{MAX_DEPTH, Mode, Reader, whole};
use crate::lex::{Meter, Poll, next_lt, starts_with};
use crate::vocab::gemma::{CALL_CLOSE, HEAD, QUOTE, TURN_END};

/// What ends the text of a call that broke.
pub(crate) const ENDS: &[&str] = &[CALL_CLOSE];

/// Longest tool name or bare key read.
const MAX_NAME: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// `<|tool_call>call:`.
    Head,
    /// The tool name, from this offset, up to `{`.
    Name(usize),
    /// After `{`: white space, then `}` or a key.
    KeyOrEnd,
    /// After a `,` in an object: white space, then a key.
    Key,
    /// A bare key, from this offset.
    BareKey(usize),
    /// A key between tokens, from this offset.
    QuotedKey(usize),
    /// White space, then `:`.
    Colon,
    /// White space, then a value.
    Value,
    /// After `[`: white space, then `]` or a value.
    ItemOrEnd,
    /// A string, from this offset.
    Str(usize),
    /// A string in plain double quotes, its `"` at this offset, read by `self.plain`; a key
    /// when `key`.
    Plain { start: usize, key: bool },
    /// A bare literal, from this offset.
    Bare(usize),
    /// After a value: white space, then `,` or the container's closer.
    After,
    /// After the arguments' `}`: the call's end token.
    End,
    /// Decided: every later step answers the same.
    Decided(Step),
}

/// A Gemma 4 call being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Gemma {
    pos: usize,
    state: State,
    /// Open containers, the arguments' object included (so 1 inside it).
    depth: u32,
    /// One bit per open container, the innermost lowest: 1 for an object.
    stack: u128,
    /// The top-level argument being read: its key, where its value starts, and the JSON
    /// written so far for an object or array value.
    key: Range<usize>,
    value_start: usize,
    json: String,
    /// The JSON reader of a string in plain double quotes.
    plain: Reader,
}

impl Gemma {
    /// A call whose `<|tool_call>` starts at `at`.
    pub(crate) fn new(at: usize) -> Self {
        Self {
            pos: at,
            state: State::Head,
            depth: 0,
            stack: 0,
            key: at..at,
            value_start: at,
            json: String::new(),
            plain: Reader::new(at, Mode::VALUE),
        }
    }

    fn in_object(&self) -> bool {
        self.stack & 1 == 1
    }

    /// Inside an argument's object or array value: what is read is written as JSON.
    fn nested(&self) -> bool {
        self.depth >= 2
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match self.state {
            State::Decided(step) => return Err(step),
            State::Head => {
                need(b, &mut self.pos, HEAD, meter)?;
                State::Name(self.pos)
            }
            State::Name(start) => {
                let end = run_of(b, start, &mut self.pos, MAX_NAME, name_byte, meter)?;
                let first_ok = b[start].is_ascii_alphanumeric() || b[start] == b'_';
                if end == start || !first_ok || b[end] != b'{' {
                    return Err(Step::Failed(if first_ok { end } else { start }));
                }
                spans.name = start..end;
                self.open(end, true)?
            }
            State::KeyOrEnd | State::Key => {
                let at = ws(b, &mut self.pos, meter)?;
                match b[at] {
                    b'}' if self.state == State::KeyOrEnd => self.close(text, at, spans)?,
                    b'<' => {
                        need(b, &mut self.pos, QUOTE, meter)?;
                        State::QuotedKey(self.pos)
                    }
                    b'"' => self.plain_open(at, true),
                    c if key_byte(c) => State::BareKey(at),
                    _ => State::Decided(Step::Failed(at)),
                }
            }
            State::BareKey(start) => {
                let end = run_of(b, start, &mut self.pos, MAX_NAME, key_byte, meter)?;
                self.key_read(text, start..end, meter);
                State::Colon
            }
            State::QuotedKey(start) => {
                let end = quote_end(b, &mut self.pos, meter)?;
                if end == start {
                    return Err(Step::Failed(start));
                }
                self.pos = end + QUOTE.len();
                self.key_read(text, start..end, meter);
                State::Colon
            }
            State::Colon => {
                let at = ws(b, &mut self.pos, meter)?;
                if b[at] != b':' {
                    return Err(Step::Failed(at));
                }
                self.pos = at + 1;
                if self.nested() {
                    self.json.push(':');
                }
                State::Value
            }
            State::Value | State::ItemOrEnd => {
                let at = ws(b, &mut self.pos, meter)?;
                match b[at] {
                    b']' if self.state == State::ItemOrEnd => self.close(text, at, spans)?,
                    c @ (b'{' | b'[') => {
                        if self.depth == 1 {
                            self.value_start = at;
                            self.json.clear();
                        }
                        self.open(at, c == b'{')?
                    }
                    b'<' => {
                        need(b, &mut self.pos, QUOTE, meter)?;
                        State::Str(self.pos)
                    }
                    b'"' => self.plain_open(at, false),
                    c if bare_byte(c) => State::Bare(at),
                    _ => State::Decided(Step::Failed(at)),
                }
            }
            State::Str(start) => {
                let end = quote_end(b, &mut self.pos, meter)?;
                self.pos = end + QUOTE.len();
                if self.nested() {
                    meter.read(start, end);
                    push_json_string(&mut self.json, &text[start..end]);
                } else {
                    self.param(spans, start..end, ValueKind::Text);
                }
                State::After
            }
            State::Plain { start, key } => {
                let end = match self.plain.poll_end(b, false, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(Ok(end)) => end,
                    Poll::Ready(Err(at)) => return Err(Step::Failed(at)),
                };
                self.pos = end;
                // The bytes between the quotes, when they hold no escape.
                let inner = start + 1..end - 1;
                let plain = !b[inner.clone()].contains(&b'\\');
                if self.nested() {
                    self.json.push_str(&text[start..end]);
                } else if key {
                    if !plain {
                        return Err(Step::Failed(start));
                    }
                    self.key = inner;
                } else if plain {
                    self.param(spans, inner, ValueKind::Text);
                } else {
                    let json = text[start..end].to_owned();
                    self.param(spans, start..end, ValueKind::Converted(json));
                }
                if key { State::Colon } else { State::After }
            }
            State::Bare(start) => {
                let end = run_of(b, start, &mut self.pos, MAX_NAME, bare_byte, meter)?;
                whole(&b[..end], start, meter).map_err(|_| Step::Failed(start))?;
                if self.nested() {
                    self.json.push_str(&text[start..end]);
                } else {
                    self.param(spans, start..end, ValueKind::Json);
                }
                State::After
            }
            State::After => {
                let at = ws(b, &mut self.pos, meter)?;
                match b[at] {
                    b',' => {
                        self.pos = at + 1;
                        if self.nested() {
                            self.json.push(',');
                        }
                        if self.in_object() {
                            State::Key
                        } else {
                            State::Value
                        }
                    }
                    b'}' if self.in_object() => self.close(text, at, spans)?,
                    b']' if !self.in_object() => self.close(text, at, spans)?,
                    _ => State::Decided(Step::Failed(at)),
                }
            }
            State::End => {
                let close = starts_with(b, self.pos, CALL_CLOSE, meter);
                if close == Poll::Ready(true) {
                    return Ok(State::Decided(Step::Done(self.pos + CALL_CLOSE.len())));
                }
                match (close, starts_with(b, self.pos, TURN_END, meter)) {
                    (_, Poll::Ready(true)) => State::Decided(Step::Done(self.pos + TURN_END.len())),
                    (Poll::Ready(false), Poll::Ready(false)) => {
                        State::Decided(Step::Failed(self.pos))
                    }
                    _ => return Err(Step::Pending),
                }
            }
        })
    }

    /// A string in plain double quotes opens at `at` (a key when `key`).
    fn plain_open(&mut self, at: usize, key: bool) -> State {
        self.plain = Reader::new(at, Mode::VALUE);
        self.pos = at;
        State::Plain { start: at, key }
    }

    /// An object (or an array) opens at `at`.
    fn open(&mut self, at: usize, object: bool) -> Result<State, Step> {
        if self.depth >= MAX_DEPTH {
            return Err(Step::Failed(at));
        }
        self.depth += 1;
        self.stack = self.stack << 1 | u128::from(object);
        if self.nested() {
            self.json.push(if object { '{' } else { '[' });
        }
        self.pos = at + 1;
        Ok(if object {
            State::KeyOrEnd
        } else {
            State::ItemOrEnd
        })
    }

    /// The container that closes at `at` (its closer already checked against it).
    fn close(&mut self, text: &str, at: usize, spans: &mut Spans) -> Result<State, Step> {
        let closing = self.depth;
        if self.nested() {
            self.json.push(if self.in_object() { '}' } else { ']' });
        }
        self.depth -= 1;
        self.stack >>= 1;
        self.pos = at + 1;
        match closing {
            1 => Ok(match duplicate(text, &spans.params) {
                Some(dup) => State::Decided(Step::Failed(dup)),
                None => State::End,
            }),
            2 => {
                let json = std::mem::take(&mut self.json);
                self.param(spans, self.value_start..at + 1, ValueKind::Converted(json));
                Ok(State::After)
            }
            _ => Ok(State::After),
        }
    }

    /// A key was read: a top-level argument's name, or a key written into the JSON.
    fn key_read(&mut self, text: &str, key: Range<usize>, meter: &mut Meter) {
        if self.nested() {
            meter.read(key.start, key.end);
            push_json_string(&mut self.json, &text[key]);
        } else {
            self.key = key;
        }
    }

    /// A top-level argument is complete.
    fn param(&self, spans: &mut Spans, value: Range<usize>, kind: ValueKind) {
        spans.params.push(RawParam {
            name: self.key.clone(),
            value,
            attrs: Vec::new(),
            kind,
        });
    }
}

impl Body for Gemma {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }

    fn in_parameter(&self) -> bool {
        matches!(self.state, State::Str(_) | State::Plain { key: false, .. })
    }
}

/// A run of bytes `ok` allows from `start`, resumed at `*pos`: the offset of the first other
/// byte (examined: it decides). More than `max` bytes breaks the call.
fn run_of(
    b: &[u8],
    start: usize,
    pos: &mut usize,
    max: usize,
    ok: fn(u8) -> bool,
    meter: &mut Meter,
) -> Result<usize, Step> {
    let limit = (start + max + 1).min(b.len());
    let from = *pos;
    let end = b[from..limit]
        .iter()
        .position(|c| !ok(*c))
        .map(|k| from + k);
    meter.read(from, end.map_or(limit, |e| e + 1));
    match end {
        Some(end) => {
            *pos = end;
            Ok(end)
        }
        None if limit == start + max + 1 => Err(Step::Failed(start)),
        None => {
            *pos = limit;
            Err(Step::Pending)
        }
    }
}

/// The offset of the next `<|"|>` from `*pos`.
fn quote_end(b: &[u8], pos: &mut usize, meter: &mut Meter) -> Result<usize, Step> {
    loop {
        let Some(lt) = next_lt(b, pos, meter) else {
            return Err(Step::Pending);
        };
        if ready(starts_with(b, lt, QUOTE, meter))? {
            return Ok(lt);
        }
        *pos = lt + 1;
    }
}

/// A byte of a tool name: a word byte, `.`, `-`, or the `:` of a namespaced name.
fn name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b':')
}

/// A byte of a bare key: a word byte, `.`, `-`, `$`, or a byte of a non-ASCII letter.
fn key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'$') || c >= 0x80
}

/// A byte of a bare literal (a number, `true`, `false`, `null`, or a bare word, refused).
fn bare_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soup() {
        let pieces = [
            "a:1",
            "b:<|\"|>v, }<|\"|>",
            "c:[1,{d:null}]",
            ",",
            ",",
            ",",
            "}<tool_call|>",
            "}<tool_call|>",
            "}<tool_call|>",
            "}<turn|>",
            "e:",
            "{",
            "}",
            "[",
            "]",
            ":",
            QUOTE,
            "-2.5",
            "x",
            " ",
            "\n",
            "\"",
            "<",
            "é",
        ];
        super::super::cases::run_soup("<|tool_call>call:f{", &pieces, &|at| {
            Box::new(Gemma::new(at))
        });
    }
}
