//! Resumable lexing: where a tag or a name ends, found a byte at a time across pieces of text.
//!
//! The call grammar is written in nom and parses *complete* tags. What nom cannot do on a text
//! that arrives in pieces is to know where a tag ends without starting again from its `<` each
//! time a piece arrives. These small scanners do that part: each keeps how far it has looked
//! and resumes there, so every byte of a reply is examined once however the reply is split,
//! and the work done is the same for every split.

use crate::vocab::dsml;

/// The answer of a resumable scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Poll<T> {
    /// Decided.
    Ready(T),
    /// The text ends before it is decided; call again when more has arrived. At the end of
    /// the whole reply this means the construct was cut off.
    Pending,
}

/// What scanning costs and how far it has looked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Meter {
    /// Bytes examined, every examination counted (a byte looked at twice counts twice).
    pub(crate) work: usize,
    /// One past the furthest byte examined: no decision so far depends on what comes after.
    pub(crate) reach: usize,
}

impl Meter {
    /// Records that the bytes `from..to` were examined.
    pub(crate) fn read(&mut self, from: usize, to: usize) {
        self.work += to.saturating_sub(from);
        self.reach = self.reach.max(to);
    }
}

/// Where a tag that starts at a given offset ends: just past the first `>` that is not inside a
/// quoted attribute value (a quote counts only right after `=`, as in the nom grammar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TagEnd {
    at: usize,
    pos: usize,
    quote: Quote,
    /// A closing tag cannot hold `<`: stop there (a `<` means this was not a tag).
    closing: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Plain,
    AfterEq,
    In(u8),
}

/// Why a tag extent could not be found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotATag {
    /// Longer than the grammar allows ([`crate::vocab::MAX_TAG_BYTES`]).
    TooLong,
    /// A `<` inside a closing tag at this offset: the scan may go on from there.
    Lt(usize),
}

impl TagEnd {
    /// A scan for the end of the opening (or self-closing) tag at `at`.
    pub(crate) fn open(at: usize) -> Self {
        Self {
            at,
            pos: at + 1,
            quote: Quote::Plain,
            closing: false,
        }
    }

    /// A scan for the end of a tag whose `<` is missing (a line that lost it, a reply that
    /// starts mid-tag): the scan starts at `at` itself.
    pub(crate) fn headless(at: usize) -> Self {
        Self {
            pos: at,
            ..Self::open(at)
        }
    }

    /// A scan for the end of the closing tag at `at` (`</...>`: no quotes, no `<`).
    pub(crate) fn close(at: usize) -> Self {
        Self {
            closing: true,
            ..Self::open(at)
        }
    }

    /// Where the tag starts.
    pub(crate) fn at(&self) -> usize {
        self.at
    }

    /// Resumes the scan over `text`; `Ready(Ok(end))` with `end` just past the `>`.
    pub(crate) fn poll(&mut self, text: &[u8], meter: &mut Meter) -> Poll<Result<usize, NotATag>> {
        let cap = self.at + crate::vocab::MAX_TAG_BYTES;
        let limit = cap.min(text.len());
        let from = self.pos;
        let mut result = None;
        while self.pos < limit {
            // Runs that cannot change the state are passed over: a quoted value up to its
            // quote, plain text up to the next `>`, `<` or `=`.
            match self.quote {
                Quote::In(q) => match memchr::memchr(q, &text[self.pos..limit]) {
                    Some(off) => {
                        self.pos += off + 1;
                        self.quote = Quote::Plain;
                        continue;
                    }
                    None => {
                        self.pos = limit;
                        break;
                    }
                },
                Quote::Plain => {
                    while self.pos < limit && !matches!(text[self.pos], b'>' | b'<' | b'=') {
                        self.pos += 1;
                    }
                    if self.pos == limit {
                        break;
                    }
                }
                Quote::AfterEq => {}
            }
            let b = text[self.pos];
            self.pos += 1;
            self.quote = match (self.quote, b) {
                (Quote::In(q), c) if c == q => Quote::Plain,
                (q @ Quote::In(_), _) => q,
                (_, b'>') => {
                    result = Some(Ok(self.pos));
                    break;
                }
                (_, b'<') if self.closing => {
                    result = Some(Err(NotATag::Lt(self.pos - 1)));
                    break;
                }
                (_, b'=') => Quote::AfterEq,
                (Quote::AfterEq, b'"' | b'\'') => Quote::In(b),
                (Quote::AfterEq, c) if c.is_ascii_whitespace() => Quote::AfterEq,
                _ => Quote::Plain,
            };
        }
        meter.read(from, self.pos);
        match result {
            Some(r) => Poll::Ready(r),
            None if self.pos >= cap => Poll::Ready(Err(NotATag::TooLong)),
            None => Poll::Pending,
        }
    }
}

