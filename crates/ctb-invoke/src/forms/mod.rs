//! The grammar's engines, one file per call shape, each with its spec beside it:
//!
//! | file | shape | forms |
//! |---|---|---|
//! | [`element`] | a call element whose attribute names the tool, `<parameter name>` children | Claude, MiniMax, DeepSeek's DSML, StepFun (after its header), Grok |
//! | [`key_value`] | literal tags around the name and each key and value | Qwen3-Coder, GLM |
//! | [`json_object`] | one JSON object naming the tool, between two tokens | Hermes, Llama 4 |
//! | [`header_json`] | tokens around a tool name, then JSON arguments | Kimi K2, DeepSeek V3, gpt-oss's harmony, StepFun's header |
//! | [`xtml`] | Kimi K3's markers around tag names and typed values | Kimi K3 |
//! | [`gemma`] | a call with its arguments in the template's own literal syntax | Gemma 4 |
//! | [`mistral`] | `[TOOL_CALLS]`, a name and JSON arguments, no closing token | Mistral |
//! | [`minimax_m3`] | a marker before every tag, parameters named by their tags | MiniMax-M3 |
//! | [`inkling`] | a block of tokens around one JSON object, with a header | TML Inkling |
//! | [`pythonic`] | a Python list of calls with literal keyword arguments, between two tokens | LFM2 / LFM2.5 |
//!
//! A form's registry row ([`crate::registry::FORMS`]) names its engine and spec ([`Engine`]);
//! a form of a known shape is a row and a spec, a form of a new shape is a new file here. The
//! dispatcher ([`crate::call`]) starts the form's body at the opener the scanner found, or
//! after the wrapper element it read (what follows the wrapper picks the form: [`Lead`]).
//!
//! Each body is a [`Body`]: stepped again and again over the growing
//! reply, it keeps its state, reads each byte a bounded number of times (recording it in the
//! [`Meter`]), reads no byte past the one that decides, and answers [`Step::Pending`] while
//! undecided, [`Step::Done`] just past the call's end, or [`Step::Failed`] where the structure
//! broke. A body reads only from its start on, so a candidate that fails leaves the scanner
//! free to try the next start. Every rule for an ambiguous case is in `docs/forms.md`; tag
//! strings are the vocabulary's ([`crate::vocab`]); JSON is read by the grammar's one JSON
//! reader ([`crate::json`]).
//!
//! What each fills in [`Spans`](crate::grammar::Spans): the tool name's range always; the
//! element family and the key/value tags one [`RawParam`] per parameter (`Text`); Kimi K3 one
//! per argument (attributes `key` and `type`, kind `Text` or `Json`) or, for its json block,
//! `json`; Gemma 4 one per top-level argument (`Text`, `Json` or `Converted`); MiniMax-M3 one
//! per parameter element (`Text`, or `Converted` for nested elements); the pythonic shape one per
//! keyword argument (`Text`, `Json` or `Converted`); the JSON shapes `json` (the arguments
//! object). A repeated parameter name is dropped by the dispatcher, or (in the
//! XTML, Gemma 4 and MiniMax-M3 shapes) breaks the call.
//!
//! The grammar-case harness (`cases`) runs each form's body on the case file of its form in
//! `tests/data/forms/`.

pub(crate) mod element;
pub(crate) mod gemma;
pub(crate) mod header_json;
pub(crate) mod inkling;
pub(crate) mod json_object;
pub(crate) mod key_value;
pub(crate) mod minimax_m3;
pub(crate) mod mistral;
pub(crate) mod pythonic;
pub(crate) mod xtml;

#[cfg(test)]
pub(crate) mod cases;

use std::collections::HashSet;

use crate::grammar::{Body, RawParam, Step, Values};
use crate::lex::{Meter, Poll, skip_ws, starts_with};

