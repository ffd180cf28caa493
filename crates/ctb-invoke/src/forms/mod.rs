//! Bodies for the call forms that leak in 2026, written as resumable [`Body`]s like the
//! families' bodies in the rest of the crate, but not yet reached by the scanner: each module
//! says where its body starts, and `README.md` next to this file says what the scanner must
//! see to start it.
//!
//! - [`minimax_m3`]: MiniMax-M3, `]<]minimax[>[` before every tag, parameters named by their
//!   tag;
//! - [`inkling`]: TML Inkling, `<|content_invoke_tool_json|>{"name": ..., "args": {...}}`;
//! - [`json_scan`]: the strict, resumable JSON reader Inkling's payload goes through.
//!
//! [`Body`]: crate::call::Body

// Nothing outside the tests starts these bodies until the scanner is wired to them.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod inkling;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod json_scan;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod minimax_m3;

#[cfg(test)]
mod harness;

use crate::lex::{Meter, Poll};

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
