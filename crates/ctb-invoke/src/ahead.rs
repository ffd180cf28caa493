//! A search for some bytes in a growing text, ahead of the lines that ask about them: the
//! scanner asks whether a line holds a byte a call mention needs, the structure whether it
//! holds one inline reading acts on. Each byte is searched once.

/// Knows `[lo, hi)`: either the first byte searched for at or after `lo` is at `hi` (`hit`), or
/// there is none before `hi`. Lines are asked about in order, so each byte is searched once; a
/// line asked about before `lo`, or after a hit it has passed, restarts the search there.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ahead {
    lo: usize,
    hi: usize,
    hit: bool,
}

impl Ahead {
    /// Whether `b[start..end]` holds none of the bytes `find` looks for (`find` gives the
    /// offset of the first one in the bytes it is handed).
    #[inline]
    pub(crate) fn none_in(
        &mut self,
        b: &[u8],
        start: usize,
        end: usize,
        find: impl FnOnce(&[u8]) -> Option<usize>,
    ) -> bool {
        if start < self.lo || (self.hit && self.hi < start) {
            *self = Self {
                lo: start,
                hi: start,
                hit: false,
            };
        }
        if !self.hit && self.hi < end {
            match find(&b[self.hi..]) {
                Some(off) => {
                    self.hi += off;
                    self.hit = true;
                }
                None => self.hi = b.len(),
            }
        }
        self.hi >= end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_a_search_of_each_line_would() {
        let text = b"plain line\nwith < here\nplain\n\nlast: colon\nend";
        let find = |h: &[u8]| memchr::memchr2(b'<', b':', h);
        let lines: Vec<(usize, usize)> = {
            let mut out = Vec::new();
            let mut start = 0;
            for (i, c) in text.iter().enumerate() {
                if *c == b'\n' {
                    out.push((start, i));
                    start = i + 1;
                }
            }
            out.push((start, text.len()));
            out
        };
        // In order, in reverse order and twice over: the same answers as searching the line.
        let mut ahead = Ahead::default();
        for &(s, e) in lines.iter().chain(lines.iter().rev()).chain(lines.iter()) {
            let want = find(&text[s..e]).is_none();
            assert_eq!(ahead.none_in(text, s, e, find), want, "{s}..{e}");
        }
    }
}
