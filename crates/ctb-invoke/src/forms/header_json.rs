//! Special tokens around a tool name, then the JSON arguments: a header names the tool, one
//! JSON object holds what it is called with.
//!
//! ```text
//! <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}<|tool_call_end|>
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{...}\n```<｜tool▁call▁end｜>
//! <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>
//! <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>
//! <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">...
//! ```
//!
//! Kimi K2 (the section token optional), DeepSeek V3 (a fenced object) and V3.1 (`NAME<｜tool▁sep｜>`
//! without `function` and without the fence), gpt-oss's harmony (the `to=` may come before the
//! channel, the content type may be ` json` or missing, `<|end|>` may end the message in place
//! of `<|call|>`; only the `commentary` channel carries calls), and StepFun's Step-3, whose
//! header hands over to the element family's call ([`super::element`]).
//!
//! A form's [`Spec`] is its program: a list of steps run over the text, every one resumable,
//! from the opener the scanner found; and the tokens that end the text of a candidate that
//! broke. The JSON object's end is found by counting brackets outside strings (the JSON reader
//! read loosely, [`Mode::BRACKETS`]), so a closing token written inside a string value does
//! not end the call; the object is read later by a tolerant reader.

use std::ops::Range;

use super::element;
use crate::grammar::{Body, Spans, Step, settle, span};
use crate::json::{Mode, Reader};
use crate::lex::{Meter, Poll, TagEnd, skip_ws, starts_with};
use crate::tag;
use crate::vocab::{FUNCTION_WORD, FUNCTIONS_NS, JSON_FENCE, deepseek, harmony, kimi, step3};

/// Longest name, or header before a name, read.
const MAX_NAME: usize = 256;

