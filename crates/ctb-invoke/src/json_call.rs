//! The forms whose arguments are one JSON object, and the token headers around calls:
//!
//! - Hermes: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` (the wrapper is read by
//!   the caller; this reads from the `{`);
//! - Kimi K2: `<|tool_calls_section_begin|>` `<|tool_call_begin|>functions.name:0`
//!   `<|tool_call_argument_begin|>{...}<|tool_call_end|>` (the section token is optional);
//! - DeepSeek V3: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name`, a
//!   ```` ```json ```` fence around the object, `<｜tool▁call▁end｜>`; V3.1 writes
//!   `name<｜tool▁sep｜>{...}` without `function` and without the fence;
//! - gpt-oss (harmony): `<|start|>assistant<|channel|>commentary to=functions.name
//!   <|constrain|>json<|message|>{...}<|call|>` (the `to=` may come before the channel, the
//!   content type may be ` json` or missing, and `<|end|>` may end the message in place of
//!   `<|call|>`); only the `commentary` channel carries calls;
//! - StepFun's Step-3 header (`<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>`),
//!   after which Claude's form follows (the caller parses it).
//!
//! A call is a small program of steps run over the text; every step is resumable. The JSON
//! object's end is found by counting brackets outside strings (the JSON reader read loosely,
//! [`Mode::BRACKETS`]), so a closing token written inside a string value does not end the
//! call.

use std::ops::Range;

use crate::grammar::{Body, Spans, Step, span};
use crate::json::{Event, Mode, Reader};
use crate::lex::{Meter, Poll, skip_ws, starts_with};
use crate::registry::Form;
use crate::vocab::{
    FUNCTION_WORD, FUNCTIONS_NS, JSON_FENCE, TOOL_CALL_CLOSE, deepseek, harmony, hermes, kimi,
    step3,
};

/// Longest name, or header before a name, read.
const MAX_NAME: usize = 256;

/// One step of a call's program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
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
    /// DeepSeek V3's name after `function<｜tool▁sep｜>`: up to the end of the line.
    NameToLineEnd,
    /// After DeepSeek's first name: `function` means V3, anything else is V3.1's tool name.
    DeepSeekBranch,
    /// harmony's header up to `<|message|>`: the `commentary` channel, the recipient
    /// `to=functions.name` once, and a JSON content type or none (see [`harmony_header`]).
    HarmonyHeader,
    /// The JSON arguments.
    Json,
    /// Hermes: the JSON object is the whole call (name and arguments inside).
    HermesJson,
    /// Claude's form starts here (Step-3).
    Handoff,
}

const HERMES: &[Op] = &[Op::HermesJson, Op::Ws, Op::Lit(TOOL_CALL_CLOSE)];
const KIMI_SECTION: &[Op] = &[Op::Lit(kimi::SECTION_BEGIN), Op::Ws];
const KIMI_CALL: &[Op] = &[
    Op::Lit(kimi::CALL_BEGIN),
    Op::Ws,
    Op::NameUntil(kimi::ARGUMENT_BEGIN),
    Op::Ws,
    Op::Json,
    Op::Ws,
    Op::Lit(kimi::CALL_END),
];
const DEEPSEEK_SECTION: &[Op] = &[Op::Lit(deepseek::CALLS_BEGIN), Op::Ws];
const DEEPSEEK_CALL: &[Op] = &[
    Op::Lit(deepseek::CALL_BEGIN),
    Op::Ws,
    Op::NameUntil(deepseek::SEP),
    Op::DeepSeekBranch,
];
const DEEPSEEK_V3: &[Op] = &[
    Op::NameToLineEnd,
    Op::Ws,
    Op::OptLit(JSON_FENCE),
    Op::OptLit("```"),
    Op::Ws,
    Op::Json,
    Op::Ws,
    Op::OptLit("```"),
    Op::Ws,
    Op::Lit(deepseek::CALL_END),
];
const DEEPSEEK_V31: &[Op] = &[Op::Ws, Op::Json, Op::Ws, Op::Lit(deepseek::CALL_END)];
const STEP3: &[Op] = &[
    Op::OptLit(step3::CALLS_BEGIN),
    Op::Ws,
    Op::Lit(step3::CALL_BEGIN),
    Op::Ws,
    Op::OptLit(FUNCTION_WORD),
    Op::Lit(step3::SEP),
    Op::Ws,
    Op::Handoff,
];
const HARMONY: &[Op] = &[
    Op::HarmonyHeader,
    Op::Ws,
    Op::Json,
    Op::Ws,
    Op::OneOf(&[harmony::CALL, harmony::END]),
];

