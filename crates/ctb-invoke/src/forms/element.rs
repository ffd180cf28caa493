//! The Claude element family: a call element whose attribute names the tool, holding
//! `<parameter name>` children (and `<tool_args>`-style elements) up to its closing tag.
//!
//! ```text
//! <invoke name="NAME">                       Claude (any namespace prefix), MiniMax (inside
//!   <parameter name="K">value</parameter>    `<minimax:tool_call>`), DeepSeek's DSML (behind a
//! </invoke>                                  sentinel), StepFun (after its tokens)
//! <xai:function_call name="NAME">...</xai:function_call>     Grok
//! ```
//!
//! A form's [`Spec`] says its call element (its name, and the namespace prefixes that make an
//! element of that name this form's call), the attribute that names the tool, how the closing
//! tag is read (Grok's counts once its name is written: Grok often mangles the rest), which
//! children are parameters, and the slips of its models read through (a line that lost its
//! `<`, a reply that starts in the middle of the opening tag). The dispatcher
//! ([`crate::call`]) reads the opening tag, and any wrapper around it, and picks the form from
//! the rows; this body reads the rest.
//!
//! A value runs from its opening tag's `>` to the closing tag of its element that is followed
//! (after white space) by the next child or by the call's closing tag, and is kept byte for
//! byte; closings that belong to a call quoted inside the value (the call element at a line
//! start of the value) are skipped.
//!
//! DeepSeek's DSML tags carry a sentinel namespace written three ways (`｜DSML｜`, `｜｜DSML｜｜`,
//! `|DSML|`): one call keeps one spelling in every tag ([`Spelling`]), and a value wrapped in
//! CDATA is not its grammar (the call breaks).

use crate::grammar::{Body, RawParam, Spans, Step, ValueKind, settle, span};
use crate::lex::{Meter, NameEnd, NotATag, Poll, TagEnd, next_lt, skip_ws, starts_with};
use crate::tag::{self, Name};
use crate::vocab::{
    CDATA_OPEN, ELEMENT_PARAMS, INVOKE, MINIMAX_PREFIX, NAME_ATTR, PARAMETER, dsml, gemini, grok,
    step3,
};

/// How a form of the element family writes its call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The call element's local name.
    pub(crate) element: &'static str,
    /// The namespace prefixes that make an element of that name this form's call; `None`: any
    /// prefix, or none.
    pub(crate) prefixes: Option<&'static [&'static str]>,
    /// The attribute that names the tool.
    pub(crate) name_attr: &'static str,
    /// How the closing tag is read.
    pub(crate) closing: Closing,
    /// The child elements besides `<parameter name>` taken as a parameter named after the
    /// element (`<tool_args>{...}</tool_args>`).
    pub(crate) element_params: &'static [&'static str],
    /// A line that lost its `<` (`ns:invoke name="x">`) starts a call of this element.
    pub(crate) lost_bracket: bool,
    /// A reply that starts in the middle of the opening tag (`="x">`) starts a call of this
    /// element.
    pub(crate) mid_tag: bool,
}

/// How a call's closing tag is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closing {
    /// The closing tag of the call element, in any namespace that keeps the call's spelling,
    /// read to its `>`.
    Tag,
    /// This literal (`</`, the prefix and the name): whatever follows it (a `>`, a garbled
    /// quote, a line break), the call ends there (or just past a `>` right after it).
    Name(&'static str),
}

impl Spec {
    /// Whether an element with this prefix and local name is this form's call element, and
    /// how specifically: `Some(true)` when the spec names the prefix, `Some(false)` when it
    /// takes any.
    pub(crate) fn claims(&self, prefix: Option<&str>, local: &str) -> Option<bool> {
        if local != self.element {
            return None;
        }
        match self.prefixes {
            None => Some(false),
            Some(prefixes) => prefix.filter(|p| prefixes.contains(p)).map(|_| true),
        }
    }
}

/// Claude's call element: `<invoke name>` in any namespace (or none).
pub(crate) static CLAUDE: Spec = Spec {
    element: INVOKE,
    prefixes: None,
    name_attr: NAME_ATTR,
    closing: Closing::Tag,
    element_params: ELEMENT_PARAMS,
    lost_bracket: true,
    mid_tag: true,
};

