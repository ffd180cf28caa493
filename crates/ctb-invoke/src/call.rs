//! The dispatcher: the parser of one candidate call. It finds the form the candidate is written
//! in from the registry's rows, and runs the body of that form's engine ([`crate::forms`]).
//!
//! A candidate starts where the scanner found one ([`Start`]):
//!
//! - at a literal opener: the form is the row that has it (the preferred one, when rows share
//!   it), and its body starts there;
//! - at `<` and an element name some row opens a call with: the tag is read (once its end has
//!   arrived, by the nom productions of [`crate::tag`]) and is either a **wrapper** of some
//!   rows (`<function_calls>`, `<tool_call>`, `<minimax:tool_call>`...), after which what
//!   follows picks the form among them ([`Lead`]: a call element, a literal such as
//!   `<function=`, a bare name, a JSON object), or a **call element** of the element family,
//!   whose row is the one that names its namespace prefix, else the one that takes any;
//! - on a line that lost its `<`, or a reply that starts in the middle of the opening tag: the
//!   call element of the row whose spec reads that slip.
//!
//! A wrapper whose row names its prefix (`<minimax:tool_call>`, `<｜DSML｜tool_calls>`) decides
//! the form of the call inside it. Where rows could read the same candidate, the forms the
//! reply is read for come first, in the registry's order, then the others (a call in a form not
//! read is still a complete call, which the scanner then skips as quoted). A candidate started
//! by a form's glued opener may only be in that form.
//!
//! The parser never goes back over bytes it has examined, except for a bounded look at one tag.

use std::collections::HashSet;

use crate::forms::element::{self, Spelling};
use crate::forms::{Ends, Lead, key_value};
use crate::grammar::{Args, Body, Call, Param, Spans, Start, Step, span};
use crate::lex::{Meter, Poll, TagEnd, skip_ws, starts_with};
use crate::registry::{FORMS, Form, FormRow, Forms, Opener};
use crate::structure::Marker;
use crate::tag;

/// Which rows a candidate may be in, and which come first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prefer {
    /// The forms the reply is read for: tried first.
    pub(crate) read: Forms,
    /// The only form the candidate may be in (it started at that form's glued opener).
    pub(crate) only: Option<Form>,
}

impl Prefer {
    /// Every form, in the registry's order.
    pub(crate) const ALL: Prefer = Prefer {
        read: Forms::ALL,
        only: None,
    };

    /// The rows, the preferred first.
    fn rows(self) -> impl Iterator<Item = &'static FormRow> {
        let Prefer { read, only } = self;
        let allowed = move |r: &&FormRow| only.is_none_or(|f| f == r.form);
        let first = FORMS
            .iter()
            .filter(move |r| read.contains(r.form))
            .filter(allowed);
        let then = FORMS
            .iter()
            .filter(move |r| !read.contains(r.form))
            .filter(allowed);
        first.chain(then)
    }
}

#[derive(Debug, Clone)]
enum State {
    /// The first tag (or the lost-bracket / mid-tag head).
    Head(TagEnd),
    /// After a wrapper's opening tag: white space, then what the wrapper holds. `rows`: the
    /// rows whose wrappers it is; `announced`: the form a wrapper with the row's own prefix
    /// decides.
    AfterWrapper {
        pos: usize,
        rows: Forms,
        announced: Option<Form>,
    },
    /// The opening tag of a call element after a wrapper.
    CallTag {
        scan: TagEnd,
        announced: Option<Form>,
    },
    /// The form's body.
    Body(Box<dyn Body>),
    /// Decided: every later run answers the same.
    Decided(Step),
}

/// The incremental parser of one candidate call.
#[derive(Debug, Clone)]
pub(crate) struct Parser {
    start: usize,
    /// Where the call element itself starts (after a wrapper).
    head: usize,
    how: Start,
    prefer: Prefer,
    /// The form, once known.
    form: Option<Form>,
    /// The DSML sentinel of the call's tags, once its first named tag is read.
    spelling: Spelling,
    state: State,
    spans: Spans,
}

