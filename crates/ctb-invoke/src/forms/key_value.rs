//! The key/value forms: a call whose tool name and parameter keys are carried by literal tags
//! rather than by attributes, one engine for every such form, driven by a [`Spec`]:
//!
//! - Qwen3-Coder: `<function=name>`, then `<parameter=key>value</parameter>` children, then
//!   `</function>`; each value usually sits on lines of its own, and one line break after the
//!   opening and one before the closing tag belong to the form ([`Values::OneLineBreak`]);
//! - GLM-4.5 to 4.7: `<tool_call>name` (the name runs to the first line break or `<` and holds
//!   no white space, so prose after a `<tool_call>` tag is not a name), then
//!   `<arg_key>key</arg_key>` and `<arg_value>value</arg_value>` pairs, then `</tool_call>`;
//!   GLM-4.5 puts line breaks between the parts, GLM-4.7 and GLM-5.x none. A key without its
//!   value breaks the call.
//!
//! A value ends at its closing literal when the next key's opening literal or the call's
//! closing literal follows it (after white space), so a value may contain its own closing
//! literal.
//!
//! A spec may name slips of its models the engine reads through ([`Slips`]); GLM's names two of GLM-5.x's: a value closer right after the
//! name of a call without arguments (`<tool_call>NAME</arg_value></tool_call>`), and a value
//! whose opener is missing (`<arg_key>K</arg_key>VALUE</arg_value>`; refused when the value
//! starts with white space or `<`, or holds a key, a value opener or the call's end). Nothing
//! else is forgiven: a name fused with its first key, a second opener where a key belongs, or
//! a name holding `>`, `{`, `"` or `(` breaks the call.

use crate::grammar::{Body, RawParam, Spans, Step, ValueKind, Values, settle};
use crate::lex::{Child, Meter, Poll, TagEnd, ValueEnd, next_child, next_lt, skip_ws, starts_with};
use crate::vocab::{TOOL_CALL_CLOSE, glm, qwen};

/// How a key/value form writes its call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// Where the tool name is.
    pub(crate) head: Head,
    /// How a parameter's key is written.
    pub(crate) key: Key,
    /// Closes a value.
    pub(crate) value_close: &'static str,
    /// Closes the call.
    pub(crate) call_close: &'static str,
    /// The slips of the form's models the engine reads through.
    pub(crate) slips: Slips,
}

/// Slips a family's models make in their own key/value form that leave the call readable: the
/// engine reads through those the spec names and through no other. Each one is read only
/// where nothing can be misread (see `docs/forms.md`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Slips {
    /// A value's closer written right after the name of a call without arguments
    /// (`<tool_call>NAME</arg_value></tool_call>`): read as nothing when the call's closer
    /// follows it after white space.
    pub(crate) closer_after_name: Option<&'static str>,
    /// A value whose opener is missing (`</arg_key>VALUE</arg_value>`): the value runs from the
    /// key's closer to the structural value closer. Refused when it starts with white space or
    /// `<`, or holds one of these literals (a key, a value's opener, the call's closer: the
    /// opener was not missing, the pair was).
    pub(crate) value_without_opener: Option<&'static [&'static str]>,
}

impl Slips {
    /// No slip is read.
    pub(crate) const NONE: Slips = Slips {
        closer_after_name: None,
        value_without_opener: None,
    };
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// Inside the opening tag: `<function=` name `>`.
    Tag(&'static str),
    /// Right where the body starts, up to a line break or `<`.
    Bare,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// Inside the parameter's opening tag: `<parameter=` key `>`, the value right after it.
    Tag(&'static str),
    /// In an element of its own (`<arg_key>` key `</arg_key>`), the value in another
    /// (`<arg_value>` value `</arg_value>`).
    Element {
        open: &'static str,
        close: &'static str,
        value_open: &'static str,
    },
}

impl Key {
    pub(crate) fn open(&self) -> &'static str {
        match self {
            Key::Tag(open) | Key::Element { open, .. } => open,
        }
    }
}

/// Qwen3-Coder's form.
pub(crate) static QWEN3_CODER: Spec = Spec {
    head: Head::Tag(qwen::FUNCTION_OPEN),
    key: Key::Tag(qwen::PARAM_OPEN),
    value_close: qwen::PARAM_CLOSE,
    call_close: qwen::FUNCTION_CLOSE,
    slips: Slips::NONE,
};

/// GLM's form, with GLM-5.x's slips (vllm-project/vllm #49248, fw-ai-external/python-sdk #119).
pub(crate) static GLM: Spec = Spec {
    head: Head::Bare,
    key: Key::Element {
        open: glm::KEY_OPEN,
        close: glm::KEY_CLOSE,
        value_open: glm::VALUE_OPEN,
    },
    value_close: glm::VALUE_CLOSE,
    call_close: TOOL_CALL_CLOSE,
    slips: Slips {
        closer_after_name: Some(glm::VALUE_CLOSE),
        value_without_opener: Some(&[
            glm::KEY_OPEN,
            glm::KEY_CLOSE,
            glm::VALUE_OPEN,
            TOOL_CALL_CLOSE,
        ]),
    },
};

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
    /// How the form's values are cut (its row's column).
    values: Values,
    pos: usize,
    state: State,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The name inside the opening tag.
    HeadTag(TagEnd),
    /// The bare name, from this offset.
    HeadName(usize),
    /// After the name: the spec's stray closer, or what may come between children.
    AfterName,
    /// After a stray closer right after the name: white space, then the call's closing.
    AfterStrayCloser,
    /// Between children: a key's opening or the call's closing.
    Children,
    /// A key inside a parameter tag.
    KeyTag(TagEnd),
    /// A key in its own element, from this offset.
    KeyElement(usize),
    /// After a key's element (its closer ends at `param.value.start`): white space, then the
    /// value's opening; or, when the spec reads a value without its opener, the value itself.
    BeforeValue(RawParam),
    /// A value; `bare` when its opener was missing.
    Value {
        param: RawParam,
        at: ValueEnd,
        bare: bool,
    },
    /// Decided: every later step answers the same.
    Decided(Step),
}

