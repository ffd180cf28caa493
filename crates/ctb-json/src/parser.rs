//! The tolerant reader: one forward pass of recursive descent with a depth cap. What it finds
//! goes to a [`Build`]: a `serde_json::Value` for `parse`, compact JSON text for `repair`.
//!
//! Linear time: every loop consumes input or stops. The only places that look further than
//! they consume are a string's first pass (which may be thrown away and redone in a more
//! conservative mode), the look past a closing quote, and the search for the end of a
//! triple-quoted string. The first two are charged to a work budget proportional to the input
//! length; once it is spent, strings are read in the conservative mode straight away and the
//! look past a quote no longer skips comments. The third is memoised.

use crate::build::Build;
use crate::chars::{
    Quote, is_delimiter, is_ident, is_ident_start, is_unquoted_delimiter, is_url_char,
    is_url_start, is_value_start, is_ws, quote_at, special_ws_len,
};
use crate::{Error, ErrorKind};

/// Nesting of objects, arrays and calls is limited to fewer than this many levels (127 at
/// most), exactly like serde_json's own limit, so whatever [`crate::repair`] prints,
/// serde_json can read back, and valid JSON that serde_json refuses for its depth is refused
/// here too.
pub const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Trust the quotes: a quote is the end when what follows looks like the end of a string.
    Normal,
    /// The end quote is missing: stop at the first delimiter.
    StopAtDelimiter,
    /// The end quote is missing: stop at this byte offset (a comma found in the first pass).
    StopAt(usize),
}

enum Pass {
    Done(usize),
    Retry(Mode, usize),
}

pub(crate) struct Parser<'a, B: Build> {
    /// Receives the values read.
    pub(crate) out: B,
    /// A reusable buffer for string contents.
    scratch: String,
    s: &'a str,
    b: &'a [u8],
    pub(crate) i: usize,
    depth: usize,
    budget: isize,
    /// For `"""`, `'''` and "```": no closing triple exists at or after this offset.
    triple_miss: [usize; 3],
    /// Whether the last object or array read was closed by its own bracket.
    pub(crate) last_closed: bool,
    /// Set just before reading an object member's value; read (and cleared) by the value.
    member_value: bool,
    /// Whether the string being read is an object member's value.
    string_in_member: bool,
}

type Res<T> = Result<T, Error>;

impl<'a, B: Build> Parser<'a, B> {
    pub(crate) fn new(s: &'a str, out: B) -> Self {
        let budget = isize::try_from(s.len()).unwrap_or(isize::MAX / 4);
        Parser {
            out,
            scratch: String::new(),
            s,
            b: s.as_bytes(),
            i: 0,
            depth: 0,
            budget: budget.saturating_mul(2).saturating_add(16 * 1024),
            triple_miss: [usize::MAX; 3],
            last_closed: false,
            member_value: false,
            string_in_member: false,
        }
    }

