//! The whole text: fences and prose around the value, several values in a row, closing
//! brackets to spare.

use super::{Build, Parser, Res, Slot};
use crate::ErrorKind;
use crate::chars::{is_ident, is_ident_start, is_value_start, is_ws, quote_at};

impl<B: Build> Parser<'_, B> {
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
        // the array of all values is one level more: only when the first one leaves room
        // (what follows a value nested as deep as allowed is ignored like trailing text)
        if more && self.deepest + 1 < super::MAX_DEPTH {
            let mut items = self.out.arr_wrap(root);
            // the other values are read as the array's items, one level down
            self.enter()?;
            loop {
                self.out.arr_item(&mut items);
                let Some(v) = self.value(Slot::Other)? else {
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
            self.leave();
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
        if self.b.len() >= super::MAX_INPUT {
            return Err(self.err(ErrorKind::TooLarge, 0));
        }
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
        self.value_inner(Slot::Other)
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
    pub(super) fn at_fence(&self) -> bool {
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
}