impl KeyValue {
    /// A call written as `spec` says, whose head starts at `at` (the `<function=`, or the first
    /// byte of a bare name), its values cut as `values` says.
    pub(crate) fn new(spec: &'static Spec, values: Values, at: usize) -> Self {
        let state = match spec.head {
            Head::Tag(_) => State::HeadTag(TagEnd::open(at)),
            Head::Bare => State::HeadName(at),
        };
        Self {
            spec,
            values,
            pos: at,
            state,
        }
    }
}

/// The text between `=` and `>` of `<name=text>` (its opening `open`), trimmed and unquoted;
/// `None` when empty or spread over lines.
fn eq_name(tag: &str, open: &str) -> Option<(usize, usize)> {
    let inner = tag.strip_prefix(open)?.strip_suffix('>')?;
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

    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        let next = self.next(text, spans, meter);
        settle(&mut self.state, next, State::Decided)
    }
}

impl KeyValue {
    fn next(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<State, Step> {
        let b = text.as_bytes();
        if b.len() < self.pos {
            // Not yet at the call's start (the scanner never runs a body so early).
            return Err(Step::Pending);
        }
        let spec = self.spec;
        {
            let next = match &mut self.state {
                State::Decided(step) => return Err(*step),
                State::HeadTag(scan) => {
                    let Head::Tag(open) = spec.head else {
                        unreachable!("a tag head")
                    };
                    let at = scan.at();
                    match scan.poll(b, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(Err(_)) => return Err(Step::Failed(at)),
                        Poll::Ready(Ok(end)) => match eq_name(&text[at..end], open) {
                            Some((s, e)) => {
                                spans.name = at + s..at + e;
                                self.pos = end;
                                State::Children
                            }
                            None => return Err(Step::Failed(at)),
                        },
                    }
                }
                State::HeadName(start) => {
                    let start = *start;
                    let limit = (start + MAX_NAME).min(b.len());
                    let from = self.pos;
                    // The name ends at a line break or `<`; a byte no tool name holds (JSON or
                    // another form fused into it, GLM-5.3-Flash's `Display/name>{...}`) breaks
                    // the call at once.
                    let end = b[from..limit]
                        .iter()
                        .position(|&c| matches!(c, b'\n' | b'<' | b'>' | b'{' | b'"' | b'('))
                        .map(|i| from + i);
                    meter.read(from, end.map_or(limit, |e| e + 1));
                    let Some(end) = end else {
                        if limit == start + MAX_NAME {
                            return Err(Step::Failed(start));
                        }
                        self.pos = limit;
                        return Err(Step::Pending);
                    };
                    if !matches!(b[end], b'\n' | b'<') {
                        return Err(Step::Failed(start));
                    }
                    let name = text[start..end].trim_end();
                    if name.is_empty() || name.contains(char::is_whitespace) {
                        return Err(Step::Failed(start));
                    }
                    spans.name = start..start + name.len();
                    self.pos = end;
                    State::AfterName
                }
                State::AfterName => match spec.slips.closer_after_name {
                    None => State::Children,
                    Some(stray) => {
                        let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                            return Err(Step::Pending);
                        };
                        match starts_with(b, at, stray, meter) {
                            Poll::Pending => return Err(Step::Pending),
                            Poll::Ready(true) => {
                                self.pos = at + stray.len();
                                State::AfterStrayCloser
                            }
                            Poll::Ready(false) => State::Children,
                        }
                    }
                },
                State::AfterStrayCloser => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    match starts_with(b, at, spec.call_close, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(true) => return Err(Step::Done(at + spec.call_close.len())),
                        Poll::Ready(false) => return Err(Step::Failed(at)),
                    }
                }
                State::Children => {
                    match next_child(b, &mut self.pos, spec.call_close, spec.key.open(), meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(Child::Close(end)) => return Err(Step::Done(end)),
                        Poll::Ready(Child::Other(at)) => return Err(Step::Failed(at)),
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
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(Err(_)) => return Err(Step::Failed(at)),
                        Poll::Ready(Ok(end)) => match eq_name(&text[at..end], spec.key.open()) {
                            Some((s, e)) => {
                                self.pos = end;
                                State::Value {
                                    param: param(at + s..at + e, end),
                                    at: ValueEnd::Scan,
                                    bare: false,
                                }
                            }
                            None => return Err(Step::Failed(at)),
                        },
                    }
                }
                State::KeyElement(start) => {
                    let Key::Element { close, .. } = spec.key else {
                        unreachable!("an element key")
                    };
                    let start = *start;
                    let Some(lt) = next_lt(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    if lt - start > MAX_NAME {
                        return Err(Step::Failed(start));
                    }
                    match starts_with(b, lt, close, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(false) => return Err(Step::Failed(lt)),
                        Poll::Ready(true) => {
                            let key = text[start..lt].trim();
                            if key.is_empty() {
                                return Err(Step::Failed(start));
                            }
                            let ks = key.as_ptr() as usize - text.as_ptr() as usize;
                            self.pos = lt + close.len();
                            State::BeforeValue(param(ks..ks + key.len(), self.pos))
                        }
                    }
                }
                State::BeforeValue(p) => {
                    let Key::Element { value_open, .. } = spec.key else {
                        unreachable!("an element key")
                    };
                    let after_key = p.value.start;
                    // The opener is missing when the value starts right after the key's closer
                    // with a byte that neither white space nor a tag starts.
                    let bare = spec.slips.value_without_opener.is_some()
                        && self.pos == after_key
                        && b.get(after_key)
                            .is_some_and(|&c| !c.is_ascii_whitespace() && c != b'<');
                    if bare {
                        meter.read(after_key, after_key + 1);
                        return Ok(State::Value {
                            param: p.clone(),
                            at: ValueEnd::Scan,
                            bare: true,
                        });
                    }
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    match starts_with(b, at, value_open, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(false) => return Err(Step::Failed(at)),
                        Poll::Ready(true) => {
                            let start = at + value_open.len();
                            self.pos = start;
                            let mut p = p.clone();
                            p.value = start..start;
                            State::Value {
                                param: p,
                                at: ValueEnd::Scan,
                                bare: false,
                            }
                        }
                    }
                }
                State::Value { param, at, bare } => {
                    let value_start = param.value.start;
                    let follows = [spec.key.open(), spec.call_close];
                    let refused = match spec.slips.value_without_opener {
                        Some(refused) if *bare => refused,
                        _ => &[],
                    };
                    match at.step(b, &mut self.pos, spec.value_close, follows, refused, meter) {
                        None => return Err(Step::Pending),
                        Some(Err(at)) => return Err(Step::Failed(at)),
                        Some(Ok((value_end, next))) => {
                            param.value = match self.values {
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
            Ok(next)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn glm(at: usize) -> Box<dyn Body> {
        Box::new(KeyValue::new(&GLM, Values::AsWritten, at))
    }

    #[test]
    fn glm_soup_keeps_the_streaming_contract() {
        let pieces = [
            "<arg_key>",
            "</arg_key>",
            "<arg_value>",
            "</arg_value>",
            "</tool_call>",
            "<tool_call>",
            "k",
            "v v",
            " ",
            "\n",
            "<",
            "<b>",
            ">{",
        ];
        crate::forms::cases::run_soup("f", &pieces, &glm);
    }

    #[test]
    fn qwen3_coder_reads_no_slip() {
        // GLM-5.x's slips are GLM's: Qwen3-Coder's form breaks on a stray closer and on a
        // value written without its parameter tag.
        let run = |text: &str| {
            let mut body = KeyValue::new(&QWEN3_CODER, Values::OneLineBreak, 0);
            body.run(text, &mut Spans::default(), &mut Meter::default())
        };
        assert_eq!(
            run("<function=f>\n</parameter>\n</function>"),
            Step::Failed(13)
        );
        assert_eq!(
            run("<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"),
            Step::Done(53)
        );
    }
}
