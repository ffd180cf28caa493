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
//!   <|constrain|>json<|message|>{...}<|call|>` (the `to=` may come before the channel);
//! - StepFun's Step-3 header (`<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>`),
//!   after which Claude's form follows (the caller parses it).
//!
//! A call is a small program of steps run over the text; every step is resumable. The JSON
//! object's end is found by counting brackets outside strings ([`JsonEnd`]), so a closing token
//! written inside a string value does not end the call.

use crate::grammar::{Spans, Step};
use crate::lex::{JsonEnd, Meter, Poll, json_members, skip_ws, starts_with};
use crate::registry::Form;
use crate::vocab::{
    FUNCTION_WORD, JSON_FENCE, TOOL_CALL_CLOSE, deepseek, harmony, hermes, kimi, step3,
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
    /// The tool name runs up to this literal (which is consumed).
    NameUntil(&'static str),
    /// DeepSeek V3's name after `function<｜tool▁sep｜>`: up to the end of the line.
    NameToLineEnd,
    /// After DeepSeek's first name: `function` means V3, anything else is V3.1's tool name.
    DeepSeekBranch,
    /// harmony's header up to `<|message|>`: it must hold `to=` and the tool name.
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
    Op::Lit(harmony::CALL),
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
    /// A step's own progress: a JSON scan, or how far a name search has got.
    json: Option<JsonEnd>,
    search: usize,
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
                        let Some(name) = harmony_name(text, self.pos, at) else {
                            return Step::Failed(self.pos);
                        };
                        spans.name = name;
                        self.pos = at + harmony::MESSAGE.len();
                    }
                },
                Op::Json | Op::HermesJson => {
                    let scan = match &mut self.json {
                        Some(scan) => scan,
                        None => match b.get(self.pos) {
                            None => return Step::Pending,
                            Some(b'{') => self.json.insert(JsonEnd::new(self.pos)),
                            Some(_) => return Step::Failed(self.pos),
                        },
                    };
                    let Poll::Ready(end) = scan.poll(b, meter) else {
                        return Step::Pending;
                    };
                    let start = self.pos;
                    self.json = None;
                    self.pos = end;
                    if self.program[self.step] == Op::HermesJson {
                        if !hermes(text, start..end, spans) {
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
    let raw = raw.strip_prefix("functions.").unwrap_or(raw);
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

/// The tool name in a harmony header (`... to=functions.name ...`).
fn harmony_name(text: &str, start: usize, end: usize) -> Option<std::ops::Range<usize>> {
    let header = &text[start..end];
    let at = header.find("to=")? + 3;
    let rest = &header[at..];
    let len = rest
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(rest.len());
    tool_name(text, start + at, start + at + len)
}

/// A Hermes object: its `name` member names the tool and its `arguments` (or `parameters`)
/// member holds the arguments (an object, or a string holding one).
fn hermes(text: &str, object: std::ops::Range<usize>, spans: &mut Spans) -> bool {
    let members = json_members(&text[object]);
    let span_of = |s: &str| {
        let at = s.as_ptr() as usize - text.as_ptr() as usize;
        at..at + s.len()
    };
    let Some((_, name)) = members.iter().find(|(k, _)| *k == hermes::NAME) else {
        return false;
    };
    let Some(inner) = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) else {
        return false;
    };
    if inner.trim().is_empty() || inner.contains('\\') {
        return false;
    }
    spans.name = span_of(inner);
    if let Some((_, args)) = members.iter().find(|(k, _)| hermes::ARGUMENTS.contains(k)) {
        spans.json = Some(span_of(args));
    }
    true
}
