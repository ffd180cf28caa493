//! One call, parsed incrementally: the public result types, and the parser that reads a
//! candidate's head and hands the rest to the grammar of its family.
//!
//! [`Parser`] is a small state machine over the reply. Each state either waits for more text
//! ([`Step::Pending`]) or moves on; it never goes back over bytes it has examined, except for a
//! bounded look at one tag. Tags are parsed by the nom productions in [`crate::tag`], once,
//! when [`crate::lex`] has found where they end. The families' bodies live in their own
//! modules: [`crate::invoke`] (Claude's `<invoke>` form, also written by MiniMax, DeepSeek,
//! StepFun and Grok), [`crate::qwen`], [`crate::glm`] and [`crate::json_call`] (the forms whose
//! arguments are one JSON object).

use std::collections::HashSet;
use std::ops::Range;

use crate::lex::{Meter, Poll, TagEnd, skip_ws, starts_with};
use crate::vocab::{INVOKE, is_wrapper};
use crate::{glm, invoke, json_call, qwen, tag};

/// The markup family a call is written in: which model family's native syntax the text uses.
/// Recognition is by the text, not by the model that wrote it (a DeepSeek model writing
/// Claude's form gives [`Family::Claude`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Family {
    /// `<invoke name>` with `<parameter name>` children, bare or namespace-prefixed, optionally
    /// in `<function_calls>`.
    Claude,
    /// The same form inside `<minimax:tool_call>`.
    MiniMax,
    /// The same form with DeepSeek's full-width namespace (`<｜DSML｜invoke>`).
    DeepSeekDsml,
    /// The same form after StepFun's tokens (`<steptml:invoke>`).
    Step3,
    /// Grok's `<xai:function_call name>` with `<parameter name>` children.
    Grok,
    /// Qwen3-Coder: `<function=name>` with `<parameter=key>` children.
    Qwen3Coder,
    /// GLM-4.5 to 4.7: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>`.
    Glm,
    /// Hermes-style `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    Hermes,
    /// Kimi K2's section tokens around `functions.name:0` and JSON arguments.
    Kimi,
    /// DeepSeek V3 / V3.1 tokens around a name and JSON arguments.
    DeepSeek,
    /// gpt-oss (harmony): `<|channel|>commentary to=functions.name ... <|message|>{json}<|call|>`.
    Harmony,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 11] = [
        Family::Claude,
        Family::MiniMax,
        Family::DeepSeekDsml,
        Family::Step3,
        Family::Grok,
        Family::Qwen3Coder,
        Family::Glm,
        Family::Hermes,
        Family::Kimi,
        Family::DeepSeek,
        Family::Harmony,
    ];

    /// A short snake_case name (`claude`, `minimax`, `deepseek_dsml`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Family::Claude => "claude",
            Family::MiniMax => "minimax",
            Family::DeepSeekDsml => "deepseek_dsml",
            Family::Step3 => "step3",
            Family::Grok => "grok",
            Family::Qwen3Coder => "qwen3_coder",
            Family::Glm => "glm",
            Family::Hermes => "hermes",
            Family::Kimi => "kimi",
            Family::DeepSeek => "deepseek",
            Family::Harmony => "harmony",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// A set of markup forms: the forms a reply is read for. A call written in a form outside the
/// set is a quotation (a Claude model quoting Qwen's documentation), not a call.
///
/// ```
/// use ctb_invoke::{Family, Forms};
/// let claude = Forms::of(&[Family::Claude]);
/// assert!(claude.contains(Family::Claude) && !claude.contains(Family::Hermes));
/// assert!(Forms::ALL.contains(Family::Harmony));
/// assert_eq!(claude.with(Family::Hermes).iter().count(), 2);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Forms(u32);

impl Forms {
    /// Every form.
    pub const ALL: Forms = Forms((1 << Family::ALL.len()) - 1);
    /// No form.
    pub const NONE: Forms = Forms(0);

    /// The set of `families`.
    pub const fn of(families: &[Family]) -> Forms {
        let mut bits = 0;
        let mut i = 0;
        while i < families.len() {
            bits |= 1 << families[i] as u32;
            i += 1;
        }
        Forms(bits)
    }

    /// Whether `family` is in the set.
    pub const fn contains(self, family: Family) -> bool {
        self.0 & (1 << family as u32) != 0
    }

    /// The set with `family` added.
    #[must_use]
    pub const fn with(self, family: Family) -> Forms {
        Forms(self.0 | 1 << family as u32)
    }

