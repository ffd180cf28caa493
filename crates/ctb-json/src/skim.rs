//! Reading the members of a strict JSON object without decoding or building anything: where
//! each root member's key and value are. What a caller needs to look at one member of a large
//! document (is it a tool request?) at the cost of finding the strings' ends.

use crate::chars::{hex_run, strict_number_end};
use crate::parser::MAX_DEPTH;

/// One member of the root object, as written: the key's and the value's text (a string key
/// or value with its quotes, escapes not decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawMember<'a> {
    /// The key, quotes included (`"tool_name"`).
    pub key: &'a str,
    /// The value as written (`"response"`, `{...}`, `12`).
    pub value: &'a str,
}

/// The members of `text` when it is one strict JSON object (white space around it allowed),
/// in document order; `None` for anything else. Nothing is decoded or built: strings are
/// checked for well-formed escapes (a lone surrogate escape passes, which the strict reader
/// would leave to the tolerant one: it reads the same members), numbers for their syntax,
/// nesting up to [`MAX_DEPTH`](crate::MAX_DEPTH) levels. [`crate::parse`] reads such a text to an
/// object with exactly these members (the later of two equal keys winning).
///
/// ```
/// let text = r#"{"tool_name": "response", "tool_args": {"text": "a \"b\""}}"#;
/// let members = ctb_json::skim_object(text).unwrap();
/// assert_eq!(members[0].key, r#""tool_name""#);
/// assert_eq!(members[0].value, r#""response""#);
/// assert_eq!(members[1].value, r#"{"text": "a \"b\""}"#);
/// assert!(ctb_json::skim_object("{'a': 1}").is_none());
/// ```
pub fn skim_object(text: &str) -> Option<Vec<RawMember<'_>>> {
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(b, i + 1);
    let mut members = Vec::new();
    if b.get(i) == Some(&b'}') {
        return (ws(b, i + 1) == b.len()).then_some(members);
    }
    loop {
        let key_start = i;
        i = string_end(b, i)?;
        let key = &text[key_start..i];
        i = ws(b, i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = ws(b, i + 1);
        i = value_end(b, value_start, 1)?;
        members.push(RawMember {
            key,
            value: &text[value_start..i],
        });
        i = ws(b, i);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b'}') => return (ws(b, i + 1) == b.len()).then_some(members),
            _ => return None,
        }
    }
}

fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (past the closing quote) of the string that starts at `i`.
///
/// Eight bytes at a time, with an exact mask of the bytes that matter (`"`, `\`, below 0x20)
/// whose set lanes are taken in turn, so a string dense with escapes (code) costs a few
/// instructions per escape and each word is loaded once.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut k = i + 1;
    while k + 8 <= b.len() {
        let (quotes, backslashes, controls) = masks(b, k);
        let mut all = quotes | backslashes | controls;
        let mut next = k + 8;
        while all != 0 {
            let bit = all & all.wrapping_neg();
            all &= all - 1;
            let at = k + (bit.trailing_zeros() / 8) as usize;
            if backslashes & bit != 0 {
                let len = escape_len(b, at)?;
                if at + len > k + 8 {
                    // the escape runs into the next word: go on from its end
                    next = at + len;
                    break;
                }
                all &= !lanes_below(at + len - k);
            } else if quotes & bit != 0 {
                return Some(at + 1);
            } else {
                // a raw control character
                return None;
            }
        }
        k = next;
    }
    // the last few bytes, one by one
    while k < b.len() {
        match b[k] {
            b'"' => return Some(k + 1),
            b'\\' => k += escape_len(b, k)?,
            c if c < 0x20 => return None,
            _ => k += 1,
        }
    }
    None
}

/// How long an escape is, by the character after its backslash: 2, 6 for `u` (whose four
/// hex digits are checked apart), 0 for a character no escape starts with.
const ESCAPE_LEN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut k = 0;
    let twos = b"\"\\/bfnrt";
    while k < twos.len() {
        t[twos[k] as usize] = 2;
        k += 1;
    }
    t[b'u' as usize] = 6;
    t
};

