//! The body of a call in Claude's form: `<parameter name>` children (and `<tool_args>`-style
//! elements) up to `</invoke>`. MiniMax, DeepSeek (DSML), StepFun and Grok write the same form
//! (Grok's call element is `<xai:function_call>`, whose closing tag it often mangles).
//!
//! DeepSeek's DSML tags carry a sentinel namespace written three ways (`｜DSML｜`, `｜｜DSML｜｜`,
//! `|DSML|`): one call keeps one spelling in every tag ([`Spelling`]), and a value wrapped in
//! CDATA is not its grammar (the call breaks).

use crate::grammar::{Body, RawParam, Spans, Step, ValueKind, span};
use crate::lex::{Meter, NameEnd, NotATag, Poll, TagEnd, next_lt, skip_ws, starts_with};
use crate::tag::{self, Name};
use crate::vocab::{CDATA_OPEN, ELEMENT_PARAMS, INVOKE, NAME_ATTR, PARAMETER, dsml, grok};

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

/// The element that holds the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Element {
    /// `<invoke>`, in any namespace.
    Invoke,
    /// Grok's `<xai:function_call>`: its closing tag counts once its name is written, whatever
    /// follows (`</xai:function_call">`, `</xai:function_call` and a line break, a control
    /// token...).
    GrokFunctionCall,
}

impl Element {
    fn local(self) -> &'static str {
        match self {
            Element::Invoke => INVOKE,
            Element::GrokFunctionCall => grok::ELEMENT,
        }
    }

    /// A scan of the closing tag at `at` (its `</`): `</invoke ...>` is read to its `>`; for
    /// Grok's element the name is enough.
    fn closing(self, at: usize) -> Closing {
        match self {
            Element::Invoke => Closing::Tag(TagEnd::close(at)),
            Element::GrokFunctionCall => Closing::Name(NameEnd::new(at + 2)),
        }
    }
}

/// A scan of the call's closing tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    Tag(TagEnd),
    Name(NameEnd),
}

impl Closing {
    /// `Ready(Some(end))` when the tag at `at` closes the call (ending at `end`),
    /// `Ready(None)` when it does not.
    fn poll(
        &mut self,
        text: &str,
        at: usize,
        spelling: &mut Spelling,
        meter: &mut Meter,
    ) -> Poll<Option<usize>> {
        let b = text.as_bytes();
        match self {
            Closing::Tag(scan) => match scan.poll(b, meter) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Ok(end)) => {
                    meter.read(at, end);
                    Poll::Ready(
                        tag::complete(tag::close, &text[at..end])
                            .filter(|n| n.local == INVOKE && spelling.admits(n.prefix))
                            .map(|_| end),
                    )
                }
                Poll::Ready(Err(_)) => Poll::Ready(None),
            },
            Closing::Name(scan) => match scan.poll(b, meter) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Some(end)) if &text[at..end] == grok::CLOSE => {
                    Poll::Ready(Some(if b[end] == b'>' { end + 1 } else { end }))
                }
                Poll::Ready(_) => Poll::Ready(None),
            },
        }
    }
}

/// Where the body's scan is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invoke {
    element: Element,
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
    Close(usize, Closing),
    /// Inside a value.
    Value(Value),
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
        scan: Closing,
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

impl Invoke {
    /// A body that starts at `pos` (just after the call's opening tag), whose tags are
    /// written with `spelling`.
    pub(crate) fn new(pos: usize, element: Element, spelling: Spelling) -> Self {
        Self {
            element,
            spelling,
            pos,
            state: State::Children,
        }
    }

    /// A child's opening tag `text[at..end]`: a parameter.
    fn child(&mut self, text: &str, spans: &mut Spans, at: usize, end: usize) -> Child {
        let slice = &text[at..end];
        let Some(open) = tag::complete(tag::open, slice) else {
            return Child::Failed(at);
        };
        if !self.spelling.admits(open.name.prefix) {
            return Child::Failed(at);
        }
        let (pname, elem) = match open.name.local {
            PARAMETER => match open.attr(NAME_ATTR) {
                Some(n) => (n, PARAMETER),
                None => return Child::Failed(at),
            },
            other => match ELEMENT_PARAMS.iter().find(|e| **e == other) {
                Some(e) => (open.name.local, *e),
                None => return Child::Failed(at),
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
            return Child::Next(State::Children);
        }
        Child::Next(State::Value(Value {
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
}

/// What an opening tag between children is.
enum Child {
    Next(State),
    Failed(usize),
}

impl Body for Invoke {
    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        Err(Body::run(self, text, spans, meter))
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

    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        let b = text.as_bytes();
        loop {
            let next = match &mut self.state {
                State::Children => match skip_ws(b, &mut self.pos, meter) {
                    None => return Step::Pending,
                    Some(at) if b[at] != b'<' => return Step::Failed(at),
                    Some(at) => match b.get(at + 1) {
                        None => return Step::Pending,
                        Some(b'/') => State::Close(at, self.element.closing(at)),
                        Some(_) => State::ChildTag(TagEnd::open(at)),
                    },
                },
                State::Close(at, scan) => {
                    let at = *at;
                    return match scan.poll(text, at, &mut self.spelling, meter) {
                        Poll::Pending => Step::Pending,
                        Poll::Ready(Some(end)) => Step::Done(end),
                        Poll::Ready(None) => Step::Failed(at),
                    };
                }
                State::ChildTag(scan) => {
                    let at = scan.at();
                    let end = match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Ok(end)) => end,
                        Poll::Ready(Err(_)) => return Step::Failed(at),
                    };
                    meter.read(at, end);
                    self.pos = end;
                    match self.child(text, spans, at, end) {
                        Child::Next(state) => state,
                        Child::Failed(at) => return Step::Failed(at),
                    }
                }
                State::Value(v) => match value_step(
                    v,
                    self.element,
                    &mut self.spelling,
                    text,
                    &mut self.pos,
                    meter,
                ) {
                    ValueStep::Pending => return Step::Pending,
                    ValueStep::Failed(at) => return Step::Failed(at),
                    ValueStep::Ended { next } => {
                        let State::Value(v) = std::mem::replace(&mut self.state, State::Children)
                        else {
                            unreachable!("in the value state")
                        };
                        spans.params.push(v.param);
                        self.pos = next;
                        State::Children
                    }
                },
            };
            self.state = next;
        }
    }
}

/// Scans a value: up to the closing tag of its element that is followed by the next child or
/// by the call's closing tag, skipping closings that belong to a call quoted inside the value
/// (the call element at a line start of the value opens one).
fn value_step(
    v: &mut Value,
    element: Element,
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
                            Some(n) if n.local == element.local() => {
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
                        if opening_name(text, lt, end).is_some_and(|n| n.local == element.local()) {
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
                            scan: element.closing(at),
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
                match scan.poll(text, at, spelling, meter) {
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
                            opening_name(text, at, end)
                                .is_some_and(|n| starts_child(n.local) && spelling.admits(n.prefix))
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
fn starts_child(local: &str) -> bool {
    local == PARAMETER || ELEMENT_PARAMS.contains(&local)
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