/// MiniMax's: Claude's element, in its namespace (or any, inside its wrapper).
pub(crate) static MINIMAX: Spec = Spec {
    prefixes: Some(&[MINIMAX_PREFIX]),
    lost_bracket: false,
    mid_tag: false,
    ..CLAUDE
};

/// DeepSeek's DSML: Claude's element behind a sentinel namespace.
pub(crate) static DEEPSEEK_DSML: Spec = Spec {
    prefixes: Some(&dsml::SENTINELS),
    lost_bracket: false,
    mid_tag: false,
    ..CLAUDE
};

/// StepFun's Step-3: Claude's element in its namespace, after its tokens (the header's spec
/// hands over to it).
pub(crate) static STEP3: Spec = Spec {
    prefixes: Some(&[step3::PREFIX]),
    lost_bracket: false,
    mid_tag: false,
    ..CLAUDE
};

/// Gemini 3's `<call_record tool="NAME">`.
pub(crate) static GEMINI: Spec = Spec {
    element: gemini::CALL_RECORD,
    name_attr: gemini::TOOL_ATTR,
    lost_bracket: false,
    mid_tag: false,
    ..CLAUDE
};

/// Grok's `<xai:function_call name>`, whose closing tag counts once its name is written.
pub(crate) static GROK: Spec = Spec {
    element: grok::ELEMENT,
    prefixes: Some(&[grok::PREFIX]),
    closing: Closing::Name(grok::CLOSE),
    lost_bracket: false,
    mid_tag: false,
    ..CLAUDE
};

/// The DSML sentinel every tag of one call is written with: none (Claude's form and the forms
/// that share it, whose tags may mix namespace prefixes, but never a sentinel), one of
/// [`dsml::SENTINELS`], or not known yet (a reply that starts in the middle of the call's
/// opening tag: its first tag with a name tells).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    Unknown,
    Known(Option<&'static str>),
}

impl Spelling {
    /// Whether a tag with this prefix belongs to the call; the first one tells an unknown
    /// spelling.
    pub(crate) fn admits(&mut self, prefix: Option<&str>) -> bool {
        let sentinel = prefix.and_then(dsml::sentinel);
        match *self {
            Spelling::Unknown => {
                *self = Spelling::Known(sentinel);
                true
            }
            Spelling::Known(known) => known == sentinel,
        }
    }

    /// Whether the call is written in DSML.
    fn dsml(self) -> bool {
        matches!(self, Spelling::Known(Some(_)))
    }
}

/// A scan of the call's closing tag, for a spec.
fn closing(spec: &Spec, at: usize) -> CloseScan {
    match spec.closing {
        Closing::Tag => CloseScan::Tag(TagEnd::close(at)),
        Closing::Name(_) => CloseScan::Name(NameEnd::new(at + 2)),
    }
}

/// A scan of the call's closing tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CloseScan {
    Tag(TagEnd),
    Name(NameEnd),
}

impl CloseScan {
    /// `Ready(Some(end))` when the tag at `at` closes the call (ending at `end`),
    /// `Ready(None)` when it does not.
    fn poll(
        &mut self,
        spec: &Spec,
        text: &str,
        at: usize,
        spelling: &mut Spelling,
        meter: &mut Meter,
    ) -> Poll<Option<usize>> {
        let b = text.as_bytes();
        match self {
            CloseScan::Tag(scan) => match scan.poll(b, meter) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Ok(end)) => {
                    meter.read(at, end);
                    Poll::Ready(
                        tag::complete(tag::close, &text[at..end])
                            .filter(|n| n.local == spec.element && spelling.admits(n.prefix))
                            .map(|_| end),
                    )
                }
                Poll::Ready(Err(_)) => Poll::Ready(None),
            },
            CloseScan::Name(scan) => match (scan.poll(b, meter), spec.closing) {
                (Poll::Pending, _) => Poll::Pending,
                (Poll::Ready(Some(end)), Closing::Name(close)) if &text[at..end] == close => {
                    Poll::Ready(Some(if b[end] == b'>' { end + 1 } else { end }))
                }
                (Poll::Ready(_), _) => Poll::Ready(None),
            },
        }
    }
}

