//! One call: from its first tag (wrapper or `<invoke`) to its closing `</invoke>`, parsed
//! incrementally.
//!
//! [`Parser`] is a small state machine over the reply. Each state either waits for more text
//! ([`Step::Pending`]) or moves on; it never goes back over bytes it has examined, except for
//! a bounded look at one tag. The tags themselves are parsed by the nom productions in
//! [`crate::tag`], once, when [`crate::lex`] has found where they end.

use std::collections::HashSet;
use std::ops::Range;

use crate::lex::{Meter, NameEnd, NotATag, Poll, TagEnd, next_lt, skip_ws};
use crate::tag::{self, Name};
use crate::vocab::{ELEMENT_PARAMS, INVOKE, PARAMETER, is_wrapper};

/// One argument of a call, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param<'a> {
    /// The parameter's name (the `name` attribute, or the element name for `<tool_args>`-style
    /// children).
    pub name: &'a str,
    /// The value exactly as written between the opening tag's `>` and the closing tag.
    pub value: &'a str,
    /// Every attribute of the opening tag, `name` included, in order.
    pub attrs: Vec<(&'a str, &'a str)>,
}

/// The first complete, unquoted call of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<'a> {
    /// The tool name as written in the `name` attribute.
    pub name: &'a str,
    /// The arguments in the order written; a repeated name keeps only its first value.
    pub params: Vec<Param<'a>>,
    /// End of the prose before the call: residue word and trailing white space excluded.
    pub prose_end: usize,
    /// Byte offset of the call's first byte (the wrapper tag when there is one).
    pub start: usize,
    /// Byte offset just past `</invoke>` (a wrapper's closing tag, if any, is in the tail).
    pub end: usize,
    /// Byte range of a residue word (`court`, `call`, ...) between the prose and the call.
    pub residue: Option<Range<usize>>,
}

impl<'a> Call<'a> {
    /// The value of the first parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&'a str> {
        self.params.iter().find(|p| p.name == name).map(|p| p.value)
    }
}

/// How a candidate starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// At `<`: a wrapper or `<invoke`.
    Tag,
    /// A line that lost its `<` and starts with a prefixed `ns:invoke name=...>`.
    LostBracket,
    /// The reply starts mid-tag: `="tool">` or `name="tool">`.
    MidTag,
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
    name: Range<usize>,
    value: Range<usize>,
    attrs: Vec<(Range<usize>, Range<usize>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The first tag (wrapper or invoke; or the lost-bracket / mid-tag head).
    Head(TagEnd),
    /// After the wrapper's opening tag: white space, then `<invoke ...>`.
    AfterWrapper,
    InvokeTag(TagEnd),
    /// Between children: white space, then a child's opening tag or `</invoke>`.
    Children,
    ChildTag(TagEnd),
    /// Inside a value.
    Value(Value),
    Done(usize),
    Failed(usize),
}

/// Where a value's scan is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Value {
    /// The element the value belongs to (`parameter`, `tool_args`, ...).
    elem: &'static str,
    param: RawParam,
    /// Calls quoted inside the value that are open (`<invoke` at a line start of the value).
    depth: usize,
    at: ValueAt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ValueAt {
    /// Looking for the next `<`.
    Scan,
    /// A `</` at this offset: is it a closing tag?
    Closing(TagEnd),
    /// A `<` at a line start: does it open a quoted call?
    QuotedOpen(NameEnd),
    /// After the element's closing tag (at `value_end`): white space, then the next child or
    /// `</invoke>` must follow for the value to end there.
    AfterClose {
        value_end: usize,
    },
    /// The next tag after that white space starts at this `<`.
    NextClosing {
        value_end: usize,
        scan: TagEnd,
    },
    NextOpen {
        value_end: usize,
        scan: NameEnd,
    },
}

/// The incremental parser of one candidate call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parser {
    start: usize,
    how: Start,
    /// The next byte to examine.
    pos: usize,
    state: State,
    name: Range<usize>,
    params: Vec<RawParam>,
}

/// Byte range of `sub` (a slice of `text`) within `text`.
fn span(text: &str, sub: &str) -> Range<usize> {
    let start = sub.as_ptr() as usize - text.as_ptr() as usize;
    start..start + sub.len()
}

