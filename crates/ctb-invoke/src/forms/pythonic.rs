//! Python call syntax: a list of calls whose arguments are keywords with Python literals, as
//! LFM2 and LFM2.5 (Liquid AI) write it between two tokens ([`LFM`]) and Llama 3.2 and 4's
//! pythonic templates write it with no token, at a line's start ([`BARE`]):
//!
//! ```text
//! <|tool_call_start|>[get_weather(city='Paris', days=3)]<|tool_call_end|>
//! <|tool_call_start|>[search(query="rust", filters={'lang': 'en', 'tags': ["a", 'b']}, strict=True)]<|tool_call_end|>
//! <|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>
//! [get_weather(city='San Francisco', metric='celsius'), get_weather(city='Seattle', metric='celsius')]
//! ```
//!
//! (sgl-project/sglang `lfm2_detector.py`; ggml-org/llama.cpp `test-chat` LFM2, which writes the
//! same list as JSON objects when the server forces a JSON schema; vLLM's pythonic parser for
//! Llama). What is read:
//!
//! - the opening token (none for the bare list, which the scanner starts only at a line's
//!   start, before a call's name and `(`), white space, `[`, white space; then the first call,
//!   which is the call:
//!   a name (Python identifiers joined by `.`) and `(`, keyword arguments `key=VALUE` separated
//!   by commas (a trailing comma allowed, white space and line breaks anywhere between the
//!   parts), and `)`; or, in LFM's JSON variant (not the bare list's: untagged JSON is no
//!   call), one object of a `name` and `arguments` member ([`super::CallObject`]). The call ends just past its `)` (or `}`): the calls after it in the
//!   list were written without its result, so they are the tail, as the rest of a Mistral array
//!   is; the closing `]` and token are not needed;
//! - a value is a Python literal: a string in single or double quotes (its escapes decoded as
//!   Python decodes them: `\n`, `\t`, `\\`, the quotes, `\xhh`, `\uhhhh`, `\Uhhhhhhhh`, octal,
//!   a line continuation; any other backslash stays in the text as Python keeps it), a number
//!   JSON reads as written (`3`, `-2.5`, `1e3`), `True`, `False`, `None`, and lists `[...]`,
//!   tuples `(a, b)` and dicts `{'k': v}` (string keys) of them, nested at most
//!   [`crate::json::MAX_DEPTH`] deep;
//! - refused: a positional argument, `**kwargs`, a repeated keyword, a bare name (`city=Paris`),
//!   an expression (`1+2`, `f(x)`), a number JSON would not read (`0x10`, `1_000`, `.5`, `5.`),
//!   a string with a prefix (`r'...'`, `b'...'`, `f'...'`), a triple-quoted string, two strings
//!   side by side, a line break inside a string, `\N{...}`, a lone surrogate, a dict key that is
//!   not a string, a parenthesized value without a comma (`(1)` is not a tuple), white space
//!   between the name and `(`, a call without the list's `[`; the call breaks where the first
//!   such byte stands. Every rule, and where the peers differ, is in `docs/forms.md` (LFM).
//!
//! Each argument becomes a parameter: a string without escapes is [`ValueKind::Text`] (the bytes
//! between its quotes), a string with escapes [`ValueKind::Converted`] (the JSON string of its
//! decoded text; the value is the literal as written), a number [`ValueKind::Json`] (as
//! written), `True`/`False`/`None` and containers [`ValueKind::Converted`] (the JSON the grammar
//! wrote: `true`, `false`, `null`, arrays, objects).

use std::ops::Range;

use super::{CallObject, duplicate, push_json_string};
use crate::grammar::{Body, RawParam, Spans, Step, ValueKind, settle};
use crate::json::{MAX_DEPTH, Mode, Reader, whole};
use crate::lex::{Meter, Poll, skip_ws, starts_with};
use crate::vocab::{lfm, pythonic};

/// Longest name, keyword or bare word read.
const MAX_NAME: usize = 256;

/// How a form writes its list.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The token before the list (empty when the list stands alone).
    pub(crate) open: &'static str,
    /// What ends the text of a candidate that broke.
    pub(crate) ends: &'static [&'static str],
    /// Whether a call may also be written as a JSON object (`{"name", "arguments"}`).
    pub(crate) objects: bool,
}

