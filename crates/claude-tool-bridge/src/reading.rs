//! The one reading of a reply: what the grammar found in it, whether it is exactly a JSON
//! request, whether a JSON request surrounds the call. Computed once per reply and shared by
//! the two policies over it, [`crate::translate`] (stateless) and [`crate::Session`].

use std::cell::OnceCell;

use ctb_invoke::{Found, NoCall, Scanner};

use crate::Context;
use crate::request::{probe_requests, strict_request};

/// The most of a reply the bridge reads: a call must be complete within the first
/// `MAX_REPLY_BYTES` bytes (streamed or not), and a longer reply without one is left alone
/// as [`Reason::TooLarge`](crate::Reason::TooLarge). This is the hard cap on the work per
/// reply.
pub const MAX_REPLY_BYTES: usize = 4 << 20;

/// The part of `reply` the bridge reads: all of it, or its first [`MAX_REPLY_BYTES`] bytes.
pub(crate) fn window(reply: &str) -> &str {
    let mut end = reply.len().min(MAX_REPLY_BYTES);
    while !reply.is_char_boundary(end) {
        end -= 1;
    }
    &reply[..end]
}

/// What is known about one reply.
pub(crate) struct Reading<'a> {
    /// The reply.
    pub(crate) reply: &'a str,
    /// How much of it was read (see [`MAX_REPLY_BYTES`]).
    pub(crate) read: usize,
    /// What the grammar found in what was read.
    pub(crate) found: Found<'a>,
    /// The reply is exactly one strict JSON object that is a tool request (then nothing else
    /// was read: no line of strict JSON can start a call).
    pub(crate) exact_request: bool,
    /// The reply is one strict JSON value: whether it is a request (`None`: it is not).
    strict: Option<bool>,
    /// The scanner as it stood before the reply's end was taken as final, kept when asked
    /// for: a completion of the reply (the closer a stop cut off, written again) is read on
    /// from there instead of from the start.
    open: Option<Scanner>,
    /// Whether a JSON request surrounds the call (or, without a call, is in the reply),
    /// decided on first use.
    json: OnceCell<bool>,
    /// The reply ended inside reasoning ([`Scanner::ended_in_reasoning`]).
    pub(crate) ended_in_reasoning: bool,
}

impl<'a> Reading<'a> {
    /// Reads `reply` with `scanner` (fresh, or one that has read a prefix of `reply` while it
    /// streamed). With `keep_open`, the reading can be continued over a completion.
    pub(crate) fn new(reply: &'a str, mut scanner: Scanner, keep_open: bool) -> Self {
        let strict = if reply.len() <= MAX_REPLY_BYTES {
            strict_request(reply)
        } else {
            None
        };
        let mut reading = Self {
            reply,
            read: 0,
            found: Found::Nothing(NoCall::NoTags),
            exact_request: strict == Some(true),
            strict,
            open: None,
            json: OnceCell::new(),
            ended_in_reasoning: false,
        };
        if reading.exact_request {
            return reading;
        }
        let window = window(reply);
        reading.read = window.len();
        reading.found = if window.len() < reply.len() {
            // Cut at the cap, the text is a reply still arriving: nothing past the cap decides.
            scanner.advance(window)
        } else {
            if keep_open {
                let _ = scanner.advance(window);
                reading.open = Some(scanner.clone());
            }
            scanner.finish(window)
        };
        reading.ended_in_reasoning = scanner.ended_in_reasoning();
        reading
    }

    /// This reading with the call written as the last thing of a reasoning block, for a family
    /// whose models mean such a call ([`Context::call_ends_reasoning`]): when the reply holds
    /// no call of its own voice and ends with a reasoning closer right after a complete call
    /// (white space between), that call is the reply's. It must be the reasoning's only call
    /// read in its own voice: a scan that takes reasoning for prose finds it first, and it ends
    /// where the closer starts. Decided on the whole reply only.
    pub(crate) fn with_call_ending_reasoning(mut self, context: &Context) -> Self {
        if !context.call_ends_reasoning()
            || self.windowed()
            || self.exact_request
            || !matches!(self.found, Found::Nothing(NoCall::Quoted))
        {
            return self;
        }
        let Some(closer) = ctb_invoke::registry::reasoning_closer_ending(self.reply) else {
            return self;
        };
        let inside = &self.reply[..closer];
        let mut blind = Scanner::with_forms(context.forms).blind_to_reasoning();
        if let Found::Call(call) = blind.finish(inside) {
            if only_wrapper_closers(&inside[call.end..]) {
                self.found = Found::Call(call);
                self.ended_in_reasoning = false;
            }
        }
        self
    }

    /// The reading of `reply`, a text the stream stopped at, from what a streaming scanner
    /// found in it.
    pub(crate) fn found(reply: &'a str, found: Found<'a>) -> Self {
        let strict = strict_request(reply);
        Self {
            reply,
            read: reply.len(),
            found,
            exact_request: strict == Some(true),
            strict,
            open: None,
            json: OnceCell::new(),
            ended_in_reasoning: false,
        }
    }

    /// The reading of `completed`, this reply with a closing tag or token written after it,
    /// continued from where this reading stood (the reply is not read again). `None` when the
    /// reading was not kept open.
    pub(crate) fn completed<'b>(&self, completed: &'b str) -> Option<Reading<'b>> {
        let mut scanner = self.open.clone()?;
        if !completed.starts_with(self.reply) || completed.len() > MAX_REPLY_BYTES {
            return None;
        }
        let found = scanner.finish(completed);
        Some(Reading {
            reply: completed,
            read: completed.len(),
            found,
            exact_request: false,
            // Text ending in a closing tag is no strict JSON value.
            strict: None,
            open: None,
            json: OnceCell::new(),
            ended_in_reasoning: scanner.ended_in_reasoning(),
        })
    }

    /// Whether the reply is longer than what was read.
    pub(crate) fn windowed(&self) -> bool {
        self.read < self.reply.len()
    }

    /// Whether a JSON tool request surrounds the call, as Agent Zero's reader would find it
    /// (before it, after it, or enclosing it in a string), or, without a call, is anywhere in
    /// what was read. Decided once.
    pub(crate) fn json_request(&self) -> bool {
        *self.json.get_or_init(|| {
            if let Some(is_request) = self.strict {
                return is_request;
            }
            let read = &self.reply[..self.read];
            match &self.found {
                Found::Call(call) => probe_requests(read, call.start..call.end),
                _ => probe_requests(read, 0..0),
            }
        })
    }
}

/// Whether `tail` (what follows a call) holds nothing but white space and the closing tags of
/// wrappers (`</tool_call>`, `</function_calls>`, in any namespace).
fn only_wrapper_closers(tail: &str) -> bool {
    let mut rest = tail.trim();
    while let Some(tag) = rest.strip_prefix(ctb_invoke::vocab::END_TAG) {
        let Some(gt) = tag.find('>') else {
            return false;
        };
        let name = tag[..gt].trim();
        let local = name.rsplit(':').next().unwrap_or(name);
        if !ctb_invoke::vocab::WRAPPERS.contains(&local) {
            return false;
        }
        rest = tag[gt + 1..].trim_start();
    }
    rest.is_empty()
}