impl Parser {
    pub(crate) fn new(start: usize, how: Start, prefer: Prefer) -> Self {
        let mut form = None;
        let state = match how {
            Start::Element => State::Head(TagEnd::open(start)),
            Start::LostBracket | Start::MidTag => State::Head(TagEnd::headless(start)),
            Start::Literal(lit) => {
                let row = prefer
                    .rows()
                    .find(|r| r.openers.iter().any(|o| o.literal() == Some(lit)));
                match row.and_then(|r| Some((r.form, r.engine.body(start, r.values)?))) {
                    Some((f, body)) => {
                        form = Some(f);
                        State::Body(body)
                    }
                    None => State::Decided(Step::Failed(start)),
                }
            }
        };
        Self {
            start,
            head: start,
            how,
            prefer,
            form,
            spelling: Spelling::Unknown,
            state,
            spans: Spans::default(),
        }
    }

    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// What the body has read so far.
    #[cfg(test)]
    pub(crate) fn spans(&self) -> &Spans {
        &self.spans
    }

    /// The markup form read so far (final once the call is complete).
    pub(crate) fn form(&self) -> Form {
        self.form.unwrap_or(Form::CLAUDE)
    }

    /// Whether the parser is inside a parameter value.
    pub(crate) fn in_parameter(&self) -> bool {
        match &self.state {
            State::Body(b) => b.in_parameter(),
            _ => false,
        }
    }

    /// Resumes parsing over `text` (the whole reply so far; it only ever grows), recording the
    /// bytes examined in `meter`. `Pending` at the end of the whole reply means the call is
    /// cut off.
    pub(crate) fn run(&mut self, text: &str, meter: &mut Meter) -> Step {
        loop {
            match self.next(text, meter) {
                Ok(next) => self.state = next,
                Err(Step::Pending) => return Step::Pending,
                Err(step) => {
                    self.state = State::Decided(step);
                    return step;
                }
            }
        }
    }

    fn next(&mut self, text: &str, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        Ok(match &mut self.state {
            State::Decided(step) => return Err(*step),
            State::Body(body) => {
                let step = body.run(text, &mut self.spans, meter);
                if let Some(head) = body.head() {
                    self.head = head;
                }
                return Err(step);
            }
            State::Head(scan) => match scan.poll(b, meter) {
                Poll::Pending => return Err(Step::Pending),
                Poll::Ready(Err(_)) => return Err(Step::Failed(self.start)),
                Poll::Ready(Ok(end)) => {
                    meter.read(self.start, end);
                    self.head(text, end)?
                }
            },
            State::AfterWrapper {
                pos,
                rows,
                announced,
            } => {
                let (rows, announced) = (*rows, *announced);
                let Some(at) = skip_ws(b, pos, meter) else {
                    return Err(Step::Pending);
                };
                self.head = at;
                self.after_wrapper(b, at, rows, announced, meter)?
            }
            State::CallTag { scan, announced } => {
                let (at, announced) = (scan.at(), *announced);
                match scan.poll(b, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(Err(_)) => return Err(Step::Failed(at)),
                    Poll::Ready(Ok(end)) => {
                        meter.read(at, end);
                        match tag::complete(tag::open, &text[at..end]) {
                            Some(open) => self.call_element(text, &open, (at, end), announced)?,
                            None => return Err(Step::Failed(at)),
                        }
                    }
                }
            }
        })
    }

    /// The first tag has ended at `end`: what it starts.
    fn head(&mut self, text: &str, end: usize) -> Result<State, Step> {
        let slice = &text[self.start..end];
        let failed = Err(Step::Failed(self.start));
        match self.how {
            Start::Element => {
                let Some(open) = tag::complete(tag::open, slice) else {
                    return failed;
                };
                let (prefix, local) = (open.name.prefix, open.name.local);
                let rows = self.wrapper_rows(prefix, local);
                if rows == Forms::NONE || open.self_closing {
                    return self.call_element(text, &open, (self.start, end), None);
                }
                self.spelling.admits(prefix);
                // A wrapper with its row's own prefix decides the form of the call inside.
                let announced = self
                    .prefer
                    .rows()
                    .filter(|r| rows.contains(r.form) && r.engine.element().is_some())
                    .find(|r| {
                        r.wrappers.iter().any(|w| {
                            matches!(w, Opener::Prefixed(..)) && w.is_element(prefix, local)
                        })
                    })
                    .map(|r| r.form);
                Ok(State::AfterWrapper {
                    pos: end,
                    rows,
                    announced,
                })
            }
            Start::LostBracket => match tag::complete(tag::bare_open, slice) {
                Some(open) if open.name.prefix.is_some() => {
                    self.call_element(text, &open, (self.start, end), None)
                }
                _ => failed,
            },
            Start::MidTag => {
                let row = self
                    .prefer
                    .rows()
                    .find(|r| r.engine.element().is_some_and(|s| s.mid_tag));
                match (tag::complete(tag::mid_tag, slice), row) {
                    (Some(n), Some(row)) => {
                        let spec = row.engine.element().unwrap_or(&element::CLAUDE);
                        self.spans.name = span(text, n);
                        self.form = Some(row.form);
                        Ok(State::Body(Box::new(element::Call::new(
                            spec,
                            end,
                            self.spelling,
                        ))))
                    }
                    _ => failed,
                }
            }
            Start::Literal(_) => failed,
        }
    }