/// One step of a call's program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Skip white space.
    Ws,
    /// This literal must follow.
    Lit(&'static str),
    /// This literal may follow.
    OptLit(&'static str),
    /// One of these literals must follow (none a prefix of another).
    OneOf(&'static [&'static str]),
    /// The tool name runs up to this literal (which is consumed).
    NameUntil(&'static str),
    /// A name that runs to the end of the line (DeepSeek V3's, after `function<｜tool▁sep｜>`).
    NameToLineEnd,
    /// When the name read is this word, the program goes on with the first steps, else with
    /// the second (DeepSeek: `function` means V3, anything else is V3.1's tool name).
    IfName(&'static str, &'static [Op], &'static [Op]),
    /// harmony's header up to `<|message|>`: the `commentary` channel, the recipient
    /// `to=functions.name` once, and a JSON content type or none (see [`harmony_header`]).
    HarmonyHeader,
    /// The JSON arguments.
    Json,
    /// The call element of this spec follows: the element family reads the call (Step-3).
    Element(&'static element::Spec),
}

/// How a form writes its call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The steps, from the opener.
    pub(crate) program: &'static [Op],
    /// The tokens that end the text of a candidate that broke.
    pub(crate) ends: &'static [&'static str],
}

/// Kimi K2.
pub(crate) static KIMI: Spec = Spec {
    program: &[
        Op::OptLit(kimi::SECTION_BEGIN),
        Op::Ws,
        Op::Lit(kimi::CALL_BEGIN),
        Op::Ws,
        Op::NameUntil(kimi::ARGUMENT_BEGIN),
        Op::Ws,
        Op::Json,
        Op::Ws,
        Op::Lit(kimi::CALL_END),
    ],
    ends: &[kimi::CALL_END, kimi::SECTION_END],
};

/// DeepSeek V3 and V3.1.
pub(crate) static DEEPSEEK: Spec = Spec {
    program: &[
        Op::OptLit(deepseek::CALLS_BEGIN),
        Op::Ws,
        Op::Lit(deepseek::CALL_BEGIN),
        Op::Ws,
        Op::NameUntil(deepseek::SEP),
        Op::IfName(
            FUNCTION_WORD,
            &[
                Op::NameToLineEnd,
                Op::Ws,
                Op::OptLit(JSON_FENCE),
                Op::OptLit(deepseek::FENCE),
                Op::Ws,
                Op::Json,
                Op::Ws,
                Op::OptLit(deepseek::FENCE),
                Op::Ws,
                Op::Lit(deepseek::CALL_END),
            ],
            &[Op::Ws, Op::Json, Op::Ws, Op::Lit(deepseek::CALL_END)],
        ),
    ],
    ends: &[deepseek::CALL_END, deepseek::CALLS_END],
};

/// gpt-oss's harmony.
pub(crate) static HARMONY: Spec = Spec {
    program: &[
        Op::HarmonyHeader,
        Op::Ws,
        Op::Json,
        Op::Ws,
        Op::OneOf(&[harmony::CALL, harmony::END]),
    ],
    ends: &[harmony::CALL],
};

/// StepFun's Step-3: its header, then Claude's element in its namespace.
pub(crate) static STEP3: Spec = Spec {
    program: &[
        Op::OptLit(step3::CALLS_BEGIN),
        Op::Ws,
        Op::Lit(step3::CALL_BEGIN),
        Op::Ws,
        Op::OptLit(FUNCTION_WORD),
        Op::Lit(step3::SEP),
        Op::Ws,
        Op::Element(&element::STEP3),
    ],
    ends: &[step3::CALL_END, step3::CALLS_END],
};

/// The body of one call, run step by step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderJson {
    /// Where the call element starts, once the header hands over to it.
    head: Option<usize>,
    program: &'static [Op],
    step: usize,
    pos: usize,
    /// A step's own progress: a JSON reading, or how far a name search has got.
    json: Option<Reader>,
    search: usize,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Running the program.
    Program,
    /// The call element's opening tag, from this offset (Step-3).
    ElementTag(&'static element::Spec, TagEnd),
    /// The call element's body.
    Element(Box<element::Call>),
    /// Decided: every later step answers the same.
    Decided(Step),
}

impl HeaderJson {
    /// A call of `spec` whose opener is at `at`.
    pub(crate) fn new(spec: &'static Spec, at: usize) -> Self {
        Self {
            head: None,
            program: spec.program,
            step: 0,
            pos: at,
            json: None,
            search: at,
            state: State::Program,
        }
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        match &mut self.state {
            State::Decided(step) => return Err(*step),
            State::Program => {}
            State::ElementTag(spec, scan) => {
                let (spec, at) = (*spec, scan.at());
                let end = match scan.poll(b, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(Err(_)) => return Err(Step::Failed(at)),
                    Poll::Ready(Ok(end)) => end,
                };
                meter.read(at, end);
                let call = tag::complete(tag::open, &text[at..end])
                    .filter(|open| spec.claims(open.name.prefix, open.name.local).is_some())
                    .ok_or(Step::Failed(at))
                    .and_then(|open| {
                        element::open_call(
                            spec,
                            text,
                            &open,
                            (at, end),
                            element::Spelling::Unknown,
                            spans,
                        )
                        .map_err(Step::Failed)
                    })?;
                self.head = Some(at);
                return Ok(State::Element(Box::new(call)));
            }
            State::Element(_) => unreachable!("stepped in Body::step"),
        }
        if self.step == self.program.len() {
            return Err(Step::Done(self.pos));
        }
        match self.program[self.step] {
            Op::Ws => {
                if skip_ws(b, &mut self.pos, meter).is_none() {
                    return Err(Step::Pending);
                }
            }
            Op::Lit(lit) => match starts_with(b, self.pos, lit, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(false) => return Err(Step::Failed(self.pos)),
                Poll::Ready(true) => self.pos += lit.len(),
            },
            Op::OptLit(lit) => match starts_with(b, self.pos, lit, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(true) => self.pos += lit.len(),
                Poll::Ready(false) => {}
            },
            Op::OneOf(lits) => {
                let mut undecided = false;
                let mut found = None;
                for lit in lits {
                    match starts_with(b, self.pos, lit, meter) {
                        Poll::Pending => undecided = true,
                        Poll::Ready(true) => {
                            found = Some(lit.len());
                            break;
                        }
                        Poll::Ready(false) => {}
                    }
                }
                match found {
                    Some(len) => self.pos += len,
                    None if undecided => return Err(Step::Pending),
                    None => return Err(Step::Failed(self.pos)),
                }
            }
            Op::NameUntil(lit) => match self.find(b, lit, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(None) => return Err(Step::Failed(self.pos)),
                Poll::Ready(Some(at)) => {
                    let Some(name) = tool_name(text, self.pos, at) else {
                        return Err(Step::Failed(self.pos));
                    };
                    spans.name = name;
                    self.pos = at + lit.len();
                }
            },
            Op::NameToLineEnd => {
                let limit = (self.pos + MAX_NAME).min(b.len());
                let from = self.search.max(self.pos);
                let end = b[from..limit]
                    .iter()
                    .position(|&c| c == b'\n' || c == b'`' || c == b'{')
                    .map(|i| from + i);
                meter.read(from, end.map_or(limit, |e| e + 1));
                let Some(end) = end else {
                    if limit == self.pos + MAX_NAME {
                        return Err(Step::Failed(self.pos));
                    }
                    self.search = limit;
                    return Err(Step::Pending);
                };
                let Some(name) = tool_name(text, self.pos, end) else {
                    return Err(Step::Failed(self.pos));
                };
                spans.name = name;
                self.pos = end;
            }
            Op::IfName(word, then, otherwise) => {
                self.program = if text[spans.name.clone()] == *word {
                    then
                } else {
                    otherwise
                };
                self.step = 0;
                return Ok(State::Program);
            }
            Op::HarmonyHeader => match self.find(b, harmony::MESSAGE, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(None) => return Err(Step::Failed(self.pos)),
                Poll::Ready(Some(at)) => {
                    let Some(name) = harmony_header(text, self.pos, at) else {
                        return Err(Step::Failed(self.pos));
                    };
                    spans.name = name;
                    self.pos = at + harmony::MESSAGE.len();
                }
            },
            Op::Json => {
                let reader = match &mut self.json {
                    Some(reader) => reader,
                    None => match b.get(self.pos) {
                        None => return Err(Step::Pending),
                        Some(b'{') => self.json.insert(Reader::new(self.pos, Mode::BRACKETS)),
                        Some(_) => return Err(Step::Failed(self.pos)),
                    },
                };
                let end = match reader.poll_end(b, false, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(Ok(end)) => end,
                    Poll::Ready(Err(at)) => return Err(Step::Failed(at)),
                };
                spans.json = Some(self.pos..end);
                self.json = None;
                self.pos = end;
            }
            Op::Element(spec) => return Ok(State::ElementTag(spec, TagEnd::open(self.pos))),
        }
        self.step += 1;
        self.search = self.pos;
        Ok(State::Program)
    }

    /// The first `lit` at or after `self.pos`, within [`MAX_NAME`] bytes.
    fn find(&mut self, b: &[u8], lit: &str, meter: &mut Meter) -> Poll<Option<usize>> {
        let lit = lit.as_bytes();
        let limit = (self.pos + MAX_NAME + lit.len()).min(b.len());
        let from = self.search.max(self.pos);
        let found = memchr::memmem::find(&b[from..limit], lit).map(|i| from + i);
        meter.read(from, found.map_or(limit, |at| at + lit.len()));
        match found {
            Some(at) => Poll::Ready(Some(at)),
            None if limit == self.pos + MAX_NAME + lit.len() => Poll::Ready(None),
            None => {
                // Resume where a match could still start.
                self.search = limit.saturating_sub(lit.len() - 1).max(self.pos);
                Poll::Pending
            }
        }
    }
}

impl Body for HeaderJson {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = match &mut self.state {
            // The element family reads the call the header handed over.
            State::Element(call) => match call.step(text, spans, meter) {
                Ok(()) => return Ok(()),
                Err(Step::Pending) => return Err(Step::Pending),
                Err(step) => Err(step),
            },
            _ => self.next(text, spans, meter),
        };
        settle(&mut self.state, next, State::Decided)
    }

    fn in_parameter(&self) -> bool {
        matches!(&self.state, State::Element(call) if call.in_parameter())
    }

    fn head(&self) -> Option<usize> {
        self.head
    }
}

