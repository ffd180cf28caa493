//! GLM-4.5 to 4.7: `<tool_call>name`, then `<arg_key>key</arg_key>` and
//! `<arg_value>value</arg_value>` pairs, then `</tool_call>`. GLM-4.5 puts line breaks between
//! the parts, GLM-4.7 none.
//!
//! The name runs to the first line break or `<` and may hold no white space (so prose that
//! happens to follow a `<tool_call>` tag is not a name). A value ends at the `</arg_value>`
//! that is followed by the next `<arg_key>` or by `</tool_call>`. A key without its value
//! (`<arg_value>` missing) breaks the call.

use crate::call::{Body, RawParam, Spans, Step, ValueKind};
use crate::lex::{Child, Meter, Poll, ValueEnd, next_child, next_lt, skip_ws, starts_with};

const CALL_CLOSE: &str = "</tool_call>";
const KEY_OPEN: &str = "<arg_key>";
const KEY_CLOSE: &str = "</arg_key>";
const VALUE_OPEN: &str = "<arg_value>";
const VALUE_CLOSE: &str = "</arg_value>";

/// Longest tool name or key read.
const MAX_NAME: usize = 256;

/// Whether `c` can start a GLM tool name right after `<tool_call>`.
pub(crate) fn starts_name(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glm {
    pos: usize,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The tool name, from this offset.
    Name(usize),
    /// Between pairs: `<arg_key>` or `</tool_call>`.
    Children,
    /// A key, from this offset: up to `</arg_key>`.
    Key(usize),
    /// After a key: white space, then `<arg_value>`.
    BeforeValue(RawParam),
    /// A value.
    Value { param: RawParam, at: ValueEnd },
}

impl Glm {
    /// A call whose name starts at `at` (just after `<tool_call>` and any white space).
    pub(crate) fn new(at: usize) -> Self {
        Self {
            pos: at,
            state: State::Name(at),
        }
    }
}

impl Body for Glm {
    fn in_parameter(&self) -> bool {
        matches!(&self.state, State::Value { at, .. } if at.in_value())
    }

    fn run(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Step {
        let b = text.as_bytes();
        loop {
            let next = match &mut self.state {
                State::Name(start) => {
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
                    match next_child(b, &mut self.pos, CALL_CLOSE, KEY_OPEN, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(Child::Close(end)) => return Step::Done(end),
                        Poll::Ready(Child::Open(at)) => {
                            self.pos = at + KEY_OPEN.len();
                            State::Key(self.pos)
                        }
                        Poll::Ready(Child::Other(at)) => return Step::Failed(at),
                    }
                }
                State::Key(start) => {
                    let start = *start;
                    let Some(lt) = next_lt(b, &mut self.pos, meter) else {
                        return Step::Pending;
                    };
                    if lt - start > MAX_NAME {
                        return Step::Failed(start);
                    }
                    match starts_with(b, lt, KEY_CLOSE, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(false) => return Step::Failed(lt),
                        Poll::Ready(true) => {
                            let key = text[start..lt].trim();
                            if key.is_empty() {
                                return Step::Failed(start);
                            }
                            let ks = key.as_ptr() as usize - text.as_ptr() as usize;
                            self.pos = lt + KEY_CLOSE.len();
                            State::BeforeValue(RawParam {
                                name: ks..ks + key.len(),
                                value: 0..0,
                                attrs: Vec::new(),
                                kind: ValueKind::Text,
                            })
                        }
                    }
                }
                State::BeforeValue(param) => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Step::Pending;
                    };
                    match starts_with(b, at, VALUE_OPEN, meter) {
                        Poll::Pending => return Step::Pending,
                        Poll::Ready(false) => return Step::Failed(at),
                        Poll::Ready(true) => {
                            let start = at + VALUE_OPEN.len();
                            self.pos = start;
                            let mut param = param.clone();
                            param.value = start..start;
                            State::Value {
                                param,
                                at: ValueEnd::Scan,
                            }
                        }
                    }
                }
                State::Value { param, at } => {
                    match at.step(b, &mut self.pos, VALUE_CLOSE, [KEY_OPEN, CALL_CLOSE], meter) {
                        None => return Step::Pending,
                        Some((value_end, next)) => {
                            param.value.end = value_end;
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