impl Parser {
    pub(crate) fn new(start: usize, how: Start) -> Self {
        let head = match how {
            Start::Tag => TagEnd::open(start),
            Start::LostBracket | Start::MidTag => TagEnd::headless(start),
        };
        Self {
            start,
            how,
            pos: start,
            state: State::Head(head),
            name: 0..0,
            params: Vec::new(),
        }
    }

    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// Whether the parser is inside a parameter value.
    pub(crate) fn in_parameter(&self) -> bool {
        matches!(
            &self.state,
            State::Value(Value {
                at: ValueAt::Scan | ValueAt::Closing(_) | ValueAt::QuotedOpen(_),
                ..
            })
        )
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
                State::Head(scan) => match scan.poll(b, meter) {
                    Poll::Pending => return Step::Pending,
                    Poll::Ready(Err(_)) => State::Failed(self.start),
                    Poll::Ready(Ok(end)) => {
                        meter.read(self.start, end);
                        self.pos = end;
                        self.head(text, end)
                    }
                },
                State::AfterWrapper => match skip_ws(b, &mut self.pos, meter) {
                    None => return Step::Pending,
                    Some(at) if b[at] == b'<' => State::InvokeTag(TagEnd::open(at)),
                    Some(at) => State::Failed(at),
                },
                State::InvokeTag(scan) => {
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => State::Failed(at),
                        Poll::Ready(Ok(end)) => {
                            meter.read(at, end);
                            self.pos = end;
                            match tag::complete(tag::open, &text[at..end]) {
                                Some(open) => match invoke_name(&open) {
                                    Some(n) => {
                                        self.name = span(text, n);
                                        State::Children
                                    }
                                    None => State::Failed(at),
                                },
                                None => State::Failed(at),
                            }
                        }
                    }
                }
                State::Children => match skip_ws(b, &mut self.pos, meter) {
                    None => return Step::Pending,
                    Some(at) if b[at] != b'<' => State::Failed(at),
                    Some(at) => match b.get(at + 1) {
                        None => return Step::Pending,
                        Some(b'/') => State::ChildTag(TagEnd::close(at)),
                        Some(_) => State::ChildTag(TagEnd::open(at)),
                    },
                },
                State::ChildTag(scan) => {
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => State::Failed(at),
                        Poll::Ready(Ok(end)) => {
                            meter.read(at, end);
                            self.pos = end;
                            self.child(text, at, end)
                        }
                    }
                }
                State::Value(v) => match value_step(v, text, &mut self.pos, meter) {
                    ValueStep::Pending => return Step::Pending,
                    ValueStep::Ended { next } => {
                        let State::Value(v) = std::mem::replace(&mut self.state, State::Children)
                        else {
                            unreachable!("in the value state")
                        };
                        self.params.push(v.param);
                        self.pos = next;
                        State::Children
                    }
                },
            };
            self.state = next;
        }
    }

    /// The first tag has ended at `end`: what it starts.
    fn head(&mut self, text: &str, end: usize) -> State {
        let slice = &text[self.start..end];
        match self.how {
            Start::Tag => match tag::complete(tag::open, slice) {
                Some(open) if is_wrapper(open.name.local) && !open.self_closing => {
                    State::AfterWrapper
                }
                Some(open) => match invoke_name(&open) {
                    Some(n) => {
                        self.name = span(text, n);
                        State::Children
                    }
                    None => State::Failed(self.start),
                },
                None => State::Failed(self.start),
            },
            Start::LostBracket => match tag::complete(tag::bare_open, slice) {
                Some(open) if open.name.prefix.is_some() => match invoke_name(&open) {
                    Some(n) => {
                        self.name = span(text, n);
                        State::Children
                    }
                    None => State::Failed(self.start),
                },
                _ => State::Failed(self.start),
            },
            Start::MidTag => match tag::complete(tag::mid_tag, slice) {
                Some(n) => {
                    self.name = span(text, n);
                    State::Children
                }
                None => State::Failed(self.start),
            },
        }
    }

    /// A child tag `text[at..end]` (between children): the end of the call, or a parameter.
    fn child(&mut self, text: &str, at: usize, end: usize) -> State {
        let slice = &text[at..end];
        if slice.starts_with("</") {
            return match tag::complete(tag::close, slice) {
                Some(n) if n.local == INVOKE => State::Done(end),
                _ => State::Failed(at),
            };
        }
        let Some(open) = tag::complete(tag::open, slice) else {
            return State::Failed(at);
        };
        let (pname, elem) = match open.name.local {
            PARAMETER => match open.attr("name") {
                Some(n) => (n, PARAMETER),
                None => return State::Failed(at),
            },
            other => match ELEMENT_PARAMS.iter().find(|e| **e == other) {
                Some(e) => (open.name.local, *e),
                None => return State::Failed(at),
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
        };
        if open.self_closing {
            self.params.push(param);
            return State::Children;
        }
        State::Value(Value {
            elem,
            param,
            depth: 0,
            at: ValueAt::Scan,
        })
    }

    /// The call, once [`Parser::run`] answered `Done`: names and values as slices of `text`,
    /// a repeated parameter name keeping its first value.
    pub(crate) fn call<'a>(&self, text: &'a str, end: usize) -> Call<'a> {
        let mut seen: HashSet<&str> = HashSet::with_capacity(self.params.len());
        let params = self
            .params
            .iter()
            .filter_map(|p| {
                let name = &text[p.name.clone()];
                seen.insert(name).then(|| Param {
                    name,
                    value: &text[p.value.clone()],
                    attrs: p
                        .attrs
                        .iter()
                        .map(|(k, v)| (&text[k.clone()], &text[v.clone()]))
                        .collect(),
                })
            })
            .collect();
        Call {
            name: text[self.name.clone()].trim(),
            params,
            prose_end: self.start,
            start: self.start,
            end,
            residue: None,
        }
    }
}