    /// The set with every form of `other` added.
    #[must_use]
    pub const fn union(self, other: Forms) -> Forms {
        Forms(self.0 | other.0)
    }

    /// The forms in the set, in [`Family::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Family> {
        Family::ALL.into_iter().filter(move |f| self.contains(*f))
    }
}

impl Default for Forms {
    /// Every form.
    fn default() -> Self {
        Forms::ALL
    }
}

impl std::fmt::Debug for Forms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// How a parameter's value is written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueKind {
    /// Text, as written: typed by the tool's schema (a string unless the schema says
    /// otherwise).
    #[default]
    Text,
    /// The form marks the value as JSON (a number, a boolean, an object...): where the schema
    /// gives no type, it is read as JSON.
    Json,
    /// JSON the grammar wrote from the form's own literal syntax (the value as written is not
    /// JSON): read as [`ValueKind::Json`] is.
    Converted(String),
}

/// One argument of a call, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param<'a> {
    /// The parameter's name (the `name` attribute, the `<parameter=key>` key, the
    /// `<arg_key>`, or the element name for `<tool_args>`-style children).
    pub name: &'a str,
    /// The value as written between its tags: byte for byte, except that Qwen3-Coder's form
    /// puts a line break after the opening and before the closing tag, and one of each is not
    /// part of the value.
    pub value: &'a str,
    /// Every attribute of the opening tag, `name` included, in order (DeepSeek adds
    /// `string="true"`); empty for the forms without attributes.
    pub attrs: Vec<(&'a str, &'a str)>,
    /// How the value is written.
    pub kind: ValueKind,
}

/// A call's arguments as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Args<'a> {
    /// One value per parameter, in the order written; a repeated name keeps its first value.
    Params(Vec<Param<'a>>),
    /// One JSON object, as written (not parsed).
    Json(&'a str),
}

/// The first complete, unquoted call of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<'a> {
    /// The markup family the call is written in.
    pub family: Family,
    /// The tool name as written.
    pub name: &'a str,
    /// The arguments.
    pub args: Args<'a>,
    /// End of the prose before the call: residue word and trailing white space excluded.
    pub prose_end: usize,
    /// Byte offset of the call's first byte (the wrapper tag or first token when there is
    /// one).
    pub start: usize,
    /// Byte offset of the call element's own first byte (`<invoke`, `<function=`, the JSON
    /// object of a Hermes call...): `start`, or the first byte after a wrapper's opening tag.
    pub head: usize,
    /// Byte offset just past the call's end (`</invoke>`, `</function>`, `</tool_call>`,
    /// `<|tool_call_end|>`, ...); a wrapper's closing tag, if any, is in the tail.
    pub end: usize,
    /// Byte range of a residue word (`court`, `call`, ...) between the prose and the call.
    pub residue: Option<Range<usize>>,
}

impl<'a> Call<'a> {
    /// The parameters (empty when the arguments are one JSON object).
    pub fn params(&self) -> &[Param<'a>] {
        match &self.args {
            Args::Params(p) => p,
            Args::Json(_) => &[],
        }
    }

    /// The value of the first parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&'a str> {
        self.params()
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value)
    }
}

/// How a candidate starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// At `<`: a wrapper, `<invoke`, `<xai:function_call`, `<function=`.
    Tag,
    /// A line that lost its `<` and starts with a prefixed `ns:invoke name=...>`.
    LostBracket,
    /// The reply starts mid-tag: `="tool">` or `name="tool">`.
    MidTag,
    /// At a model's special token (`<|tool_call_begin|>`, `<｜tool▁calls▁begin｜>`, ...).
    Token,
}

/// What one run of the parser decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The text ends before the call does.
    Pending,
    /// The call is complete and ends here.
    Done(usize),
    /// Not a call: the structure broke at this offset.
    Failed(usize),
}

/// A parameter as byte ranges of the reply (the parser outlives any one view of the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawParam {
    pub(crate) name: Range<usize>,
    pub(crate) value: Range<usize>,
    pub(crate) attrs: Vec<(Range<usize>, Range<usize>)>,
    pub(crate) kind: ValueKind,
}

/// What a call's body has read so far, as byte ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Spans {
    pub(crate) name: Range<usize>,
    pub(crate) params: Vec<RawParam>,
    /// The JSON arguments, for the forms that have them.
    pub(crate) json: Option<Range<usize>>,
}

