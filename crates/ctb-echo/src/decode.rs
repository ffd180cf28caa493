//! Decoding a received text to what it says: every pass is one forward walk over its input.

use ctb_invoke::PREFIX;
use ctb_invoke::vocab::HIGHLIGHT_ELEMENTS;

/// `text` decoded to what it says, the way a page or tool result reaches an agent: string
/// escapes (JSON's `\"`, `\n` and `\u003c`, Python's `\x3c` and `\'`, shells' `\"` and
/// `'\''`, Markdown's `\<`) and HTML entities (named, decimal, hexadecimal, escaped again
/// any number of times) undone, twice over, so that a text encoded twice comes out plain;
/// then line prefixes taken off every line (line numbers of `cat -n`, `grep -n` and editors'
/// views, a diff's `+` and `-`, an e-mail's `>`), inline highlighting markup dropped (`<span
/// class="nt">`) and curly quotes made straight.
///
/// ```
/// use ctb_echo::decode;
/// assert_eq!(decode(r#"{\"a\": \"x\\u003cy\"}"#), r#"{"a": "x<y"}"#);
/// assert_eq!(decode("&amp;lt;p&amp;gt; &#x27;q&#39;"), "<p> 'q'");
/// assert_eq!(decode("  12\tfirst\n  13\tsecond"), "first\nsecond");
/// assert_eq!(decode("> +added"), "added");
/// assert_eq!(decode("<span class=\"nt\">&lt;p&gt;</span>“x”"), "<p>\"x\"");
/// ```
pub fn decode(text: &str) -> String {
    let once = entities(&escapes(text));
    let twice = entities(&escapes(&once));
    straighten(&strip_highlighting(&strip_prefixes(&twice)))
}

/// [`decode`] without the string escapes: a JSON call body written in a page
/// (`{"code": "echo \"hi\""}`) keeps its own escapes, so that it still reads as JSON.
pub(crate) fn decode_keeping_escapes(text: &str) -> String {
    straighten(&strip_highlighting(&strip_prefixes(&shell_quotes(
        &markdown_escapes(&entities(text)),
    ))))
}

/// A shell's single quote inside single quotes (`'\''`, `'"'"'`) made one quote again.
fn shell_quotes(text: &str) -> String {
    if !text.contains("'\\''") && !text.contains("'\"'\"'") {
        return text.to_owned();
    }
    text.replace("'\\''", "'").replace("'\"'\"'", "'")
}

/// Markdown's backslash escapes undone where no string literal has them (`\_`, `\<`, `\*`):
/// a backslash before ASCII punctuation other than a quote, a backslash or a slash.
pub(crate) fn markdown_escapes(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &b[i..]) {
        let k = i + off;
        out.push_str(&text[i..k]);
        match b.get(k + 1) {
            Some(&c) if c.is_ascii_punctuation() && !matches!(c, b'"' | b'\'' | b'\\' | b'/') => {
                out.push(char::from(c));
                i = k + 2;
            }
            Some(b'\\') => {
                out.push_str("\\\\");
                i = k + 2;
            }
            _ => {
                out.push('\\');
                i = k + 1;
            }
        }
    }
    out.push_str(&text[i..]);
    out
}

/// One level of string escapes undone, as a JSON or Python string literal's are (`\\` is one
/// backslash, `\"` a quote, `\n` a line break...): a JSON body quoted inside another string
/// reads as JSON after as many levels as it was quoted.
pub(crate) fn unescape_once(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&text[i..i + off]);
        let at = i + off + 1;
        match b.get(at) {
            Some(b'n') => out.push('\n'),
            Some(b'r') => out.push('\r'),
            Some(b't') => out.push('\t'),
            Some(b'u') if hex(b, at + 1, 4).is_some() => {
                let mut next = at + 5;
                out.push(utf16(hex(b, at + 1, 4).unwrap_or(0xFFFD), b, &mut next));
                i = next;
                continue;
            }
            Some(b'x') if hex(b, at + 1, 2).is_some() => {
                out.push(char::from_u32(hex(b, at + 1, 2).unwrap_or(0xFFFD)).unwrap_or('\u{fffd}'));
                i = at + 3;
                continue;
            }
            Some(&c) if c.is_ascii_punctuation() => out.push(char::from(c)),
            _ => {
                out.push('\\');
                i = at;
                continue;
            }
        }
        i = at + 1;
    }
    out.push_str(&text[i..]);
    out
}

