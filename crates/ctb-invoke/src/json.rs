//! The grammar's one JSON reader: resumable over a growing text, a byte at a time, with no
//! recursion (open containers are bits of a stack at most [`MAX_DEPTH`] deep).
//!
//! Every form whose call holds JSON reads it here, in the mode its grammar needs ([`Mode`]):
//!
//! - **where it ends**: at the end of one value (a closing bracket, a string's quote, a
//!   literal; a top-level number needs the byte after it), or [`whole`]: a complete text that
//!   is exactly one value, white space around it allowed;
//! - **well-formed or not**: strict reading checks RFC 8259 at every byte (strings and their
//!   escapes, numbers, literals, commas and colons), so a value the model broke is refused
//!   where it broke; loose reading only counts brackets outside strings to find where the value
//!   ends, for forms whose arguments a tolerant reader parses later (a closing token written
//!   inside a string does not end the value either way);
//! - **member events**: the members of the outermost object reported as they are read (its
//!   key, where its value starts, the value's bytes), so a body can refuse a wrong key as soon
//!   as it is written; in loose reading they are reported while the object reads as members
//!   (a key string, a colon, a value) and no more after the first byte that does not;
//! - a **stop token** (a family's end-of-block token) that may stand nowhere in the value, not
//!   even inside a string.
//!
//! The reader reads no byte past the one that decides (what it answers depends on the text up
//! to its reach only) and examines each byte once, a `<` inside a string a few more times when
//! a stop token is set.

use std::ops::Range;

use crate::lex::{Meter, Poll, starts_with};

/// Deepest nesting of objects and arrays read, in every mode and every form; a deeper value is
/// not read (the byte that opens one container too many is where it breaks).
pub(crate) const MAX_DEPTH: u32 = 128;

/// How a value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mode {
    /// Checked against RFC 8259 at every byte (or, loose, brackets counted outside strings).
    strict: bool,
    /// Only an object may start the value.
    object: bool,
    /// The outermost object's members are reported.
    members: bool,
    /// A token that may stand nowhere in the value.
    stop: Option<&'static str>,
}

impl Mode {
    /// One well-formed value of any kind.
    pub(crate) const VALUE: Mode = Mode {
        strict: true,
        object: false,
        members: false,
        stop: None,
    };
    /// One well-formed object, its members reported.
    pub(crate) const MEMBERS: Mode = Mode {
        strict: true,
        object: true,
        members: true,
        stop: None,
    };
    /// One object found by its brackets (not checked).
    pub(crate) const BRACKETS: Mode = Mode {
        strict: false,
        object: true,
        members: false,
        stop: None,
    };

    /// The same mode with the outermost object's members reported.
    pub(crate) const fn with_members(self) -> Mode {
        Mode {
            members: true,
            object: true,
            ..self
        }
    }

    /// The same mode with `stop` refused anywhere in the value.
    pub(crate) const fn stopping_at(self, stop: &'static str) -> Mode {
        Mode {
            stop: Some(stop),
            ..self
        }
    }
}

/// What the reader found next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// The key of a member of the outermost object: the bytes between its quotes, and whether
    /// they hold an escape.
    Key { key: Range<usize>, escaped: bool },
    /// That member's value starts at this offset.
    Start(usize),
    /// That value ends: its bytes (a string with its quotes; in loose reading, a value that is
    /// not a string or a container runs to the next `,` or `}`, white space after it left out),
    /// and whether a string value holds an escape.
    Value { value: Range<usize>, escaped: bool },
    /// The value ends just before this offset.
    Done(usize),
    /// Not what the mode reads: the byte at this offset breaks it (or starts the stop token, or
    /// opens a container too deep). At the end of a complete text, its length.
    Invalid(usize),
}

/// The states of a number, shared by every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Number {
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
    pub(crate) fn start(c: u8) -> Option<Number> {
        match c {
            b'-' => Some(Number::Minus),
            b'0' => Some(Number::Zero),
            b'1'..=b'9' => Some(Number::Int),
            _ => None,
        }
    }

    /// The state after `c`, or `None` when `c` does not continue the number.
    pub(crate) fn next(self, c: u8) -> Option<Number> {
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
    pub(crate) fn complete(self) -> bool {
        matches!(
            self,
            Number::Zero | Number::Int | Number::Frac | Number::ExpDigits
        )
    }
}

