//! Objects, arrays and Python tuples.

use super::{Build, Parser, Res, Slot, StrBuf, Unquoted};
use crate::chars::{find_json_special, hex_run, hex_value, is_value_start, is_ws, quote_at};
use crate::{ErrorKind, Input};

impl<B: Build> Parser<'_, B> {
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
        if let Some(end) = self.plain_key() {
            // the usual key, `"name":`, read the way `string_value` would read it
            self.scratch.clear();
            self.scratch.push_plain(&self.s[self.i + 1..end]);
            self.i = end + 1;
            return Ok(Some(true));
        }
        if self.string_value(Slot::Key)? {
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
                        .push_char(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    k += 6;
                } else {
                    let ch = s[k..].chars().next().unwrap_or('\u{FFFD}');
                    self.scratch.push_char(ch);
                    k += ch.len_utf8();
                }
            }
        } else {
            self.scratch.push_text(key);
        }
        Ok(Some(false))
    }

    /// For `"name"` followed (after spaces) by a colon, with no escape or control character
    /// in the name: the offset of the closing quote. While the budget lasts, `string_value`
    /// reads exactly that, so the key can be taken without its machinery.
    #[inline]
    fn plain_key(&self) -> Option<usize> {
        let b = self.b;
        if self.peek() != Some(b'"') || self.budget <= 0 {
            return None;
        }
        let end = find_json_special(b, self.i + 1, b.len());
        if b.get(end) != Some(&b'"') {
            return None;
        }
        let mut k = end + 1;
        while matches!(b.get(k), Some(b' ' | b'\t' | b'\r')) {
            k += 1;
        }
        (b.get(k) == Some(&b':')).then_some(end)
    }

    /// Reads `key: value` members up to and including the closing `}`; returns whether the
    /// `}` was there.
    pub(super) fn object_members(&mut self, obj: &mut B::Obj, mut initial: bool) -> Res<bool> {
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
            // `{"`: only the opening quote, then the end (`{""` is an empty key)
            let key_truncated = quoted
                && self.i >= self.b.len()
                && quote_at(self.b, key_start).is_some_and(|(_, l)| key_start + l == self.i);
            self.skip_ws();
            let colon = self.peek() == Some(b':');
            if colon {
                self.i += 1;
            }
            let truncated = self.i >= self.b.len();
            if key_truncated {
                break; // `{"`: a key cut off before it began
            }
            // `{"a"}`: a key and the closing brace, as `{"a"` at the end of the text
            let brace = quoted && !colon && self.peek() == Some(b'}');
            if (truncated || brace)
                && !colon
                && self.b[self.i..]
                    .iter()
                    .all(|&c| matches!(c, b'}' | b']') || is_ws(c))
                && self.out.obj_has_key(obj, &self.scratch)
            {
                // A key without a value and with only closing brackets after it does not
                // replace a member that is complete: `{"path": "a", "path` (cut off from
                // `"path_to"`), `{"a": 1, "a}` (cut off before its end quote, the brackets
                // closing it), `{"a": 1, "a"}`. Asked once: nothing but brackets follow.
                continue;
            }
            if !colon && !quoted && self.peek() == Some(b'}') {
                // a stray word before the closing brace: `{"a": 1 junk}`
                continue;
            }
            if !colon && !truncated && !brace && !is_value_start(self.b, self.i) {
                return Err(self.err(ErrorKind::ColonExpected, self.i));
            }
            self.out.obj_key(obj, &mut self.scratch);
            let mut value = match self.value(Slot::Member)? {
                Some(v) => v,
                None if self.input == Input::Partial && self.i >= self.b.len() => {
                    // cut off before its value was complete: the member is left out
                    self.out.obj_abort_member(obj);
                    break;
                }
                None if colon || truncated || brace => self.out.null(),
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
                value = self.value_or_null(Slot::Member)?;
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

    pub(super) fn array(&mut self) -> Res<B::V> {
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
            let Some(mut v) = self.value(Slot::Item)? else {
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
                let value = self.value_or_null(Slot::Other)?;
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
    pub(super) fn tuple(&mut self) -> Res<B::V> {
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
                    match self.value(Slot::Other)? {
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
}