/// `text` as call markup is compared: white space, quotes of every kind (`"`, `'`, `` ` ``)
/// and the namespace prefix after `<` or `</` left out, appended to `out`.
///
/// ```
/// let mut out = Vec::new();
/// ctb_echo::squash("< invoke name='x' >\n  <b>", &mut out);
/// assert_eq!(out, b"<invokename=x><b>");
/// ```
pub fn squash(text: &str, out: &mut Vec<u8>) {
    let prefix = PREFIX.as_bytes();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0 | b'"' | b'\'' | b'`' => i += 1,
            // No-break space, zero-width spaces, word joiner, byte-order mark.
            0xC2 if b.get(i + 1) == Some(&0xA0) => i += 2,
            0xE2 if matches!(
                b.get(i + 1..i + 3),
                Some([0x80, 0x8B..=0x8D] | [0x81, 0xA0])
            ) =>
            {
                i += 3
            }
            0xEF if b.get(i + 1..i + 3) == Some(&[0xBB, 0xBF]) => i += 3,
            _ => {
                out.push(c);
                i += 1;
                let after_lt =
                    c == b'<' || (c == b'/' && out.len() >= 2 && out[out.len() - 2] == b'<');
                if after_lt {
                    let blanks = b[i..]
                        .iter()
                        .take_while(|c| c.is_ascii_whitespace())
                        .count();
                    if b[i + blanks..].starts_with(prefix) {
                        i += blanks + prefix.len();
                    }
                }
            }
        }
    }
}

/// String escapes undone: a run of backslashes and what it escapes become that character
/// (`\n`, `\r`, `\t` the control characters; `\uXXXX`, surrogate pairs included, and `\xXX`
/// the code point; a punctuation character itself; a line break itself). A run before any
/// other character becomes one backslash.
fn escapes(text: &str) -> String {
    let b = text.as_bytes();
    let Some(first) = memchr::memchr(b'\\', b) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut i = first;
    while i < b.len() {
        let Some(off) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(&text[i..]);
            break;
        };
        out.push_str(&text[i..i + off]);
        i += off;
        let run = b[i..].iter().take_while(|&&c| c == b'\\').count();
        let at = i + run;
        match b.get(at) {
            None => {
                out.push('\\');
                i = at;
            }
            Some(b'n') => {
                out.push('\n');
                i = at + 1;
            }
            Some(b'r') => {
                out.push('\r');
                i = at + 1;
            }
            Some(b't') => {
                out.push('\t');
                i = at + 1;
            }
            Some(b'u') => match hex(b, at + 1, 4) {
                Some(unit) => {
                    i = at + 5;
                    out.push(utf16(unit, b, &mut i));
                }
                None => {
                    out.push_str("\\u");
                    i = at + 1;
                }
            },
            Some(b'x') => match hex(b, at + 1, 2) {
                Some(v) => {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    i = at + 3;
                }
                None => {
                    out.push_str("\\x");
                    i = at + 1;
                }
            },
            Some(&c) if c.is_ascii_punctuation() || c == b'\n' => {
                out.push(char::from(c));
                i = at + 1;
            }
            Some(_) => {
                out.push('\\');
                i = at;
            }
        }
    }
    out
}