    fn err(&self, kind: ErrorKind, offset: usize) -> Error {
        Error::new(kind, offset.min(self.b.len()))
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn at(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    fn enter(&mut self) -> Res<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.err(ErrorKind::TooDeep, self.i));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- whitespace and comments -------------------------------------------------------

    /// Whether a `#` at `i` starts a comment: followed by a space, another `#`, `!` or the end
    /// of the line. `#fff` or `#tag` stay text.
    fn hash_comment_at(&self, i: usize) -> bool {
        matches!(
            self.at(i + 1),
            None | Some(b' ' | b'\t' | b'\n' | b'\r' | b'#' | b'!')
        )
    }

    /// End of the comment starting at `i` (`/*`, `//` or `#`), or `None` if there is none.
    fn comment_end(&self, i: usize) -> Option<usize> {
        let b = self.b;
        match (self.at(i), self.at(i + 1)) {
            (Some(b'/'), Some(b'*')) => {
                Some(find2(b, i + 2, b'*', b'/').map_or(b.len(), |e| e + 2))
            }
            (Some(b'/'), Some(b'/')) => Some(find1(b, i + 2, b'\n').unwrap_or(b.len())),
            (Some(b'#'), _) if self.hash_comment_at(i) => {
                Some(find1(b, i + 1, b'\n').unwrap_or(b.len()))
            }
            _ => None,
        }
    }

    /// Skips whitespace (ASCII and Unicode spaces) and comments.
    #[inline]
    fn skip_ws(&mut self) {
        let mut i = self.i;
        if self.b.get(i) == Some(&b' ') {
            i += 1;
        }
        match self.b.get(i) {
            Some(&c) if c > b' ' && c != b'/' && c != b'#' && c < 0x80 => self.i = i,
            None => self.i = i,
            _ => self.i = self.ws_end(i, true),
        }
    }

    fn ws_end(&self, mut i: usize, newline: bool) -> usize {
        let b = self.b;
        while let Some(&c) = b.get(i) {
            match c {
                b' ' | b'\t' | b'\r' => i += 1,
                b'\n' if newline => i += 1,
                b'/' | b'#' => match self.comment_end(i) {
                    Some(e) => i = e,
                    None => return i,
                },
                _ => {
                    let n = special_ws_len(b, i);
                    if n == 0 {
                        return i;
                    }
                    i += n;
                }
            }
        }
        i
    }

    /// The look past a closing quote: whitespace except newlines, and comments while the
    /// budget lasts.
    fn lookahead_end(&mut self, start: usize) -> usize {
        let b = self.b;
        let mut i = start;
        while let Some(&c) = b.get(i) {
            match c {
                b' ' | b'\t' | b'\r' => i += 1,
                b'/' | b'#' if self.budget > 0 => match self.comment_end(i) {
                    Some(e) => {
                        self.budget -= (e - i) as isize;
                        i = e;
                    }
                    None => return i,
                },
                _ => {
                    let n = special_ws_len(b, i);
                    if n == 0 {
                        return i;
                    }
                    i += n;
                }
            }
        }
        i
    }

    /// Index of the last non-whitespace byte at or before `i` (ASCII whitespace only).
    fn prev_non_ws(&self, mut i: usize) -> usize {
        while i > 0 && is_ws(self.b[i]) {
            i -= 1;
        }
        i
    }

    /// Skips whitespace and any further commas (`[1,,,2]`).
    #[inline]
    fn skip_commas(&mut self) {
        self.skip_ws();
        if self.peek() == Some(b',') {
            self.skip_more_commas();
        }
    }

    fn skip_more_commas(&mut self) {
        while self.peek() == Some(b',') {
            self.i += 1;
            self.skip_ws();
        }
    }

    #[inline]
    fn skip_ellipsis(&mut self) {
        self.skip_ws();
        if self.peek() == Some(b'.') && self.b[self.i..].starts_with(b"...") {
            self.i += 3;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.i += 1;
            }
        }
    }

    /// Before a member or item: skips a `...` placeholder; true when a code fence ends the
    /// container here.
    fn skip_filler(&mut self) -> bool {
        match self.peek() {
            Some(b'.') => {
                self.skip_ellipsis();
                false
            }
            Some(b'`' | b'~') => self.at_fence(),
            _ => false,
        }
    }

    /// A value, or `null` where the text has none (`{"a": }`, a cut-off input).
    fn value_or_null(&mut self) -> Res<B::V> {
        Ok(match self.value()? {
            Some(v) => v,
            None => self.out.null(),
        })
    }

    // ----- the document -------------------------------------------------------------------

