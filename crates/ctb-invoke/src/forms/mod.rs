//! Bodies of the call forms that leak in 2026 (issue 18), one grammar file per shape that is
//! new: Kimi K3's XTML ([`xtml`]), Gemma 4 ([`gemma`]), Mistral's `[TOOL_CALLS]` ([`mistral`]),
//! MiniMax-M3's marked tags ([`minimax_m3`]) and TML Inkling's token blocks ([`inkling`]). The
//! JSON they hold is read by the grammar's one JSON reader ([`crate::json`]).
//!
//! Each body is a [`Body`](crate::grammar::Body): run again and again over the growing reply,
//! it keeps its state, reads each byte a bounded number of times (recording it in the
//! [`Meter`]), reads no byte past the one that decides, and answers [`Step::Pending`] while
//! undecided, [`Step::Done`] just past the call's end, or [`Step::Failed`] where the structure
//! broke. The grammar and every rule for an ambiguous case are in `docs/forms-2026.md`.
//!
//! A body is reached through its form's registry row ([`crate::registry::FORMS`]): the row's
//! engine names the body's constructor (the offset it is given is the first byte of the
//! opener the scanner found) and what ends the text of a candidate that broke; its openers,
//! glued openers and boundaries say where the scanner may start it; its family's row gives
//! the stop strings. A body reads only from its start on, so a candidate that fails leaves
//! the scanner free to try the next start. Tag strings are the vocabulary's
//! ([`crate::vocab`]).
//!
//! What each fills in [`Spans`](crate::grammar::Spans): the tool name's range always; Kimi K3
//! one [`RawParam`] per argument (attributes `key` and `type`, kind `Text` or `Json`) or, for
//! its json block, `json`; Gemma 4 one parameter per top-level argument (`Text`, `Json` or
//! `Converted`); MiniMax-M3 one per parameter element (`Text`, or `Converted` for nested
//! elements); Mistral and Inkling `json` (the arguments object). None leaves a repeated
//! parameter name for the parser to drop: a repeated key breaks the call.
//!
//! The grammar-case harness (`cases`) runs each body on the case file of its form in
//! `tests/data/forms/`.

pub(crate) mod gemma;
pub(crate) mod mistral;
pub(crate) mod xtml;

#[cfg(test)]
pub(crate) mod cases;

use std::collections::HashSet;

use crate::grammar::{RawParam, Step};
use crate::lex::{Meter, Poll, skip_ws, starts_with};

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

pub(crate) mod inkling;
pub(crate) mod llama4;
pub(crate) mod minimax_m3;

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
