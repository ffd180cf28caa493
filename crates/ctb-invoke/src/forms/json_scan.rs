//! A strict JSON reader for a call written as one JSON object between special tokens, resumable
//! over a growing text.
//!
//! Unlike [`crate::lex::JsonEnd`], which only counts brackets to find where an object ends,
//! this reader checks the whole grammar of RFC 8259 (strings and their escapes, numbers,
//! literals, commas and colons), so a payload the model broke is refused at the byte where it
//! broke instead of being handed on. It reports the members of the outermost object as they
//! are read, so a body can refuse a wrong key or value as soon as it is written. Containers are
//! counted on an explicit stack, at most [`MAX_DEPTH`] deep; there is no recursion. Every byte
//! is examined once (a `<` inside a string a few more times, see [`JsonScan::object`]).

use std::ops::Range;

use crate::lex::{Meter, Poll, starts_with};

/// Deepest nesting of objects and arrays read; a deeper payload is refused.
pub(crate) const MAX_DEPTH: usize = 64;

/// What the reader found next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// The key of a member of the outermost object: the bytes between its quotes, and whether
    /// they hold an escape.
    Key { key: Range<usize>, escaped: bool },
    /// The value of a member of the outermost object starts at this offset.
    Start(usize),
    /// That value ends: its bytes (a string with its quotes), and whether a string value holds
    /// an escape.
    Value { value: Range<usize>, escaped: bool },
    /// The outermost object ends just before this offset.
    Done(usize),
    /// Not JSON: the byte at this offset breaks it (or starts the stop token).
    Invalid(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Number {
    /// After `-`.
    Minus,
    /// A leading `0`.
    Zero,
    /// Digits of the integer part.
    Int,
    /// After `.`.
    Dot,
    /// Digits of the fraction.
    Frac,
    /// After `e` / `E`.
    Exp,
    /// After the exponent's sign.
    ExpSign,
    /// Digits of the exponent.
    ExpDigits,
}

impl Number {
    /// The state after a number's first byte `c`, or `None` when no number starts with it.
    pub(super) fn start(c: u8) -> Option<Number> {
        match c {
            b'-' => Some(Number::Minus),
            b'0' => Some(Number::Zero),
            b'1'..=b'9' => Some(Number::Int),
            _ => None,
        }
    }

    /// The state after `c`, or `None` when `c` does not continue the number.
    pub(super) fn next(self, c: u8) -> Option<Number> {
        use Number::*;
        Some(match (self, c) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') => Int,
            (Int, b'0'..=b'9') => Int,
            (Zero | Int, b'.') => Dot,
            (Dot | Frac, b'0'..=b'9') => Frac,
            (Zero | Int | Frac, b'e' | b'E') => Exp,
            (Exp, b'+' | b'-') => ExpSign,
            (Exp | ExpSign | ExpDigits, b'0'..=b'9') => ExpDigits,
            _ => return None,
        })
    }

    /// Whether a number may end in this state.
    pub(super) fn complete(self) -> bool {
        matches!(
            self,
            Number::Zero | Number::Int | Number::Frac | Number::ExpDigits
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The outermost `{` must stand here.
    Top,
    /// A value starts after white space.
    Value,
    /// After `{`: white space, then a key or `}`.
    ObjectOpen,
    /// After a comma in an object: white space, then a key.
    ObjectKey,
    /// After a key: white space, then `:`.
    Colon,
    /// After `[`: white space, then a value or `]`.
    ArrayOpen,
    /// After a value: white space, then `,` or the container's closer.
    After,
    /// Inside a string (a key or a value); `hex` counts the digits a `\u` escape still needs.
    Str {
        key: bool,
        backslash: bool,
        hex: u8,
    },
    Number(Number),
    /// Inside `true`, `false` or `null`: the word, and how much of it has been read.
    Word(&'static [u8], u8),
    /// The outermost object has ended.
    Finished(usize),
}

/// The reader's progress through one JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonScan {
    pos: usize,
    state: State,
    stack: Vec<Container>,
    /// Where the current string's bytes start (after its quote), and whether it holds an escape.
    string_start: usize,
    escaped: bool,
    /// Where the current member value of the outermost object starts.
    member_start: usize,
    /// A token that may not appear anywhere in the object, not even inside a string (a
    /// family's end-of-block token).
    stop: Option<&'static str>,
}

impl JsonScan {
    /// A reader of the object whose `{` is at `at`. When `stop` is given, that token breaks the
    /// object wherever it appears: it checks each `<` inside a string, reading no byte past the
    /// first that differs from the token.
    pub(crate) fn object(at: usize, stop: Option<&'static str>) -> Self {
        Self {
            pos: at,
            state: State::Top,
            stack: Vec::new(),
            string_start: at,
            escaped: false,
            member_start: at,
            stop,
        }
    }

    /// Reads on from where it stopped; `Pending` when the text ends first.
    pub(crate) fn poll(&mut self, text: &[u8], meter: &mut Meter) -> Poll<Event> {
        let from = self.pos;
        let mut seen = from;
        let event = self.step(text, &mut seen, meter);
        meter.read(from, seen.max(self.pos));
        event
    }

    /// A value (of any kind) has just ended at `end`.
    fn value_ended(&mut self, end: usize) -> Option<Event> {
        self.state = State::After;
        (self.stack.len() == 1).then(|| Event::Value {
            value: self.member_start..end,
            escaped: self.escaped && self.member_start + 1 == self.string_start,
        })
    }

    /// A container has just been closed by the byte before `end`.
    fn closed(&mut self, end: usize) -> Option<Event> {
        self.stack.pop();
        if self.stack.is_empty() {
            self.state = State::Finished(end);
            return Some(Event::Done(end));
        }
        self.value_ended(end)
    }

    fn step(&mut self, b: &[u8], seen: &mut usize, meter: &mut Meter) -> Poll<Event> {
        loop {
            if let State::Finished(end) = self.state {
                return Poll::Ready(Event::Done(end));
            }
            let Some(&c) = b.get(self.pos) else {
                return Poll::Pending;
            };
            let at = self.pos;
            *seen = (*seen).max(at + 1);
            match self.state {
                State::Finished(_) => unreachable!("handled above"),
                State::Top => {
                    if c != b'{' {
                        return Poll::Ready(Event::Invalid(at));
                    }
                    self.stack.push(Container::Object);
                    self.state = State::ObjectOpen;
                    self.pos += 1;
                }
                State::Value
                | State::ObjectOpen
                | State::ObjectKey
                | State::Colon
                | State::ArrayOpen
                | State::After
                    if matches!(c, b' ' | b'\t' | b'\n' | b'\r') =>
                {
                    self.pos += 1;
                }
                State::Value => {
                    let start = self.stack.len() == 1;
                    if start {
                        self.member_start = at;
                        self.escaped = false;
                    }
                    self.pos += 1;
                    match c {
                        b'{' | b'[' => {
                            if self.stack.len() >= MAX_DEPTH {
                                return Poll::Ready(Event::Invalid(at));
                            }
                            let (kind, state) = if c == b'{' {
                                (Container::Object, State::ObjectOpen)
                            } else {
                                (Container::Array, State::ArrayOpen)
                            };
                            self.stack.push(kind);
                            self.state = state;
                        }
                        b'"' => {
                            self.string_start = at + 1;
                            self.escaped = false;
                            self.state = State::Str {
                                key: false,
                                backslash: false,
                                hex: 0,
                            };
                        }
                        b't' => self.state = State::Word(b"true", 1),
                        b'f' => self.state = State::Word(b"false", 1),
                        b'n' => self.state = State::Word(b"null", 1),
                        _ => match Number::start(c) {
                            Some(n) => self.state = State::Number(n),
                            None => return Poll::Ready(Event::Invalid(at)),
                        },
                    }
                    if start {
                        return Poll::Ready(Event::Start(at));
                    }
                }
                State::ObjectOpen | State::ObjectKey => match c {
                    b'"' => {
                        self.pos += 1;
                        self.string_start = at + 1;
                        self.escaped = false;
                        self.state = State::Str {
                            key: true,
                            backslash: false,
                            hex: 0,
                        };
                    }
                    b'}' if self.state == State::ObjectOpen => {
                        self.pos += 1;
                        if let Some(e) = self.closed(at + 1) {
                            return Poll::Ready(e);
                        }
                    }
                    _ => return Poll::Ready(Event::Invalid(at)),
                },
                State::Colon => {
                    if c != b':' {
                        return Poll::Ready(Event::Invalid(at));
                    }
                    self.pos += 1;
                    self.state = State::Value;
                }
                State::ArrayOpen => {
                    if c == b']' {
                        self.pos += 1;
                        if let Some(e) = self.closed(at + 1) {
                            return Poll::Ready(e);
                        }
                    } else {
                        self.state = State::Value;
                    }
                }
                State::After => {
                    let top = *self.stack.last().unwrap_or(&Container::Object);
                    self.pos += 1;
                    match (c, top) {
                        (b',', Container::Object) => self.state = State::ObjectKey,
                        (b',', Container::Array) => self.state = State::Value,
                        (b'}', Container::Object) | (b']', Container::Array) => {
                            if let Some(e) = self.closed(at + 1) {
                                return Poll::Ready(e);
                            }
                        }
                        _ => return Poll::Ready(Event::Invalid(at)),
                    }
                }
                State::Str {
                    key,
                    backslash,
                    hex,
                } => {
                    if hex > 0 {
                        if !c.is_ascii_hexdigit() {
                            return Poll::Ready(Event::Invalid(at));
                        }
                        self.pos += 1;
                        self.state = State::Str {
                            key,
                            backslash: false,
                            hex: hex - 1,
                        };
                        continue;
                    }
                    if backslash {
                        let hex = match c {
                            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 0,
                            b'u' => 4,
                            _ => return Poll::Ready(Event::Invalid(at)),
                        };
                        self.pos += 1;
                        self.state = State::Str {
                            key,
                            backslash: false,
                            hex,
                        };
                        continue;
                    }
                    // The run of plain bytes up to the next byte that matters.
                    let run = b[at..]
                        .iter()
                        .position(|&x| matches!(x, b'"' | b'\\' | b'<') || x < 0x20)
                        .unwrap_or(b.len() - at);
                    self.pos = at + run;
                    *seen = (*seen).max((self.pos + 1).min(b.len()));
                    let Some(&c) = b.get(self.pos) else {
                        return Poll::Pending;
                    };
                    let at = self.pos;
                    match c {
                        b'"' => {
                            self.pos += 1;
                            if key {
                                self.state = State::Colon;
                                if self.stack.len() == 1 {
                                    return Poll::Ready(Event::Key {
                                        key: self.string_start..at,
                                        escaped: self.escaped,
                                    });
                                }
                            } else if let Some(e) = self.value_ended(at + 1) {
                                return Poll::Ready(e);
                            }
                        }
                        b'\\' => {
                            self.pos += 1;
                            self.escaped = true;
                            self.state = State::Str {
                                key,
                                backslash: true,
                                hex: 0,
                            };
                        }
                        b'<' => {
                            if let Some(stop) = self.stop {
                                match starts_with(b, at, stop, meter) {
                                    Poll::Pending => return Poll::Pending,
                                    Poll::Ready(true) => return Poll::Ready(Event::Invalid(at)),
                                    Poll::Ready(false) => {}
                                }
                            }
                            self.pos += 1;
                        }
                        _ => return Poll::Ready(Event::Invalid(at)),
                    }
                }
                State::Number(n) => match n.next(c) {
                    Some(next) => {
                        self.pos += 1;
                        self.state = State::Number(next);
                    }
                    None if n.complete() => {
                        // `c` is not consumed: it is what follows the number.
                        if let Some(e) = self.value_ended(at) {
                            return Poll::Ready(e);
                        }
                    }
                    None => return Poll::Ready(Event::Invalid(at)),
                },
                State::Word(word, done) => {
                    if c != word[usize::from(done)] {
                        return Poll::Ready(Event::Invalid(at));
                    }
                    self.pos += 1;
                    if usize::from(done) + 1 == word.len() {
                        if let Some(e) = self.value_ended(at + 1) {
                            return Poll::Ready(e);
                        }
                    } else {
                        self.state = State::Word(word, done + 1);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of reading `text` whole, then the same fed a byte at a time (which must
    /// agree, with the same reach).
    fn events(text: &str, stop: Option<&'static str>) -> Vec<Event> {
        let b = text.as_bytes();
        let run = |cuts: &mut dyn Iterator<Item = usize>| {
            let mut scan = JsonScan::object(0, stop);
            let mut meter = Meter::default();
            let mut out = Vec::new();
            for cut in cuts {
                loop {
                    match scan.poll(&b[..cut], &mut meter) {
                        Poll::Pending => break,
                        Poll::Ready(e @ (Event::Done(_) | Event::Invalid(_))) => {
                            out.push(e);
                            return (out, meter.reach);
                        }
                        Poll::Ready(e) => out.push(e),
                    }
                }
            }
            (out, meter.reach)
        };
        let whole = run(&mut std::iter::once(b.len()));
        let bytewise = run(&mut (1..=b.len()));
        assert_eq!(whole, bytewise, "{text:?}");
        whole.0
    }

    fn last(text: &str) -> Event {
        events(text, Some("<|end_message|>")).pop().unwrap()
    }

    #[test]
    fn valid_objects_end_at_their_brace() {
        for text in [
            r#"{}"#,
            r#"{"a":1}"#,
            r#" {"a" : [1, -2.5e+3, 0, true, false, null, {"b": "c\"\\\u00e9<x>"}], "d": {}}"#
                .trim_start(),
            "{\"a\":\n[ ]\n}",
            r#"{"a":"</tool_call> <|end_mess"}"#,
        ] {
            assert_eq!(last(text), Event::Done(text.len()), "{text}");
        }
    }

    #[test]
    fn members_of_the_outer_object() {
        let text = r#"{"name":"s\"x","args":{"q":[1]},"n":12}"#;
        let ev = events(text, None);
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(
            ev,
            [
                Event::Key {
                    key: 2..6,
                    escaped: false
                },
                Event::Start(at("\"s")),
                Event::Value {
                    value: at("\"s")..at(",\"args"),
                    escaped: true
                },
                Event::Key {
                    key: at("args")..at("args") + 4,
                    escaped: false
                },
                Event::Start(at("{\"q")),
                Event::Value {
                    value: at("{\"q")..at(",\"n"),
                    escaped: false
                },
                Event::Key {
                    key: at("n\":12")..at("n\":12") + 1,
                    escaped: false
                },
                Event::Start(at("12")),
                Event::Value {
                    value: at("12")..at("12") + 2,
                    escaped: false
                },
                Event::Done(text.len()),
            ]
        );
    }

    #[test]
    fn broken_json_is_refused_where_it_breaks() {
        for (text, at) in [
            ("[1]", 0),
            (r#"{"a":1,}"#, 7),
            (r#"{"a" 1}"#, 5),
            (r#"{"a":01}"#, 6),
            (r#"{"a":-}"#, 6),
            (r#"{"a":1.}"#, 7),
            (r#"{"a":tru}"#, 8),
            (r#"{"a":"\x"}"#, 7),
            (r#"{"a":"\u12g4"}"#, 10),
            ("{\"a\":\"line\nbreak\"}", 10),
            (r#"{"a":[1}"#, 7),
            (r#"{'a':1}"#, 1),
            (r#"{"url":"https://x/1&quot;}}<|end_message|>"#, 27),
        ] {
            assert_eq!(last(text), Event::Invalid(at), "{text}");
        }
    }

    #[test]
    fn cut_off_json_is_pending() {
        for text in [
            r#"{"a":"#,
            r#"{"a":[1,2"#,
            r#"{"a":"x<|end_mes"#,
            r#"{"a":12"#,
        ] {
            let mut scan = JsonScan::object(0, Some("<|end_message|>"));
            let mut meter = Meter::default();
            let mut got = scan.poll(text.as_bytes(), &mut meter);
            while matches!(
                got,
                Poll::Ready(Event::Key { .. } | Event::Start(_) | Event::Value { .. })
            ) {
                got = scan.poll(text.as_bytes(), &mut meter);
            }
            assert_eq!(got, Poll::Pending, "{text}");
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!("{{\"a\":{}", "[".repeat(MAX_DEPTH + 5));
        assert_eq!(last(&deep), Event::Invalid(5 + MAX_DEPTH - 1));
    }
}
