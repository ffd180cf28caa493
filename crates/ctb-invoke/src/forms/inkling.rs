//! TML Inkling: a call is a block of special tokens around one JSON object,
//! `<|message_model|>NAME<|content_invoke_tool_json|>{"name":"NAME","args":{...}}<|end_message|>`.
//!
//! Entry: the body starts at one of
//! - `<|message_model|>`: the block's header follows, the tool's name or nothing, then
//!   `<|content_invoke_tool_json|>` (any other content kind, `<|content_text|>` for one, breaks
//!   the call);
//! - `<|content_invoke_tool_json|>`: a block without a header;
//! - a bare header at the start of the reply, when the prompt already ended with
//!   `<|message_model|>`: the name, then `<|content_invoke_tool_json|>`.
//!
//! The payload is strict JSON ([`Reader`]): an object with exactly two members, `name` (a
//! non-empty string without escapes or white space) and `args` (an object), in either order.
//! When there is a header, it must be the payload's name byte for byte. White space may stand
//! between the marker and the object and between the object and the end token; the call ends
//! just past `<|end_message|>` (or `<|content_model_end_sampling|>`, which also ends a block).
//!
//! Nothing is decoded: an HTML entity written for a structural quote (`&quot;` closing a
//! string) leaves the string open, and the `<|end_message|>` that then stands inside it breaks
//! the call (see `docs/forms.md`). The arguments are the `args` object's bytes, as
//! written ([`Spans::json`]); the name is the bytes between the payload name's quotes.

use crate::grammar::{Body, Spans, Step};
use crate::json::{Event, Mode, Reader};
use crate::lex::{Meter, Poll, skip_ws, starts_with};
use crate::vocab::inkling::{
    ARGS_MEMBER, END_MESSAGE, END_SAMPLING, INVOKE_TOOL_JSON, MESSAGE_MODEL, NAME_MEMBER,
};

/// What ends the text of a call that broke.
pub(crate) const ENDS: &[&str] = &[END_MESSAGE, END_SAMPLING];

/// Longest header (a tool name) read.
const MAX_HEADER: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inkling {
    /// The decision, once made: every later step answers it.
    decided: Option<Step>,
    start: usize,
    pos: usize,
    state: State,
    /// The header's bytes, when the block has one.
    header: Option<std::ops::Range<usize>>,
    /// The member of the payload being read, and which members have been read.
    member: Member,
    name_seen: bool,
    args_seen: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Name,
    Args,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// What stands at the start: `<|message_model|>`, the marker, or a bare header.
    Start,
    /// The header's bytes, from this offset up to the next `<`.
    Header(usize),
    /// `<|content_invoke_tool_json|>` must stand here.
    Marker,
    /// White space, then the payload's `{`.
    BeforePayload,
    Payload(Reader),
    /// White space, then the token that ends the block.
    AfterPayload,
    /// `<|end_message|>` did not follow: is it `<|content_model_end_sampling|>`?
    EndSampling(usize),
}

impl Inkling {
    /// A body that starts at `at` (see the module's documentation for the three starts).
    pub(crate) fn new(at: usize) -> Self {
        Self {
            decided: None,
            start: at,
            pos: at,
            state: State::Start,
            header: None,
            member: Member::Name,
            name_seen: false,
            args_seen: false,
        }
    }