/// Where a tag name that starts at a given offset ends: the first byte that cannot be part of
/// a (possibly prefixed) name. `Ready(Some(end))` when that byte has arrived, `Ready(None)` when
/// the name is longer than the grammar allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameEnd {
    at: usize,
    pos: usize,
}

impl NameEnd {
    pub(crate) fn new(at: usize) -> Self {
        Self { at, pos: at }
    }

    pub(crate) fn poll(&mut self, text: &[u8], meter: &mut Meter) -> Poll<Option<usize>> {
        let cap = self.at + crate::vocab::MAX_NAME_BYTES;
        let limit = cap.min(text.len());
        let from = self.pos;
        while self.pos < limit && in_name(text, self.at, self.pos) {
            self.pos += 1;
        }
        // The byte that ends the name is examined too.
        meter.read(from, (self.pos + 1).min(text.len()));
        if self.pos < limit {
            Poll::Ready(Some(self.pos))
        } else if self.pos >= cap {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    }
}

/// Whether `text[pos]` belongs to the name that starts at `at`: a name byte, a bar of the ASCII
/// DSML sentinel that starts the name (`|DSML|invoke`), or the one space after any sentinel
/// (`｜DSML｜ invoke`).
fn in_name(text: &[u8], at: usize, pos: usize) -> bool {
    match text[pos] {
        b if is_name_byte(b) => true,
        b'|' => dsml::ASCII.as_bytes().starts_with(&text[at..=pos]),
        b' ' => dsml::SENTINELS
            .iter()
            .any(|s| &text[at..pos] == s.as_bytes()),
        _ => false,
    }
}

/// A byte of a tag name or its prefix: ASCII letters, digits, `_`, `-`, the prefix colon, and
/// the bytes of non-ASCII characters (DeepSeek's full-width `｜DSML｜` prefix; nom decides
/// whether the run is a name).
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':') || b >= 0x80
}

/// Whether `text[at..]` starts with `lit`: `Ready(true)`/`Ready(false)` once decided, `Pending`
/// while the text ends inside a prefix of `lit`. Reads at most `lit.len()` bytes, and no byte
/// past the first that differs: what it reads does not depend on how much text has arrived
/// beyond what decides (the scan's reach is the same for every split).
pub(crate) fn starts_with(text: &[u8], at: usize, lit: &str, meter: &mut Meter) -> Poll<bool> {
    let lit = lit.as_bytes();
    let have = &text[at.min(text.len())..];
    let n = have.len().min(lit.len());
    if let Some(k) = have[..n].iter().zip(lit).position(|(a, b)| a != b) {
        meter.read(at, at + k + 1);
        return Poll::Ready(false);
    }
    meter.read(at, at + n);
    if n == lit.len() {
        Poll::Ready(true)
    } else {
        Poll::Pending
    }
}

/// What follows a call's head or one of its children, after white space (see [`next_child`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Child {
    /// The call's closer; the call ends at this offset (past the closer).
    Close(usize),
    /// A child's opener starts at this offset.
    Open(usize),
    /// Something else starts at this offset: not this call.
    Other(usize),
}