/// LFM2 / LFM2.5.
pub(crate) static LFM: Spec = Spec {
    open: lfm::TOOL_CALL_START,
    ends: &[lfm::TOOL_CALL_END],
    objects: true,
};

/// Llama 3.2 and Llama 4's pythonic templates: the list alone at the start of a line, Python
/// calls only (a bare JSON list is untagged JSON, which no form reads).
pub(crate) static BARE: Spec = Spec {
    open: "",
    ends: &[pythonic::LIST_CLOSE],
    objects: false,
};

/// An open container inside an argument's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Container {
    /// `]`, `)` or `}`.
    closer: u8,
    /// Items read so far, and whether a comma was read (a tuple needs one).
    items: usize,
    comma: bool,
}

/// Where a string's escape is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Esc {
    None,
    /// After a backslash.
    Backslash,
    /// Hex digits still needed, and the code so far.
    Hex(u8, u32),
    /// Octal digits still allowed, and the code so far.
    Octal(u8, u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The opening token.
    Token,
    /// White space, then `[`.
    List,
    /// White space, then the first call: a name, or a JSON object.
    First,
    /// The JSON variant's object, from `start`.
    Object {
        start: usize,
        reader: Reader,
        object: CallObject,
    },
    /// The name, from this offset, up to `(`.
    Name(usize),
    /// After `(` or a `,` between arguments: white space, then a keyword or `)`.
    ArgOrEnd,
    /// A keyword, from this offset.
    Key(usize),
    /// White space, then `=`.
    Eq,
    /// White space, then a value.
    Value,
    /// In a list or a tuple, after its opener or a `,`: white space, then a value or the
    /// closer.
    Items,
    /// Inside a string that opened at `start` with `quote`.
    Str { quote: u8, start: usize, esc: Esc },
    /// A number, from this offset.
    Number(usize),
    /// `True`, `False` or `None`, from this offset.
    Word(usize),
    /// After a value: white space, then `,` or what closes it (a container, or the call).
    After,
    /// In a dict, after `{` or a `,`: white space, then a key (a string) or `}`.
    DictKey,
    /// In a dict, after a key: white space, then `:`.
    DictColon,
    /// Decided: every later step answers the same.
    Decided(Step),
}

/// The body of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pythonic {
    spec: &'static Spec,
    pos: usize,
    state: State,
    /// Open containers inside the argument being read.
    open: Vec<Container>,
    /// The argument being read: its keyword and where its value starts.
    key: Range<usize>,
    value_start: usize,
    /// The JSON written for the argument's value (a container, or a converted literal).
    json: String,
    /// The string being read: its decoded text, and whether it holds an escape.
    string: String,
    escaped: bool,
    /// The string being read is a dict's key.
    dict_key: bool,
}

