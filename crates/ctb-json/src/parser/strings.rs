//! Quoted strings: where they end when the quotes are not trustworthy, escapes, and the
//! looks past a quote that decide it.

use super::{Build, Parser, Res, Slot, StrBuf};
use crate::chars::{
    Quote, find_json_special, find1, hex_run, hex_value, is_delimiter, is_unquoted_delimiter,
    is_url_char, is_url_start, is_ws, quote_at,
};
use crate::{ErrorKind, Input};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Trust the quotes: a quote is the end when what follows looks like the end of a string.
    Normal,
    /// The end quote is missing: stop at the first delimiter.
    StopAtDelimiter,
    /// The end quote is missing: stop at this byte offset (a comma found in the first pass).
    StopAt(usize),
    /// The end quote is missing before this offset (the closing brackets that end the text):
    /// stop there, or at the first quote that could close the string.
    Until(usize),
}

/// How a string pass ended.
enum Pass {
    /// The string ends before this offset.
    Done(usize),
    /// Read it again in this mode; this many bytes were read for nothing.
    Retry(Mode, usize),
    /// A `Normal` pass ran into the end of the text: the string was cut off there, or its end
    /// quote is missing. The brackets are those of the whole text read.
    AtEnd(Brackets),
}

/// What to do with a string that ran into the end of the text.
enum AtEnd {
    /// It ends before this offset, as read.
    Done(usize),
    /// Read it again in this mode.
    Again(Mode),
}

/// A string's opening quote and what it decides for every pass.
#[derive(Debug, Clone, Copy)]
struct Opening {
    /// Offset of the opening quote.
    start: usize,
    quote: Quote,
    /// Length of the quote character in bytes.
    qlen: usize,
    /// `\"...\"`: a string whose quotes are escaped, as in a document pasted into a string;
    /// backslashes before quotes are skipped.
    skip_escapes: bool,
    slot: Slot,
}