/// A tool name written as `functions.name:0` (Kimi) or plainly, trimmed: `None` when empty or
/// holding white space.
fn tool_name(text: &str, start: usize, end: usize) -> Option<std::ops::Range<usize>> {
    let raw = text[start..end].trim();
    let raw = raw.strip_prefix(FUNCTIONS_NS).unwrap_or(raw);
    let raw = match raw.rsplit_once(':') {
        Some((name, index)) if !index.is_empty() && index.bytes().all(|c| c.is_ascii_digit()) => {
            name
        }
        _ => raw,
    };
    if raw.is_empty() || raw.contains(char::is_whitespace) {
        return None;
    }
    let at = raw.as_ptr() as usize - text.as_ptr() as usize;
    Some(at..at + raw.len())
}

/// The tool name in a harmony header, `text[start..end]` (from `<|start|>` or `<|channel|>` up
/// to `<|message|>`):
///
/// ```text
/// [<|start|>assistant[ to=functions.NAME]]<|channel|>commentary[ to=functions.NAME][TYPE]
/// ```
///
/// with the recipient written once, in the role's header or the channel's, and the content
/// type `TYPE` one of `<|constrain|>json` (after white space or none) and ` json`, or none.
/// Any other role, channel, recipient or content type is not a call; white space may stand
/// between the parts.
fn harmony_header(text: &str, start: usize, end: usize) -> Option<Range<usize>> {
    let header = &text[start..end];
    let (in_role, rest) = match header.strip_prefix(harmony::START) {
        Some(role) => {
            let (to, rest) = recipient(text, role.strip_prefix(harmony::ROLE)?)?;
            (to, rest.trim_start().strip_prefix(harmony::CHANNEL)?)
        }
        None => (None, header.strip_prefix(harmony::CHANNEL)?),
    };
    let (in_channel, rest) = recipient(text, rest.strip_prefix(harmony::CALL_CHANNEL)?)?;
    let name = match (in_role, in_channel) {
        (Some(name), None) | (None, Some(name)) => name,
        _ => return None,
    };
    let content_type = rest.trim();
    let typed = content_type.is_empty()
        || content_type == harmony::CONSTRAIN_JSON
        || rest.starts_with(char::is_whitespace)
            && content_type == harmony::SPACE_JSON.trim_start();
    typed.then_some(name)
}

