//! Character classes and small byte searches used by the reader. Everything works on bytes of UTF-8 text; the few
//! non-ASCII characters that matter (typographic quotes, Unicode spaces) are matched by their
//! UTF-8 encodings.

/// The kinds of quote character the reader knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    /// `"`
    Double,
    /// `'`
    Single,
    /// `“` or `”`
    DoubleLike,
    /// `‘`, `’`, `` ` `` or `´`
    SingleLike,
}

impl Quote {
    /// Whether `other` closes a string opened with `self`.
    pub(crate) fn closes_with(self, other: Quote) -> bool {
        match self {
            Quote::Double => other == Quote::Double,
            Quote::Single => other == Quote::Single,
            Quote::DoubleLike => matches!(other, Quote::Double | Quote::DoubleLike),
            Quote::SingleLike => matches!(other, Quote::Single | Quote::SingleLike),
        }
    }
}

/// The quote character starting at byte `i`, with its length in bytes.
#[inline]
pub(crate) fn quote_at(b: &[u8], i: usize) -> Option<(Quote, usize)> {
    match *b.get(i)? {
        b'"' => Some((Quote::Double, 1)),
        b'\'' => Some((Quote::Single, 1)),
        b'`' => Some((Quote::SingleLike, 1)),
        0xC2 if b.get(i + 1) == Some(&0xB4) => Some((Quote::SingleLike, 2)),
        0xE2 if b.get(i + 1) == Some(&0x80) => match b.get(i + 2)? {
            0x98 | 0x99 => Some((Quote::SingleLike, 3)),
            0x9C | 0x9D => Some((Quote::DoubleLike, 3)),
            _ => None,
        },
        _ => None,
    }
}

/// ASCII whitespace as JSON defines it.
#[inline]
pub(crate) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | b'\r')
}

/// Length of a Unicode space character (no-break space, zero-width spaces, BOM, ...) at `i`.
#[inline]
pub(crate) fn special_ws_len(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(0xC2) if b.get(i + 1) == Some(&0xA0) => 2,
        Some(0xE1) if b.get(i + 1) == Some(&0xA0) && b.get(i + 2) == Some(&0x8E) => 3,
        Some(0xE2) => match (b.get(i + 1), b.get(i + 2)) {
            (Some(0x80), Some(0x80..=0x8B | 0xAF)) => 3,
            (Some(0x81), Some(0x9F)) => 3,
            _ => 0,
        },
        Some(0xE3) if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x80) => 3,
        Some(0xEF) if b.get(i + 1) == Some(&0xBB) && b.get(i + 2) == Some(&0xBF) => 3,
        _ => 0,
    }
}

/// Characters that end a token: `,:[]/{}()` newline and `+`.
#[inline]
pub(crate) fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b',' | b':' | b'[' | b']' | b'/' | b'{' | b'}' | b'(' | b')' | b'\n' | b'+'
    )
}

/// Characters that end an unquoted string: `,[]/{}` newline and `+`.
#[inline]
pub(crate) fn is_unquoted_delimiter(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'/' | b'{' | b'}' | b'\n' | b'+')
}

/// First character of an identifier (function names like `NumberLong` or `callback`).
#[inline]
pub(crate) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

/// Later character of an identifier.
#[inline]
pub(crate) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Whether a value can start at `i`: a quote, a word character, `-`, `[` or `{`.
#[inline]
pub(crate) fn is_value_start(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        None => false,
        Some(&c) => {
            c.is_ascii_alphanumeric()
                || matches!(c, b'_' | b'-' | b'[' | b'{')
                || quote_at(b, i).is_some()
        }
    }
}

/// Characters allowed in a URL, except the JSON delimiters `[`, `]` and `,`.
#[inline]
pub(crate) fn is_url_char(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b':'
                | b'/'
                | b'?'
                | b'#'
                | b'@'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b';'
                | b'='
        )
}

