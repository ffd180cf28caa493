//! Llama 4 with its JSON chat template: a call is one JSON object between two special tokens,
//! `<|python_start|>{"name": "NAME", "parameters": {...}}<|python_end|>`.
//!
//! Entry: the body starts at `<|python_start|>` (a glued opener: text may stand right before
//! it on its line). White space may stand between the token and the object and between the
//! object and `<|python_end|>`; the call ends just past `<|python_end|>`.
//!
//! The payload is strict JSON ([`Reader`]), an object whose members are `name` (a non-empty
//! string without escapes or white space), `parameters` (an object) and optionally `type`,
//! which must be `"function"`; each once, in any order, no other member. `<|python_end|>`
//! anywhere inside the object breaks the call (a cut-off object never swallows the end token).
//! The arguments are the `parameters` object's bytes as written ([`Spans::json`]).
//!
//! The same tokens around Python call syntax (`<|python_start|>[f(x=1)]<|python_end|>`, the
//! pythonic template) are not read: the object's `{` must follow the token.

use crate::grammar::{Body, Spans, Step};
use crate::json::{Event, Mode, Reader};
use crate::lex::{Meter, Poll, skip_ws, starts_with};
use crate::vocab::llama4::{
    FUNCTION_TYPE, NAME_MEMBER, PARAMETERS_MEMBER, PYTHON_END, PYTHON_START, TYPE_MEMBER,
};

/// The body of one Llama 4 call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Llama4 {
    /// The decision, once made: every later step answers it.
    decided: Option<Step>,
    pos: usize,
    state: State,
    /// The member being read.
    member: Member,
    /// The members read so far.
    seen: [bool; 3],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Name = 0,
    Parameters = 1,
    Type = 2,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// `<|python_start|>`.
    Token,
    /// White space, then the payload's `{`.
    BeforePayload,
    Payload(Reader),
    /// White space, then `<|python_end|>`.
    AfterPayload,
}

impl Llama4 {
    /// A body whose `<|python_start|>` is at `at`.
    pub(crate) fn new(at: usize) -> Self {
        Self {
            decided: None,
            pos: at,
            state: State::Token,
            member: Member::Name,
            seen: [false; 3],
        }
    }

    /// The payload's next event: `Some(step)` when it decides the call.
    fn event(&mut self, text: &str, event: Event, spans: &mut Spans) -> Option<Step> {
        let b = text.as_bytes();
        match event {
            Event::Key { key, escaped } => {
                let member = match &text[key.clone()] {
                    _ if escaped => return Some(Step::Failed(key.start - 1)),
                    NAME_MEMBER => Member::Name,
                    PARAMETERS_MEMBER => Member::Parameters,
                    TYPE_MEMBER => Member::Type,
                    // Only the members the form has.
                    _ => return Some(Step::Failed(key.start - 1)),
                };
                if std::mem::replace(&mut self.seen[member as usize], true) {
                    return Some(Step::Failed(key.start - 1));
                }
                self.member = member;
                None
            }
            Event::Start(at) => {
                let want = match self.member {
                    Member::Name | Member::Type => b'"',
                    Member::Parameters => b'{',
                };
                (b[at] != want).then_some(Step::Failed(at))
            }
            Event::Value { value, escaped } => match self.member {
                Member::Parameters => {
                    spans.json = Some(value);
                    None
                }
                Member::Type => {
                    (&text[value.clone()] != FUNCTION_TYPE).then_some(Step::Failed(value.start))
                }
                Member::Name => {
                    let name = value.start + 1..value.end - 1;
                    let raw = &text[name.clone()];
                    if escaped || raw.is_empty() || raw.bytes().any(|c| c.is_ascii_whitespace()) {
                        return Some(Step::Failed(value.start));
                    }
                    spans.name = name;
                    None
                }
            },
            Event::Done(end) => {
                if !(self.seen[Member::Name as usize] && self.seen[Member::Parameters as usize]) {
                    return Some(Step::Failed(end - 1));
                }
                self.pos = end;
                self.state = State::AfterPayload;
                None
            }
            Event::Invalid(at) => Some(Step::Failed(at)),
        }
    }
}

impl Llama4 {
    /// Keeps `step` when it decides the call.
    fn decide(&mut self, step: Step) -> Step {
        if step != Step::Pending {
            self.decided = Some(step);
        }
        step
    }
}

impl Body for Llama4 {
    fn in_parameter(&self) -> bool {
        matches!(self.state, State::Payload(_)) && self.member == Member::Parameters
    }

    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        if let Some(step) = self.decided {
            return Err(step);
        }
        let b = text.as_bytes();
        {
            match &mut self.state {
                State::Token => match starts_with(b, self.pos, PYTHON_START, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(false) => return Err(self.decide(Step::Failed(self.pos))),
                    Poll::Ready(true) => {
                        self.pos += PYTHON_START.len();
                        self.state = State::BeforePayload;
                    }
                },
                State::BeforePayload => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    if b[at] != b'{' {
                        return Err(self.decide(Step::Failed(at)));
                    }
                    self.state =
                        State::Payload(Reader::new(at, Mode::MEMBERS.stopping_at(PYTHON_END)));
                }
                State::Payload(reader) => match reader.poll(b, false, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(event) => {
                        if let Some(step) = self.event(text, event, spans) {
                            return Err(self.decide(step));
                        }
                    }
                },
                State::AfterPayload => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    let step = match starts_with(b, at, PYTHON_END, meter) {
                        Poll::Pending => Step::Pending,
                        Poll::Ready(true) => Step::Done(at + PYTHON_END.len()),
                        Poll::Ready(false) => Step::Failed(at),
                    };
                    return Err(self.decide(step));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples() {
        crate::forms::cases::run_file("llama4.txt", |at| Box::new(Llama4::new(at)));
    }
}