/// A call in one of these forms, run step by step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonCall {
    form: Option<Form>,
    /// The program, then the one after it (DeepSeek's section is followed by a call).
    program: &'static [Op],
    then: &'static [Op],
    step: usize,
    pos: usize,
    /// A step's own progress: a JSON reading, or how far a name search has got.
    json: Option<Reader>,
    search: usize,
    /// Hermes: the object's `name` and arguments members (the first of each), and which one
    /// the member being read is.
    hermes: HermesMembers,
    /// Where the invoke tag starts, for Step-3.
    handoff: Option<usize>,
}

impl JsonCall {
    fn with(form: Form, program: &'static [Op], then: &'static [Op], pos: usize) -> Self {
        Self {
            form: Some(form),
            program,
            then,
            step: 0,
            pos,
            json: None,
            search: pos,
            hermes: HermesMembers::default(),
            handoff: None,
        }
    }

    /// A Hermes call whose object starts at `at`.
    pub(crate) fn hermes(at: usize) -> Self {
        Self::with(Form::HERMES, HERMES, &[], at)
    }

    /// A call that starts with a special token at `at` (which one is found on the first run).
    pub(crate) fn token(at: usize) -> Self {
        Self {
            form: None,
            program: &[],
            then: &[],
            step: 0,
            pos: at,
            json: None,
            search: at,
            hermes: HermesMembers::default(),
            handoff: None,
        }
    }

    /// The form, once known.
    pub(crate) fn form(&self) -> Option<Form> {
        self.form
    }

    /// For Step-3: where Claude's form starts, once the header is read.
    pub(crate) fn handoff(&self) -> Option<usize> {
        self.handoff
    }

    /// Which token starts the call at `self.pos`.
    fn detect(&mut self, b: &[u8], meter: &mut Meter) -> Poll<bool> {
        let starts: [(&str, Form, &'static [Op], &'static [Op]); 7] = [
            (kimi::SECTION_BEGIN, Form::KIMI, KIMI_SECTION, KIMI_CALL),
            (kimi::CALL_BEGIN, Form::KIMI, KIMI_CALL, &[]),
            (
                deepseek::CALLS_BEGIN,
                Form::DEEPSEEK,
                DEEPSEEK_SECTION,
                DEEPSEEK_CALL,
            ),
            (deepseek::CALL_BEGIN, Form::DEEPSEEK, DEEPSEEK_CALL, &[]),
            (step3::CALLS_BEGIN, Form::STEP3, STEP3, &[]),
            (step3::CALL_BEGIN, Form::STEP3, STEP3, &[]),
            (harmony::START, Form::HARMONY, HARMONY, &[]),
        ];
        let mut undecided = false;
        for (token, form, program, then) in starts {
            match starts_with(b, self.pos, token, meter) {
                Poll::Ready(true) => {
                    *self = Self::with(form, program, then, self.pos);
                    return Poll::Ready(true);
                }
                Poll::Pending => undecided = true,
                Poll::Ready(false) => {}
            }
        }
        match starts_with(b, self.pos, harmony::CHANNEL, meter) {
            Poll::Ready(true) => {
                *self = Self::with(Form::HARMONY, HARMONY, &[], self.pos);
                Poll::Ready(true)
            }
            Poll::Pending => Poll::Pending,
            Poll::Ready(false) if undecided => Poll::Pending,
            Poll::Ready(false) => Poll::Ready(false),
        }
    }

