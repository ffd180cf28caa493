//! One JSON object that names the tool and holds its arguments, between two tokens:
//!
//! ```text
//! <tool_call>{"name": "NAME", "arguments": {...}}</tool_call>                    Hermes
//! <|python_start|>{"name": "NAME", "parameters": {...}}<|python_end|>            Llama 4
//! ```
//!
//! A form's [`Spec`] says the token before the object (none when the dispatcher has read a
//! wrapper element before it, as Hermes's `<tool_call>`), the token after it, the members that
//! hold the name and the arguments, the members that may stand with a fixed value, and how
//! strictly the object is read:
//!
//! - **strict** (Llama 4): well-formed JSON ([`crate::json`]), whose members are the name (a
//!   non-empty string without escapes or white space), the arguments (an object) and the fixed
//!   members (each with its one value), each once and no other; the closing token anywhere
//!   inside the object breaks the call (a cut-off object never swallows it);
//! - **loose** (Hermes, as Qwen's template writes it and its fine-tunes vary it): the object's
//!   end found by its brackets, its first `name` member a string that names something (not
//!   blank, no escape), its first arguments member anything (an object, or a string holding
//!   one; none is no arguments); other members are left alone.
//!
//! White space may stand between the opening token and the object and between the object and
//! the closing token; the call ends just past the closing token. The arguments are the
//! arguments member's bytes as written ([`Spans::json`]); the name is the bytes between the
//! name's quotes.

use std::ops::Range;

use crate::grammar::{Body, Spans, Step, settle};
use crate::json::{Event, Mode, Reader};
use crate::lex::{Meter, Poll, skip_ws, starts_with};
use crate::vocab::{TOOL_CALL_CLOSE, hermes, llama4};

/// How a form writes its object.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The token before the object, when the body reads it.
    pub(crate) open: Option<&'static str>,
    /// The token after it.
    pub(crate) close: &'static str,
    /// The member that names the tool.
    pub(crate) name: &'static str,
    /// The members that may hold the arguments.
    pub(crate) arguments: &'static [&'static str],
    /// Members that may stand besides them, each with its one value (as written).
    pub(crate) fixed: &'static [(&'static str, &'static str)],
    /// Read strictly (see the module's documentation), or loosely.
    pub(crate) strict: bool,
}

/// Hermes: the object inside `<tool_call>` (the dispatcher reads the wrapper).
pub(crate) static HERMES: Spec = Spec {
    open: None,
    close: TOOL_CALL_CLOSE,
    name: hermes::NAME,
    arguments: &hermes::ARGUMENTS,
    fixed: &[],
    strict: false,
};

/// Llama 4 with its JSON chat template.
pub(crate) static LLAMA4: Spec = Spec {
    open: Some(llama4::PYTHON_START),
    close: llama4::PYTHON_END,
    name: llama4::NAME_MEMBER,
    arguments: &[llama4::PARAMETERS_MEMBER],
    fixed: &[(llama4::TYPE_MEMBER, llama4::FUNCTION_TYPE)],
    strict: true,
};

/// The body of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonObject {
    spec: &'static Spec,
    pos: usize,
    state: State,
    /// The member being read.
    member: Member,
    /// The members read so far: the name, the arguments, and (strict) each fixed member.
    seen: u64,
    /// Loose reading: the first name member's value, when it is a string that names
    /// something (`Some(None)` when it is not), and the first arguments member's.
    name: Option<Option<Range<usize>>>,
    arguments: Option<Range<usize>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Name,
    Arguments,
    Fixed(usize),
    /// A member the reading leaves alone (loose), or none yet.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The opening token.
    Token,
    /// White space, then the object's `{`.
    BeforeObject,
    Object(Reader),
    /// White space, then the closing token.
    AfterObject,
    /// Decided: every later step answers the same.
    Decided(Step),
}

impl JsonObject {
    /// A call of `spec` whose opening token (or, without one, whose object) starts at `at`.
    pub(crate) fn new(spec: &'static Spec, at: usize) -> Self {
        Self {
            spec,
            pos: at,
            state: if spec.open.is_some() {
                State::Token
            } else {
                State::BeforeObject
            },
            member: Member::Other,
            seen: 0,
            name: None,
            arguments: None,
        }
    }

    /// The bit of `member` in `seen`.
    fn bit(member: Member) -> u64 {
        match member {
            Member::Name => 1,
            Member::Arguments => 2,
            Member::Fixed(k) => 4 << k,
            Member::Other => 0,
        }
    }