    /// Reads a whole document: fences and prose around the value, NDJSON and concatenated
    /// values, redundant closing brackets, trailing text.
    pub(crate) fn document(&mut self) -> Res<B::V> {
        self.skip_ws();
        self.skip_open_fence();
        self.skip_prose();
        let root_start = self.i;
        let Some(mut root) = self.root_value()? else {
            return Err(if self.i >= self.b.len() {
                self.err(ErrorKind::Empty, self.b.len())
            } else {
                self.err(ErrorKind::Unexpected, self.i)
            });
        };
        let root_end = self.i;
        self.skip_ws();
        if self.skip_close_fence() {
            return Ok(root);
        }
        let comma = self.peek() == Some(b',');
        if comma {
            self.i += 1;
            self.skip_ws();
        }
        let container = self.out.is_object(&root) || self.out.is_array(&root);
        if comma && self.out.is_object(&root) && quote_at(self.b, self.i).is_some() {
            // `{"a": 1}, "b": 2}`: an object closed too early; keep reading its members.
            let mut obj = self.out.obj_reopen(root);
            self.enter()?;
            self.object_members(&mut obj, false)?;
            self.leave();
            root = self.out.obj_end(obj);
            self.skip_ws();
        }
        let newline = self.b[root_end.min(self.i)..self.i].contains(&b'\n');
        let next_is_container = matches!(self.peek(), Some(b'{' | b'['));
        let more = if container {
            next_is_container && root_start < root_end
        } else {
            is_value_start(self.b, self.i) && (comma || newline)
        };
        if more {
            let mut items = self.out.arr_wrap(root);
            loop {
                self.out.arr_item(&mut items);
                let Some(v) = self.value()? else {
                    self.out.arr_abort_item(&mut items);
                    break;
                };
                self.out.arr_push(&mut items, v);
                if self.peek() == Some(b',') {
                    self.i += 1;
                    self.skip_ws();
                }
                if self.skip_close_fence() {
                    break;
                }
                if container && !matches!(self.peek(), Some(b'{' | b'[')) {
                    break;
                }
            }
            root = self.out.arr_end(items);
        }
        // Redundant closing brackets, then whatever follows is ignored.
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'}' | b']') => self.i += 1,
                _ => break,
            }
        }
        Ok(root)
    }

    /// A root value; `{{ ... }}` is read as one object (Agent Zero's templates double braces).
    pub(crate) fn root_value(&mut self) -> Res<Option<B::V>> {
        if self.peek() == Some(b'{') && self.at(self.i + 1) == Some(b'{') {
            self.i += 1;
            let v = self.object()?;
            let closed = self.last_closed;
            let j = self.ws_end(self.i, true);
            if closed && self.at(j) == Some(b'}') {
                self.i = j + 1;
            }
            self.last_closed = closed;
            return Ok(Some(v));
        }
        self.value_inner()
    }

    /// Skips an opening Markdown fence (```` ``` ````, `~~~`, also `[```` and `{````) and its
    /// language tag.
    fn skip_open_fence(&mut self) -> bool {
        let b = self.b;
        let mut i = self.i;
        if matches!(self.peek(), Some(b'[' | b'{')) {
            i += 1;
        }
        let fence = match b.get(i) {
            Some(&c @ (b'`' | b'~')) => c,
            _ => return false,
        };
        let mut n = 0;
        while b.get(i + n) == Some(&fence) {
            n += 1;
        }
        if n < 3 {
            return false;
        }
        i += n;
        while b
            .get(i)
            .is_some_and(|&c| is_ident(c) || c == b'-' || c == b'+')
        {
            i += 1;
        }
        self.i = i;
        self.skip_ws();
        true
    }

    /// Skips a closing fence (also ```` ```] ```` and ```` ```} ````). Returns whether it did.
    fn skip_close_fence(&mut self) -> bool {
        let b = self.b;
        let i = self.i;
        let Some(&fence @ (b'`' | b'~')) = b.get(i) else {
            return false;
        };
        if b.get(i + 1) != Some(&fence) || b.get(i + 2) != Some(&fence) {
            return false;
        }
        self.i = b.len();
        true
    }

    /// Whether a closing Markdown fence starts here (it ends every open container).
    #[inline]
    fn at_fence(&self) -> bool {
        let b = self.b;
        let i = self.i;
        matches!(b.get(i), Some(&c @ (b'`' | b'~')) if b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c))
    }

    /// Prose before the value: text that does not start a JSON value and is followed by a
    /// `{`, `[` or a code fence later on. Jumps to that position.
    fn skip_prose(&mut self) {
        let b = self.b;
        let i = self.i;
        let Some(&c) = b.get(i) else { return };
        let bullet =
            matches!(c, b'-' | b'*' | b'>') && matches!(b.get(i + 1), Some(b' ' | b'\t' | b'*'));
        let proseish = bullet
            || !(matches!(
                c,
                b'{' | b'[' | b'(' | b'-' | b'+' | b'.' | b'/' | b'\\' | b'0'..=b'9'
            ) || quote_at(b, i).is_some());
        if !proseish {
            return;
        }
        if is_ident_start(c) {
            let mut j = i;
            while b.get(j).is_some_and(|&c| is_ident(c)) {
                j += 1;
            }
            while b.get(j).is_some_and(|&c| is_ws(c)) {
                j += 1;
            }
            if b.get(j) == Some(&b'(') {
                return; // a function call like callback({...}) or NumberLong("2")
            }
            let word = &self.s[i..j].trim_end();
            if ["true", "false", "null", "undefined"]
                .iter()
                .any(|k| word.eq_ignore_ascii_case(k))
                || ["None", "NaN", "Infinity"].contains(word)
            {
                return; // a keyword, not prose
            }
        }
        let mut j = i;
        while j < b.len() {
            match b[j] {
                b'{' | b'[' => {
                    self.i = j;
                    return;
                }
                c @ (b'`' | b'~') if b.get(j + 1) == Some(&c) && b.get(j + 2) == Some(&c) => {
                    self.i = j;
                    self.skip_open_fence();
                    return;
                }
                _ => j += 1,
            }
        }
    }

    // ----- values -------------------------------------------------------------------------

    /// A value with the whitespace and comments around it.
    pub(crate) fn value(&mut self) -> Res<Option<B::V>> {
        self.skip_ws();
        let v = self.value_inner()?;
        self.skip_ws();
        Ok(v)
    }

    fn value_inner(&mut self) -> Res<Option<B::V>> {
        let member_value = std::mem::take(&mut self.member_value);
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        match c {
            b'{' => return self.object().map(Some),
            b'[' => return self.array().map(Some),
            b'(' => return self.tuple().map(Some),
            b'}' | b']' | b',' | b':' | b')' => return Ok(None),
            b'0'..=b'9' | b'-' | b'+' | b'.' => {
                if let Some(v) = self.number() {
                    return Ok(Some(v));
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                if matches!(c, b'I' | b'N') {
                    if let Some(v) = self.number() {
                        return Ok(Some(v)); // Infinity, NaN
                    }
                }
                if let Some(v) = self.keyword() {
                    return Ok(Some(v));
                }
            }
            _ => {
                self.string_in_member = member_value;
                let found = self.string_value();
                self.string_in_member = false;
                if found? {
                    return Ok(Some(self.out.string(&mut self.scratch)));
                }
            }
        }
        match self.unquoted(false)? {
            Some(Unquoted::Text(a, b)) => {
                let s = self.s;
                return Ok(Some(if &s[a..b] == "undefined" {
                    self.out.null()
                } else {
                    self.out.text(&s[a..b])
                }));
            }
            Some(Unquoted::Call(_, v)) => return Ok(Some(v)),
            None => {}
        }
        Ok(self.regex())
    }

    pub(crate) fn object(&mut self) -> Res<B::V> {
        self.enter()?;
        self.i += 1; // '{'
        let mut obj = self.out.obj_begin();
        self.skip_ws();
        if self.peek() == Some(b',') {
            self.i += 1;
            self.skip_ws();
        }
        let closed = self.object_members(&mut obj, true)?;
        self.leave();
        self.last_closed = closed;
        Ok(self.out.obj_end(obj))
    }

    /// A key, left in `self.scratch`: a quoted string, or unquoted text (a function call gives
    /// its name). Returns whether it was quoted, or `None` when there is no key.
    fn key(&mut self) -> Res<Option<bool>> {
        if self.string_value()? {
            return Ok(Some(true));
        }
        let s = self.s;
        let range = match self.unquoted(true)? {
            Some(Unquoted::Text(a, b)) => (a, b),
            Some(Unquoted::Call(name, v)) => {
                self.out.discard(v);
                name
            }
            None => return Ok(None),
        };
        self.scratch.clear();
        let key = &s[range.0..range.1];
        if key.contains("\\u") {
            // JSON5 identifiers may spell characters as `\uXXXX`
            let mut k = range.0;
            while k < range.1 {
                if self.b[k] == b'\\'
                    && self.b.get(k + 1) == Some(&b'u')
                    && hex_run(self.b, k + 2, 4) == 4
                {
                    let code = hex_value(&self.b[k + 2..k + 6]);
                    self.scratch
                        .push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    k += 6;
                } else {
                    let ch = s[k..].chars().next().unwrap_or('\u{FFFD}');
                    self.scratch.push(ch);
                    k += ch.len_utf8();
                }
            }
        } else {
            self.scratch.push_str(key);
        }
        Ok(Some(false))
    }

    /// Reads `key: value` members up to and including the closing `}`; returns whether the
    /// `}` was there.
    fn object_members(&mut self, obj: &mut B::Obj, mut initial: bool) -> Res<bool> {
        while let Some(c) = self.peek() {
            if c == b'}' {
                break;
            }
            if !initial {
                if c == b',' {
                    self.i += 1;
                }
                self.skip_commas();
            }
            // (whitespace is already skipped here: after the bracket, a value or a comma)
            if self.skip_filler() {
                break;
            }
            if self.peek() == Some(b'[') && self.out.obj_last_is_array(obj) {
                // `{"a": [1], [2]}`: more items for the array before
                let more = self.array()?;
                self.out.obj_extend_last(obj, more);
                self.skip_ws();
                initial = false;
                continue;
            }
            let key_start = self.i;
            let Some(quoted) = self.key()? else {
                match self.peek() {
                    None | Some(b'}' | b'{' | b']' | b'[') => break,
                    _ => return Err(self.err(ErrorKind::KeyExpected, self.i)),
                }
            };
            let key_truncated = quoted && self.i >= self.b.len() && self.scratch.is_empty();
            self.skip_ws();
            let colon = self.peek() == Some(b':');
            if colon {
                self.i += 1;
            }
            let truncated = self.i >= self.b.len();
            if key_truncated {
                break; // `{"`: a key cut off before it began
            }
            if !colon && !quoted && self.peek() == Some(b'}') {
                // a stray word before the closing brace: `{"a": 1 junk}`
                continue;
            }
            if !colon && !truncated && !is_value_start(self.b, self.i) {
                return Err(self.err(ErrorKind::ColonExpected, self.i));
            }
            self.out.obj_key(obj, &mut self.scratch);
            self.member_value = true;
            let mut value = match self.value()? {
                Some(v) => v,
                None if colon || truncated => self.out.null(),
                None => return Err(self.err(ErrorKind::ColonExpected, self.i)),
            };
            if !colon
                && !quoted
                && self.peek() == Some(b':')
                && self.i > key_start
                && self.out.is_string(&value)
            {
                // `{"a": 1, JUNK "b": 2}`: the word was noise, the string is the key
                let mut k = self.out.take_string(value);
                self.out.obj_abort_member(obj);
                self.out.obj_key(obj, &mut k);
                self.i += 1;
                self.member_value = true;
                value = self.value_or_null()?;
            }
            self.out.obj_value(obj, value);
            initial = false;
        }
        if self.peek() == Some(b'}') {
            self.i += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn array(&mut self) -> Res<B::V> {
        self.enter()?;
        self.i += 1; // '['
        let mut items = self.out.arr_begin();
        self.skip_ws();
        if self.peek() == Some(b',') {
            self.i += 1;
            self.skip_ws();
        }
        let mut initial = true;
        while let Some(c) = self.peek() {
            if c == b']' {
                break;
            }
            if !initial && c == b',' {
                self.i += 1;
                self.skip_commas();
            }
            // (whitespace is already skipped here: after the bracket, a value or a comma)
            if self.skip_filler() {
                break;
            }
            self.out.arr_item(&mut items);
            let Some(mut v) = self.value()? else {
                self.out.arr_abort_item(&mut items);
                break;
            };
            if self.peek() == Some(b':') && self.out.is_string(&v) {
                // `["key": "value"]`: an object whose braces are missing.
                let mut key = self.out.take_string(v);
                self.i += 1;
                self.enter()?;
                let mut obj = self.out.obj_begin();
                self.out.obj_key(&mut obj, &mut key);
                let value = self.value_or_null()?;
                self.out.obj_value(&mut obj, value);
                if self.peek() == Some(b',') && self.at(self.ws_end(self.i + 1, true)) != Some(b'[')
                {
                    self.object_members(&mut obj, false)?;
                } else if self.peek() == Some(b'}') {
                    self.i += 1;
                }
                self.leave();
                self.skip_ws();
                v = self.out.obj_end(obj);
            }
            self.out.arr_push(&mut items, v);
            initial = false;
        }
        let closed = self.peek() == Some(b']');
        if closed {
            self.i += 1;
        }
        self.leave();
        self.last_closed = closed;
        Ok(self.out.arr_end(items))
    }

    /// A Python tuple: `(1, 2)` is an array, `(1)` is the value itself.
    fn tuple(&mut self) -> Res<B::V> {
        self.enter()?;
        self.i += 1; // '('
        let mut items = self.out.arr_begin();
        let mut count = 0;
        let mut comma = false;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b')') => {
                    self.i += 1;
                    break;
                }
                Some(b',') => {
                    comma = true;
                    self.i += 1;
                }
                _ => {
                    self.out.arr_item(&mut items);
                    match self.value()? {
                        Some(v) => {
                            self.out.arr_push(&mut items, v);
                            count += 1;
                        }
                        None => {
                            self.out.arr_abort_item(&mut items);
                            break;
                        }
                    }
                }
            }
        }
        self.leave();
        if count == 1 && !comma {
            Ok(self.out.arr_unwrap_single(items))
        } else {
            Ok(self.out.arr_end(items))
        }
    }

    // ----- strings ------------------------------------------------------------------------

    /// A quoted string, followed by `+ "more"` concatenations.
    /// A quoted string, followed by `+ "more"` concatenations. Its text is left in
    /// `self.scratch`; returns whether there was one.
    fn string_value(&mut self) -> Res<bool> {
        if !self.string()? {
            return Ok(false);
        }
        loop {
            let j = self.ws_end(self.i, true);
            if self.at(j) != Some(b'+') {
                break;
            }
            self.i = j + 1;
            self.skip_ws();
            let mut first = std::mem::take(&mut self.scratch);
            let more = self.string()?;
            first.push_str(&self.scratch);
            self.scratch = first;
            if !more {
                break;
            }
        }
        Ok(true)
    }

    /// A quoted string into `self.scratch`; returns whether there was one.
    fn string(&mut self) -> Res<bool> {
        let b = self.b;
        let mut i = self.i;
        let skip_escapes = b.get(i) == Some(&b'\\');
        if skip_escapes {
            i += 1;
        }
        let Some((quote, qlen)) = quote_at(b, i) else {
            return Ok(false);
        };
        if !skip_escapes && self.triple_quoted(i) {
            return Ok(true);
        }
        let mut mode = if self.budget > 0 {
            Mode::Normal
        } else {
            Mode::StopAtDelimiter
        };
        let mut buf = std::mem::take(&mut self.scratch);
        loop {
            buf.clear();
            match self.string_pass(i, quote, qlen, skip_escapes, mode, &mut buf) {
                Ok(Pass::Done(end)) => {
                    self.i = end;
                    self.scratch = buf;
                    return Ok(true);
                }
                Ok(Pass::Retry(m, scanned)) => {
                    self.budget -= scanned as isize;
                    mode = m;
                }
                Err(e) => return Err(e),
            }
        }
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
        self.scratch.push_str(self.s[from..end].trim());
        true
    }

    fn string_pass(
        &mut self,
        start: usize,
        quote: Quote,
        qlen: usize,
        skip_escapes: bool,
        mode: Mode,
        out: &mut String,
    ) -> Res<Pass> {
        let s = self.s;
        let b = self.b;
        let len = b.len();
        let limit = match mode {
            Mode::StopAt(k) => k.min(len),
            _ => len,
        };
        let stop_delim = mode == Mode::StopAtDelimiter;
        let mut i = start + qlen;
        // open-minus-close counts of (), [] and {} in the text read so far
        let mut brackets = [0i32; 3];
        loop {
            let run = i;
            if !skip_escapes {
                let table = if stop_delim { &SPECIAL_STOP } else { &SPECIAL };
                while i < limit && !table[usize::from(b[i])] {
                    i += 1;
                }
                out.push_str(&s[run..i]);
            }
            if i >= limit {
                if let Mode::StopAt(_) = mode {
                    trim_end_spaces(out);
                    return Ok(Pass::Done(limit));
                }
                if mode == Mode::Normal && len > 0 && is_delimiter(b[self.prev_non_ws(len - 1)]) {
                    return Ok(Pass::Retry(Mode::StopAtDelimiter, len - start));
                }
                trim_end_spaces(out);
                return Ok(Pass::Done(len));
            }
            let c = b[i];
            if let Some((q2, l2)) = quote_at(b, i) {
                if quote.closes_with(q2) {
                    let iq = i;
                    let j = self.lookahead_end(iq + l2);
                    let mut legit = stop_delim
                        || j >= len
                        || (is_delimiter(b[j])
                            && !(inside_unclosed(&brackets, b[j]) && self.text_after_closers(j)))
                        || (quote_at(b, j).is_some() && !self.next_quote_is_end(j))
                        || b[j].is_ascii_digit();
                    if legit
                        && mode == Mode::Normal
                        && self.string_in_member
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
                out.push_str(&s[i..i + l2]);
                i += l2;
            } else if stop_delim && is_unquoted_delimiter(c) {
                if i > 0 && b[i - 1] == b':' && is_url_start(&b[start + qlen..(i + 2).min(len)]) {
                    let u = i;
                    while i < len && is_url_char(b[i]) {
                        i += 1;
                    }
                    out.push_str(&s[u..i]);
                }
                trim_end_spaces(out);
                return Ok(Pass::Done(i));
            } else if c == b'\\' {
                i = self.escape(i, out)?;
            } else if c < 0x20 {
                if matches!(c, b'\n' | b'\r' | b'\t' | 0x08 | 0x0C) {
                    out.push(c as char);
                    i += 1;
                } else {
                    return Err(self.err(ErrorKind::ControlCharacter, i));
                }
            } else {
                let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
                match ch {
                    '(' => brackets[0] += 1,
                    ')' => brackets[0] -= 1,
                    '[' => brackets[1] += 1,
                    ']' => brackets[1] -= 1,
                    '{' => brackets[2] += 1,
                    '}' => brackets[2] -= 1,
                    _ => {}
                }
                out.push(ch);
                i += ch.len_utf8();
            }
            if skip_escapes && b.get(i) == Some(&b'\\') {
                i += 1;
            }
        }
    }

    /// Reads the escape at `i` (a backslash) into `out`; returns the offset after it.
    fn escape(&self, i: usize, out: &mut String) -> Res<usize> {
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
            out.push(ch);
            return Ok(i + 2);
        }
        match e {
            b'\r' => {
                out.push('\n');
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
                            None => code = 0xFFFD,
                        }
                    }
                    out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
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
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                Ok(i + 4)
            }
            b'\'' => {
                out.push('\'');
                Ok(i + 2)
            }
            _ => {
                // an unknown escape like `\d` in a regular expression or `\U` in a Windows
                // path: the backslash was meant literally, keep both characters
                let ch = self.s[i + 1..].chars().next().unwrap_or('\u{FFFD}');
                out.push('\\');
                out.push(ch);
                Ok(i + 1 + ch.len_utf8())
            }
        }
    }

    /// Whether what follows a comma at `k` looks like the next member of an object: a key and
    /// a colon, or the end of the object. The scan stops at the end of the line and is charged
    /// to the work budget; when the budget is spent the answer is yes.
    fn next_member_follows(&mut self, k: usize) -> bool {
        let b = self.b;
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
                        while j < b.len() && !SPECIAL[usize::from(b[j])] {
                            j += 1;
                        }
                        match b.get(j) {
                            None | Some(b'\n') => break false,
                            Some(b'\\') => j += 2,
                            Some(_) => match quote_at(b, j) {
                                Some((q2, l2)) if q.closes_with(q2) => {
                                    j = self.ws_end(j + l2, true);
                                    break b.get(j) == Some(&b':');
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

    // ----- numbers, keywords, unquoted text -----------------------------------------------

    #[inline]
    fn at_end_of_number(&self, i: usize) -> bool {
        match self.at(i) {
            None => true,
            Some(c) if c >= 0x80 => special_ws_len(self.b, i) > 0,
            Some(c) => is_delimiter(c) || is_ws(c),
        }
    }

    fn number(&mut self) -> Option<B::V> {
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

    fn keyword(&mut self) -> Option<B::V> {
        let b = self.b;
        let start = self.i;
        let mut j = start;
        while b.get(j).is_some_and(|&c| is_ident(c)) {
            j += 1;
        }
        let word = &self.s[start..j];
        let v = if word.eq_ignore_ascii_case("true") {
            Some(true)
        } else if word.eq_ignore_ascii_case("false") {
            Some(false)
        } else if word.eq_ignore_ascii_case("null")
            || word.eq_ignore_ascii_case("undefined")
            || word == "None"
            || word == "NaN"
            || word == "Infinity"
        {
            None
        } else {
            return None;
        };
        self.i = j;
        Some(match v {
            Some(b) => self.out.boolean(b),
            None => self.out.null(),
        })
    }

    /// Unquoted text (a key when `is_key`), or a function call like `NumberLong("2")` or a
    /// JSONP wrapper `callback({...});`, which stands for its argument.
    fn unquoted(&mut self, is_key: bool) -> Res<Option<Unquoted<B::V>>> {
        let b = self.b;
        let len = b.len();
        let start = self.i;
        let mut i = start;
        if b.get(i).is_some_and(|&c| is_ident_start(c)) {
            while b.get(i).is_some_and(|&c| is_ident(c)) {
                i += 1;
            }
            let mut j = i;
            while b.get(j).is_some_and(|&c| is_ws(c)) {
                j += 1;
            }
            if b.get(j) == Some(&b'(') {
                self.i = j + 1;
                self.enter()?;
                let v = self.value_or_null()?;
                self.leave();
                if self.peek() == Some(b')') {
                    self.i += 1;
                    if self.peek() == Some(b';') {
                        self.i += 1;
                    }
                }
                return Ok(Some(Unquoted::Call((start, i), v)));
            }
        }
        while i < len
            && !is_unquoted_delimiter(b[i])
            && quote_at(b, i).is_none()
            && !(is_key && b[i] == b':')
        {
            i += 1;
        }
        if i > start && b[i - 1] == b':' && is_url_start(&b[start..(i + 2).min(len)]) {
            while i < len && is_url_char(b[i]) {
                i += 1;
            }
        }
        if i == start {
            return Ok(None);
        }
        while i > start && is_ws(b[i - 1]) {
            i -= 1;
        }
        self.i = i;
        if b.get(i) == Some(&b'"') {
            self.i += 1; // the end quote of a string whose start quote was missing
        }
        Ok(Some(Unquoted::Text(start, i)))
    }

    /// A JavaScript regular expression `/.../`, kept as text.
    fn regex(&mut self) -> Option<B::V> {
        let b = self.b;
        if self.peek() != Some(b'/') {
            return None;
        }
        let start = self.i;
        let mut i = start + 1;
        while i < b.len() && (b[i] != b'/' || b[i - 1] == b'\\') {
            i += 1;
        }
        i = (i + 1).min(b.len());
        self.i = i;
        let s = self.s;
        Some(self.out.text(&s[start..i]))
    }
}

/// What unquoted text turned out to be.
enum Unquoted<V> {
    /// Text at this byte range (`undefined` stands for `null` as a value).
    Text(usize, usize),
    /// A function call: the name's byte range and the argument.
    Call((usize, usize), V),
}

/// Bytes that end the fast run inside a string: quotes (and the first byte of typographic
/// ones), backslash, control characters and brackets (which are counted one by one).
static SPECIAL: [bool; 256] = special_table(false);
/// The same, plus the delimiters that end a string whose end quote is missing.
static SPECIAL_STOP: [bool; 256] = special_table(true);

const fn special_table(stop: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    let special = b"\"'`\\()[]{}";
    let mut k = 0;
    while k < special.len() {
        t[special[k] as usize] = true;
        k += 1;
    }
    t[0xC2] = true;
    t[0xE2] = true;
    if stop {
        t[b',' as usize] = true;
        t[b'/' as usize] = true;
        t[b'+' as usize] = true;
    }
    t
}

/// The end of a number in strict JSON syntax starting at `i`, if there is one.
#[inline]
fn strict_number_end(b: &[u8], mut i: usize) -> Option<usize> {
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

/// Whether the text read so far has an unclosed bracket of the kind `close` closes.
fn inside_unclosed(brackets: &[i32; 3], close: u8) -> bool {
    match close {
        b')' => brackets[0] > 0,
        b']' => brackets[1] > 0,
        b'}' => brackets[2] > 0,
        _ => false,
    }
}

fn trim_end_spaces(s: &mut String) {
    let n = s.trim_end_matches([' ', '\t', '\r']).len();
    s.truncate(n);
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

fn hex_run(b: &[u8], i: usize, max: usize) -> usize {
    let mut n = 0;
    while n < max && b.get(i + n).is_some_and(u8::is_ascii_hexdigit) {
        n += 1;
    }
    n
}

fn hex_value(b: &[u8]) -> u32 {
    b.iter().fold(0, |acc, &c| {
        acc * 16 + char::from(c).to_digit(16).unwrap_or(0)
    })
}

fn find1(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| p + from)
}

fn find2(b: &[u8], from: usize, c1: u8, c2: u8) -> Option<usize> {
    let mut j = from;
    loop {
        let p = find1(b, j, c1)?;
        if b.get(p + 1) == Some(&c2) {
            return Some(p);
        }
        j = p + 1;
    }
}