/// One family's body: resumed over the text, it fills [`Spans`].
pub(crate) trait Body {
    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step;
    /// Whether the text ends inside a parameter value.
    fn in_parameter(&self) -> bool {
        false
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
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
    Qwen(qwen::Qwen),
    Glm(glm::Glm),
    Json(json_call::JsonCall),
    Done(usize),
    Failed(usize),
}

/// The incremental parser of one candidate call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parser {
    start: usize,
    /// Where the call element itself starts (after a wrapper).
    head: usize,
    how: Start,
    family: Family,
    state: State,
    spans: Spans,
}

/// Byte range of `sub` (a slice of `text`) within `text`.
pub(crate) fn span(text: &str, sub: &str) -> Range<usize> {
    let start = sub.as_ptr() as usize - text.as_ptr() as usize;
    start..start + sub.len()
}

impl Parser {
    pub(crate) fn new(start: usize, how: Start) -> Self {
        let state = match how {
            Start::Tag => State::Head(TagEnd::open(start)),
            Start::LostBracket | Start::MidTag => State::Head(TagEnd::headless(start)),
            Start::Token => State::Json(json_call::JsonCall::token(start)),
        };
        Self {
            start,
            head: start,
            how,
            family: Family::Claude,
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

    /// The markup family read so far (final once the call is complete).
    pub(crate) fn family(&self) -> Family {
        self.family
    }

    /// Whether the parser is inside a parameter value.
    pub(crate) fn in_parameter(&self) -> bool {
        match &self.state {
            State::Invoke(b) => b.in_parameter(),
            State::Qwen(b) => b.in_parameter(),
            State::Glm(b) => b.in_parameter(),
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
                State::Qwen(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    return self.settle(step);
                }
                State::Glm(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    return self.settle(step);
                }
                State::Json(body) => {
                    let step = body.run(text, &mut self.spans, meter);
                    if let Some(family) = body.family() {
                        self.family = family;
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
                                self.family = Family::Qwen3Coder;
                                self.state = State::Qwen(qwen::Qwen::new(self.start));
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
                                self.family = Family::Qwen3Coder;
                                State::Qwen(qwen::Qwen::new(at))
                            }
                            Poll::Ready(false) => State::InvokeTag(TagEnd::open(at)),
                        },
                        b'{' if tool_call => {
                            self.family = Family::Hermes;
                            State::Json(json_call::JsonCall::hermes(at))
                        }
                        c if tool_call && glm::starts_name(c) => {
                            self.family = Family::Glm;
                            State::Glm(glm::Glm::new(at))
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
                Some(open) if is_wrapper(open.name.local) && !open.self_closing => {
                    self.family = wrapper_family(&open.name);
                    State::AfterWrapper {
                        pos: end,
                        tool_call: open.name.local == "tool_call" && open.name.prefix.is_none(),
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
                    State::Invoke(invoke::Invoke::new(end, invoke::Element::Invoke))
                }
                None => State::Failed(self.start),
            },
            Start::Token => State::Failed(self.start),
        }
    }

    /// The call's own opening tag `text[at..end]`: `<invoke name=...>` in any namespace, or
    /// Grok's `<xai:function_call name=...>`.
    fn invoke_head(&mut self, text: &str, open: &tag::Open<'_>, at: usize, end: usize) -> State {
        let element = match (open.name.prefix, open.name.local) {
            (_, INVOKE) => invoke::Element::Invoke,
            (Some("xai"), "function_call") => invoke::Element::GrokFunctionCall,
            _ => return State::Failed(at),
        };
        match open.attr("name") {
            Some(n) if !open.self_closing && !n.trim().is_empty() => {
                self.spans.name = span(text, n);
                if self.family == Family::Claude {
                    self.family = match (element, open.name.prefix) {
                        (invoke::Element::GrokFunctionCall, _) => Family::Grok,
                        (_, Some(p)) if p.starts_with('\u{ff5c}') => Family::DeepSeekDsml,
                        (_, Some("minimax")) => Family::MiniMax,
                        _ => Family::Claude,
                    };
                }
                if self.family == Family::Step3 && open.name.prefix != Some("steptml") {
                    return State::Failed(at);
                }
                State::Invoke(invoke::Invoke::new(end, element))
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
            family: self.family,
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
fn wrapper_family(name: &tag::Name<'_>) -> Family {
    match name.prefix {
        Some("minimax") => Family::MiniMax,
        Some(p) if p.starts_with('\u{ff5c}') => Family::DeepSeekDsml,
        _ => Family::Claude,
    }
}