    /// The payload's next event: `Some(step)` when it decides the call.
    fn event(&mut self, text: &str, event: Event, spans: &mut Spans) -> Option<Step> {
        let b = text.as_bytes();
        match event {
            Event::Key { key, escaped } => {
                let seen = match &text[key.clone()] {
                    NAME_MEMBER if !escaped => {
                        self.member = Member::Name;
                        std::mem::replace(&mut self.name_seen, true)
                    }
                    ARGS_MEMBER if !escaped => {
                        self.member = Member::Args;
                        std::mem::replace(&mut self.args_seen, true)
                    }
                    // Only the two members the form has.
                    _ => true,
                };
                seen.then_some(Step::Failed(key.start - 1))
            }
            Event::Start(at) => {
                let want = match self.member {
                    Member::Name => b'"',
                    Member::Args => b'{',
                };
                (b[at] != want).then_some(Step::Failed(at))
            }
            Event::Value { value, escaped } => {
                if self.member == Member::Args {
                    spans.json = Some(value);
                    return None;
                }
                let name = value.start + 1..value.end - 1;
                let raw = &text[name.clone()];
                let header_differs = self
                    .header
                    .as_ref()
                    .is_some_and(|h| &text[h.clone()] != raw);
                if escaped
                    || raw.is_empty()
                    || raw.bytes().any(|c| c.is_ascii_whitespace())
                    || header_differs
                {
                    return Some(Step::Failed(value.start));
                }
                spans.name = name;
                None
            }
            Event::Done(end) => {
                if !(self.name_seen && self.args_seen) {
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

impl Inkling {
    /// Keeps `step` when it decides the call.
    fn decide(&mut self, step: Step) -> Step {
        if step != Step::Pending {
            self.decided = Some(step);
        }
        step
    }
}

impl Body for Inkling {
    fn in_parameter(&self) -> bool {
        matches!(self.state, State::Payload(_)) && self.member == Member::Args
    }

    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        if let Some(step) = self.decided {
            return Err(step);
        }
        let b = text.as_bytes();
        {
            match &mut self.state {
                State::Start => match starts_with(b, self.pos, MESSAGE_MODEL, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(true) => {
                        self.pos += MESSAGE_MODEL.len();
                        self.state = State::Header(self.pos);
                    }
                    Poll::Ready(false) => match starts_with(b, self.pos, INVOKE_TOOL_JSON, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(true) => self.state = State::Marker,
                        Poll::Ready(false) if b[self.pos] == b'<' => {
                            return Err(self.decide(Step::Failed(self.start)));
                        }
                        // A bare header: the prompt opened the message.
                        Poll::Ready(false) => self.state = State::Header(self.pos),
                    },
                },
                State::Header(from) => {
                    let from = *from;
                    let limit = (from + MAX_HEADER + 1).min(b.len());
                    let scan = self.pos;
                    let stop = b[scan..limit]
                        .iter()
                        .position(|&c| c == b'<' || c.is_ascii_whitespace() || c.is_ascii_control())
                        .map(|i| scan + i);
                    meter.read(scan, stop.map_or(limit, |s| s + 1));
                    match stop {
                        None if limit == from + MAX_HEADER + 1 => {
                            return Err(self.decide(Step::Failed(from)));
                        }
                        None => {
                            self.pos = limit;
                            return Err(Step::Pending);
                        }
                        Some(at) if b[at] != b'<' => return Err(self.decide(Step::Failed(at))),
                        Some(at) => {
                            if at > from {
                                self.header = Some(from..at);
                            }
                            self.pos = at;
                            self.state = State::Marker;
                        }
                    }
                }
                State::Marker => match starts_with(b, self.pos, INVOKE_TOOL_JSON, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(false) => return Err(self.decide(Step::Failed(self.pos))),
                    Poll::Ready(true) => {
                        self.pos += INVOKE_TOOL_JSON.len();
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
                        State::Payload(Reader::new(at, Mode::MEMBERS.stopping_at(END_MESSAGE)));
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
                    match starts_with(b, at, END_MESSAGE, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(true) => {
                            return Err(self.decide(Step::Done(at + END_MESSAGE.len())));
                        }
                        Poll::Ready(false) => self.state = State::EndSampling(at),
                    }
                }
                State::EndSampling(at) => {
                    let at = *at;
                    let step = match starts_with(b, at, END_SAMPLING, meter) {
                        Poll::Pending => Step::Pending,
                        Poll::Ready(true) => Step::Done(at + END_SAMPLING.len()),
                        Poll::Ready(false) => Step::Failed(at),
                    };
                    return Err(self.decide(step));
                }
            }
        }
        Ok(())
    }
}