/// The value of `n` hex digits at `b[at..]`.
fn hex(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let digits = b.get(at..at + n)?;
    let s = std::str::from_utf8(digits).ok()?;
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// The character of a UTF-16 code unit; a high surrogate followed by `\uDC00`-`\uDFFF` (after
/// any run of backslashes) joins it, and `*i` moves past the second.
fn utf16(unit: u32, b: &[u8], i: &mut usize) -> char {
    if (0xD800..0xDC00).contains(&unit) {
        let run = b[*i..].iter().take_while(|&&c| c == b'\\').count();
        if run > 0 && b.get(*i + run) == Some(&b'u') {
            if let Some(low) = hex(b, *i + run + 1, 4).filter(|l| (0xDC00..0xE000).contains(l)) {
                *i += run + 5;
                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return char::from_u32(code).unwrap_or('\u{fffd}');
            }
        }
    }
    char::from_u32(unit).unwrap_or('\u{fffd}')
}

/// Named entities the decoding knows (lower case), and what they stand for.
const NAMED: [(&str, char); 14] = [
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("amp", '&'),
    ("nbsp", ' '),
    ("lsquo", '\''),
    ("rsquo", '\''),
    ("ldquo", '"'),
    ("rdquo", '"'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("lowbar", '_'),
    ("grave", '`'),
];

/// HTML entities undone, escaped ones too: an entity of `&` (`&amp;`, `&#38;`, `&#x26;`) any
/// number of times before an entity (`&amp;amp;lt;`, `&#x26;#x3C;`) is that entity; before
/// anything else it is `&`.
fn entities(text: &str) -> String {
    let b = text.as_bytes();
    let Some(first) = memchr::memchr(b'&', b) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut i = first;
    while i < b.len() {
        let Some(off) = memchr::memchr(b'&', &b[i..]) else {
            out.push_str(&text[i..]);
            break;
        };
        out.push_str(&text[i..i + off]);
        i += off;
        // An entity that stands for `&` (`&amp;`, `&#38;`, `&#x26;`) escapes the entity after
        // it: read on from there, as many times as it was escaped.
        let mut j = i + 1;
        loop {
            match entity(b, j) {
                Some(('&', after)) => j = after,
                Some((c, after)) => {
                    out.push(c);
                    i = after;
                    break;
                }
                None => {
                    out.push('&');
                    i = j;
                    break;
                }
            }
        }
    }
    out
}

/// The entity at `b[j..]` (what follows a `&`): its character and the offset past its `;`.
fn entity(b: &[u8], j: usize) -> Option<(char, usize)> {
    let rest = b.get(j..)?;
    let semi = rest.iter().take(12).position(|&c| c == b';')?;
    let body = &rest[..semi];
    let after = j + semi + 1;
    let code = match body {
        [b'#', b'x' | b'X', digits @ ..] if !digits.is_empty() => {
            u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?
        }
        [b'#', digits @ ..] if !digits.is_empty() => {
            std::str::from_utf8(digits).ok()?.parse().ok()?
        }
        _ => {
            let name = std::str::from_utf8(body).ok()?;
            let (_, c) = NAMED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))?;
            return Some((*c, after));
        }
    };
    Some((char::from_u32(code).unwrap_or('\u{fffd}'), after))
}

/// Every line without what a tool or a mail program puts before it, as many as there are:
/// a line number (blanks, up to nine digits, then a tab, `:`, `|`, `-` or `→`, and one
/// space), a diff's `+` or `-`, an e-mail's `>` (and one space).
fn strip_prefixes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        loop {
            let next = strip_one(rest);
            if next.len() == rest.len() {
                break;
            }
            rest = next;
        }
        out.push_str(rest);
    }
    out
}

fn strip_one(line: &str) -> &str {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let after = &trimmed[digits..];
        for sep in ["\t", ":", "|", "-", "\u{2192}"] {
            if let Some(rest) = after.strip_prefix(sep) {
                return rest.strip_prefix(' ').unwrap_or(rest);
            }
        }
    }
    if let Some(rest) = line.strip_prefix(['+', '-']) {
        return rest;
    }
    if let Some(rest) = trimmed.strip_prefix('>') {
        return rest.strip_prefix(' ').unwrap_or(rest);
    }
    line
}

/// The opening and closing tags of inline highlighting elements left out (`<span class="s">`,
/// `</span>`), their text kept.
fn strip_highlighting(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let k = i + off;
        out.push_str(&text[i..k]);
        match highlighting_tag(b, k) {
            Some(after) => i = after,
            None => {
                out.push('<');
                i = k + 1;
            }
        }
    }
    out.push_str(&text[i..]);
    out
}