/// The length of the escape at `at` (its backslash): 2, or 6 for `\uXXXX`; `None` when it
/// is malformed.
#[inline]
fn escape_len(b: &[u8], at: usize) -> Option<usize> {
    let len = usize::from(ESCAPE_LEN[usize::from(*b.get(at + 1)?)]);
    match len {
        0 => None,
        6 if hex_run(b, at + 2, 4) != 4 => None,
        len => Some(len),
    }
}

/// A mask of the lanes (bytes) below `n` of a word, `n` up to 8.
#[inline]
fn lanes_below(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (n * 8)) - 1
    }
}

/// For the lanes of `b[k..k + 8]`, the high bit of each one that is `"`, that is `\`, and
/// that is below 0x20: exactly (no false alarms above a true one, unlike the carry-based test).
#[inline]
fn masks(b: &[u8], k: usize) -> (u64, u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[k..k + 8]);
    let w = u64::from_le_bytes(word);
    // the high bit set exactly where a lane is zero
    let zero = |x: u64| !(((x & LOW7) + LOW7) | x | LOW7);
    (
        zero(w ^ (ONES * u64::from(b'"'))),
        zero(w ^ (ONES * u64::from(b'\\'))),
        zero(w & (ONES * 0xE0)),
    )
}

/// The end of the value that starts at `i`, at nesting `depth` (the root object is 1).
/// Containers are followed with an explicit stack of what closes them, no recursion.
fn value_end(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    let mut open: Vec<u8> = Vec::new();
    let mut i = i;
    loop {
        // a value
        i = match b.get(i)? {
            b'"' => string_end(b, i)?,
            b'{' | b'[' => {
                if depth + open.len() + 1 >= MAX_DEPTH {
                    return None;
                }
                let close = if b[i] == b'{' { b'}' } else { b']' };
                let first = ws(b, i + 1);
                if b.get(first) == Some(&close) {
                    first + 1
                } else {
                    open.push(close);
                    i = first;
                    if close == b'}' {
                        i = member_value_start(b, i)?;
                    }
                    continue;
                }
            }
            b't' if b[i..].starts_with(b"true") => i + 4,
            b'f' if b[i..].starts_with(b"false") => i + 5,
            b'n' if b[i..].starts_with(b"null") => i + 4,
            _ => strict_number_end(b, i)?,
        };
        // after a value: the next one in the open container, or its end
        loop {
            let Some(&close) = open.last() else {
                return Some(i);
            };
            i = ws(b, i);
            match b.get(i)? {
                b',' => {
                    i = ws(b, i + 1);
                    if close == b'}' {
                        i = member_value_start(b, i)?;
                    }
                    break;
                }
                c if *c == close => {
                    open.pop();
                    i += 1;
                }
                _ => return None,
            }
        }
    }
}

/// Past a member's key and colon, at its value.
fn member_value_start(b: &[u8], i: usize) -> Option<usize> {
    let i = ws(b, string_end(b, i)?);
    (b.get(i) == Some(&b':')).then(|| ws(b, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte reading `string_end` must agree with.
    fn naive_end(b: &[u8], i: usize) -> Option<usize> {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let mut k = i + 1;
        loop {
            match *b.get(k)? {
                b'"' => return Some(k + 1),
                b'\\' => k += escape_len(b, k)?,
                c if c < 0x20 => return None,
                _ => k += 1,
            }
        }
    }

    #[test]
    fn string_end_agrees_with_a_byte_loop() {
        let pieces = [
            "a", "é", "😀", "\\\"", "\\\\", "\\n", "\\u00e9", "\\u00", "\\x", "\\", "\"", "\n",
            "bcdefgh", "\\t", "\\\\\\", "\\\\\\\\", "\\\u{1}", "\\u12G4",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200_000 {
            let mut s = String::from("\"");
            for _ in 0..next(40) {
                s.push_str(pieces[next(pieces.len())]);
            }
            if next(2) == 0 {
                s.push('"');
            }
            s.push_str("tail");
            let b = s.as_bytes();
            assert_eq!(string_end(b, 0), naive_end(b, 0), "{s:?}");
        }
    }
}