/// Where a strict reading is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum S {
    /// White space, then the value (an object when the mode says so).
    Top,
    /// White space, then a value.
    Value,
    /// After `[`: white space, then `]` or a value.
    ItemOrEnd,
    /// After `{`: white space, then `}` or a key.
    KeyOrEnd,
    /// After a `,` in an object: white space, then a key.
    Key,
    /// After a key: white space, then `:`.
    Colon,
    /// After a value inside a container: white space, then `,` or the container's closer.
    After,
    /// Inside a string (a key or a value); `hex` counts the digits a `\u` escape still needs.
    Str {
        key: bool,
        backslash: bool,
        hex: u8,
    },
    Num(Number),
    /// Inside `true`, `false` or `null`: the word, and how much of it has been read.
    Word(&'static [u8], u8),
    /// The value has ended here.
    Finished(usize),
    /// It broke here.
    Broken(usize),
}

/// Where the members of a loosely read object are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loose {
    /// White space and commas, then a key's quote.
    Key,
    /// Inside a key.
    InKey,
    /// White space, then `:`.
    Colon,
    /// White space, then a value.
    Value,
    /// Inside a string value.
    InString,
    /// Inside an object or array value.
    InContainer,
    /// Inside another value, whose last byte that is not white space ends before this offset.
    Scalar(usize),
    /// The object stopped reading as members.
    Lost,
}