/// The body of one call, from just after its opening tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Call {
    spec: &'static Spec,
    /// The sentinel of the call's tags.
    spelling: Spelling,
    /// The next byte to examine.
    pos: usize,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Between children: white space, then a child's opening tag or the closing tag.
    Children,
    ChildTag(TagEnd),
    /// The call's closing tag, at this offset.
    Close(usize, CloseScan),
    /// Inside a value.
    Value(Value),
    /// Decided: every later step answers the same.
    Decided(Step),
}

/// Where a value's scan is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Value {
    /// The element the value belongs to (`parameter`, `tool_args`, ...).
    elem: &'static str,
    param: RawParam,
    /// Calls quoted inside the value that are open (the call element at a line start of the
    /// value).
    depth: usize,
    at: ValueAt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ValueAt {
    /// The start of a DSML value: white space, then the value's first byte, which must not
    /// open a CDATA section.
    Start,
    /// Looking for the next `<`.
    Scan,
    /// A `</` at this offset: is it a closing tag?
    Closing(TagEnd),
    /// A `<` at a line start: does it open a quoted call?
    QuotedOpen(NameEnd),
    /// After the element's closing tag (at `value_end`): white space, then the next child or
    /// the call's closing tag must follow for the value to end there.
    AfterClose {
        value_end: usize,
    },
    /// The next tag after that white space starts at this `<`.
    NextClosing {
        value_end: usize,
        scan: CloseScan,
    },
    NextOpen {
        value_end: usize,
        scan: NameEnd,
    },
}

enum ValueStep {
    Pending,
    /// The value ended; the next child (or the closing tag) starts at `next`.
    Ended {
        next: usize,
    },
    /// The value is not one the form writes (a DSML value wrapped in CDATA, at this offset).
    Failed(usize),
}

/// The call's opening tag `text[at..end]` (`open`, a call element of `spec`): its name
/// attribute names the tool (in `spans`); the body reads on from `end`. `Err(at)` when it
/// names none, is self-closing, or breaks the call's spelling.
pub(crate) fn open_call(
    spec: &'static Spec,
    text: &str,
    open: &tag::Open<'_>,
    (at, end): (usize, usize),
    mut spelling: Spelling,
    spans: &mut Spans,
) -> Result<Call, usize> {
    // A wrapper and its call are written with one spelling.
    if !spelling.admits(open.name.prefix) {
        return Err(at);
    }
    match open.attr(spec.name_attr) {
        Some(n) if !open.self_closing && !n.trim().is_empty() => {
            spans.name = span(text, n);
            Ok(Call::new(spec, end, spelling))
        }
        _ => Err(at),
    }
}

impl Call {
    /// A body that starts at `pos` (just after the call's opening tag), whose tags are
    /// written with `spelling`.
    pub(crate) fn new(spec: &'static Spec, pos: usize, spelling: Spelling) -> Self {
        Self {
            spec,
            spelling,
            pos,
            state: State::Children,
        }
    }