/// The engine that reads a form, with the form's spec (the engines of one form only have
/// none).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Engine {
    /// No engine: a row's default (every row names one; a test checks).
    Unread,
    Element(&'static element::Spec),
    KeyValue(&'static key_value::Spec),
    JsonObject(&'static json_object::Spec),
    HeaderJson(&'static header_json::Spec),
    Xtml,
    Gemma,
    Mistral,
    MiniMaxM3,
    Inkling,
    Pythonic(&'static pythonic::Spec),
}

/// What starts a form's call right after a wrapper element (white space skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lead {
    /// A call element of the element family.
    Element,
    /// This literal (Qwen3-Coder's `<function=`).
    Literal(&'static str),
    /// A bare tool name (GLM's).
    Name,
    /// The JSON object's `{`.
    Object,
    /// Nothing: the form is never wrapped.
    None,
}

/// What ends the text of a candidate that broke (the quotation rules read no call inside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ends {
    /// The element it started with, up to the closing tag that balances it.
    Element,
    /// These literals, counted (`<function=` ... `</function>`).
    Balanced(&'static str, &'static str),
    /// Any of these tokens.
    Tokens(&'static [&'static str]),
    /// Nothing can tell its text from what follows.
    None,
}

impl Engine {
    /// The body of a call that starts at `at`: at one of the form's literal openers, or at
    /// its lead after a wrapper; the form's values are cut as `values` says. `None` for the
    /// element family, whose calls the dispatcher opens ([`element::open_call`]).
    pub(crate) fn body(self, at: usize, values: Values) -> Option<Box<dyn Body>> {
        Some(match self {
            Engine::Unread | Engine::Element(_) => return None,
            Engine::KeyValue(spec) => Box::new(key_value::KeyValue::new(spec, values, at)),
            Engine::JsonObject(spec) => Box::new(json_object::JsonObject::new(spec, at)),
            Engine::HeaderJson(spec) => Box::new(header_json::HeaderJson::new(spec, at)),
            Engine::Xtml => Box::new(xtml::Xtml::new(at)),
            Engine::Gemma => Box::new(gemma::Gemma::new(at)),
            Engine::Mistral => Box::new(mistral::Mistral::new(at)),
            Engine::MiniMaxM3 => Box::new(minimax_m3::MiniMaxM3::new(at)),
            Engine::Inkling => Box::new(inkling::Inkling::new(at)),
            Engine::Pythonic(spec) => Box::new(pythonic::Pythonic::new(spec, at)),
        })
    }

    /// What starts the form's call right after a wrapper.
    pub(crate) fn lead(self) -> Lead {
        match self {
            Engine::Element(_) => Lead::Element,
            Engine::KeyValue(spec) => match spec.head {
                key_value::Head::Tag(lit) => Lead::Literal(lit),
                key_value::Head::Bare => Lead::Name,
            },
            Engine::JsonObject(spec) if spec.open.is_none() => Lead::Object,
            _ => Lead::None,
        }
    }

    /// What ends the text of a candidate of the form that broke.
    pub(crate) fn ends(self) -> Ends {
        let tokens = |t: &'static [&'static str]| {
            if t.is_empty() {
                Ends::None
            } else {
                Ends::Tokens(t)
            }
        };
        match self {
            Engine::Unread => Ends::None,
            Engine::Element(_) => Ends::Element,
            Engine::KeyValue(spec) => match spec.head {
                key_value::Head::Tag(open) => Ends::Balanced(open, spec.call_close),
                key_value::Head::Bare => Ends::Element,
            },
            Engine::JsonObject(spec) => match spec.open {
                Some(_) => Ends::Tokens(std::slice::from_ref(&spec.close)),
                None => Ends::Element,
            },
            Engine::HeaderJson(spec) => tokens(spec.ends),
            Engine::Xtml => tokens(xtml::ENDS),
            Engine::Gemma => tokens(gemma::ENDS),
            Engine::Mistral => tokens(mistral::ENDS),
            Engine::MiniMaxM3 => tokens(minimax_m3::ENDS),
            Engine::Inkling => tokens(inkling::ENDS),
            Engine::Pythonic(spec) => tokens(spec.ends),
        }
    }

    /// The element family's spec, for its forms.
    pub(crate) fn element(self) -> Option<&'static element::Spec> {
        match self {
            Engine::Element(spec) => Some(spec),
            _ => None,
        }
    }
}

/// `Ok(true/false)` once decided, `Err(Pending)` while the text ends inside a prefix.
pub(crate) fn ready(p: Poll<bool>) -> Result<bool, Step> {
    match p {
        Poll::Ready(r) => Ok(r),
        Poll::Pending => Err(Step::Pending),
    }
}

/// `lit` must follow at `*pos`: past it, or the call breaks at `*pos`.
pub(crate) fn need(b: &[u8], pos: &mut usize, lit: &str, meter: &mut Meter) -> Result<(), Step> {
    if ready(starts_with(b, *pos, lit, meter))? {
        *pos += lit.len();
        Ok(())
    } else {
        Err(Step::Failed(*pos))
    }
}

/// White space from `*pos`: the offset of the next other byte.
pub(crate) fn ws(b: &[u8], pos: &mut usize, meter: &mut Meter) -> Result<usize, Step> {
    skip_ws(b, pos, meter).ok_or(Step::Pending)
}

/// The offset of the name of the first parameter that repeats an earlier one's name.
pub(crate) fn duplicate(text: &str, params: &[RawParam]) -> Option<usize> {
    let mut seen = HashSet::with_capacity(params.len());
    params
        .iter()
        .find(|p| !seen.insert(&text[p.name.clone()]))
        .map(|p| p.name.start)
}