/// What follows a role's or a channel's name in a harmony header: its end (white space, a
/// token or the header's end), then maybe the recipient ` to=functions.NAME`. Answers the
/// tool name's range and the rest of the header; `None` when the word runs on (`commentaryx`),
/// the recipient is not a function (`to=browser.search`, `to=assistant`), or its name has
/// not a tool name's shape (`functions.read>{...}()`).
fn recipient<'a>(text: &'a str, after: &'a str) -> Option<(Option<Range<usize>>, &'a str)> {
    match after.chars().next() {
        None | Some('<') => return Some((None, after)),
        Some(c) if c.is_whitespace() => {}
        Some(_) => return None,
    }
    let Some(to) = after.trim_start().strip_prefix(harmony::RECIPIENT) else {
        return Some((None, after));
    };
    let function = to.strip_prefix(FUNCTIONS_NS)?;
    let len = function
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(function.len());
    let name = &function[..len];
    tool_name_shape(name).then(|| (Some(span(text, name)), &function[len..]))
}

/// Whether `name` has a tool name's shape: not empty, and none of the bytes that show JSON or
/// another part of the markup fused into it (`functions.read>{"path": ...}()`).
fn tool_name_shape(name: &str) -> bool {
    !name.is_empty() && !name.contains(['>', '{', '"', '('])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn harmony(at: usize) -> Box<dyn Body> {
        Box::new(HeaderJson::new(&HARMONY, at))
    }

    #[test]
    fn harmony_soup_keeps_the_streaming_contract() {
        let pieces = [
            "<|message|>{\"a\": 1}<|call|>",
            "<|message|>{}<|end|>",
            "<|channel|>",
            "analysis",
            " to=functions.g",
            ">{",
            "<|constrain|>json",
            " json",
            " ",
            "<|message|>",
            "{\"a\": \"<|end|>\"}",
            "}",
            "<|call|>",
            "<|end|>",
            "<|return|>",
        ];
        crate::forms::cases::run_soup(
            "<|start|>assistant<|channel|>commentary to=functions.f",
            &pieces,
            &harmony,
        );
    }
}