    /// A child's opening tag `text[at..end]`: a parameter.
    fn child(
        &mut self,
        text: &str,
        spans: &mut Spans,
        at: usize,
        end: usize,
    ) -> Result<State, Step> {
        let slice = &text[at..end];
        let Some(open) = tag::complete(tag::open, slice) else {
            return Err(Step::Failed(at));
        };
        if !self.spelling.admits(open.name.prefix) {
            return Err(Step::Failed(at));
        }
        let (pname, elem) = match open.name.local {
            PARAMETER => match open.attr(NAME_ATTR) {
                Some(n) => (n, PARAMETER),
                None => return Err(Step::Failed(at)),
            },
            other => match self.spec.element_params.iter().find(|e| **e == other) {
                Some(e) => (open.name.local, *e),
                None => return Err(Step::Failed(at)),
            },
        };
        let param = RawParam {
            name: span(text, pname),
            value: end..end,
            attrs: open
                .attrs
                .iter()
                .map(|(k, v)| (span(text, k), span(text, v)))
                .collect(),
            kind: ValueKind::Text,
        };
        if open.self_closing {
            spans.params.push(param);
            return Ok(State::Children);
        }
        Ok(State::Value(Value {
            elem,
            param,
            depth: 0,
            at: if self.spelling.dsml() {
                ValueAt::Start
            } else {
                ValueAt::Scan
            },
        }))
    }

    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match &mut self.state {
            State::Decided(step) => return Err(*step),
            State::Children => match skip_ws(b, &mut self.pos, meter) {
                None => return Err(Step::Pending),
                Some(at) if b[at] != b'<' => return Err(Step::Failed(at)),
                Some(at) => match b.get(at + 1) {
                    None => return Err(Step::Pending),
                    Some(b'/') => State::Close(at, closing(self.spec, at)),
                    Some(_) => State::ChildTag(TagEnd::open(at)),
                },
            },
            State::Close(at, scan) => {
                let at = *at;
                return Err(
                    match scan.poll(self.spec, text, at, &mut self.spelling, meter) {
                        Poll::Pending => Step::Pending,
                        Poll::Ready(Some(end)) => Step::Done(end),
                        Poll::Ready(None) => Step::Failed(at),
                    },
                );
            }
            State::ChildTag(scan) => {
                let at = scan.at();
                let end = match scan.poll(b, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(Ok(end)) => end,
                    Poll::Ready(Err(_)) => return Err(Step::Failed(at)),
                };
                meter.read(at, end);
                self.pos = end;
                self.child(text, spans, at, end)?
            }
            State::Value(v) => {
                match value_step(v, self.spec, &mut self.spelling, text, &mut self.pos, meter) {
                    ValueStep::Pending => return Err(Step::Pending),
                    ValueStep::Failed(at) => return Err(Step::Failed(at)),
                    ValueStep::Ended { next } => {
                        let State::Value(v) = std::mem::replace(&mut self.state, State::Children)
                        else {
                            unreachable!("in the value state")
                        };
                        spans.params.push(v.param);
                        self.pos = next;
                        State::Children
                    }
                }
            }
        })
    }
}

impl Body for Call {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }

    fn in_parameter(&self) -> bool {
        matches!(
            &self.state,
            State::Value(Value {
                at: ValueAt::Start | ValueAt::Scan | ValueAt::Closing(_) | ValueAt::QuotedOpen(_),
                ..
            })
        )
    }
}

