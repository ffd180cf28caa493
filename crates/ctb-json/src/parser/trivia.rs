//! Whitespace, comments, runs of commas, `...` placeholders.

use super::{Build, Parser};
use crate::chars::{find1, find2, is_ws, special_ws_len};

impl<B: Build> Parser<'_, B> {
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
    pub(super) fn skip_ws(&mut self) {
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

    pub(super) fn ws_end(&self, mut i: usize, newline: bool) -> usize {
        let b = self.b;
        while let Some(&c) = b.get(i) {
            match c {
                b' ' | b'\t' | b'\r' => i += 1,
                b'\n' if newline => i += 1,
                b'/' | b'#' => match self.comment_end(i) {
                    Some(e) => i = e,
                    None => return i,
                },
                _ if c < 0x80 => return i,
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
    pub(super) fn lookahead_end(&mut self, start: usize) -> usize {
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
                _ if c < 0x80 => return i,
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
    pub(super) fn prev_non_ws(&self, mut i: usize) -> usize {
        while i > 0 && is_ws(self.b[i]) {
            i -= 1;
        }
        i
    }

    /// Skips whitespace and any further commas (`[1,,,2]`).
    #[inline]
    pub(super) fn skip_commas(&mut self) {
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
    #[inline]
    pub(super) fn skip_filler(&mut self) -> bool {
        match self.peek() {
            Some(b'.') => {
                self.skip_ellipsis();
                false
            }
            Some(b'`' | b'~') => self.at_fence(),
            _ => false,
        }
    }
}
