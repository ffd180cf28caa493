//! The dispatcher: the parser of one candidate call, which reads its head and hands the rest
//! to the grammar of its form.
//!
//! [`Parser`] is a small state machine over the reply. Each state either waits for more text
//! ([`Step::Pending`]) or moves on; it never goes back over bytes it has examined, except for a
//! bounded look at one tag. Tags are parsed by the nom productions in [`crate::tag`], once,
//! when [`crate::lex`] has found where they end. The families' bodies live in their own
//! modules: [`crate::invoke`] (Claude's `<invoke>` form, also written by MiniMax, DeepSeek,
//! StepFun and Grok), [`crate::kv`] (Qwen3-Coder's and GLM's key/value tags) and
//! [`crate::json_call`] (the forms whose arguments are one JSON object). The shared types are
//! in [`crate::grammar`].

use std::collections::HashSet;

use crate::grammar::{Args, Body, Call, Param, Spans, Start, Step, span};
use crate::invoke::Spelling;
use crate::lex::{Meter, Poll, TagEnd, skip_ws, starts_with};
use crate::registry::{Engine, Form};
use crate::vocab::{
    INVOKE, MINIMAX_PREFIX, NAME_ATTR, TOOL_CALL, dsml, grok, is_wrapper, qwen, step3,
};
use crate::{invoke, json_call, kv, tag};

#[derive(Debug, Clone)]
enum State {
    /// The first tag (or the lost-bracket / mid-tag head).
    Head(TagEnd),
    /// After a wrapper's opening tag: white space, then what the wrapper holds.
    AfterWrapper {
        pos: usize,
        tool_call: bool,
    },
    /// The `<invoke ...>` (or `<xai:function_call ...>`) tag after a wrapper.
    InvokeTag(TagEnd),
    Invoke(invoke::Invoke),
    KeyValue(kv::KeyValue),
    Json(json_call::JsonCall),
    /// A form whose registry row names its body.
    Body(Box<dyn Body>),
    Done(usize),
    Failed(usize),
}

/// The incremental parser of one candidate call.
#[derive(Debug, Clone)]
pub(crate) struct Parser {
    start: usize,
    /// Where the call element itself starts (after a wrapper).
    head: usize,
    how: Start,
    form: Form,
    /// The DSML sentinel of the call's tags, once its first named tag is read.
    spelling: Spelling,
    state: State,
    spans: Spans,
}

impl Parser {
    pub(crate) fn new(start: usize, how: Start) -> Self {
        let mut form = Form::CLAUDE;
        let state = match how {
            Start::Tag => State::Head(TagEnd::open(start)),
            Start::LostBracket | Start::MidTag => State::Head(TagEnd::headless(start)),
            Start::Token => State::Json(json_call::JsonCall::token(start)),
            Start::Body(f) => match f.row().engine {
                Engine::Body(body) => {
                    form = f;
                    State::Body((body.new)(start))
                }
                _ => State::Failed(start),
            },
        };
        Self {
            start,
            head: start,
            how,
            form,
            spelling: Spelling::Unknown,
            state,
            spans: Spans::default(),
        }
    }

    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// How the candidate started.
    pub(crate) fn how(&self) -> Start {
        self.how
    }

    /// The markup form read so far (final once the call is complete).
    pub(crate) fn form(&self) -> Form {
        self.form
    }

    /// Whether the parser is inside a parameter value.
    pub(crate) fn in_parameter(&self) -> bool {
        match &self.state {
            State::Invoke(b) => b.in_parameter(),
            State::KeyValue(b) => b.in_parameter(),
            State::Body(b) => b.in_parameter(),
            _ => false,
        }
    }

