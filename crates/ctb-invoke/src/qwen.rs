//! Qwen3-Coder's form: `<function=name>`, then `<parameter=key>value</parameter>` children, then
//! `</function>` (usually inside `<tool_call>`, whose closing tag is left in the tail).
//!
//! Values usually sit on lines of their own (`<parameter=code>\nls\n</parameter>`): one line
//! break after the opening tag and one before the closing tag belong to the form, not to the
//! value. A value ends at the `</parameter>` that is followed by the next `<parameter=` or by
//! `</function>`, so a value may contain `</parameter>` itself.

use crate::call::{Body, RawParam, Spans, Step, ValueKind};
use crate::lex::{Child, Meter, Poll, TagEnd, ValueEnd, next_child};

/// The opening of the call element.
pub(crate) const FUNCTION_OPEN: &str = "<function=";
pub(crate) const FUNCTION_CLOSE: &str = "</function>";
const PARAM_OPEN: &str = "<parameter=";
const PARAM_CLOSE: &str = "</parameter>";

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Qwen {
    pos: usize,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// `<function=name>`.
    Head(TagEnd),
    /// Between children.
    Children,
    /// `<parameter=key>`.
    ParamTag(TagEnd),
    /// A value: its start, and where the scan for its closing tag is.
    Value { param: RawParam, at: ValueEnd },
}

/// The text between `=` and `>` of `<name=text>`, trimmed and unquoted; `None` when empty or
/// spread over lines.
fn eq_name(tag: &str, open: &str) -> Option<(usize, usize)> {
    let inner = &tag[open.len()..tag.len() - 1];
    let trimmed = inner.trim().trim_matches(|c| c == '"' || c == '\'');
    if trimmed.is_empty() || trimmed.contains('\n') {
        return None;
    }
    let start = trimmed.as_ptr() as usize - tag.as_ptr() as usize;
    Some((start, start + trimmed.len()))
}

impl Qwen {
    /// A call whose `<function=` starts at `at`.
    pub(crate) fn new(at: usize) -> Self {
        Self {
            pos: at,
            state: State::Head(TagEnd::open(at)),
        }
    }
}

impl Body for Qwen {
    fn in_parameter(&self) -> bool {
        matches!(&self.state, State::Value { at, .. } if at.in_value())
    }

    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        let b = text.as_bytes();
        loop {
            let next = match &mut self.state {
                State::Head(scan) => {
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => return Step::Failed(at),
                        Poll::Ready(Ok(end)) => match eq_name(&text[at..end], FUNCTION_OPEN) {
                            Some((s, e)) => {
                                spans.name = at + s..at + e;
                                self.pos = end;
                                State::Children
                            }
                            None => return Step::Failed(at),
                        },
                    }
                }
                State::Children => {
                    match next_child(b, &mut self.pos, FUNCTION_CLOSE, PARAM_OPEN, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Child::Close(end)) => return Step::Done(end),
                        Poll::Ready(Child::Open(at)) => State::ParamTag(TagEnd::open(at)),
                        Poll::Ready(Child::Other(at)) => return Step::Failed(at),
                    }
                }
                State::ParamTag(scan) => {
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Err(_)) => return Step::Failed(at),
                        Poll::Ready(Ok(end)) => match eq_name(&text[at..end], PARAM_OPEN) {
                            Some((s, e)) => {
                                self.pos = end;
                                State::Value {
                                    param: RawParam {
                                        name: at + s..at + e,
                                        value: end..end,
                                        attrs: Vec::new(),
                                        kind: ValueKind::Text,
                                    },
                                    at: ValueEnd::Scan,
                                }
                            }
                            None => return Step::Failed(at),
                        },
                    }
                }
                State::Value { param, at } => {
                    let value_start = param.value.start;
                    match at.step(
                        b,
                        &mut self.pos,
                        PARAM_CLOSE,
                        [PARAM_OPEN, FUNCTION_CLOSE],
                        meter,
                    ) {
                        None => return Step::Pending,
                        Some((value_end, next)) => {
                            param.value = trim_one_newline(b, value_start, value_end);
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