impl Pythonic {
    /// A call of `spec` whose opening token starts at `at`.
    pub(crate) fn new(spec: &'static Spec, at: usize) -> Self {
        Self {
            spec,
            pos: at,
            state: State::Token,
            open: Vec::new(),
            key: at..at,
            value_start: at,
            json: String::new(),
            string: String::new(),
            escaped: false,
            dict_key: false,
        }
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match &mut self.state {
            State::Decided(step) => return Err(*step),
            State::Token => match starts_with(b, self.pos, self.spec.open, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(false) => return Err(Step::Failed(self.pos)),
                Poll::Ready(true) => {
                    self.pos += self.spec.open.len();
                    State::List
                }
            },
            State::List => {
                let at = self.ws(b, meter)?;
                if b[at] != b'[' {
                    return Err(Step::Failed(at));
                }
                self.pos = at + 1;
                State::First
            }
            State::First => {
                let at = self.ws(b, meter)?;
                match b[at] {
                    b'{' if self.spec.objects => State::Object {
                        start: at,
                        reader: Reader::new(at, Mode::MEMBERS),
                        object: CallObject::new(&[]),
                    },
                    c if c.is_ascii_alphabetic() || c == b'_' => State::Name(at),
                    _ => return Err(Step::Failed(at)),
                }
            }
            State::Object {
                start,
                reader,
                object,
            } => match reader.poll(b, false, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(event) => match object.event(text, *start, event, spans) {
                    Ok(None) => State::Object {
                        start: *start,
                        reader: reader.clone(),
                        object: *object,
                    },
                    Ok(Some(end)) => return Err(Step::Done(end)),
                    Err(at) => return Err(Step::Failed(at)),
                },
            },
            State::Name(start) => {
                let start = *start;
                let end = self.run(b, start, name_byte, meter)?;
                let name = &b[start..end];
                // Identifiers joined by dots: no empty part, none starting with a digit.
                let parts_ok = name.split(|c| *c == b'.').all(|part| {
                    part.first()
                        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                });
                if !parts_ok {
                    return Err(Step::Failed(start));
                }
                if b[end] != b'(' {
                    return Err(Step::Failed(end));
                }
                spans.name = start..end;
                self.pos = end + 1;
                State::ArgOrEnd
            }
            State::ArgOrEnd => {
                let at = self.ws(b, meter)?;
                match b[at] {
                    b')' => {
                        if let Some(dup) = duplicate(text, &spans.params) {
                            return Err(Step::Failed(dup));
                        }
                        return Err(Step::Done(at + 1));
                    }
                    c if c.is_ascii_alphabetic() || c == b'_' => State::Key(at),
                    _ => return Err(Step::Failed(at)),
                }
            }
            State::Key(start) => {
                let start = *start;
                let end = self.run(b, start, key_byte, meter)?;
                self.key = start..end;
                self.pos = end;
                State::Eq
            }
            State::Eq => {
                let at = self.ws(b, meter)?;
                // `==` is a comparison, not a keyword argument.
                if b[at] != b'=' {
                    return Err(Step::Failed(at));
                }
                match b.get(at + 1) {
                    None => return Err(Step::Pending),
                    Some(&c) => {
                        meter.read(at, at + 2);
                        if c == b'=' {
                            return Err(Step::Failed(at));
                        }
                    }
                }
                self.pos = at + 1;
                self.json.clear();
                State::Value
            }
            State::Value => {
                let at = self.ws(b, meter)?;
                if self.open.is_empty() {
                    self.value_start = at;
                }
                self.value(b, at, meter)?
            }
            State::Items => {
                let at = self.ws(b, meter)?;
                match self.open.last() {
                    Some(top) if b[at] == top.closer => {
                        self.pos = at + 1;
                        self.close(spans, at)?
                    }
                    _ => self.value(b, at, meter)?,
                }
            }
            State::Str { quote, start, esc } => {
                let (quote, start) = (*quote, *start);
                let mut esc = *esc;
                let end = self.string_run(b, quote, &mut esc, meter)?;
                let Some(end) = end else {
                    self.state = State::Str { quote, start, esc };
                    return Err(Step::Pending);
                };
                self.pos = end + 1;
                self.string_done(spans, start, end)?
            }
            State::Number(start) => {
                let start = *start;
                let end = self.run(b, start, number_byte, meter)?;
                whole(&b[..end], start, meter).map_err(|_| Step::Failed(start))?;
                self.pos = end;
                self.literal(text, spans, start..end, None)
            }
            State::Word(start) => {
                let start = *start;
                let end = self.run(b, start, key_byte, meter)?;
                let json = match &b[start..end] {
                    b"True" => "true",
                    b"False" => "false",
                    b"None" => "null",
                    // A bare name is no literal.
                    _ => return Err(Step::Failed(start)),
                };
                self.pos = end;
                self.literal(text, spans, start..end, Some(json))
            }
            State::After => {
                let at = self.ws(b, meter)?;
                self.pos = at + 1;
                let Some(top) = self.open.last_mut() else {
                    // After a keyword argument of the call.
                    return match b[at] {
                        b',' => Ok(State::ArgOrEnd),
                        b')' => match duplicate(text, &spans.params) {
                            Some(dup) => Err(Step::Failed(dup)),
                            None => Err(Step::Done(at + 1)),
                        },
                        _ => Err(Step::Failed(at)),
                    };
                };
                match b[at] {
                    b',' => {
                        top.comma = true;
                        self.json.push(',');
                        if top.closer == b'}' {
                            State::DictKey
                        } else {
                            State::Items
                        }
                    }
                    c if c == top.closer => self.close(spans, at)?,
                    _ => return Err(Step::Failed(at)),
                }
            }
            State::DictKey => {
                let at = self.ws(b, meter)?;
                match b[at] {
                    b'}' => {
                        // An empty dict, or a trailing comma.
                        self.pos = at + 1;
                        if self.json.ends_with(',') {
                            self.json.pop();
                        }
                        self.close(spans, at)?
                    }
                    q @ (b'"' | b'\'') => self.open_string(b, at, q, meter)?,
                    _ => return Err(Step::Failed(at)),
                }
            }
            State::DictColon => {
                let at = self.ws(b, meter)?;
                if b[at] != b':' {
                    return Err(Step::Failed(at));
                }
                self.pos = at + 1;
                self.json.push(':');
                State::Value
            }
        })
    }

    /// White space from `self.pos`: the offset of the next other byte.
    fn ws(&mut self, b: &[u8], meter: &mut Meter) -> Result<usize, Step> {
        skip_ws(b, &mut self.pos, meter).ok_or(Step::Pending)
    }

    /// A run of bytes `ok` allows from `start`, resumed at `self.pos`: the offset of the first
    /// other byte (examined: it decides). More than [`MAX_NAME`] bytes breaks the call.
    fn run(
        &mut self,
        b: &[u8],
        start: usize,
        ok: fn(u8) -> bool,
        meter: &mut Meter,
    ) -> Result<usize, Step> {
        let from = self.pos.max(start);
        let limit = (start + MAX_NAME + 1).min(b.len());
        let end = b[from..limit]
            .iter()
            .position(|c| !ok(*c))
            .map(|k| from + k);
        meter.read(from, end.map_or(limit, |e| e + 1));
        match end {
            Some(end) => Ok(end),
            None if limit == start + MAX_NAME + 1 => Err(Step::Failed(start)),
            None => {
                self.pos = limit;
                Err(Step::Pending)
            }
        }
    }

    /// A value's first byte, at `at`: the state that reads it.
    fn value(&mut self, b: &[u8], at: usize, meter: &mut Meter) -> Result<State, Step> {
        Ok(match b[at] {
            c @ (b'[' | b'(' | b'{') => {
                if self.open.len() + 1 >= MAX_DEPTH as usize {
                    return Err(Step::Failed(at));
                }
                self.count_item();
                self.open.push(Container {
                    closer: match c {
                        b'[' => b']',
                        b'(' => b')',
                        _ => b'}',
                    },
                    items: 0,
                    comma: false,
                });
                self.pos = at + 1;
                if c == b'{' {
                    self.json.push('{');
                    State::DictKey
                } else {
                    self.json.push('[');
                    State::Items
                }
            }
            q @ (b'"' | b'\'') => {
                let state = self.open_string(b, at, q, meter)?;
                self.count_item();
                state
            }
            c if c == b'-' || c.is_ascii_digit() => {
                self.count_item();
                self.pos = at;
                State::Number(at)
            }
            c if c.is_ascii_alphabetic() => {
                self.count_item();
                self.pos = at;
                State::Word(at)
            }
            _ => return Err(Step::Failed(at)),
        })
    }

    /// A value starts inside the innermost container: one more item.
    fn count_item(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.items += 1;
        }
    }

    /// A string opens with `quote` at `at` (a value, or a dict's key).
    fn open_string(
        &mut self,
        b: &[u8],
        at: usize,
        quote: u8,
        meter: &mut Meter,
    ) -> Result<State, Step> {
        // A triple-quoted string is not read: `''` is an empty string only when no third quote
        // follows.
        if at + 1 == b.len() {
            meter.read(at, at + 1);
            return Err(Step::Pending);
        }
        if b[at + 1] == quote {
            match b.get(at + 2) {
                None => {
                    meter.read(at, at + 2);
                    return Err(Step::Pending);
                }
                Some(&c) => {
                    meter.read(at, at + 3);
                    if c == quote {
                        return Err(Step::Failed(at));
                    }
                }
            }
        }
        self.dict_key = matches!(self.state, State::DictKey);
        self.string.clear();
        self.escaped = false;
        self.pos = at + 1;
        Ok(State::Str {
            quote,
            start: at,
            esc: Esc::None,
        })
    }

    /// Reads a string's bytes from `self.pos`, decoding its escapes into `self.string`:
    /// `Ok(Some(at))` at its closing quote, `Ok(None)` when the text ends first.
    fn string_run(
        &mut self,
        b: &[u8],
        quote: u8,
        esc: &mut Esc,
        meter: &mut Meter,
    ) -> Result<Option<usize>, Step> {
        let from = self.pos;
        let mut i = from;
        // The byte that decides is `b[i]` when the loop breaks (or the text ended).
        let result = loop {
            let Some(&c) = b.get(i) else {
                break Ok(None);
            };
            match *esc {
                Esc::None => {
                    // A run of plain bytes up to the next that matters.
                    let run = b[i..]
                        .iter()
                        .position(|&x| x == quote || x == b'\\' || x == b'\n' || x == b'\r')
                        .unwrap_or(b.len() - i);
                    self.push_bytes(&b[i..i + run]);
                    i += run;
                    match b.get(i) {
                        None => continue,
                        Some(&q) if q == quote => break Ok(Some(i)),
                        Some(b'\\') => {
                            self.escaped = true;
                            *esc = Esc::Backslash;
                            i += 1;
                        }
                        // A line break inside a one-line string.
                        Some(_) => break Err(Step::Failed(i)),
                    }
                }
                Esc::Backslash => {
                    *esc = Esc::None;
                    let decoded = match c {
                        b'\\' => '\\',
                        b'\'' => '\'',
                        b'"' => '"',
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'a' => '\u{7}',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'v' => '\u{b}',
                        // A line continuation.
                        b'\n' => {
                            i += 1;
                            continue;
                        }
                        b'x' | b'u' | b'U' => {
                            let digits = match c {
                                b'x' => 2,
                                b'u' => 4,
                                _ => 8,
                            };
                            *esc = Esc::Hex(digits, 0);
                            i += 1;
                            continue;
                        }
                        b'0'..=b'7' => {
                            *esc = Esc::Octal(2, u32::from(c - b'0'));
                            i += 1;
                            continue;
                        }
                        // A character by its name: not read (the call breaks at the backslash).
                        b'N' => break Err(Step::Failed(i - 1)),
                        // Any other: the backslash stays, as Python keeps it, and the byte is
                        // read as a plain one.
                        _ => {
                            self.string.push('\\');
                            continue;
                        }
                    };
                    self.string.push(decoded);
                    i += 1;
                }
                Esc::Hex(left, code) => {
                    let Some(d) = char::from(c).to_digit(16) else {
                        break Err(Step::Failed(i));
                    };
                    let code = code << 4 | d;
                    if left > 1 {
                        *esc = Esc::Hex(left - 1, code);
                        i += 1;
                        continue;
                    }
                    *esc = Esc::None;
                    match char::from_u32(code) {
                        Some(ch) => self.string.push(ch),
                        // A lone surrogate, or past the last code point.
                        None => break Err(Step::Failed(i)),
                    }
                    i += 1;
                }
                Esc::Octal(left, code) => {
                    if left > 0 && (b'0'..=b'7').contains(&c) {
                        *esc = Esc::Octal(left - 1, code << 3 | u32::from(c - b'0'));
                        i += 1;
                        continue;
                    }
                    // The escape ends before this byte, which is read on as any other.
                    *esc = Esc::None;
                    match char::from_u32(code) {
                        Some(ch) => self.string.push(ch),
                        None => break Err(Step::Failed(i)),
                    }
                }
            }
        };
        // Every byte up to the one that decides was examined; while undecided, every byte up to
        // the text's end (an octal escape may end where the text does: the next byte decides).
        meter.read(from, (i + 1).min(b.len()));
        self.pos = i;
        result
    }

    /// Appends bytes of the reply (whole characters: a run ends at an ASCII byte or the text's
    /// end, which is a character boundary) to the decoded string.
    fn push_bytes(&mut self, bytes: &[u8]) {
        if let Ok(s) = std::str::from_utf8(bytes) {
            self.string.push_str(s);
        }
    }

    /// A string ended with its closing quote at `end` (it opened at `start`).
    fn string_done(&mut self, spans: &mut Spans, start: usize, end: usize) -> Result<State, Step> {
        // Two strings side by side (implicit concatenation) are not read: after the closing
        // quote only a `,` or a closer may follow ([`State::After`]).
        if self.dict_key {
            self.dict_key = false;
            push_json_string(&mut self.json, &self.string);
            return Ok(State::DictColon);
        }
        if self.open.is_empty() {
            let (value, kind) = if self.escaped {
                let mut json = String::new();
                push_json_string(&mut json, &self.string);
                (start..end + 1, ValueKind::Converted(json))
            } else {
                (start + 1..end, ValueKind::Text)
            };
            self.param(spans, value, kind);
        } else {
            let decoded = std::mem::take(&mut self.string);
            push_json_string(&mut self.json, &decoded);
            self.string = decoded;
        }
        Ok(State::After)
    }

    /// A number or a word ended: `json` is the JSON it converts to (`None`: a number, as
    /// written).
    fn literal(
        &mut self,
        text: &str,
        spans: &mut Spans,
        range: Range<usize>,
        json: Option<&str>,
    ) -> State {
        if self.open.is_empty() {
            let kind = match json {
                Some(j) => ValueKind::Converted(j.to_owned()),
                None => ValueKind::Json,
            };
            self.param(spans, range, kind);
        } else {
            self.json.push_str(json.unwrap_or(&text[range]));
        }
        State::After
    }

    /// The innermost container closes at `at` (its closer checked).
    fn close(&mut self, spans: &mut Spans, at: usize) -> Result<State, Step> {
        let Some(top) = self.open.pop() else {
            return Err(Step::Failed(at));
        };
        // `(x)` is a parenthesized value, not a tuple.
        if top.closer == b')' && top.items == 1 && !top.comma {
            return Err(Step::Failed(at));
        }
        if top.closer != b'}' && self.json.ends_with(',') {
            // A trailing comma.
            self.json.pop();
        }
        self.json.push(if top.closer == b'}' { '}' } else { ']' });
        if self.open.is_empty() {
            let json = std::mem::take(&mut self.json);
            self.param(spans, self.value_start..at + 1, ValueKind::Converted(json));
        }
        Ok(State::After)
    }

    /// A keyword argument is complete.
    fn param(&self, spans: &mut Spans, value: Range<usize>, kind: ValueKind) {
        spans.params.push(RawParam {
            name: self.key.clone(),
            value,
            attrs: Vec::new(),
            kind,
        });
    }
}

impl Body for Pythonic {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }

    fn in_parameter(&self) -> bool {
        matches!(
            self.state,
            State::Value
                | State::Items
                | State::Str { .. }
                | State::Number(_)
                | State::Word(_)
                | State::DictKey
                | State::DictColon
        ) || !self.open.is_empty()
    }
}

/// A byte of a name: an identifier's, or the `.` between identifiers.
fn name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// A byte of a keyword or a word.
fn key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// A byte of a number (the run is then checked as a JSON number).
fn number_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-' | b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soup() {
        let pieces = [
            "a=1",
            "b='v, )'",
            "c=\"x\\\"y\"",
            "d=[1, (2,), {'k': None}]",
            "e=True",
            ",",
            ", ",
            ")",
            ")",
            ")]",
            "(",
            "[",
            "]",
            "{",
            "}",
            ":",
            "=",
            "'",
            "\"",
            "\\",
            "\\x4",
            "-2.5",
            "x",
            " ",
            "\n",
            "é",
        ];
        super::super::cases::run_soup("<|tool_call_start|>[f(", &pieces, &|at| {
            Box::new(Pythonic::new(&LFM, at))
        });
    }
}