/// Scans a value: up to the closing tag of its element that is followed by the next child or
/// by the call's closing tag, skipping closings that belong to a call quoted inside the value
/// (the call element at a line start of the value opens one).
fn value_step(
    v: &mut Value,
    spec: &Spec,
    spelling: &mut Spelling,
    text: &str,
    pos: &mut usize,
    meter: &mut Meter,
) -> ValueStep {
    let b = text.as_bytes();
    let value_start = v.param.value.start;
    loop {
        match &mut v.at {
            ValueAt::Start => {
                let Some(at) = skip_ws(b, pos, meter) else {
                    return ValueStep::Pending;
                };
                if b[at] == b'<' {
                    match starts_with(b, at, CDATA_OPEN, meter) {
                        Poll::Pending => return ValueStep::Pending,
                        Poll::Ready(true) => return ValueStep::Failed(at),
                        Poll::Ready(false) => {}
                    }
                }
                v.at = ValueAt::Scan;
            }
            ValueAt::Scan => {
                let Some(lt) = next_lt(b, pos, meter) else {
                    return ValueStep::Pending;
                };
                match b.get(lt + 1) {
                    None => return ValueStep::Pending,
                    Some(b'/') => v.at = ValueAt::Closing(TagEnd::close(lt)),
                    Some(_) if starts_line(b, value_start, lt) => {
                        v.at = ValueAt::QuotedOpen(NameEnd::new(lt + 1))
                    }
                    Some(_) => *pos = lt + 1,
                }
            }
            ValueAt::Closing(scan) => {
                let lt = scan.at();
                match scan.poll(b, meter) {
                    Poll::Pending => return ValueStep::Pending,
                    Poll::Ready(Err(NotATag::Lt(next))) => {
                        *pos = next;
                        v.at = ValueAt::Scan;
                    }
                    Poll::Ready(Err(NotATag::TooLong)) => {
                        *pos = lt + 1;
                        v.at = ValueAt::Scan;
                    }
                    Poll::Ready(Ok(end)) => {
                        meter.read(lt, end);
                        *pos = end;
                        v.at = ValueAt::Scan;
                        match tag::complete(tag::close, &text[lt..end]) {
                            Some(n)
                                if n.local == v.elem
                                    && v.depth == 0
                                    && spelling.admits(n.prefix) =>
                            {
                                v.at = ValueAt::AfterClose { value_end: lt };
                            }
                            Some(n) if n.local == spec.element => {
                                v.depth = v.depth.saturating_sub(1)
                            }
                            _ => {}
                        }
                    }
                }
            }
            ValueAt::QuotedOpen(scan) => match scan.poll(b, meter) {
                Poll::Pending => return ValueStep::Pending,
                Poll::Ready(end) => {
                    let lt = *pos;
                    if let Some(end) = end {
                        meter.read(lt, end + 1);
                        if opening_name(text, lt, end).is_some_and(|n| n.local == spec.element) {
                            v.depth += 1;
                        }
                    }
                    *pos = lt + 1;
                    v.at = ValueAt::Scan;
                }
            },
            ValueAt::AfterClose { value_end } => {
                let value_end = *value_end;
                let Some(at) = skip_ws(b, pos, meter) else {
                    return ValueStep::Pending;
                };
                v.at = if b[at] != b'<' {
                    ValueAt::Scan
                } else {
                    match b.get(at + 1) {
                        None => return ValueStep::Pending,
                        Some(b'/') => ValueAt::NextClosing {
                            value_end,
                            scan: closing(spec, at),
                        },
                        Some(_) => ValueAt::NextOpen {
                            value_end,
                            scan: NameEnd::new(at + 1),
                        },
                    }
                };
            }
            ValueAt::NextClosing { value_end, scan } => {
                let (value_end, at) = (*value_end, *pos);
                match scan.poll(spec, text, at, spelling, meter) {
                    Poll::Pending => return ValueStep::Pending,
                    Poll::Ready(end) => {
                        if end.is_some() {
                            v.param.value = value_start..value_end;
                            return ValueStep::Ended { next: at };
                        }
                        // Not the end of the value: go on from that `<`.
                        *pos = at;
                        v.at = ValueAt::Closing(TagEnd::close(at));
                    }
                }
            }
            ValueAt::NextOpen { value_end, scan } => {
                let value_end = *value_end;
                let at = *pos;
                match scan.poll(b, meter) {
                    Poll::Pending => return ValueStep::Pending,
                    Poll::Ready(end) => {
                        if let Some(end) = end {
                            meter.read(at, end + 1);
                        }
                        let follows = end.is_some_and(|end| {
                            opening_name(text, at, end).is_some_and(|n| {
                                starts_child(spec, n.local) && spelling.admits(n.prefix)
                            })
                        });
                        if follows {
                            v.param.value = value_start..value_end;
                            return ValueStep::Ended { next: at };
                        }
                        v.at = if starts_line(b, value_start, at) {
                            ValueAt::QuotedOpen(NameEnd::new(at + 1))
                        } else {
                            *pos = at + 1;
                            ValueAt::Scan
                        };
                    }
                }
            }
        }
    }
}

/// The name of the opening tag at `lt` whose name ends at `end` (where a white space, `>` or
/// `/` must stand).
fn opening_name(text: &str, lt: usize, end: usize) -> Option<Name<'_>> {
    let delimiter = *text.as_bytes().get(end)?;
    if !(delimiter.is_ascii_whitespace() || delimiter == b'>' || delimiter == b'/') {
        return None;
    }
    tag::complete(tag::open_name, &text[lt..=end])
}

/// Whether an opening tag with this local name starts the next child of the call.
fn starts_child(spec: &Spec, local: &str) -> bool {
    local == PARAMETER || spec.element_params.contains(&local)
}

/// Whether `at` starts a line of the value that starts at `value_start` (up to three spaces or
/// tabs of indent). Looks at no more than the four bytes before `at`.
pub(crate) fn starts_line(b: &[u8], value_start: usize, at: usize) -> bool {
    let from = at.saturating_sub(4).max(value_start);
    let head = &b[from..at];
    let indent = match head.iter().rposition(|&c| c == b'\n') {
        Some(nl) => &head[nl + 1..],
        None if at - value_start <= 3 => head,
        None => return false,
    };
    indent.iter().all(|&c| c == b' ' || c == b'\t')
}
