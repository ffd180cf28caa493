//! The key/value forms: a call whose tool name and parameter keys are carried by literal tags
//! rather than by attributes, one engine for every such form, driven by a [`Spec`]:
//!
//! - Qwen3-Coder: `<function=name>`, then `<parameter=key>value</parameter>` children, then
//!   `</function>`; each value usually sits on lines of its own, and one line break after the
//!   opening and one before the closing tag belong to the form ([`Values::OneLineBreak`]);
//! - GLM-4.5 to 4.7: `<tool_call>name` (the name runs to the first line break or `<` and holds
//!   no white space, so prose after a `<tool_call>` tag is not a name), then
//!   `<arg_key>key</arg_key>` and `<arg_value>value</arg_value>` pairs, then `</tool_call>`;
//!   GLM-4.5 puts line breaks between the parts, GLM-4.7 none. A key without its value breaks
//!   the call.
//!
//! A value ends at its closing literal when the next key's opening literal or the call's
//! closing literal follows it (after white space), so a value may contain its own closing
//! literal.

use crate::grammar::{Body, RawParam, Spans, Step, ValueKind};
use crate::lex::{Child, Meter, Poll, TagEnd, ValueEnd, next_child, next_lt, skip_ws, starts_with};
use crate::registry::{Head, Key, Spec, Values};

/// Longest tool name or key read.
const MAX_NAME: usize = 256;

/// Whether `c` can start a bare tool name right after `<tool_call>`.
pub(crate) fn starts_name(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// A key/value call being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyValue {
    spec: &'static Spec,
    pos: usize,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The name inside the opening tag.
    HeadTag(TagEnd),
    /// The bare name, from this offset.
    HeadName(usize),
    /// Between children: a key's opening or the call's closing.
    Children,
    /// A key inside a parameter tag.
    KeyTag(TagEnd),
    /// A key in its own element, from this offset.
    KeyElement(usize),
    /// After a key's element: white space, then the value's opening.
    BeforeValue(RawParam),
    /// A value.
    Value { param: RawParam, at: ValueEnd },
}

impl KeyValue {
    /// A call of `form` (a key/value form of the registry) whose head starts at `at` (the
    /// `<function=`, or the first byte of a bare name).
    pub(crate) fn new(form: crate::registry::Form, at: usize) -> Self {
        let spec = match form.row().engine {
            crate::registry::Engine::KeyValue(spec) => spec,
            _ => unreachable!("{form} is not a key/value form"),
        };
        let state = match spec.head {
            Head::Tag(_) => State::HeadTag(TagEnd::open(at)),
            Head::Bare => State::HeadName(at),
        };
        Self {
            spec,
            pos: at,
            state,
        }
    }
}

/// The text between `=` and `>` of `<name=text>` (its opening `open`), trimmed and unquoted;
/// `None` when empty or spread over lines.
fn eq_name(tag: &str, open: &str) -> Option<(usize, usize)> {
    let inner = &tag[open.len()..tag.len() - 1];
    let trimmed = inner.trim().trim_matches(|c| c == '"' || c == '\'');
    if trimmed.is_empty() || trimmed.contains('\n') {
        return None;
    }
    let start = trimmed.as_ptr() as usize - tag.as_ptr() as usize;
    Some((start, start + trimmed.len()))
}

fn param(name: std::ops::Range<usize>, value_at: usize) -> RawParam {
    RawParam {
        name,
        value: value_at..value_at,
        attrs: Vec::new(),
        kind: ValueKind::Text,
    }
}