/// The tool name of an `<invoke>` opening tag.
fn invoke_name<'a>(open: &tag::Open<'a>) -> Option<&'a str> {
    match open.attr("name") {
        Some(n) if open.name.local == INVOKE && !open.self_closing && !n.trim().is_empty() => {
            Some(n)
        }
        _ => None,
    }
}

enum ValueStep {
    Pending,
    /// The value ended; the next child (or `</invoke>`) starts at `next`.
    Ended {
        next: usize,
    },
}

/// Scans a value: up to the closing tag of its element that is followed by the next child or
/// by `</invoke>`, skipping closings that belong to a call quoted inside the value (an
/// `<invoke` that starts a line of the value opens one).
fn value_step(v: &mut Value, text: &str, pos: &mut usize, meter: &mut Meter) -> ValueStep {
    let b = text.as_bytes();
    let value_start = v.param.value.start;
    loop {
        match &mut v.at {
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
                            Some(n) if n.local == v.elem && v.depth == 0 => {
                                v.at = ValueAt::AfterClose { value_end: lt };
                            }
                            Some(n) if n.local == INVOKE => v.depth = v.depth.saturating_sub(1),
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
                        if opening_name(text, lt, end).is_some_and(|n| n.local == INVOKE) {
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
                            scan: TagEnd::close(at),
                        },
                        Some(_) => ValueAt::NextOpen {
                            value_end,
                            scan: NameEnd::new(at + 1),
                        },
                    }
                };
            }
            ValueAt::NextClosing { value_end, scan } => {
                let (value_end, at) = (*value_end, scan.at());
                match scan.poll(b, meter) {
                    Poll::Pending => return ValueStep::Pending,
                    Poll::Ready(r) => {
                        if let Ok(end) = r {
                            meter.read(at, end);
                        }
                        let follows = r.is_ok_and(|end| {
                            tag::complete(tag::close, &text[at..end])
                                .is_some_and(|n| n.local == INVOKE)
                        });
                        if follows {
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
                            opening_name(text, at, end).is_some_and(|n| starts_child(n.local))
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

/// Whether an opening tag with this local name starts the next child of `<invoke>`.
fn starts_child(local: &str) -> bool {
    local == PARAMETER || ELEMENT_PARAMS.contains(&local)
}

/// Whether `at` starts a line of the value that starts at `value_start` (up to three spaces or
/// tabs of indent). Looks at no more than the four bytes before `at`.
fn starts_line(b: &[u8], value_start: usize, at: usize) -> bool {
    let from = at.saturating_sub(4).max(value_start);
    let head = &b[from..at];
    let indent = match head.iter().rposition(|&c| c == b'\n') {
        Some(nl) => &head[nl + 1..],
        None if at - value_start <= 3 => head,
        None => return false,
    };
    indent.iter().all(|&c| c == b' ' || c == b'\t')
}