/// Whether `b[at..]` starts with the concatenation of `parts` (a literal built from pieces, such
/// as `</` + a key + `>`). Like [`crate::lex::starts_with`]: reads no byte past the first that
/// differs, `Pending` while the text ends inside a prefix.
pub(crate) fn starts_with_parts(
    b: &[u8],
    at: usize,
    parts: &[&[u8]],
    meter: &mut Meter,
) -> Poll<bool> {
    let mut i = at;
    for part in parts {
        for &want in *part {
            match b.get(i) {
                None => {
                    meter.read(at, i);
                    return Poll::Pending;
                }
                Some(&got) if got != want => {
                    meter.read(at, i + 1);
                    return Poll::Ready(false);
                }
                Some(_) => i += 1,
            }
        }
    }
    meter.read(at, i);
    Poll::Ready(true)
}

/// Appends `s` to `out` as a JSON string literal (quotes, backslashes and control characters
/// escaped; everything else as is).
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut plain = 0;
    for (i, c) in s.bytes().enumerate() {
        let esc: &str = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{c:04x}"));
        } else {
            out.push_str(esc);
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

/// Whether `c` may stand in a tool name or a tag-named key: not white space or another control
/// character, and none of the bytes that delimit tags, attributes and JSON strings.
pub(crate) fn name_byte(c: u8) -> bool {
    !(c.is_ascii_control()
        || c == b' '
        || matches!(c, b'<' | b'>' | b'/' | b'"' | b'\'' | b'=' | b'&' | b'\\'))
}

/// A byte of a tool name in the JSON and Python shapes: a word byte, `.` or `-`.
pub(crate) fn name_byte_dotted(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// A call written as one JSON object, `{"name": "NAME", "arguments": {...}}` (Mistral's array
/// form, LFM's JSON list): its members as the JSON reader reports them. The members are `name`
/// (a string holding a name: starting with a letter, a digit or `_`, then
/// [`name_byte_dotted`], no escape), `arguments` (an object) and the `extra` members (strings),
/// each once, and no other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallObject {
    extra: &'static [&'static str],
    /// The member being read: 0 the name, 1 the arguments, 2 and on the extra ones.
    member: usize,
    /// The members read, one bit each.
    seen: u64,
}

impl CallObject {
    pub(crate) fn new(extra: &'static [&'static str]) -> Self {
        Self {
            extra,
            member: 0,
            seen: 0,
        }
    }

    /// The object's next event (the object starts at `start`): `Ok(Some(end))` when it ends a
    /// call, `Ok(None)` to read on, `Err(at)` where it is not a call.
    pub(crate) fn event(
        &mut self,
        text: &str,
        start: usize,
        event: crate::json::Event,
        spans: &mut crate::grammar::Spans,
    ) -> Result<Option<usize>, usize> {
        use crate::json::Event;
        use crate::vocab::call_object::{ARGUMENTS, NAME};
        let b = text.as_bytes();
        match event {
            Event::Key { key, .. } => {
                let k = &text[key.clone()];
                self.member = match k {
                    NAME => 0,
                    ARGUMENTS => 1,
                    _ => match self.extra.iter().position(|e| *e == k) {
                        Some(i) => 2 + i,
                        None => return Err(key.start),
                    },
                };
                let bit = 1 << self.member;
                if self.seen & bit != 0 {
                    return Err(key.start);
                }
                self.seen |= bit;
            }
            Event::Start(at) => {
                let want = if self.member == 1 { b'{' } else { b'"' };
                if b[at] != want {
                    return Err(at);
                }
            }
            Event::Value { value, .. } => match self.member {
                0 => {
                    let inner = &b[value.start + 1..value.end - 1];
                    let named = inner
                        .first()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                        && inner.iter().all(|c| name_byte_dotted(*c));
                    if !named {
                        return Err(value.start);
                    }
                    spans.name = value.start + 1..value.end - 1;
                }
                1 => spans.json = Some(value),
                _ => {}
            },
            Event::Done(end) => {
                if self.seen & 3 != 3 {
                    return Err(start);
                }
                return Ok(Some(end));
            }
            Event::Invalid(at) => return Err(at),
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_to_the_first_difference() {
        let mut m = Meter::default();
        let parts: &[&[u8]] = &[b"</", b"city", b">"];
        assert_eq!(
            starts_with_parts(b"</city>x", 0, parts, &mut m),
            Poll::Ready(true)
        );
        assert_eq!(m.reach, 7);
        let mut m = Meter::default();
        assert_eq!(starts_with_parts(b"</cit", 0, parts, &mut m), Poll::Pending);
        let mut m = Meter::default();
        assert_eq!(
            starts_with_parts(b"</cat>", 0, parts, &mut m),
            Poll::Ready(false)
        );
        assert_eq!(m.reach, 4);
    }

    #[test]
    fn json_strings() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\c\nd\u{1}é");
        assert_eq!(s, r#""a\"b\\c\nd\u0001é""#);
    }
}
