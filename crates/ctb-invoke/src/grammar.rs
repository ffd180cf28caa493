//! The grammar's shared types: the public result ([`Call`], [`Param`], [`Args`], [`Form`],
//! [`Family`], [`ValueKind`]) and what every body of the grammar fills in and answers
//! ([`Body`], [`Spans`], [`RawParam`], [`Step`]), and how a form's values are cut
//! ([`Values`]). The dispatcher ([`crate::call`]), the bodies and the registry
//! ([`crate::registry`], which gives [`Form`] and [`Family`] their constants and rows) depend
//! on this module; it depends on none of them.

use std::fmt;
use std::ops::Range;

use crate::lex::Meter;

/// A model family: the models of one maker, picked by name patterns. Its constants and its
/// row are in [`crate::registry`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Family(pub(crate) u8);

/// A markup form: one syntax a call is written in. Its constants and its row are in
/// [`crate::registry`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Form(pub(crate) u8);

/// How a form's parameter values are cut from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Values {
    /// Byte for byte between the tags.
    AsWritten,
    /// Without one line break right after the opening tag and one right before the closing
    /// tag (Qwen3-Coder writes each value on lines of its own: `prompts/a.md` + newline +
    /// `</parameter>` is the path `prompts/a.md`).
    OneLineBreak,
    /// The arguments are one JSON object: no values to trim.
    Json,
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
    pub form: Form,
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
    /// At `<` and the name of an element some form's row opens a call with: a wrapper
    /// (`<function_calls>`, `<tool_call>`...) or a call element (`<invoke`,
    /// `<xai:function_call`).
    Element,
    /// A line that lost its `<` and starts with a prefixed call element (`ns:invoke name=...>`).
    LostBracket,
    /// The reply starts mid-tag: `="tool">` or `name="tool">`.
    MidTag,
    /// At this literal opener (a special token, `<function=`).
    Literal(&'static str),
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

/// One form's body: resumed over the text, it fills [`Spans`].
///
/// A body is a state machine stepped over the growing reply: each [`Body::step`] reads on from
/// where it stopped and answers `Ok(())` when it moved on, `Err(Step::Pending)` when the text
/// ends before the next decision, or `Err(Step::Done(end))` just past the call's end /
/// `Err(Step::Failed(at))` where the structure broke; once decided, every later step answers
/// the same. It keeps its state between runs, reads each byte a bounded number of times
/// (recording it in the [`Meter`]) and reads no byte past the one that decides. A form's
/// registry row names the engine whose body reads it; bodies are reached through
/// `Box<dyn Body>`.
pub(crate) trait Body: fmt::Debug + BoxedBody + Send + Sync {
    /// One step (see the trait's documentation).
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step>;

    /// Steps until the body waits for more text or has decided.
    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        loop {
            if let Err(step) = self.step(text, spans, meter) {
                return step;
            }
        }
    }

    /// Whether the text ends inside a parameter value.
    fn in_parameter(&self) -> bool {
        false
    }

    /// Where the call element starts, when a header before it is part of the call (Step-3's
    /// tokens before its `<steptml:invoke>`).
    fn head(&self) -> Option<usize> {
        None
    }
}

/// The step of a body written as `next`, the state after it: moves to it (`Ok`), or keeps a
/// decision in the state `decided` builds, so that every later step answers the same.
pub(crate) fn settle<S>(
    state: &mut S,
    next: Result<S, Step>,
    decided: fn(Step) -> S,
) -> Result<(), Step> {
    match next {
        Ok(next) => {
            *state = next;
            Ok(())
        }
        Err(Step::Pending) => Err(Step::Pending),
        Err(step) => {
            *state = decided(step);
            Err(step)
        }
    }
}

/// Cloning a boxed body (the scanner's state, bodies included, is cloned to fork a scan).
pub(crate) trait BoxedBody {
    fn boxed(&self) -> Box<dyn Body>;
}

impl<T: Body + Clone + 'static> BoxedBody for T {
    fn boxed(&self) -> Box<dyn Body> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Body> {
    fn clone(&self) -> Self {
        self.boxed()
    }
}

/// Byte range of `sub` (a slice of `text`) within `text`.
pub(crate) fn span(text: &str, sub: &str) -> Range<usize> {
    let start = sub.as_ptr() as usize - text.as_ptr() as usize;
    start..start + sub.len()
}