/// Whether `s` is a URL scheme followed by `://`, like `https://`.
pub(crate) fn is_url_start(s: &[u8]) -> bool {
    const SCHEMES: [&[u8]; 7] = [
        b"http://",
        b"https://",
        b"ftp://",
        b"mailto://",
        b"file://",
        b"data://",
        b"irc://",
    ];
    SCHEMES.contains(&s)
}

/// The number of hexadecimal digits at `i`, at most `max`.
pub(crate) fn hex_run(b: &[u8], i: usize, max: usize) -> usize {
    let mut n = 0;
    while n < max && b.get(i + n).is_some_and(u8::is_ascii_hexdigit) {
        n += 1;
    }
    n
}

/// The value of a run of hexadecimal digits.
pub(crate) fn hex_value(b: &[u8]) -> u32 {
    b.iter().fold(0, |acc, &c| {
        acc * 16 + char::from(c).to_digit(16).unwrap_or(0)
    })
}

/// The first `c` at or after `from`.
pub(crate) fn find1(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| p + from)
}

/// The first `c1` directly followed by `c2` at or after `from`.
pub(crate) fn find2(b: &[u8], from: usize, c1: u8, c2: u8) -> Option<usize> {
    let mut j = from;
    loop {
        let p = find1(b, j, c1)?;
        if b.get(p + 1) == Some(&c2) {
            return Some(p);
        }
        j = p + 1;
    }
}

/// The first `"`, backslash or control character (below 0x20) in `b[i..limit]`, or `limit`:
/// the bytes that end a plain run inside a double-quoted string, and that JSON text must
/// escape. Eight bytes at a time.
#[inline]
pub(crate) fn find_json_special(b: &[u8], mut i: usize, limit: usize) -> usize {
    let limit = limit.min(b.len());
    while i + 8 <= limit {
        let found = json_special_mask(b, i);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < limit && b[i] >= 0x20 && b[i] != b'"' && b[i] != b'\\' {
        i += 1;
    }
    i
}

/// The eight bytes `b[i..i + 8]` as a mask with the high bit of each byte's lane set for the
/// bytes JSON text must escape (`"`, backslash, below 0x20): zero when there is none, and the
/// lowest set lane is always a true one (lanes above it may be false alarms).
#[inline]
pub(crate) fn json_special_mask(b: &[u8], i: usize) -> u64 {
    json_special_lanes(read_word(b, i))
}

/// The eight bytes at `i`, the first one lowest.
#[inline]
pub(crate) fn read_word(b: &[u8], i: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(word)
}

/// [`json_special_mask`] of a word read by [`read_word`].
#[inline]
pub(crate) fn json_special_lanes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let found = (quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (w.wrapping_sub(ONES * 0x20) & !w);
    found & HIGH
}

/// The end of a number in strict JSON syntax starting at `i`, if there is one.
#[inline]
pub(crate) fn strict_number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while digit(i) {
                i += 1;
            }
        }
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        if !digit(i + 1) {
            return None;
        }
        i += 1;
        while digit(i) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digit(i) {
            return None;
        }
        while digit(i) {
            i += 1;
        }
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_json_special_agrees_with_a_byte_loop() {
        let naive = |b: &[u8], i: usize, limit: usize| {
            (i..limit)
                .find(|&k| b[k] < 0x20 || b[k] == b'"' || b[k] == b'\\')
                .unwrap_or(limit)
        };
        let mut texts: Vec<Vec<u8>> = vec![b"".to_vec(), b"plain text only".to_vec()];
        for special in [b'"', b'\\', 0x00, 0x1F, b'\n'] {
            for at in 0..20 {
                let mut t = "abcdéfgh\u{7f}ijklmnopqrst".as_bytes().to_vec();
                t.insert(at.min(t.len()), special);
                t.push(special); // a second one further on
                texts.push(t);
            }
        }
        texts.push(vec![0x80, 0xFF, 0x20, 0x21, 0x5B, 0x5D, 0x22]);
        for t in &texts {
            for i in 0..=t.len() {
                for limit in i..=t.len() {
                    assert_eq!(
                        find_json_special(t, i, limit),
                        naive(t, i, limit),
                        "{t:?} {i}..{limit}"
                    );
                }
            }
        }
    }
}