/// After a call's head or a child (Qwen3-Coder's and GLM's literal tags): white space from
/// `*pos`, then the call's `close` or a child's `open`.
pub(crate) fn next_child(
    text: &[u8],
    pos: &mut usize,
    close: &str,
    open: &str,
    meter: &mut Meter,
) -> Poll<Child> {
    let Some(at) = skip_ws(text, pos, meter) else {
        return Poll::Pending;
    };
    if text[at] != b'<' {
        return Poll::Ready(Child::Other(at));
    }
    match starts_with(text, at, close, meter) {
        Poll::Pending => return Poll::Pending,
        Poll::Ready(true) => return Poll::Ready(Child::Close(at + close.len())),
        Poll::Ready(false) => {}
    }
    match starts_with(text, at, open, meter) {
        Poll::Pending => Poll::Pending,
        Poll::Ready(true) => Poll::Ready(Child::Open(at)),
        Poll::Ready(false) => Poll::Ready(Child::Other(at)),
    }
}

/// Where a value written between literal tags ends (Qwen3-Coder's `<parameter=k>...</parameter>`,
/// GLM's `<arg_value>...</arg_value>`): at a closing literal that is followed, after white
/// space, by one of the literals that may come next (the next child or the call's end). A
/// closer followed by anything else is part of the value; so is any other tag, unless it is
/// one of the literals the caller refuses inside the value. Resumable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueEnd {
    /// Looking for the next `<`.
    Scan,
    /// A `<` here: is it the closer?
    Lt(usize),
    /// After a closer at `value_end`: white space, then what may follow.
    After { value_end: usize },
    /// The next tag after the closer starts at `at`.
    Next { value_end: usize, at: usize },
}

impl ValueEnd {
    /// Still inside the value: its closer has not been seen.
    pub(crate) fn in_value(&self) -> bool {
        matches!(self, ValueEnd::Scan | ValueEnd::Lt(_))
    }

    /// Advances from `*pos`; `Some(Ok((value_end, next)))` once the value ended at `value_end`
    /// and what follows starts at `next`, `Some(Err(at))` when one of the `refused` literals
    /// starts at `at` inside the value.
    pub(crate) fn step(
        &mut self,
        b: &[u8],
        pos: &mut usize,
        close: &str,
        follows: [&str; 2],
        refused: &[&str],
        meter: &mut Meter,
    ) -> Option<Result<(usize, usize), usize>> {
        loop {
            match *self {
                ValueEnd::Scan => {
                    let lt = next_lt(b, pos, meter)?;
                    *self = ValueEnd::Lt(lt);
                }
                ValueEnd::Lt(lt) => match starts_with(b, lt, close, meter) {
                    Poll::Pending => return None,
                    Poll::Ready(true) => {
                        *pos = lt + close.len();
                        *self = ValueEnd::After { value_end: lt };
                    }
                    Poll::Ready(false) => {
                        for lit in refused {
                            match starts_with(b, lt, lit, meter) {
                                Poll::Pending => return None,
                                Poll::Ready(true) => return Some(Err(lt)),
                                Poll::Ready(false) => {}
                            }
                        }
                        *pos = lt + 1;
                        *self = ValueEnd::Scan;
                    }
                },
                ValueEnd::After { value_end } => {
                    let next = skip_ws(b, pos, meter)?;
                    *self = if b[next] == b'<' {
                        ValueEnd::Next {
                            value_end,
                            at: next,
                        }
                    } else {
                        ValueEnd::Scan
                    };
                }
                ValueEnd::Next {
                    value_end,
                    at: next,
                } => {
                    // The second literal is read only when the first does not match.
                    let followed = match starts_with(b, next, follows[0], meter) {
                        Poll::Ready(true) => Poll::Ready(true),
                        first => match (first, starts_with(b, next, follows[1], meter)) {
                            (_, Poll::Ready(true)) => Poll::Ready(true),
                            (Poll::Ready(false), Poll::Ready(false)) => Poll::Ready(false),
                            _ => Poll::Pending,
                        },
                    };
                    match followed {
                        Poll::Pending => return None,
                        Poll::Ready(true) => return Some(Ok((value_end, next))),
                        Poll::Ready(false) => {
                            // Not the end of the value: that `<` is the value's text.
                            *pos = next;
                            *self = ValueEnd::Lt(next);
                        }
                    }
                }
            }
        }
    }
}