/// One value being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reader {
    mode: Mode,
    /// The next byte to examine.
    pos: usize,
    state: S,
    /// One bit per open container, the innermost lowest: 1 for an object.
    stack: u128,
    depth: u32,
    /// Loose reading: inside a string, right after a backslash in one, and where the members
    /// stand.
    in_string: bool,
    backslash: bool,
    loose: Loose,
    /// Where the current string's bytes start (after its quote), and whether it holds an escape.
    string_start: usize,
    escaped: bool,
    /// Where the current member's value starts.
    member_start: usize,
    /// An event found with the value's end, reported before it.
    pending_done: Option<usize>,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Reader {
    /// A reading of the value that starts at `at` (white space before it allowed).
    pub(crate) fn new(at: usize, mode: Mode) -> Self {
        Self {
            mode,
            pos: at,
            state: S::Top,
            stack: 0,
            depth: 0,
            in_string: false,
            backslash: false,
            loose: Loose::Lost,
            string_start: at,
            escaped: false,
            member_start: at,
            pending_done: None,
        }
    }

    /// Reads on from where it stopped over `b` (the text so far; `complete` when it is all
    /// there is: a top-level number may end at its end, and a value cut off there is
    /// [`Event::Invalid`] at `b.len()`). `Pending` while the text ends first.
    pub(crate) fn poll(&mut self, b: &[u8], complete: bool, meter: &mut Meter) -> Poll<Event> {
        if let Some(end) = self.pending_done.take() {
            self.state = S::Finished(end);
            return Poll::Ready(Event::Done(end));
        }
        let from = self.pos;
        let mut seen = from;
        let event = if self.mode.strict {
            self.strict(b, complete, &mut seen, meter)
        } else {
            self.loose(b, complete, &mut seen, meter)
        };
        meter.read(from, seen.max(self.pos).min(b.len()).max(from));
        event
    }

    /// Reads to the value's end, reporting no member: `Ready(Ok(end))` just past it,
    /// `Ready(Err(at))` where it breaks.
    pub(crate) fn poll_end(
        &mut self,
        b: &[u8],
        complete: bool,
        meter: &mut Meter,
    ) -> Poll<Result<usize, usize>> {
        loop {
            match self.poll(b, complete, meter) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Event::Done(end)) => return Poll::Ready(Ok(end)),
                Poll::Ready(Event::Invalid(at)) => return Poll::Ready(Err(at)),
                Poll::Ready(_) => {}
            }
        }
    }

    fn in_object(&self) -> bool {
        self.stack & 1 == 1
    }

    /// A container opens at `at`.
    fn open(&mut self, object: bool, at: usize) -> Result<(), usize> {
        if self.depth >= MAX_DEPTH {
            return Err(at);
        }
        self.depth += 1;
        self.stack = self.stack << 1 | u128::from(object);
        Ok(())
    }

    /// The outermost object's members are reported, and the reading is at its level.
    fn at_members(&self) -> bool {
        self.mode.members && self.depth == 1
    }

    fn strict(
        &mut self,
        b: &[u8],
        complete: bool,
        seen: &mut usize,
        meter: &mut Meter,
    ) -> Poll<Event> {
        loop {
            match self.state {
                S::Finished(end) => return Poll::Ready(Event::Done(end)),
                S::Broken(at) => return Poll::Ready(Event::Invalid(at)),
                _ => {}
            }
            let Some(&c) = b.get(self.pos) else {
                if !complete {
                    return Poll::Pending;
                }
                let end = b.len();
                return Poll::Ready(match self.state {
                    S::Num(n) if n.complete() && self.depth == 0 => self.finish(end),
                    _ => self.broken(end),
                });
            };
            let at = self.pos;
            *seen = (*seen).max(at + 1);
            match self.state {
                S::Finished(_) | S::Broken(_) => unreachable!("handled above"),
                S::Top | S::Value | S::ItemOrEnd | S::KeyOrEnd | S::Key | S::Colon | S::After
                    if is_ws(c) =>
                {
                    self.pos += 1;
                }
                S::Top if self.mode.object && c != b'{' => return Poll::Ready(self.broken(at)),
                S::Top | S::Value => {
                    if let Some(e) = self.begin(c, at) {
                        return Poll::Ready(e);
                    }
                }
                S::ItemOrEnd => {
                    if c == b']' {
                        self.pos += 1;
                        if let Some(e) = self.close(at + 1) {
                            return Poll::Ready(e);
                        }
                    } else if let Some(e) = self.begin(c, at) {
                        return Poll::Ready(e);
                    }
                }
                S::KeyOrEnd | S::Key => match c {
                    b'}' if self.state == S::KeyOrEnd => {
                        self.pos += 1;
                        if let Some(e) = self.close(at + 1) {
                            return Poll::Ready(e);
                        }
                    }
                    b'"' => {
                        self.pos += 1;
                        self.string_start = at + 1;
                        self.escaped = false;
                        self.state = S::Str {
                            key: true,
                            backslash: false,
                            hex: 0,
                        };
                    }
                    _ => return Poll::Ready(self.broken(at)),
                },
                S::Colon => {
                    if c != b':' {
                        return Poll::Ready(self.broken(at));
                    }
                    self.pos += 1;
                    self.state = S::Value;
                }
                S::After => {
                    self.pos += 1;
                    match c {
                        b',' if self.in_object() => self.state = S::Key,
                        b',' => self.state = S::Value,
                        b'}' if self.in_object() => {
                            if let Some(e) = self.close(at + 1) {
                                return Poll::Ready(e);
                            }
                        }
                        b']' if !self.in_object() => {
                            if let Some(e) = self.close(at + 1) {
                                return Poll::Ready(e);
                            }
                        }
                        _ => return Poll::Ready(self.broken(at)),
                    }
                }
                S::Str {
                    key,
                    backslash,
                    hex,
                } => {
                    if hex > 0 {
                        if !c.is_ascii_hexdigit() {
                            return Poll::Ready(self.broken(at));
                        }
                        self.pos += 1;
                        self.state = S::Str {
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
                            _ => return Poll::Ready(self.broken(at)),
                        };
                        self.pos += 1;
                        self.state = S::Str {
                            key,
                            backslash: false,
                            hex,
                        };
                        continue;
                    }
                    // The run of plain bytes up to the next byte that matters.
                    let stop = self.mode.stop.is_some();
                    let run = b[at..]
                        .iter()
                        .position(|&x| matches!(x, b'"' | b'\\') || x < 0x20 || stop && x == b'<')
                        .unwrap_or(b.len() - at);
                    self.pos = at + run;
                    let Some(&c) = b.get(self.pos) else {
                        *seen = b.len();
                        continue;
                    };
                    let at = self.pos;
                    *seen = (*seen).max(at + 1);
                    match c {
                        b'"' => {
                            self.pos += 1;
                            if key {
                                self.state = S::Colon;
                                if self.at_members() {
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
                            self.state = S::Str {
                                key,
                                backslash: true,
                                hex: 0,
                            };
                        }
                        b'<' => {
                            if let Some(stop) = self.mode.stop {
                                match starts_with(b, at, stop, meter) {
                                    Poll::Pending => return Poll::Pending,
                                    Poll::Ready(true) => return Poll::Ready(self.broken(at)),
                                    Poll::Ready(false) => {}
                                }
                            }
                            self.pos += 1;
                        }
                        _ => return Poll::Ready(self.broken(at)),
                    }
                }
                S::Num(n) => match n.next(c) {
                    Some(next) => {
                        self.pos += 1;
                        self.state = S::Num(next);
                    }
                    // The number ended before `c`, which is read again as what follows it.
                    None if n.complete() => {
                        if let Some(e) = self.value_ended(at) {
                            return Poll::Ready(e);
                        }
                    }
                    None => return Poll::Ready(self.broken(at)),
                },
                S::Word(word, done) => {
                    if c != word[usize::from(done)] {
                        return Poll::Ready(self.broken(at));
                    }
                    self.pos += 1;
                    if usize::from(done) + 1 == word.len() {
                        if let Some(e) = self.value_ended(at + 1) {
                            return Poll::Ready(e);
                        }
                    } else {
                        self.state = S::Word(word, done + 1);
                    }
                }
            }
        }
    }

    /// A value's first byte `c`, at `at`.
    fn begin(&mut self, c: u8, at: usize) -> Option<Event> {
        let member = self.at_members();
        if member {
            self.member_start = at;
            self.escaped = false;
        }
        self.pos = at + 1;
        self.state = match c {
            b'{' | b'[' => {
                if self.open(c == b'{', at).is_err() {
                    return Some(self.broken(at));
                }
                if c == b'{' { S::KeyOrEnd } else { S::ItemOrEnd }
            }
            b'"' => {
                self.string_start = at + 1;
                self.escaped = false;
                S::Str {
                    key: false,
                    backslash: false,
                    hex: 0,
                }
            }
            b't' => S::Word(b"true", 1),
            b'f' => S::Word(b"false", 1),
            b'n' => S::Word(b"null", 1),
            _ => match Number::start(c) {
                Some(n) => S::Num(n),
                None => return Some(self.broken(at)),
            },
        };
        member.then_some(Event::Start(at))
    }

    /// A container closed just before `end`.
    fn close(&mut self, end: usize) -> Option<Event> {
        self.depth -= 1;
        self.stack >>= 1;
        self.value_ended(end)
    }

    /// A value ended just before `end`.
    fn value_ended(&mut self, end: usize) -> Option<Event> {
        self.pos = end;
        if self.depth == 0 {
            return Some(self.finish(end));
        }
        self.state = S::After;
        self.at_members().then(|| Event::Value {
            value: self.member_start..end,
            escaped: self.escaped && self.member_start + 1 == self.string_start,
        })
    }

    fn finish(&mut self, end: usize) -> Event {
        self.state = S::Finished(end);
        Event::Done(end)
    }

    fn broken(&mut self, at: usize) -> Event {
        self.state = S::Broken(at);
        Event::Invalid(at)
    }

    /// Loose reading: brackets counted outside strings; members reported while they read as
    /// members.
    fn loose(
        &mut self,
        b: &[u8],
        complete: bool,
        seen: &mut usize,
        meter: &mut Meter,
    ) -> Poll<Event> {
        loop {
            match self.state {
                S::Finished(end) => return Poll::Ready(Event::Done(end)),
                S::Broken(at) => return Poll::Ready(Event::Invalid(at)),
                _ => {}
            }
            let Some(&c) = b.get(self.pos) else {
                return if complete {
                    Poll::Ready(self.broken(b.len()))
                } else {
                    Poll::Pending
                };
            };
            let at = self.pos;
            self.pos += 1;
            *seen = (*seen).max(self.pos);
            if self.state == S::Top {
                // The first byte: white space, then the object's `{`.
                match c {
                    c if is_ws(c) => {}
                    b'{' | b'[' if !self.mode.object || c == b'{' => {
                        if self.open(c == b'{', at).is_err() {
                            return Poll::Ready(self.broken(at));
                        }
                        self.state = S::Value;
                        self.loose = if self.mode.members && c == b'{' {
                            Loose::Key
                        } else {
                            Loose::Lost
                        };
                    }
                    _ => return Poll::Ready(self.broken(at)),
                }
                continue;
            }
            let members = self.depth == 1 && self.loose != Loose::Lost;
            if self.in_string {
                if self.backslash {
                    self.backslash = false;
                } else if c == b'\\' {
                    self.backslash = true;
                    self.escaped = true;
                } else if c == b'"' {
                    self.in_string = false;
                    if members {
                        match self.loose {
                            Loose::Scalar(_) => self.loose = Loose::Scalar(at + 1),
                            Loose::InKey => {
                                self.loose = Loose::Colon;
                                return Poll::Ready(Event::Key {
                                    key: self.string_start..at,
                                    escaped: self.escaped,
                                });
                            }
                            Loose::InString => {
                                self.loose = Loose::Key;
                                return Poll::Ready(Event::Value {
                                    value: self.member_start..at + 1,
                                    escaped: self.escaped,
                                });
                            }
                            _ => {}
                        }
                    }
                } else if c == b'<' {
                    if let Some(stop) = self.mode.stop {
                        // Looked at again from its `<` while it may still be arriving.
                        self.pos = at;
                        match starts_with(b, at, stop, meter) {
                            Poll::Pending => return Poll::Pending,
                            Poll::Ready(true) => return Poll::Ready(self.broken(at)),
                            Poll::Ready(false) => self.pos = at + 1,
                        }
                    }
                }
                continue;
            }
            match c {
                b'"' => {
                    self.in_string = true;
                    self.string_start = at + 1;
                    self.escaped = false;
                    if members {
                        self.loose = match self.loose {
                            Loose::Key => Loose::InKey,
                            Loose::Value => {
                                self.member_start = at;
                                Loose::InString
                            }
                            Loose::Scalar(end) => Loose::Scalar(end.max(at + 1)),
                            _ => Loose::Lost,
                        };
                        if self.loose == Loose::InString {
                            return Poll::Ready(Event::Start(at));
                        }
                    }
                }
                b'{' | b'[' => {
                    if self.open(c == b'{', at).is_err() {
                        return Poll::Ready(self.broken(at));
                    }
                    if members {
                        if self.loose == Loose::Value {
                            self.member_start = at;
                            self.loose = Loose::InContainer;
                            return Poll::Ready(Event::Start(at));
                        }
                        self.loose = Loose::Lost;
                    }
                }
                b'}' | b']' => {
                    self.depth -= 1;
                    self.stack >>= 1;
                    if self.depth == 0 {
                        if members {
                            if let Loose::Scalar(end) = self.loose {
                                self.loose = Loose::Lost;
                                self.pending_done = Some(at + 1);
                                return Poll::Ready(Event::Value {
                                    value: self.member_start..end,
                                    escaped: false,
                                });
                            }
                        }
                        return Poll::Ready(self.finish(at + 1));
                    }
                    if self.depth == 1 && self.loose == Loose::InContainer {
                        self.loose = Loose::Key;
                        return Poll::Ready(Event::Value {
                            value: self.member_start..at + 1,
                            escaped: false,
                        });
                    }
                }
                _ if !members => {}
                b',' => match self.loose {
                    Loose::Scalar(end) => {
                        self.loose = Loose::Key;
                        return Poll::Ready(Event::Value {
                            value: self.member_start..end,
                            escaped: false,
                        });
                    }
                    Loose::Key => {}
                    _ => self.loose = Loose::Lost,
                },
                b':' => match self.loose {
                    Loose::Colon => self.loose = Loose::Value,
                    Loose::Scalar(_) => self.loose = Loose::Scalar(at + 1),
                    _ => self.loose = Loose::Lost,
                },
                c if is_ws(c) => {}
                _ => match self.loose {
                    Loose::Value => {
                        self.member_start = at;
                        self.loose = Loose::Scalar(at + 1);
                        return Poll::Ready(Event::Start(at));
                    }
                    Loose::Scalar(_) => self.loose = Loose::Scalar(at + 1),
                    _ => self.loose = Loose::Lost,
                },
            }
        }
    }
}

/// Whether `b[from..]` (complete) is exactly one well-formed JSON value, white space around it
/// allowed: `Ok(range)` of the value without that white space, `Err(at)` where it breaks.
/// Reads every byte once.
pub(crate) fn whole(b: &[u8], from: usize, meter: &mut Meter) -> Result<Range<usize>, usize> {
    let start = b[from..]
        .iter()
        .position(|c| !is_ws(*c))
        .map_or(b.len(), |k| from + k);
    let mut reader = Reader::new(start, Mode::VALUE);
    let Poll::Ready(r) = reader.poll_end(b, true, meter) else {
        unreachable!("a complete text is always decided")
    };
    let end = r?;
    meter.read(end, b.len());
    match b[end..].iter().position(|c| !is_ws(*c)) {
        Some(k) => Err(end + k),
        None => Ok(start..end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of reading `text` in `mode`, whole, and the same fed a byte at a time
    /// (which must agree, with the same reach).
    fn events(text: &str, mode: Mode) -> Vec<Event> {
        let b = text.as_bytes();
        let run = |cuts: &mut dyn Iterator<Item = usize>| {
            let mut reader = Reader::new(0, mode);
            let mut meter = Meter::default();
            let mut out = Vec::new();
            for cut in cuts {
                loop {
                    match reader.poll(&b[..cut], cut == b.len(), &mut meter) {
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

    fn last(text: &str, mode: Mode) -> Event {
        events(text, mode).pop().unwrap()
    }

    fn check(text: &str) -> Result<(), usize> {
        whole(text.as_bytes(), 0, &mut Meter::default()).map(|_| ())
    }

    #[test]
    fn strict_reading_accepts_json() {
        for ok in [
            "0",
            "-0.5e+10",
            "1E3",
            "true",
            " null ",
            "\"a\\u00e9\\n\"",
            "{}",
            "[]",
            "{\"a\": [1, {\"b\": null}], \"c\": \"}\"}",
            "[[[]]]",
            "\"caf\u{e9}\"",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        assert_eq!(whole(b" \n[1] ", 0, &mut Meter::default()), Ok(2..5));
    }

    #[test]
    fn strict_reading_refuses_what_is_not_json() {
        for (bad, at) in [
            ("01", 1),
            ("1.", 2),
            ("-", 1),
            ("+1", 0),
            (".5", 0),
            ("tru", 3),
            ("truex", 4),
            ("{a:1}", 1),
            ("{\"a\" 1}", 5),
            ("[1,]", 3),
            ("{\"a\":1,}", 7),
            ("[1 2]", 3),
            ("\"a\nb\"", 2),
            ("\"\\x\"", 2),
            ("\"\\u12g4\"", 5),
            ("'a'", 0),
            ("{} x", 3),
            ("[}", 1),
            ("", 0),
            ("not-json", 1),
        ] {
            assert_eq!(check(bad), Err(at), "{bad:?}");
        }
    }

    #[test]
    fn one_depth_rule_in_every_mode() {
        let deep = "[".repeat(MAX_DEPTH as usize) + &"]".repeat(MAX_DEPTH as usize);
        assert_eq!(check(&deep), Ok(()));
        assert_eq!(
            check(&"[".repeat(MAX_DEPTH as usize + 1)),
            Err(MAX_DEPTH as usize)
        );
        let object = |n: usize| format!("{{\"a\":{}", "[".repeat(n));
        assert_eq!(
            last(&object(MAX_DEPTH as usize + 5), Mode::MEMBERS),
            Event::Invalid(5 + MAX_DEPTH as usize - 1)
        );
        assert_eq!(
            last(&object(MAX_DEPTH as usize + 5), Mode::BRACKETS),
            Event::Invalid(5 + MAX_DEPTH as usize - 1)
        );
    }

    #[test]
    fn strict_reading_streams_each_byte_once_and_stops_at_the_closer() {
        let text = r#"{"a": "x\"}", "n": [1, -2.5e3, true]} tail"#;
        let end = text.find(" tail").unwrap();
        for piece in 1..=text.len() {
            let mut reader = Reader::new(0, Mode::VALUE);
            let mut meter = Meter::default();
            let mut upto = 0;
            let got = loop {
                upto = (upto + piece).min(text.len());
                match reader.poll_end(&text.as_bytes()[..upto], false, &mut meter) {
                    Poll::Pending => assert!(upto < text.len()),
                    Poll::Ready(r) => break r,
                }
            };
            assert_eq!(got, Ok(end), "piece {piece}");
            assert_eq!((meter.work, meter.reach), (end, end), "piece {piece}");
        }
    }

    #[test]
    fn a_top_level_number_needs_the_byte_after_it() {
        let mut reader = Reader::new(0, Mode::VALUE);
        let mut meter = Meter::default();
        assert_eq!(reader.poll_end(b"12", false, &mut meter), Poll::Pending);
        assert_eq!(
            reader.poll_end(b"12,", false, &mut meter),
            Poll::Ready(Ok(2))
        );
        assert_eq!(meter.reach, 3);
    }

    #[test]
    fn members_of_the_outer_object() {
        let text = r#"{"name":"s\"x","args":{"q":[1]},"n":12}"#;
        let at = |s: &str| text.find(s).unwrap();
        let want = [
            Event::Key {
                key: 2..6,
                escaped: false,
            },
            Event::Start(at("\"s")),
            Event::Value {
                value: at("\"s")..at(",\"args"),
                escaped: true,
            },
            Event::Key {
                key: at("args")..at("args") + 4,
                escaped: false,
            },
            Event::Start(at("{\"q")),
            Event::Value {
                value: at("{\"q")..at(",\"n"),
                escaped: false,
            },
            Event::Key {
                key: at("n\":12")..at("n\":12") + 1,
                escaped: false,
            },
            Event::Start(at("12")),
            Event::Value {
                value: at("12")..at("12") + 2,
                escaped: false,
            },
            Event::Done(text.len()),
        ];
        assert_eq!(events(text, Mode::MEMBERS), want);
        // Loosely read, the same members.
        assert_eq!(events(text, Mode::BRACKETS.with_members()), want);
    }

    #[test]
    fn loose_members_stop_where_the_object_stops_reading_as_members() {
        let text = r#"{"name": "f", "arguments": {"a": 1}, oops: 2, "x": 3}"#;
        let got = events(text, Mode::BRACKETS.with_members());
        let keys: Vec<&str> = got
            .iter()
            .filter_map(|e| match e {
                Event::Key { key, .. } => Some(&text[key.clone()]),
                _ => None,
            })
            .collect();
        assert_eq!(keys, ["name", "arguments"]);
        assert_eq!(got.last(), Some(&Event::Done(text.len())));
        // A bare value runs to the next comma or brace, white space after it left out.
        let text = r#"{"a": tru e , "b": 1 }"#;
        let values: Vec<&str> = events(text, Mode::BRACKETS.with_members())
            .into_iter()
            .filter_map(|e| match e {
                Event::Value { value, .. } => Some(&text[value]),
                _ => None,
            })
            .collect();
        assert_eq!(values, ["tru e", "1"]);
    }

    #[test]
    fn loose_reading_counts_brackets_outside_strings() {
        let text = r#"{"code": "echo '</tool_call>' \"}\"", "n": [1, {"a": 2}]} tail"#;
        let end = text.find(" tail").unwrap();
        assert_eq!(last(text, Mode::BRACKETS), Event::Done(end));
        // Not checked: what a tolerant reader reads later.
        assert_eq!(last("{a: 'b', }", Mode::BRACKETS), Event::Done(10));
        assert_eq!(last("[1]", Mode::BRACKETS), Event::Invalid(0));
    }

    #[test]
    fn broken_json_is_refused_where_it_breaks() {
        let stop = Mode::MEMBERS.stopping_at("<|end_message|>");
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
            assert_eq!(last(text, stop), Event::Invalid(at), "{text}");
        }
        // The stop token inside a string, loosely read too.
        let loose = Mode::BRACKETS.stopping_at("<|end_message|>");
        assert_eq!(
            last(r#"{"a": "x<|end_message|>"}"#, loose),
            Event::Invalid(8)
        );
        assert_eq!(last(r#"{"a": "x<|end_mess"}"#, loose), Event::Done(20));
    }

    #[test]
    fn cut_off_json_is_pending() {
        for mode in [Mode::MEMBERS, Mode::BRACKETS.with_members()] {
            let mode = mode.stopping_at("<|end_message|>");
            for text in [
                r#"{"a":"#,
                r#"{"a":[1,2"#,
                r#"{"a":"x<|end_mes"#,
                r#"{"a":12"#,
            ] {
                let mut reader = Reader::new(0, mode);
                let mut meter = Meter::default();
                let got = loop {
                    match reader.poll(text.as_bytes(), false, &mut meter) {
                        Poll::Ready(Event::Key { .. } | Event::Start(_) | Event::Value { .. }) => {}
                        other => break other,
                    }
                };
                assert_eq!(got, Poll::Pending, "{text}");
            }
        }
    }
}