    /// Resumes the program over `text`.
    pub(crate) fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        let b = text.as_bytes();
        if self.form.is_none() {
            match self.detect(b, meter) {
                Poll::Pending => return Step::Pending,
                Poll::Ready(false) => return Step::Failed(self.pos),
                Poll::Ready(true) => {}
            }
        }
        loop {
            if self.step == self.program.len() {
                if self.then.is_empty() {
                    return Step::Done(self.pos);
                }
                self.program = std::mem::take(&mut self.then);
                self.step = 0;
            }
            match self.program[self.step] {
                Op::Ws => {
                    if skip_ws(b, &mut self.pos, meter).is_none() {
                        return Step::Pending;
                    }
                }
                Op::Lit(lit) => match starts_with(b, self.pos, lit, meter) {
                    Poll::Pending => return Step::Pending,
                    Poll::Ready(false) => return Step::Failed(self.pos),
                    Poll::Ready(true) => self.pos += lit.len(),
                },
                Op::OptLit(lit) => match starts_with(b, self.pos, lit, meter) {
                    Poll::Pending => return Step::Pending,
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
                        None if undecided => return Step::Pending,
                        None => return Step::Failed(self.pos),
                    }
                }
                Op::NameUntil(lit) => match self.find(b, lit, meter) {
                    Poll::Pending => return Step::Pending,
                    Poll::Ready(None) => return Step::Failed(self.pos),
                    Poll::Ready(Some(at)) => {
                        let Some(name) = tool_name(text, self.pos, at) else {
                            return Step::Failed(self.pos);
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
                            return Step::Failed(self.pos);
                        }
                        self.search = limit;
                        return Step::Pending;
                    };
                    let Some(name) = tool_name(text, self.pos, end) else {
                        return Step::Failed(self.pos);
                    };
                    spans.name = name;
                    self.pos = end;
                }
                Op::DeepSeekBranch => {
                    let v3 = &text[spans.name.clone()] == FUNCTION_WORD;
                    self.program = if v3 { DEEPSEEK_V3 } else { DEEPSEEK_V31 };
                    self.step = 0;
                    continue;
                }
                Op::HarmonyHeader => match self.find(b, harmony::MESSAGE, meter) {
                    Poll::Pending => return Step::Pending,
                    Poll::Ready(None) => return Step::Failed(self.pos),
                    Poll::Ready(Some(at)) => {
                        let Some(name) = harmony_header(text, self.pos, at) else {
                            return Step::Failed(self.pos);
                        };
                        spans.name = name;
                        self.pos = at + harmony::MESSAGE.len();
                    }
                },
                Op::Json | Op::HermesJson => {
                    let hermes = self.program[self.step] == Op::HermesJson;
                    let reader = match &mut self.json {
                        Some(reader) => reader,
                        None => match b.get(self.pos) {
                            None => return Step::Pending,
                            Some(b'{') => {
                                let mode = if hermes {
                                    Mode::BRACKETS.with_members()
                                } else {
                                    Mode::BRACKETS
                                };
                                self.json.insert(Reader::new(self.pos, mode))
                            }
                            Some(_) => return Step::Failed(self.pos),
                        },
                    };
                    let end = loop {
                        match reader.poll(b, false, meter) {
                            Poll::Pending => return Step::Pending,
                            Poll::Ready(Event::Done(end)) => break end,
                            Poll::Ready(Event::Invalid(at)) => return Step::Failed(at),
                            Poll::Ready(event) => self.hermes.read(text, event),
                        }
                    };
                    let start = self.pos;
                    self.json = None;
                    self.pos = end;
                    if hermes {
                        if !self.hermes.call(spans) {
                            return Step::Failed(start);
                        }
                    } else {
                        spans.json = Some(start..end);
                    }
                }
                Op::Handoff => {
                    self.handoff = Some(self.pos);
                    return Step::Pending;
                }
            }
            self.step += 1;
            self.search = self.pos;
        }
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

impl Body for JsonCall {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        Err(Body::run(self, text, spans, meter))
    }

    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        JsonCall::run(self, text, spans, meter)
    }
}

/// What a Hermes object's members hold: its `name` member names the tool and its `arguments`
/// (or `parameters`) member holds the arguments (an object, or a string holding one); the
/// first member of each counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct HermesMembers {
    /// The member being read: `Some(true)` the name, `Some(false)` the arguments.
    reading: Option<bool>,
    /// The first name member's value: the bytes between its quotes, when it is a string that
    /// names something (not blank, no escape); `Some(None)` when it is not.
    name: Option<Option<std::ops::Range<usize>>>,
    arguments: Option<std::ops::Range<usize>>,
}

impl HermesMembers {
    fn read(&mut self, text: &str, event: Event) {
        match event {
            Event::Key { key, .. } => {
                let key = &text[key];
                self.reading = if key == hermes::NAME && self.name.is_none() {
                    Some(true)
                } else if hermes::ARGUMENTS.contains(&key) && self.arguments.is_none() {
                    Some(false)
                } else {
                    None
                };
            }
            Event::Value { value, escaped } => match self.reading.take() {
                Some(true) => {
                    let b = text.as_bytes();
                    let string =
                        value.len() >= 2 && b[value.start] == b'"' && b[value.end - 1] == b'"';
                    let inner = value.start + 1..value.end - 1;
                    self.name = Some(
                        (string && !escaped && !text[inner.clone()].trim().is_empty())
                            .then_some(inner),
                    );
                }
                Some(false) => self.arguments = Some(value),
                None => {}
            },
            _ => {}
        }
    }

    /// The call's name and arguments into `spans`: `false` when it has no name.
    fn call(&mut self, spans: &mut Spans) -> bool {
        let Some(Some(name)) = self.name.take() else {
            return false;
        };
        spans.name = name;
        if let Some(args) = self.arguments.take() {
            spans.json = Some(args);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(at: usize) -> Box<dyn Body> {
        Box::new(JsonCall::token(at))
    }

    #[test]
    fn harmony_cases() {
        crate::forms::cases::run_file("harmony.txt", token);
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
            token,
        );
    }
}