    /// Resumes parsing over `text` (the whole reply so far; it only ever grows), recording the
    /// bytes examined in `meter`. `Pending` at the end of the whole reply means the call is
    /// cut off.
    pub(crate) fn run(&mut self, text: &str, meter: &mut Meter) -> Step {
        let b = text.as_bytes();
        loop {
            let next = match &mut self.state {
                State::Done(end) => return Step::Done(*end),
                State::Failed(at) => return Step::Failed(*at),
                State::Invoke(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    return self.settle(step);
                }
                State::KeyValue(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    return self.settle(step);
                }
                State::Body(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    return self.settle(step);
                }
                State::Json(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    if let Some(form) = body.form() {
                        self.form = form;
                    }
                    match body.handoff() {
                        // Step-3's tokens are read: Claude's form follows.
                        Some(at) => {
                            self.head = at;
                            State::InvokeTag(TagEnd::open(at))
                        }
                        None => return self.settle(step),
                    }
                }
                State::Head(scan) => {
                    // Qwen3-Coder's `<function=name>` is not an XML tag: look for it first.
                    if self.how == Start::Tag {
                        match starts_with(b, self.start, qwen::FUNCTION_OPEN, meter) {
                            Poll::Pending => return Step::Pending,
                            Poll::Ready(true) => {
                                self.form = Form::QWEN3_CODER;
                                self.state = State::KeyValue(kv::KeyValue::new(
                                    Form::QWEN3_CODER,
                                    self.start,
                                ));
                                continue;
                            }
                            Poll::Ready(false) => {}
                        }
                    }
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => State::Failed(self.start),
                        Poll::Ready(Ok(end)) => {
                            meter.read(self.start, end);
                            self.head(text, end)
                        }
                    }
                }
                State::AfterWrapper { pos, tool_call } => {
                    let tool_call = *tool_call;
                    let Some(at) = skip_ws(b, pos, meter) else {
                        return Step::Pending;
                    };
                    self.head = at;
                    match b[at] {
                        b'<' => match starts_with(b, at, qwen::FUNCTION_OPEN, meter) {
                            Poll::Pending => return Step::Pending,
                            Poll::Ready(true) => {
                                self.form = Form::QWEN3_CODER;
                                State::KeyValue(kv::KeyValue::new(Form::QWEN3_CODER, at))
                            }
                            Poll::Ready(false) => State::InvokeTag(TagEnd::open(at)),
                        },
                        b'{' if tool_call => {
                            self.form = Form::HERMES;
                            State::Json(json_call::JsonCall::hermes(at))
                        }
                        c if tool_call && kv::starts_name(c) => {
                            self.form = Form::GLM;
                            State::KeyValue(kv::KeyValue::new(Form::GLM, at))
                        }
                        _ => State::Failed(at),
                    }
                }
                State::InvokeTag(scan) => {
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => State::Failed(at),
                        Poll::Ready(Ok(end)) => {
                            meter.read(at, end);
                            match tag::complete(tag::open, &text[at..end]) {
                                Some(open) => self.invoke_head(text, &open, at, end),
                                None => State::Failed(at),
                            }
                        }
                    }
                }
            };
            self.state = next;
        }
    }

    /// Records a body's final answer in the parser state.
    fn settle(&mut self, step: Step) -> Step {
        match step {
            Step::Done(end) => self.state = State::Done(end),
            Step::Failed(at) => self.state = State::Failed(at),
            Step::Pending => {}
        }
        step
    }

    /// The first tag has ended at `end`: what it starts.
    fn head(&mut self, text: &str, end: usize) -> State {
        let slice = &text[self.start..end];
        match self.how {
            Start::Tag => match tag::complete(tag::open, slice) {
                Some(open)
                    if is_wrapper(open.name.prefix, open.name.local) && !open.self_closing =>
                {
                    self.form = wrapper_form(&open.name);
                    self.spelling.admits(open.name.prefix);
                    State::AfterWrapper {
                        pos: end,
                        tool_call: open.name.local == TOOL_CALL && open.name.prefix.is_none(),
                    }
                }
                Some(open) => self.invoke_head(text, &open, self.start, end),
                None => State::Failed(self.start),
            },
            Start::LostBracket => match tag::complete(tag::bare_open, slice) {
                Some(open) if open.name.prefix.is_some() => {
                    self.invoke_head(text, &open, self.start, end)
                }
                _ => State::Failed(self.start),
            },
            Start::MidTag => match tag::complete(tag::mid_tag, slice) {
                Some(n) => {
                    self.spans.name = span(text, n);
                    State::Invoke(invoke::Invoke::new(
                        end,
                        invoke::Element::Invoke,
                        self.spelling,
                    ))
                }
                None => State::Failed(self.start),
            },
            Start::Token | Start::Body(_) => State::Failed(self.start),
        }
    }

    /// The call's own opening tag `text[at..end]`: `<invoke name=...>` in any namespace, or
    /// Grok's `<xai:function_call name=...>`.
    fn invoke_head(&mut self, text: &str, open: &tag::Open<'_>, at: usize, end: usize) -> State {
        let element = match (open.name.prefix, open.name.local) {
            (_, INVOKE) => invoke::Element::Invoke,
            (Some(grok::PREFIX), grok::ELEMENT) => invoke::Element::GrokFunctionCall,
            _ => return State::Failed(at),
        };
        // A wrapper and its call are written with one spelling.
        if !self.spelling.admits(open.name.prefix) {
            return State::Failed(at);
        }
        match open.attr(NAME_ATTR) {
            Some(n) if !open.self_closing && !n.trim().is_empty() => {
                self.spans.name = span(text, n);
                if self.form == Form::CLAUDE {
                    self.form = match (element, open.name.prefix) {
                        (invoke::Element::GrokFunctionCall, _) => Form::GROK,
                        (_, Some(p)) if dsml::is_sentinel(p) => Form::DEEPSEEK_DSML,
                        (_, Some(MINIMAX_PREFIX)) => Form::MINIMAX,
                        _ => Form::CLAUDE,
                    };
                }
                if self.form == Form::STEP3 && open.name.prefix != Some(step3::PREFIX) {
                    return State::Failed(at);
                }
                State::Invoke(invoke::Invoke::new(end, element, self.spelling))
            }
            _ => State::Failed(at),
        }
    }

    /// The call, once [`Parser::run`] answered `Done`: names and values as slices of `text`,
    /// a repeated parameter name keeping its first value.
    pub(crate) fn call<'a>(&self, text: &'a str, end: usize) -> Call<'a> {
        let args = match &self.spans.json {
            Some(r) => Args::Json(&text[r.clone()]),
            None => {
                // A later parameter with an earlier one's name is dropped. A few names are
                // compared with each other; many go through a set (linear in their number).
                let params = &self.spans.params;
                let mut seen: HashSet<&str> = HashSet::new();
                let first_of_name = |k: usize, name: &'a str, seen: &mut HashSet<&'a str>| {
                    if params.len() <= FEW_PARAMS {
                        params[..k].iter().all(|q| &text[q.name.clone()] != name)
                    } else {
                        seen.insert(name)
                    }
                };
                Args::Params(
                    params
                        .iter()
                        .enumerate()
                        .filter_map(|(k, p)| {
                            let name = &text[p.name.clone()];
                            first_of_name(k, name, &mut seen).then(|| Param {
                                name,
                                value: &text[p.value.clone()],
                                attrs: p
                                    .attrs
                                    .iter()
                                    .map(|(k, v)| (&text[k.clone()], &text[v.clone()]))
                                    .collect(),
                                kind: p.kind.clone(),
                            })
                        })
                        .collect(),
                )
            }
        };
        Call {
            form: self.form,
            name: text[self.spans.name.clone()].trim(),
            args,
            prose_end: self.start,
            start: self.start,
            head: self.head,
            end,
            residue: None,
        }
    }
}

/// Up to this many parameters, duplicate names are found by comparing each with the earlier
/// ones (at most 120 comparisons) instead of hashing.
const FEW_PARAMS: usize = 16;

/// The family a wrapper announces (`<minimax:tool_call>`, `<｜DSML｜function_calls>`); the call
/// inside may still say otherwise.
fn wrapper_form(name: &tag::Name<'_>) -> Form {
    match name.prefix {
        Some(MINIMAX_PREFIX) => Form::MINIMAX,
        Some(p) if dsml::is_sentinel(p) => Form::DEEPSEEK_DSML,
        _ => Form::CLAUDE,
    }
}