    /// The object's next event, strictly read: `Err` when it decides the call.
    fn strict(&mut self, text: &str, event: Event, spans: &mut Spans) -> Result<(), Step> {
        let b = text.as_bytes();
        match event {
            Event::Key { key, escaped } => {
                let k = &text[key.clone()];
                let member = match () {
                    _ if escaped => return Err(Step::Failed(key.start - 1)),
                    _ if k == self.spec.name => Member::Name,
                    _ if self.spec.arguments.contains(&k) => Member::Arguments,
                    _ => match self.spec.fixed.iter().position(|(m, _)| *m == k) {
                        Some(i) => Member::Fixed(i),
                        // Only the members the form has.
                        None => return Err(Step::Failed(key.start - 1)),
                    },
                };
                // Each once (and one arguments member).
                if self.seen & Self::bit(member) != 0 {
                    return Err(Step::Failed(key.start - 1));
                }
                self.seen |= Self::bit(member);
                self.member = member;
            }
            Event::Start(at) => {
                let want = match self.member {
                    Member::Arguments => b'{',
                    _ => b'"',
                };
                if b[at] != want {
                    return Err(Step::Failed(at));
                }
            }
            Event::Value { value, escaped } => match self.member {
                Member::Arguments => spans.json = Some(value),
                Member::Fixed(i) => {
                    if &text[value.clone()] != self.spec.fixed[i].1 {
                        return Err(Step::Failed(value.start));
                    }
                }
                Member::Name | Member::Other => {
                    let name = value.start + 1..value.end - 1;
                    let raw = &text[name.clone()];
                    if escaped || raw.is_empty() || raw.bytes().any(|c| c.is_ascii_whitespace()) {
                        return Err(Step::Failed(value.start));
                    }
                    spans.name = name;
                }
            },
            Event::Done(end) => {
                if self.seen & 3 != 3 {
                    return Err(Step::Failed(end - 1));
                }
                self.pos = end;
            }
            Event::Invalid(at) => return Err(Step::Failed(at)),
        }
        Ok(())
    }

    /// The object's next event, loosely read.
    fn loose(&mut self, text: &str, event: Event) {
        match event {
            Event::Key { key, .. } => {
                let k = &text[key];
                self.member = if k == self.spec.name && self.name.is_none() {
                    Member::Name
                } else if self.spec.arguments.contains(&k) && self.arguments.is_none() {
                    Member::Arguments
                } else {
                    Member::Other
                };
            }
            Event::Value { value, escaped } => {
                match std::mem::replace(&mut self.member, Member::Other) {
                    Member::Name => {
                        let b = text.as_bytes();
                        let string =
                            value.len() >= 2 && b[value.start] == b'"' && b[value.end - 1] == b'"';
                        let inner = value.start + 1..value.end - 1;
                        let names = string && !escaped && !text[inner.clone()].trim().is_empty();
                        self.name = Some(names.then_some(inner));
                    }
                    Member::Arguments => self.arguments = Some(value),
                    Member::Fixed(_) | Member::Other => {}
                }
            }
            Event::Done(end) => self.pos = end,
            Event::Start(_) | Event::Invalid(_) => {}
        }
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match &mut self.state {
            State::Decided(step) => return Err(*step),
            State::Token => {
                let token = self.spec.open.unwrap_or_default();
                match starts_with(b, self.pos, token, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(false) => return Err(Step::Failed(self.pos)),
                    Poll::Ready(true) => {
                        self.pos += token.len();
                        State::BeforeObject
                    }
                }
            }
            State::BeforeObject => {
                let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                    return Err(Step::Pending);
                };
                if b[at] != b'{' {
                    return Err(Step::Failed(at));
                }
                let mode = if self.spec.strict {
                    Mode::MEMBERS.stopping_at(self.spec.close)
                } else {
                    Mode::BRACKETS.with_members()
                };
                State::Object(Reader::new(at, mode))
            }
            State::Object(reader) => {
                let event = match reader.poll(b, false, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(event) => event,
                };
                return self.object(text, event, spans);
            }
            State::AfterObject => {
                let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                    return Err(Step::Pending);
                };
                let close = self.spec.close;
                return Err(match starts_with(b, at, close, meter) {
                    Poll::Pending => Step::Pending,
                    Poll::Ready(true) => Step::Done(at + close.len()),
                    Poll::Ready(false) => Step::Failed(at),
                });
            }
        })
    }

    /// The object's next event: the state after it.
    fn object(&mut self, text: &str, event: Event, spans: &mut Spans) -> Result<State, Step> {
        let start = self.pos;
        let done = matches!(event, Event::Done(_));
        if self.spec.strict {
            self.strict(text, event, spans)?;
        } else {
            if let Event::Invalid(at) = event {
                return Err(Step::Failed(at));
            }
            self.loose(text, event);
            if done {
                // The first name member names the tool, or it is no call.
                let Some(Some(name)) = self.name.take() else {
                    return Err(Step::Failed(start));
                };
                spans.name = name;
                spans.json = self.arguments.take();
            }
        }
        Ok(if done {
            State::AfterObject
        } else {
            self.state.clone()
        })
    }

    /// Whether the reading is inside the arguments member's value.
    fn in_arguments(&self) -> bool {
        matches!(self.state, State::Object(_)) && self.member == Member::Arguments
    }
}

impl Body for JsonObject {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }

    fn in_parameter(&self) -> bool {
        self.spec.strict && self.in_arguments()
    }
}