/// The offset past the highlighting element's tag at the `<` at `k`.
fn highlighting_tag(b: &[u8], k: usize) -> Option<usize> {
    let mut j = k + 1;
    if b.get(j) == Some(&b'/') {
        j += 1;
    }
    let name_len = b[j..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    let name = std::str::from_utf8(&b[j..j + name_len]).ok()?;
    if !HIGHLIGHT_ELEMENTS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
    {
        return None;
    }
    let after_name = j + name_len;
    match b.get(after_name) {
        Some(b'>') => Some(after_name + 1),
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'/') => {
            // A tag is short, and holds no `<`: a `>` far away, or after another tag's start,
            // belongs to something else (an `<a` cut off before a call must not swallow it).
            let end = memchr::memchr2(b'>', b'<', &b[after_name..])?;
            (b[after_name + end] == b'>' && end <= 512).then_some(after_name + end + 1)
        }
        _ => None,
    }
}

/// Curly and other typographic quotes made straight.
fn straighten(text: &str) -> String {
    if text.is_ascii() {
        return text.to_owned();
    }
    text.chars()
        .map(|c| match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => '"',
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{FF07}' => '\'',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_twice_changes_nothing_more() {
        for text in [
            r#"{\"a\": \"<b>\\n\"}"#,
            "&amp;amp;lt;x&amp;gt;",
            "  1\t- 2:+ > x",
            "\\\\\\\"q\\\\\\\"",
            "<span><b>t</b></span>",
            "C:\\new\\table",
        ] {
            let once = decode(text);
            assert_eq!(decode(&once), once, "{text:?}");
        }
    }

    #[test]
    fn escapes_of_every_depth_come_out_plain() {
        assert_eq!(escapes(r#"\"a\""#), "\"a\"");
        assert_eq!(decode(r#"\\\"a\\\""#), "\"a\"");
        assert_eq!(escapes("\\ud83d\\ude00"), "\u{1F600}");
        assert_eq!(escapes("\\ud83d"), "\u{fffd}");
        assert_eq!(escapes("a'\\''b"), "a'''b");
        assert_eq!(escapes("\\x3cb\\x3e"), "<b>");
        assert_eq!(escapes("path C:\\Users"), "path C:\\Users");
        assert_eq!(escapes("end\\"), "end\\");
    }

    #[test]
    fn entities_of_every_depth_come_out_plain() {
        assert_eq!(entities("&lt;&#60;&#x3C;&#X3c;&LT;"), "<<<<<");
        assert_eq!(entities("&amp;amp;quot;"), "\"");
        assert_eq!(entities("&amp;foo &unknown; &"), "&foo &unknown; &");
        assert_eq!(entities("&#1114112;"), "\u{fffd}");
    }

    #[test]
    fn a_highlighting_tag_holds_no_other_tag() {
        assert_eq!(strip_highlighting("<a href=\"x\">link</a>"), "link");
        // An `<a` cut off before a call keeps the call.
        assert_eq!(
            strip_highlighting("<a hr\n<invoke name=\"x\">"),
            "<a hr\n<invoke name=\"x\">"
        );
    }

    #[test]
    fn line_prefixes_of_tools_and_mail_come_off() {
        assert_eq!(strip_prefixes("     1\t<a>\n     2\t</a>\n"), "<a>\n</a>\n");
        assert_eq!(strip_prefixes("12:<a>\n13-</a>"), "<a>\n</a>");
        assert_eq!(strip_prefixes("    7\u{2192}<a>"), "<a>");
        assert_eq!(strip_prefixes(">> > <a>"), "<a>");
        assert_eq!(strip_prefixes("+<a>\n-<b>\n <c>"), "<a>\n<b>\n <c>");
        // A number alone, or before another byte, is text.
        assert_eq!(strip_prefixes("10000\n2>&1"), "10000\n2>&1");
    }

    #[test]
    fn squash_keeps_what_markup_says() {
        let mut out = Vec::new();
        squash(
            &format!("< {PREFIX}invoke name=\u{201C}x\u{201D}>\u{a0}\u{200b}</ {PREFIX}invoke>"),
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<invokename=\u{201C}x\u{201D}></invoke>"
        );
    }
}