    /// The rows whose wrappers an element with this prefix and name is.
    fn wrapper_rows(&self, prefix: Option<&str>, local: &str) -> Forms {
        self.prefer
            .rows()
            .filter(|r| r.wrappers.iter().any(|w| w.is_element(prefix, local)))
            .fold(Forms::NONE, |set, r| set.with(r.form))
    }

    /// After a wrapper of `rows`, the call starts at `at`: what starts there picks the form.
    fn after_wrapper(
        &mut self,
        b: &[u8],
        at: usize,
        rows: Forms,
        announced: Option<Form>,
        meter: &mut Meter,
    ) -> Result<State, Step> {
        let candidates = || self.prefer.rows().filter(move |r| rows.contains(r.form));
        let lead = match b[at] {
            b'<' => {
                // A literal lead (Qwen3-Coder's `<function=`) is checked before a tag is read.
                let mut tried: Vec<&str> = Vec::new();
                for row in candidates() {
                    let Lead::Literal(lit) = row.engine.lead() else {
                        continue;
                    };
                    if tried.contains(&lit) {
                        continue;
                    }
                    tried.push(lit);
                    match starts_with(b, at, lit, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(true) => return self.start_body(row, at),
                        Poll::Ready(false) => {}
                    }
                }
                return Ok(State::CallTag {
                    scan: TagEnd::open(at),
                    announced,
                });
            }
            b'{' => Lead::Object,
            c if key_value::starts_name(c) => Lead::Name,
            _ => return Err(Step::Failed(at)),
        };
        match candidates().find(|r| r.engine.lead() == lead) {
            Some(row) => self.start_body(row, at),
            None => Err(Step::Failed(at)),
        }
    }

    /// The call of `row` starts at `at`: its body.
    fn start_body(&mut self, row: &'static FormRow, at: usize) -> Result<State, Step> {
        match row.engine.body(at, row.values) {
            Some(body) => {
                self.form = Some(row.form);
                Ok(State::Body(body))
            }
            None => Err(Step::Failed(at)),
        }
    }

    /// The call element's opening tag `text[at..end]`: the row whose spec names its prefix,
    /// else the one that takes any (the form a wrapper `announced` wins).
    fn call_element(
        &mut self,
        text: &str,
        open: &tag::Open<'_>,
        (at, end): (usize, usize),
        announced: Option<Form>,
    ) -> Result<State, Step> {
        let (prefix, local) = (open.name.prefix, open.name.local);
        let claims = |specific: bool| {
            self.prefer.rows().find(|r| {
                r.engine
                    .element()
                    .is_some_and(|s| s.claims(prefix, local) == Some(specific))
            })
        };
        let Some(row) = claims(true).or_else(|| claims(false)) else {
            return Err(Step::Failed(at));
        };
        let spec = row.engine.element().unwrap_or(&element::CLAUDE);
        let call = element::open_call(spec, text, open, (at, end), self.spelling, &mut self.spans)
            .map_err(Step::Failed)?;
        self.form = Some(announced.unwrap_or(row.form));
        Ok(State::Body(Box::new(call)))
    }

    /// What delimits the text of this candidate, once it broke (the quotation rules read no
    /// call inside it), and the depth to start from (1 when its opening has no `<` to count).
    pub(crate) fn region(&self, text: &str) -> Option<(Marker, u32)> {
        match self.how {
            Start::Literal(_) => {
                let ends = self.form?.row().engine.ends();
                Some((
                    match ends {
                        Ends::Tokens(tokens) => Marker::Tokens(tokens),
                        Ends::Balanced(open, close) => Marker::Literal(open, close),
                        Ends::Element | Ends::None => return None,
                    },
                    0,
                ))
            }
            Start::LostBracket | Start::MidTag => {
                Some((Marker::Element(crate::registry::slip_element()?), 1))
            }
            Start::Element => {
                let local = text[self.start..]
                    .strip_prefix('<')
                    .and_then(|r| tag::name(r).ok())
                    .map(|(_, n)| n.local);
                let name = local
                    .and_then(crate::registry::element_name)
                    .or_else(crate::registry::slip_element)?;
                Some((Marker::Element(name), 0))
            }
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
            form: self.form(),
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