impl Body for KeyValue {
    fn in_parameter(&self) -> bool {
        matches!(&self.state, State::Value { at, .. } if at.in_value())
    }

    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        let b = text.as_bytes();
        let spec = self.spec;
        loop {
            let next = match &mut self.state {
                State::HeadTag(scan) => {
                    let Head::Tag(open) = spec.head else {
                        unreachable!("a tag head")
                    };
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => return Step::Failed(at),
                        Poll::Ready(Ok(end)) => match eq_name(&text[at..end], open) {
                            Some((s, e)) => {
                                spans.name = at + s..at + e;
                                self.pos = end;
                                State::Children
                            }
                            None => return Step::Failed(at),
                        },
                    }
                }
                State::HeadName(start) => {
                    let start = *start;
                    let limit = (start + MAX_NAME).min(b.len());
                    let from = self.pos;
                    let end = b[from..limit]
                        .iter()
                        .position(|&c| c == b'\n' || c == b'<')
                        .map(|i| from + i);
                    meter.read(from, end.map_or(limit, |e| e + 1));
                    let Some(end) = end else {
                        if limit == start + MAX_NAME {
                            return Step::Failed(start);
                        }
                        self.pos = limit;
                        return Step::Pending;
                    };
                    let name = text[start..end].trim_end();
                    if name.is_empty() || name.contains(char::is_whitespace) {
                        return Step::Failed(start);
                    }
                    spans.name = start..start + name.len();
                    self.pos = end;
                    State::Children
                }
                State::Children => {
                    match next_child(b, &mut self.pos, spec.call_close, spec.key.open(), meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Child::Close(end)) => return Step::Done(end),
                        Poll::Ready(Child::Other(at)) => return Step::Failed(at),
                        Poll::Ready(Child::Open(at)) => match spec.key {
                            Key::Tag(_) => State::KeyTag(TagEnd::open(at)),
                            Key::Element { open, .. } => {
                                self.pos = at + open.len();
                                State::KeyElement(self.pos)
                            }
                        },
                    }
                }
                State::KeyTag(scan) => {
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => return Step::Failed(at),
                        Poll::Ready(Ok(end)) => match eq_name(&text[at..end], spec.key.open()) {
                            Some((s, e)) => {
                                self.pos = end;
                                State::Value {
                                    param: param(at + s..at + e, end),
                                    at: ValueEnd::Scan,
                                }
                            }
                            None => return Step::Failed(at),
                        },
                    }
                }
                State::KeyElement(start) => {
                    let Key::Element { close, .. } = spec.key else {
                        unreachable!("an element key")
                    };
                    let start = *start;
                    let Some(lt) = next_lt(b, &mut self.pos, meter) else {
                        return Step::Pending;
                    };
                    if lt - start > MAX_NAME {
                        return Step::Failed(start);
                    }
                    match starts_with(b, lt, close, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(false) => return Step::Failed(lt),
                        Poll::Ready(true) => {
                            let key = text[start..lt].trim();
                            if key.is_empty() {
                                return Step::Failed(start);
                            }
                            let ks = key.as_ptr() as usize - text.as_ptr() as usize;
                            self.pos = lt + close.len();
                            State::BeforeValue(param(ks..ks + key.len(), 0))
                        }
                    }
                }
                State::BeforeValue(p) => {
                    let Key::Element { value_open, .. } = spec.key else {
                        unreachable!("an element key")
                    };
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Step::Pending;
                    };
                    match starts_with(b, at, value_open, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(false) => return Step::Failed(at),
                        Poll::Ready(true) => {
                            let start = at + value_open.len();
                            self.pos = start;
                            let mut p = p.clone();
                            p.value = start..start;
                            State::Value {
                                param: p,
                                at: ValueEnd::Scan,
                            }
                        }
                    }
                }
                State::Value { param, at } => {
                    let value_start = param.value.start;
                    let follows = [spec.key.open(), spec.call_close];
                    match at.step(b, &mut self.pos, spec.value_close, follows, meter) {
                        None => return Step::Pending,
                        Some((value_end, next)) => {
                            param.value = match spec.values {
                                Values::OneLineBreak => trim_one_newline(b, value_start, value_end),
                                Values::AsWritten | Values::Json => value_start..value_end,
                            };
                            spans.params.push(param.clone());
                            self.pos = next;
                            State::Children
                        }
                    }
                }
            };
            self.state = next;
        }
    }
}

/// The value's range without one line break (`\n` or `\r\n`) right after the opening tag and
/// one right before the closing tag.
fn trim_one_newline(b: &[u8], mut start: usize, mut end: usize) -> std::ops::Range<usize> {
    if b[start..end].starts_with(b"\r\n") {
        start += 2;
    } else if b[start..end].starts_with(b"\n") {
        start += 1;
    }
    if b[start..end].ends_with(b"\r\n") {
        end -= 2;
    } else if b[start..end].ends_with(b"\n") {
        end -= 1;
    }
    start..end
}