/// Skips white space from `*pos`; `Some(offset)` of the first other byte, `None` when the text
/// ends first (`*pos` is then the end, ready to resume).
pub(crate) fn skip_ws(text: &[u8], pos: &mut usize, meter: &mut Meter) -> Option<usize> {
    let from = *pos;
    while *pos < text.len() && text[*pos].is_ascii_whitespace() {
        *pos += 1;
    }
    meter.read(from, (*pos + 1).min(text.len()));
    (*pos < text.len()).then_some(*pos)
}

/// The offset of the next `<` at or after `*pos`; `None` when there is none yet (`*pos` is then
/// the end, ready to resume).
pub(crate) fn next_lt(text: &[u8], pos: &mut usize, meter: &mut Meter) -> Option<usize> {
    let from = *pos;
    match memchr::memchr(b'<', &text[from..]) {
        Some(off) => {
            *pos = from + off;
            meter.read(from, *pos + 1);
            Some(*pos)
        }
        None => {
            *pos = text.len();
            meter.read(from, text.len());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end_in_pieces(
        text: &str,
        open: bool,
        piece: usize,
    ) -> (Poll<Result<usize, NotATag>>, usize) {
        let mut scan = if open {
            TagEnd::open(0)
        } else {
            TagEnd::close(0)
        };
        let mut meter = Meter::default();
        let b = text.as_bytes();
        let mut end = 0;
        loop {
            end = (end + piece).min(b.len());
            let r = scan.poll(&b[..end], &mut meter);
            if r != Poll::Pending || end == b.len() {
                return (r, meter.work);
            }
        }
    }

    #[test]
    fn tag_end_skips_quoted_gt_and_is_split_independent() {
        let text = "<invoke name=\"a>b\" x = 'c>d' y=e\"f>tail";
        let (whole, w1) = end_in_pieces(text, true, text.len());
        for piece in 1..8 {
            let (split, w) = end_in_pieces(text, true, piece);
            assert_eq!(split, whole);
            assert_eq!(w, w1, "work must not depend on the split");
        }
        assert_eq!(whole, Poll::Ready(Ok(text.find("f>").unwrap() + 2)));
    }

    #[test]
    fn closing_tag_stops_at_lt() {
        assert_eq!(
            end_in_pieces("</param <x>", false, 3).0,
            Poll::Ready(Err(NotATag::Lt(8)))
        );
        assert_eq!(
            end_in_pieces("</invoke\n >", false, 2).0,
            Poll::Ready(Ok(11))
        );
    }

    #[test]
    fn long_tags_are_not_tags() {
        let text = format!("<invoke name=\"{}\">", "x".repeat(2000));
        assert_eq!(
            end_in_pieces(&text, true, 100).0,
            Poll::Ready(Err(NotATag::TooLong))
        );
    }

    #[test]
    fn literal_prefixes() {
        let mut m = Meter::default();
        assert_eq!(
            starts_with(b"<|tool", 0, "<|tool_call_begin|>", &mut m),
            Poll::Pending
        );
        assert_eq!(
            starts_with(b"<|toolx", 0, "<|tool_call_begin|>", &mut m),
            Poll::Ready(false)
        );
        assert_eq!(
            starts_with(b"a<|call|>", 1, "<|call|>", &mut m),
            Poll::Ready(true)
        );
    }

    #[test]
    fn name_end() {
        let mut n = NameEnd::new(1);
        let mut m = Meter::default();
        assert_eq!(n.poll(b"<ns:inv", &mut m), Poll::Pending);
        assert_eq!(n.poll(b"<ns:invoke ", &mut m), Poll::Ready(Some(10)));
        assert_eq!((m.work, m.reach), (10, 11));
        // Every DSML sentinel, with or without the space after it, belongs to the name.
        for (text, end) in [
            ("<|DSML|invoke ", 13),
            ("<|DSML| parameter>", 17),
            ("<\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c} calls>", 23),
            ("<|EPSE|invoke ", 6),
            ("<|DSML|  invoke ", 8),
        ] {
            let mut n = NameEnd::new(1);
            assert_eq!(
                n.poll(text.as_bytes(), &mut Meter::default()),
                Poll::Ready(Some(end)),
                "{text}"
            );
        }
    }
}