impl<B: Build> Parser<'_, B> {
    /// A quoted string, followed by `+ "more"` concatenations. Its text is left in
    /// `self.scratch`; returns whether there was one.
    pub(super) fn string_value(&mut self, slot: Slot) -> Res<bool> {
        if !self.string(slot)? {
            return Ok(false);
        }
        loop {
            // most strings are followed by a delimiter: no concatenation
            if matches!(self.peek(), None | Some(b',' | b':' | b'}' | b']')) {
                break;
            }
            let j = self.ws_end(self.i, true);
            if self.at(j) != Some(b'+') {
                break;
            }
            self.i = j + 1;
            self.skip_ws();
            let fresh = self.out.new_str();
            let mut first = std::mem::replace(&mut self.scratch, fresh);
            let more = self.string(slot)?;
            first.append(&self.scratch);
            self.scratch = first;
            if !more {
                break;
            }
        }
        Ok(true)
    }

    /// A quoted string into `self.scratch`; returns whether there was one.
    fn string(&mut self, slot: Slot) -> Res<bool> {
        let b = self.b;
        let mut i = self.i;
        let skip_escapes = b.get(i) == Some(&b'\\');
        if skip_escapes {
            i += 1;
        }
        let Some((quote, qlen)) = quote_at(b, i) else {
            return Ok(false);
        };
        if !skip_escapes && quote == Quote::Double && self.budget > 0 {
            if let Some(end) = self.plain_string_end(i, slot) {
                self.scratch.clear();
                self.scratch.push_plain(&self.s[i + 1..end]);
                self.i = end + 1;
                return Ok(true);
            }
        }
        if !skip_escapes && self.triple_quoted(i) {
            return Ok(true);
        }
        let mut mode = if self.budget > 0 {
            Mode::Normal
        } else {
            Mode::StopAtDelimiter
        };
        let open = Opening {
            start: i,
            quote,
            qlen,
            skip_escapes,
            slot,
        };
        let fresh = self.out.new_str();
        let mut buf = std::mem::replace(&mut self.scratch, fresh);
        let end = loop {
            buf.clear();
            match self.string_pass(open, mode, &mut buf) {
                Ok(Pass::Done(end)) => break end,
                Ok(Pass::Retry(m, scanned)) => {
                    self.budget -= scanned as isize;
                    mode = m;
                }
                Ok(Pass::AtEnd(brackets)) => match self.at_end(open, brackets, &mut buf)? {
                    AtEnd::Done(end) => break end,
                    AtEnd::Again(m) => {
                        self.budget -= (self.b.len() - open.start) as isize;
                        mode = m;
                    }
                },
                Err(e) => return Err(e),
            }
        };
        self.i = end;
        self.scratch = buf;
        Ok(true)
    }

    /// A string whose `Normal` reading (in `out`) ran into the end of the text. Either the
    /// stream was cut off inside it, and it keeps what it has, or the text ends the way a whole
    /// document does, with closing brackets of kinds the string never opened (`{"a": "b}`):
    /// then its end quote is missing before them. Anything else (`"see [1]`, code, a comma) is
    /// a cut: splitting the string at a delimiter would invent members.
    fn at_end(&mut self, open: Opening, brackets: Brackets, out: &mut B::Str) -> Res<AtEnd> {
        let b = self.b;
        let len = b.len();
        if self.input == Input::Partial {
            return Ok(AtEnd::Done(len)); // a stream cut off inside the string: all of it
        }
        let mut run = len;
        while run > open.start + open.qlen
            && (matches!(b[run - 1], b']' | b'}') || is_ws(b[run - 1]))
        {
            run -= 1;
        }
        let closers = &b[run..];
        // a key can only be followed by the object's `}` (`{"a" ]` is an error)
        let kinds: &[u8] = if open.slot == Slot::Key { b"}" } else { b"]}" };
        let closed = closers.iter().any(|c| kinds.contains(c))
            && !closers
                .iter()
                .any(|c| matches!(c, b']' | b'}') && !kinds.contains(c))
            && !closers.iter().any(|&c| brackets.opened(c));
        let body_end = if closed { run } else { len };
        let last = self.prev_non_ws(body_end.max(1) - 1);
        if last >= open.start + open.qlen && b[last] == b'+' {
            // `"hello +`: a concatenation that never came; the string ends before the `+`
            return Ok(AtEnd::Again(Mode::Until(last)));
        }
        if closed {
            if open.slot == Slot::Item && closers.iter().find(|c| !is_ws(**c)) == Some(&b']') {
                // `["hello, world]`: jsonrepair splits the words into items, when they are
                // plain words and the array's own `]` follows (the second reading may also
                // run past those brackets, when an escape takes one: then it is not used)
                self.budget -= (len - open.start) as isize;
                out.clear();
                if let Pass::Done(k) = self.string_pass(open, Mode::StopAtDelimiter, out)? {
                    if k == run || (k < run && b[k] == b',' && plain_words(&b[k..run])) {
                        return Ok(AtEnd::Done(k));
                    }
                }
            }
            return Ok(AtEnd::Again(Mode::Until(run)));
        }
        out.trim_end_spaces();
        Ok(AtEnd::Done(len))
    }

    /// For the usual string, `"text"` with no escape or control character, followed (after
    /// spaces) by the end of the text, a line break, `:`, `,`, or a closing bracket that is
    /// no inner text: the offset of its closing quote. The `Normal` reading gives exactly that
    /// string, with the same look past a comma (and the same charge to the budget), so the
    /// string can be taken without its machinery; anything else is left to it.
    #[inline]
    fn plain_string_end(&mut self, i: usize, slot: Slot) -> Option<usize> {
        let b = self.b;
        let end = find_json_special(b, i + 1, b.len());
        if b.get(end) != Some(&b'"') {
            return None;
        }
        let mut k = end + 1;
        while matches!(b.get(k), Some(b' ' | b'\t' | b'\r')) {
            k += 1;
        }
        let ok = match b.get(k) {
            None | Some(b':' | b'\n') => true,
            Some(b'}' | b']') => !self.text_after_closers(k),
            Some(b',') if slot == Slot::Member => {
                is_delimiter(b[self.prev_non_ws(end - 1)]) || self.next_member_follows(k + 1)
            }
            Some(b',') => true,
            _ => false,
        };
        ok.then_some(end)
    }

    /// `"""text"""`, `'''text'''` or ```` ```text``` ````: the text between, trimmed, into
    /// `self.scratch`.
    fn triple_quoted(&mut self, i: usize) -> bool {
        let b = self.b;
        let c = b[i];
        let k = match c {
            b'"' => 0,
            b'\'' => 1,
            b'`' => 2,
            _ => return false,
        };
        if b.get(i + 1) != Some(&c) || b.get(i + 2) != Some(&c) {
            return false;
        }
        let from = i + 3;
        if from >= self.triple_miss[k] {
            return false;
        }
        let mut j = from;
        let end = loop {
            match find1(b, j, c) {
                Some(p) if b.get(p + 1) == Some(&c) && b.get(p + 2) == Some(&c) => break p,
                Some(p) => j = p + 1,
                None => {
                    self.triple_miss[k] = from;
                    return false;
                }
            }
        };
        self.i = end + 3;
        self.scratch.clear();
        self.scratch.push_text(self.s[from..end].trim());
        true
    }

    /// One reading of the string opened by `open`, in `mode`, into `out`.
    fn string_pass(&mut self, open: Opening, mode: Mode, out: &mut B::Str) -> Res<Pass> {
        let Opening {
            start,
            quote,
            qlen,
            skip_escapes,
            slot,
        } = open;
        let s = self.s;
        let b = self.b;
        let len = b.len();
        let limit = match mode {
            Mode::StopAt(k) | Mode::Until(k) => k.min(len),
            _ => len,
        };
        let stop_delim = mode == Mode::StopAtDelimiter;
        // whether the first quote that can close the string does
        let first_quote_ends = stop_delim || matches!(mode, Mode::Until(_));
        let mut i = start + qlen;
        // brackets are counted as they come only in the `\"...\"` form; otherwise afterwards,
        // when (rarely) needed
        let mut brackets = Brackets::new(i, skip_escapes);
        loop {
            if !skip_escapes {
                let mut run = i;
                i = if stop_delim {
                    scan(&SPECIAL_STOP, b, i, limit)
                } else if quote == Quote::Double {
                    let mut k = find_json_special(b, i, limit);
                    while k + 1 < limit && b[k] == b'\\' {
                        if B::Str::JSON {
                            // into JSON text, escapes written the JSON way are part of the run
                            match json_escape_len(b, k) {
                                Some(n) if k + n <= limit => k += n,
                                _ => break,
                            }
                        } else if let Some(text) = out.decoded() {
                            // the common escapes, decoded here (the rest by `escape`)
                            let (k2, r) = decode_simple_escapes(s, k, run, limit, text);
                            k = k2;
                            run = r;
                            break;
                        } else {
                            break;
                        }
                        k = find_json_special(b, k, limit);
                    }
                    k
                } else {
                    scan(&SPECIAL_QUOTES, b, i, limit)
                };
                out.push_plain(&s[run..i]);
            }
            if i >= limit {
                if mode == Mode::Normal {
                    brackets.catch_up(b, len);
                    return Ok(Pass::AtEnd(brackets));
                }
                out.trim_end_spaces();
                return Ok(Pass::Done(limit));
            }
            let c = b[i];
            if let Some((q2, l2)) = quote_at(b, i) {
                if quote.closes_with(q2) {
                    let iq = i;
                    let j = self.lookahead_end(iq + l2);
                    let mut legit = first_quote_ends
                        || j >= len
                        || (is_delimiter(b[j])
                            && !(matches!(b[j], b')' | b']' | b'}')
                                && self.text_after_closers(j)
                                && brackets.catch_up(b, iq).unclosed(b[j])))
                        || (quote_at(b, j).is_some() && !self.next_quote_is_end(j))
                        || b[j].is_ascii_digit();
                    if legit
                        && mode == Mode::Normal
                        && slot == Slot::Member
                        && b.get(j) == Some(&b',')
                        && !is_delimiter(b[self.prev_non_ws(iq - 1)])
                        && !self.next_member_follows(j + 1)
                    {
                        // `{"text": "Use "quotes", please"}`: a comma inside the text, since
                        // no `key:` follows it
                        legit = false;
                    }
                    if legit {
                        return Ok(Pass::Done(iq + l2));
                    }
                    if mode == Mode::Normal {
                        let p = self.prev_non_ws(iq - 1);
                        if b[p] == b',' {
                            return Ok(Pass::Retry(Mode::StopAt(p), iq - start));
                        }
                        if is_delimiter(b[p]) {
                            return Ok(Pass::Retry(Mode::StopAtDelimiter, iq - start));
                        }
                    }
                }
                // a quote inside the text
                out.push_text(&s[i..i + l2]);
                i += l2;
            } else if stop_delim && is_unquoted_delimiter(c) {
                if i > 0 && b[i - 1] == b':' && is_url_start(&b[start + qlen..(i + 2).min(len)]) {
                    let u = i;
                    while i < len && is_url_char(b[i]) {
                        i += 1;
                    }
                    out.push_plain(&s[u..i]);
                }
                out.trim_end_spaces();
                return Ok(Pass::Done(i));
            } else if c == b'\\' {
                i = self.escape(i, out)?;
            } else if c < 0x20 {
                if matches!(c, b'\n' | b'\r' | b'\t' | 0x08 | 0x0C) {
                    out.push_char(c as char);
                    i += 1;
                } else {
                    return Err(self.err(ErrorKind::ControlCharacter, i));
                }
            } else {
                let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
                brackets.count_now(c);
                out.push_char(ch);
                i += ch.len_utf8();
            }
            if skip_escapes && b.get(i) == Some(&b'\\') {
                i += 1;
            }
        }
    }

    /// Reads the escape at `i` (a backslash) into `out`; returns the offset after it.
    fn escape(&self, i: usize, out: &mut B::Str) -> Res<usize> {
        let b = self.b;
        let len = b.len();
        let Some(&e) = b.get(i + 1) else {
            return Ok(len);
        };
        let simple = match e {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' | b'\n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'v' => Some('\u{b}'),
            b'0' if !self.at(i + 2).is_some_and(|c| c.is_ascii_digit()) => Some('\0'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push_char(ch);
            return Ok(i + 2);
        }
        match e {
            b'\r' => {
                out.push_char('\n');
                Ok(if self.at(i + 2) == Some(b'\n') {
                    i + 3
                } else {
                    i + 2
                })
            }
            b'u' => {
                let digits = hex_run(b, i + 2, 4);
                if digits == 4 {
                    let mut code = hex_value(&b[i + 2..i + 6]);
                    let mut next = i + 6;
                    if (0xD800..0xDC00).contains(&code) {
                        let low = (b.get(next) == Some(&b'\\')
                            && b.get(next + 1) == Some(&b'u')
                            && hex_run(b, next + 2, 4) == 4)
                            .then(|| hex_value(&b[next + 2..next + 6]))
                            .filter(|l| (0xDC00..0xE000).contains(l));
                        match low {
                            Some(low) => {
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                next += 6;
                            }
                            // the low half cut off by the end of the text: drop the pair, as
                            // a cut-off `\u` escape is dropped
                            None if cut_off_escape(&b[next..]) => return Ok(len),
                            None => code = 0xFFFD,
                        }
                    }
                    out.push_char(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    Ok(next)
                } else if i + 2 + digits >= len {
                    // a \u escape cut off by the end of the text: drop it
                    Ok(len)
                } else {
                    Err(self.err(ErrorKind::InvalidEscape, i))
                }
            }
            b'x' if hex_run(b, i + 2, 2) == 2 => {
                let code = hex_value(&b[i + 2..i + 4]);
                out.push_char(char::from_u32(code).unwrap_or('\u{FFFD}'));
                Ok(i + 4)
            }
            b'\'' => {
                out.push_char('\'');
                Ok(i + 2)
            }
            _ => {
                // an unknown escape like `\d` in a regular expression or `\U` in a Windows
                // path: the backslash was meant literally, keep both characters
                let ch = self.s[i + 1..].chars().next().unwrap_or('\u{FFFD}');
                out.push_char('\\');
                out.push_char(ch);
                Ok(i + 1 + ch.len_utf8())
            }
        }
    }

    /// Whether what follows a comma at `k` looks like the next member of an object: a key and
    /// a colon, or the end of the object, or a quoted key that the end of the text cuts off. The scan stops at the end of the line and is charged
    /// to the work budget; when the budget is spent the answer is yes.
    fn next_member_follows(&mut self, k: usize) -> bool {
        let b = self.b;
        if self.member_follows.0 == k {
            return self.member_follows.1;
        }
        if self.budget <= 0 {
            return true;
        }
        let k0 = k;
        let k = self.ws_end(k0, true);
        let mut j = k;
        let found = match b.get(k) {
            None | Some(b'}' | b']' | b'{' | b'[') => true,
            Some(_) => match quote_at(b, k) {
                Some((q, l)) => {
                    j = k + l;
                    loop {
                        j = scan(&SPECIAL_QUOTES, b, j, b.len());
                        match b.get(j) {
                            // the text ends inside what may be the next key: a stream cut
                            // off there, so trust the quote
                            None => break true,
                            Some(b'\n') => break false,
                            Some(b'\\') => j += 2,
                            Some(_) => match quote_at(b, j) {
                                Some((q2, l2)) if q.closes_with(q2) => {
                                    j = self.ws_end(j + l2, true);
                                    break matches!(b.get(j), None | Some(b':'));
                                }
                                Some((_, l2)) => j += l2,
                                None => j += 1,
                            },
                        }
                    }
                }
                None => {
                    while let Some(&c) = b.get(j) {
                        if matches!(c, b':' | b',' | b'{' | b'}' | b'[' | b']' | b'\n')
                            || quote_at(b, j).is_some()
                        {
                            break;
                        }
                        j += 1;
                    }
                    if let Some((_, l)) = quote_at(b, j) {
                        // `b":` a key whose opening quote is missing
                        j += l;
                    }
                    // JSON5 allows line breaks and comments between a key and its colon
                    j = self.ws_end(j, true);
                    b.get(j) == Some(&b':')
                }
            },
        };
        self.budget -= (j.max(k) - k0) as isize + 1;
        self.member_follows = (k0, found);
        found
    }

    /// Whether the closing brackets at `j` are followed by more text (a word, or the real end
    /// quote), as in `"the list [1, 2"] more"` or `"(5'3")"`, rather than by a delimiter or the
    /// end as in valid JSON.
    fn text_after_closers(&self, mut j: usize) -> bool {
        let b = self.b;
        while j < b.len() && matches!(b[j], b')' | b']' | b'}' | b' ' | b'\t' | b'\r') {
            j += 1;
        }
        match b.get(j) {
            None => false,
            Some(_) if quote_at(b, j).is_some() => self.next_quote_is_end(j),
            Some(&c) => !is_delimiter(c),
        }
    }

    /// Whether the quote at `j` is followed (after whitespace) by the end or a delimiter.
    fn next_quote_is_end(&self, j: usize) -> bool {
        let b = self.b;
        let mut k = j + quote_at(b, j).map_or(1, |q| q.1);
        while k < b.len() && is_ws(b[k]) {
            k += 1;
        }
        k >= b.len() || is_delimiter(b[k])
    }
}

/// Bytes that end a plain run inside a string that is not double-quoted: quotes (and the
/// first byte of typographic ones), backslash and control characters. (Double-quoted strings
/// use [`find_json_special`]: only `"` can end them.)
static SPECIAL_QUOTES: [bool; 256] = special_table(b"");
/// The same, plus the delimiters that end a string whose end quote is missing.
static SPECIAL_STOP: [bool; 256] = special_table(b"[]{},/+");

const fn special_table(more: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    let quotes = b"\"'`\\";
    let mut k = 0;
    while k < quotes.len() {
        t[quotes[k] as usize] = true;
        k += 1;
    }
    t[0xC2] = true;
    t[0xE2] = true;
    let mut k = 0;
    while k < more.len() {
        t[more[k] as usize] = true;
        k += 1;
    }
    t
}

/// The first byte in `b[i..limit]` that `table` marks, or `limit`.
#[inline]
fn scan(table: &[bool; 256], b: &[u8], mut i: usize, limit: usize) -> usize {
    while i < limit && !table[usize::from(b[i])] {
        i += 1;
    }
    i
}

/// Decodes into `text` the run from `run` and the common escapes (`\"`, `\\`, `\/`, `\n`,
/// `\t`, `\r`, `\b`, `\f`) from the backslash at `k` on, up to the next byte that ends a
/// run and is not one of them. Returns that byte's offset and where the rest of the run
/// starts (not yet in `text`).
fn decode_simple_escapes(
    s: &str,
    mut k: usize,
    mut run: usize,
    limit: usize,
    text: &mut String,
) -> (usize, usize) {
    let b = s.as_bytes();
    while k + 1 < limit && b[k] == b'\\' {
        let c = match b[k + 1] {
            // the escaped character starts the next run
            b'"' | b'\\' | b'/' => {
                text.push_str(&s[run..k]);
                run = k + 1;
                k = find_json_special(b, k + 2, limit);
                continue;
            }
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            _ => break,
        };
        text.push_str(&s[run..k]);
        text.push(c);
        run = k + 2;
        k = find_json_special(b, run, limit);
    }
    (k, run)
}

/// The length of the escape at `i` (a backslash) when JSON reads it to what this reader does:
/// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\uXXXX` that is not half of a surrogate
/// pair, or a whole pair. (`\/` is left out so that `repair` writes `/`.)
#[inline]
fn json_escape_len(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' if hex_run(b, i + 2, 4) == 4 => {
            let code = hex_value(&b[i + 2..i + 6]);
            if !(0xD800..0xE000).contains(&code) {
                Some(6)
            } else if code < 0xDC00
                && b.get(i + 6) == Some(&b'\\')
                && b.get(i + 7) == Some(&b'u')
                && hex_run(b, i + 8, 4) == 4
                && (0xDC00..0xE000).contains(&hex_value(&b[i + 8..i + 12]))
            {
                Some(12)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether `rest`, the whole rest of the text, is the beginning of a `\uXXXX` escape (or
/// nothing).
fn cut_off_escape(rest: &[u8]) -> bool {
    rest.len() < 6
        && rest.first().is_none_or(|&c| c == b'\\')
        && rest.get(1).is_none_or(|&c| c == b'u')
        && rest.iter().skip(2).all(u8::is_ascii_hexdigit)
}

/// Whether `text` is words separated by commas, with nothing that could start a value or a
/// member in it (quotes, colons, brackets, comments, escapes, line breaks).
fn plain_words(text: &[u8]) -> bool {
    !text.iter().any(|&c| {
        matches!(
            c,
            b'"' | b'\''
                | b'`'
                | b'\\'
                | b':'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'('
                | b')'
                | b'/'
                | b'#'
                | b'+'
                | b'\n'
                | b'\r'
                | 0xC2
                | 0xE2
        )
    })
}

/// The brackets in a string's text read so far. They are counted when asked for, from where
/// the last count stopped (each byte once per pass), skipping the character after a
/// backslash as the escapes do; in the `\"...\"` form, whose backslashes are skipped instead,
/// they are counted as they come.
#[derive(Debug, Clone, Copy)]
struct Brackets {
    /// Open-minus-close counts of `()`, `[]` and `{}`.
    depth: [i32; 3],
    /// Whether an opening bracket of each kind was seen.
    opened: [bool; 3],
    /// Counted up to here.
    from: usize,
    /// Counted as they come (`count_now`) rather than when asked for.
    eager: bool,
}

impl Brackets {
    fn new(from: usize, eager: bool) -> Self {
        Brackets {
            depth: [0; 3],
            opened: [false; 3],
            from,
            eager,
        }
    }

    /// Which of the three kinds `c` is, and whether it opens.
    fn kind(c: u8) -> Option<(usize, bool)> {
        match c {
            b'(' => Some((0, true)),
            b')' => Some((0, false)),
            b'[' => Some((1, true)),
            b']' => Some((1, false)),
            b'{' => Some((2, true)),
            b'}' => Some((2, false)),
            _ => None,
        }
    }

    fn count(&mut self, c: u8) {
        match Self::kind(c) {
            Some((k, true)) => {
                self.depth[k] += 1;
                self.opened[k] = true;
            }
            Some((k, false)) => self.depth[k] -= 1,
            None => {}
        }
    }

    /// Counts a character of the text as it comes, in the eager form.
    #[inline]
    fn count_now(&mut self, c: u8) {
        if self.eager {
            self.count(c);
        }
    }

    /// Counts the brackets in `b[from..to]`.
    fn catch_up(&mut self, b: &[u8], to: usize) -> &Self {
        if !self.eager {
            let mut k = self.from;
            while k < to {
                if b[k] == b'\\' {
                    k += 2;
                    continue;
                }
                self.count(b[k]);
                k += 1;
            }
            self.from = self.from.max(k);
        }
        self
    }

    /// Whether the text has an unclosed bracket of the kind `close` closes.
    fn unclosed(&self, close: u8) -> bool {
        Self::kind(close).is_some_and(|(k, _)| self.depth[k] > 0)
    }

    /// Whether the text opened a bracket of the kind `close` closes.
    fn opened(&self, close: u8) -> bool {
        Self::kind(close).is_some_and(|(k, _)| self.opened[k])
    }
}
