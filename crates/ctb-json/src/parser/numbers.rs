//! Numbers: JSON's, and what models write instead (`+1`, `.5`, `1_000`, `0x1F`, `Infinity`).

use super::{Build, Parser};
use crate::chars::{hex_run, is_delimiter, is_ident, is_ws, special_ws_len, strict_number_end};

impl<B: Build> Parser<'_, B> {
    #[inline]
    fn at_end_of_number(&self, i: usize) -> bool {
        match self.at(i) {
            None => true,
            Some(c) if c >= 0x80 => special_ws_len(self.b, i) > 0,
            Some(c) => is_delimiter(c) || is_ws(c),
        }
    }

    pub(super) fn number(&mut self) -> Option<B::V> {
        let b = self.b;
        let start = self.i;
        if let Some(end) = strict_number_end(b, start) {
            let fraction =
                b.get(end) == Some(&b'/') && b.get(end + 1).is_some_and(u8::is_ascii_digit);
            if !fraction && self.at_end_of_number(end) {
                // a valid JSON number needs no repair
                self.i = end;
                let raw = &self.s[start..end];
                return Some(self.out.number(raw, raw));
            }
        }
        let mut i = start;
        let mut num = String::new();
        if b.get(i) == Some(&b'+')
            && b.get(i + 1)
                .is_some_and(|&c| c.is_ascii_digit() || c == b'.' || c == b'I')
        {
            i += 1;
        }
        let sign = b.get(i) == Some(&b'-');
        if sign {
            num.push('-');
            i += 1;
        }
        if let Some(v) = self.special_number(i, sign) {
            return Some(v);
        }
        if sign && !b.get(i).is_some_and(u8::is_ascii_digit) && self.at_end_of_number(i) {
            num.push('0');
        }
        i = digits(b, i, &mut num);
        if b.get(i) == Some(&b'.') {
            if num.is_empty() || num == "-" {
                num.push('0');
            }
            num.push('.');
            i += 1;
            if !b.get(i).is_some_and(u8::is_ascii_digit) {
                num.push('0');
            }
            i = digits(b, i, &mut num);
        }
        if i == start {
            return None;
        }
        if let Some(&e @ (b'e' | b'E')) = b.get(i) {
            num.push(e as char);
            i += 1;
            if let Some(&s @ (b'-' | b'+')) = b.get(i) {
                num.push(s as char);
                i += 1;
            }
            if !b.get(i).is_some_and(u8::is_ascii_digit) {
                num.push('0');
            }
            i = digits(b, i, &mut num);
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            // a fraction like 1/3 is text
            let mut j = i + 1;
            while b
                .get(j)
                .is_some_and(|&c| c.is_ascii_digit() || c == b'/' || c == b'.')
            {
                j += 1;
            }
            if self.at_end_of_number(j) {
                self.i = j;
                let s = self.s;
                return Some(self.out.text(&s[start..j]));
            }
            return None;
        }
        let stray_quote = b.get(i) == Some(&b'"') && self.at_end_of_number(i + 1);
        if !stray_quote && !self.at_end_of_number(i) {
            return None;
        }
        // `12345"`: a number with a stray closing quote, which is dropped
        self.i = if stray_quote { i + 1 } else { i };
        let raw = &self.s[start..i];
        // Underscores are dropped, signs and missing digits filled in; whatever the spelling
        // is now, it is a number only if it is JSON's (`0_1` became `01`: text). Deciding here
        // means both builders get the same answer.
        if strict_number_end(num.as_bytes(), 0) != Some(num.len()) {
            return Some(self.out.text(raw));
        }
        Some(self.out.number(&num, raw))
    }

    /// Hexadecimal integers and `Infinity`/`NaN` (which become `null`), after an optional sign.
    fn special_number(&mut self, i: usize, negative: bool) -> Option<B::V> {
        let b = self.b;
        if b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X')) {
            let n = hex_run(b, i + 2, 16);
            if n > 0 && self.at_end_of_number(i + 2 + n) {
                let v = u64::from_str_radix(&self.s[i + 2..i + 2 + n], 16).ok()?;
                self.i = i + 2 + n;
                let text = if negative && v != 0 {
                    format!("-{v}")
                } else {
                    v.to_string()
                };
                let raw = &self.s[i..i + 2 + n];
                return Some(self.out.number(&text, raw));
            }
            return None;
        }
        for word in [&b"Infinity"[..], b"NaN"] {
            if b[i.min(b.len())..].starts_with(word)
                && !b.get(i + word.len()).is_some_and(|&c| is_ident(c))
            {
                self.i = i + word.len();
                return Some(self.out.null());
            }
        }
        None
    }
}

/// Digits from `i`, also `_` between two digits (`1_000`), appended to `num` without the
/// underscores. Returns the offset after them.
fn digits(b: &[u8], mut i: usize, num: &mut String) -> usize {
    while let Some(&c) = b.get(i) {
        if c.is_ascii_digit() {
            num.push(c as char);
        } else if c == b'_'
            && i > 0
            && b[i - 1].is_ascii_digit()
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
        } else {
            break;
        }
        i += 1;
    }
    i
}
