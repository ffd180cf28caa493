//! Where a line stands in the reply's structure: in the reply's own voice, or inside something
//! the reply only quotes.
//!
//! A call counts only on a line the reply says in its own voice. [`Structure`] follows the text
//! line by line, in one pass, and knows at the start of each line whether it is inside:
//!
//! - Markdown code (CommonMark's block rules): a fenced block (its closer is the same character,
//!   at least as long, indented three columns or less, with only blanks after it), an indented
//!   block (four columns, a tab counting to the next multiple of four), a fence opened in a list
//!   item or a block quote; or an inline code span that a line of the same paragraph opened and
//!   that has not closed yet;
//! - a block quote's paragraph (its lines start with `>`; the lines that follow it without a
//!   blank line continue it);
//! - an HTML raw-text block (`<pre>`, `<script>`, `<style>`, `<textarea>`), a comment, CDATA, a
//!   processing instruction or declaration, or a block of invented results
//!   (`<function_results>` and its kin), up to its closer;
//! - a JSON value that starts with a `{` (at a line start, or mid-line before a key), up to the
//!   bracket that closes it, strings included (models write raw line breaks and unescaped
//!   quotes in them: a quote inside a string closes it only when the next non-blank byte is
//!   `,`, `:`, `}` or `]`);
//! - a candidate call that broke ([`Structure::broken`]) up to the closing tag that balances its
//!   opening one, or a call of a form the model does not write ([`Structure::skip`]).
//!
//! A line's context depends only on the text before it, so the answer is the same however the
//! reply arrives. Where the text before a line cannot settle it yet (an inline span not closed,
//! a quote whose meaning the next byte decides), the line counts as quoted: the safe side. Each
//! byte is looked at a bounded number of times (charged to the scanner's meter).

use crate::ahead::Ahead;
use crate::lex::Meter;
use crate::registry::{self, Reasoning};
use crate::vocab::{
    CDATA_OPEN, CODE_ELEMENTS, END_TAG, HTML_BLOCK_ELEMENTS, HTML_ELEMENTS, PARAMETER,
    QUOTE_ELEMENTS, RAW_TEXT_ELEMENTS, RESULT_ELEMENTS, TOOL_NAME_ATTRS, dsml,
};

/// The context of the lines to come.
#[derive(Debug, Clone, Default)]
pub(crate) struct Structure {
    /// Bytes before this offset have been read.
    done: usize,
    /// `done` is in the middle of a line (after a call that ended there, or the start of a
    /// broken one).
    mid_line: bool,
    mode: Mode,
    para: Para,
    items: Items,
    /// Where the bytes inline reading acts on (`` ` ``, `<`, `{`) are, found ahead of the lines
    /// that need them: a line of an open paragraph without them changes nothing
    /// ([`Structure::continues_paragraph`]).
    ahead: Ahead,
    /// Reasoning marks are read as prose (a scan for the call that ends a reasoning block).
    blind_to_reasoning: bool,
    /// Reasoning the text is inside, and what ends it. Nothing in it is the reply's own
    /// voice; the reading of its text goes on as usual (code, raw HTML...), and its closer
    /// ends it wherever it stands (to the model it is one token).
    reasoning: Option<RawEnd>,
    /// The text is still inside the reasoning it started in (opened in the prompt).
    opening: bool,
}

/// Bytes after a `<` that may open something for the inline reading: a name (an element, raw
/// text, code, a quotation, reasoning), a comment or declaration (`!`), a token (`|`, a
/// full-width bar's first byte).
const OPENS_AFTER_LT: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'|' | b'!' | 0xEF);
        c += 1;
    }
    table
};

/// Whether the inline reading of `line` (prose, no code span open) finds nothing to act on:
/// no backtick, no brace, and every `<` followed by a byte that opens nothing.
fn dull_inline(line: &[u8]) -> bool {
    let mut prev_lt = false;
    for &c in line {
        if prev_lt && OPENS_AFTER_LT[usize::from(c)] {
            return false;
        }
        if c == b'`' || c == b'{' {
            return false;
        }
        prev_lt = c == b'<';
    }
    true
}

/// The bytes a line of an open paragraph may start with (after its indent) for the line to
/// change nothing: every byte but `\r` (a blank line's) and those that start a block or inline
/// reading (`` ` ``, `~`, `-`, `*`, `+`, a digit, `>`, `#`, `<`, `_`, `{`, and `[` and `@` for a
/// reasoning mark and a diff hunk). See [`Structure::continues_paragraph`].
const STARTS_NO_BLOCK: [bool; 256] = {
    let mut table = [true; 256];
    let special = b"\r`~-*+0123456789>#<_{[@";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = false;
        i += 1;
    }
    table
};

/// The list items open at the current line, innermost last: each one's content column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Items {
    cols: [usize; MAX_ITEMS],
    len: usize,
}

/// List items followed in depth; deeper ones count as the deepest (their fences are then read
/// with that item's column, which can only keep a fence open longer).
const MAX_ITEMS: usize = 8;

impl Items {
    fn innermost(&self) -> Option<usize> {
        self.len.checked_sub(1).map(|i| self.cols[i])
    }

    /// Closes the items whose content column the line at `col` does not reach.
    fn close_past(&mut self, col: usize) {
        while self.innermost().is_some_and(|c| col < c) {
            self.len -= 1;
        }
    }

    fn open(&mut self, col: usize) {
        if self.len < MAX_ITEMS {
            self.cols[self.len] = col;
            self.len += 1;
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    /// The reply's own text.
    #[default]
    Prose,
    /// A fenced code block.
    Fence(Fence),
    /// Raw text up to a closer, opened where [`RawIn`] says.
    Raw(RawEnd, RawIn),
    /// The rest of the line on which an HTML block of raw text ended: CommonMark puts that
    /// whole line in the block.
    BlockTail,
    /// A JSON value.
    Json(Json),
    /// A broken candidate call, up to the tag that balances its opening one.
    Region(Region),
    /// A complete call that is not a call (a form the model does not write), up to its end.
    Skip(usize),
    /// The lines of a unified diff's hunk: each is a line of a file shown, not the reply's.
    Diff(Diff),
}

/// A unified diff hunk being read: the lines left of the old and new file (`@@ -a,b +c,d @@`
/// announces `b` and `d`), or, when the header gives no counts, every line that looks like a
/// hunk line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Diff {
    old: u32,
    new: u32,
    counted: bool,
}

/// The paragraph the prose is in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Para {
    /// A paragraph is open (the previous line was prose, not blank).
    open: bool,
    /// The length of the backtick run that opened an inline code span still open.
    ticks: usize,
    /// The paragraph belongs to a block quote.
    quoted: bool,
    /// The "paragraph" is an HTML block of CommonMark's sixth or seventh kind (`<div>`, or a
    /// tag alone on its line): it runs to a blank line, and no other block starts inside it.
    html: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    ch: u8,
    len: usize,
    /// The column its container's content starts at (a list item's), 0 at the top level.
    col: usize,
    /// Opened inside a block quote: a line without `>` closes it.
    in_quote: bool,
}

/// Where a raw-text block was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RawIn {
    /// At a line's start: an HTML block of CommonMark's first five kinds, whose last line (the
    /// one holding the closer) is all in the block.
    Block,
    /// In the middle of a line (nothing but blanks after it): the text after the closer is
    /// the line's prose again.
    Line,
    /// Inside an HTML block of the sixth or seventh kind: after the closer, back in that block;
    /// the block's blank line also ends it.
    Html,
}

/// What ends a raw-text block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RawEnd {
    /// A literal (`-->`, `]]>`, `?>`, `>`).
    Literal(&'static str),
    /// The closing tag of an element, in any namespace, its name in any case.
    Element(&'static str),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Json {
    depth: u32,
    string: Str,
}

/// Where a JSON value's reading stands. Strings open with any quote Agent Zero's tolerant
/// reader takes (`"`, `'`, `` ` ``), and only their own quote closes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Str {
    #[default]
    Out,
    In(u8),
    Escape(u8),
    /// A quote inside a string: it closes the string only if the next non-blank byte is
    /// `,`, `:`, `}` or `]`.
    Quote(u8),
}

/// What delimits a broken candidate's region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// An element, in any namespace: opening and closing tags are counted.
    Element(&'static str),
    /// Literal opening and closing strings, counted (`<function=` ... `</function>`).
    Literal(&'static str, &'static str),
    /// Tokens, any of which ends the region (a family's end-of-call tokens).
    Tokens(&'static [&'static str]),
    /// An element in any namespace and any case, opening and closing tags counted (HTML's
    /// `<blockquote>`).
    Folded(&'static str),
    /// The element whose local name is the text's bytes in this range, in any namespace,
    /// opening and closing tags counted: an element that carries a tool name
    /// (`<function name="x">`) or a stray `<parameter>`.
    ElementAt(usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Region {
    marker: Marker,
    depth: u32,
}

impl Structure {
    /// A reading of a reply that starts inside `reasoning` (the model's chat template opened
    /// it in the prompt): nothing is the reply's own voice before its closer.
    pub(crate) fn in_reasoning_from_start(reasoning: Reasoning) -> Self {
        Self {
            reasoning: Some(reasoning_end(reasoning)),
            opening: true,
            ..Self::default()
        }
    }

    /// A reading that takes reasoning marks for prose.
    pub(crate) fn blind_to_reasoning() -> Self {
        Self {
            blind_to_reasoning: true,
            ..Self::default()
        }
    }

    /// Whether the text read so far ends inside reasoning.
    pub(crate) fn in_reasoning(&self) -> bool {
        self.reasoning.is_some()
    }

    /// Whether the text read so far is still inside the reasoning it started in.
    pub(crate) fn in_opening_reasoning(&self) -> bool {
        self.opening
    }

    /// Reads the complete lines of `b` from where it stopped up to `to`, the start of a line.
    /// `line_before`, when known, is the start of the line that ends at `to - 1`, a line break
    /// with none before it in that line: the break is not searched for again.
    pub(crate) fn catch_up(
        &mut self,
        b: &[u8],
        to: usize,
        line_before: Option<usize>,
        meter: &mut Meter,
    ) {
        while self.done < to {
            let start = self.done;
            let eol = if line_before == Some(start) {
                debug_assert!(
                    b[to - 1] == b'\n' && memchr::memchr(b'\n', &b[start..to - 1]).is_none()
                );
                to - 1
            } else {
                match memchr::memchr(b'\n', &b[start..to]) {
                    Some(off) => start + off,
                    None => to - 1,
                }
            };
            if !self.pass_line(b, start, eol, meter) {
                self.read_line(b, start, eol, meter);
            }
        }
    }

    /// Reads the rest of `b` (the whole reply: its last line needs no line break).
    pub(crate) fn read_to_end(&mut self, b: &[u8], meter: &mut Meter) {
        if self.done < b.len() {
            let last = memchr::memrchr(b'\n', &b[self.done..]).map(|off| self.done + off + 1);
            if let Some(to) = last {
                self.catch_up(b, to, None, meter);
            }
            let start = self.done;
            if start < b.len() {
                let at_line_start = !self.mid_line;
                self.line(b, start, b.len(), at_line_start, meter);
                self.done = b.len();
                self.mid_line = true;
            }
        }
    }

    /// Reads the line `b[start..eol]` (`eol` its break, or the byte before the offset the text
    /// is read to) and moves past it.
    fn read_line(&mut self, b: &[u8], start: usize, eol: usize, meter: &mut Meter) {
        let at_line_start = !self.mid_line;
        self.line(b, start, eol, at_line_start, meter);
        if self.mode == Mode::BlockTail {
            // The block ended with its line.
            self.mode = Mode::Prose;
            self.para = Para::default();
        }
        self.done = eol + 1;
        self.mid_line = false;
    }

    /// Passes over the line `b[start..eol]` (`eol` its break, or the byte before the offset
    /// read up to), the next one to read from its start, when reading it would change nothing
    /// ([`Self::continues_paragraph`]): charged as reading it is. `false`, and nothing read,
    /// otherwise.
    #[inline]
    pub(crate) fn pass_line(
        &mut self,
        b: &[u8],
        start: usize,
        eol: usize,
        meter: &mut Meter,
    ) -> bool {
        if self.done != start || self.mid_line || !self.continues_paragraph(b, start, eol) {
            return false;
        }
        meter.read(start, eol.min(b.len()) + 1);
        self.done = eol + 1;
        true
    }

    /// Whether reading the line `b[start..eol]` from its start would leave everything as it is:
    /// the reading is in prose with a paragraph open, the line is not blank, its first byte
    /// after the indent starts no block (no fence, list item, block quote, heading, thematic
    /// break or HTML: it is none of `` ` ``, `~`, `-`, `*`, `+`, a digit, `>`, `#`, `<`, `_`,
    /// `{`), and the line holds no `` ` ``, `<` or `{` for the inline reading to act on. Such
    /// a line is one more line of the paragraph ([`Self::prose_line_start`] keeps the paragraph
    /// open and touches nothing else when no block starts and the paragraph is open; [`Self::inline`]
    /// finds nothing), so it is passed over: most lines of prose are.
    #[inline]
    fn continues_paragraph(&mut self, b: &[u8], start: usize, eol: usize) -> bool {
        if self.mode != Mode::Prose || !self.para.open {
            return false;
        }
        if self.reasoning.is_some_and(|until| !until.starts_with_lt()) {
            // Its closer (`[/THINK]`) may stand in a line without `<`.
            return false;
        }
        let end = eol.min(b.len());
        let Some(&first) = b[start..end].iter().find(|&&c| c != b' ' && c != b'\t') else {
            return false;
        };
        if !STARTS_NO_BLOCK[usize::from(first)] {
            // A `<` that opens no name, token, closing tag or declaration starts no block
            // either (`<<`, `< x`).
            let at = b[start..end].iter().position(|&c| c == first).unwrap_or(0);
            let next = b.get(start + at + 1).copied().unwrap_or(b'\n');
            if first != b'<' || OPENS_AFTER_LT[usize::from(next)] || matches!(next, b'/' | b'?') {
                return false;
            }
        }
        if self
            .ahead
            .none_in(b, start, end, |h| memchr::memchr3(b'`', b'<', b'{', h))
        {
            return true;
        }
        // The line holds one of them: it still changes nothing when it holds no backtick and no
        // brace, and no `<` that starts a name or a token (`a < b`, `<<`, `</p>` mid-line):
        // inline reading passes over those. In reasoning a `</` may be its closer.
        self.reasoning.is_none() && dull_inline(&b[start..end])
    }

    /// Whether a call may start on the line at the offset read up to: the line is in the
    /// reply's own voice. (A line inside a fence never is, not even one that CommonMark reads
    /// as leaving the list item or block quote that holds the fence: the model meant it as part
    /// of the fence. The lines after it are read as CommonMark reads them.)
    pub(crate) fn live(&self) -> bool {
        self.reasoning.is_none()
            && self.mode == Mode::Prose
            && self.para.ticks == 0
            && !self.para.quoted
    }

    /// A reading of the line that starts at `line` (the offset read up to), to tell whether
    /// points inside it are in the reply's own voice ([`LineProbe::live_at`]).
    pub(crate) fn probe(&self, line: usize) -> LineProbe {
        LineProbe {
            s: self.clone(),
            line,
            pos: None,
            // A line that starts inside reasoning is the reply's own again after the closer.
            dead: !self.live() && !self.in_reasoning(),
        }
    }

    /// A candidate call that starts at `start` (on the line read up to) broke: everything up
    /// to the tag that balances its opening one is its text. `depth` is 1 when the candidate's
    /// opening tag has no `<` to count (a reply that starts mid-tag), else 0.
    pub(crate) fn broken(&mut self, start: usize, marker: Marker, depth: u32) {
        self.mode = Mode::Region(Region { marker, depth });
        self.enter_mid_line(start);
    }

    /// `start..end` is a complete call that is not a call here: its text is read as a whole.
    pub(crate) fn skip(&mut self, start: usize, end: usize) {
        self.mode = Mode::Skip(end);
        self.enter_mid_line(start);
    }

    fn enter_mid_line(&mut self, at: usize) {
        if at > self.done {
            self.done = at;
            self.mid_line = true;
        }
        self.para = Para::default();
    }

    /// Reads `b[p..eol]` (one line, or its rest from `p`; `eol` is its newline or the byte
    /// before `to`).
    fn line(&mut self, b: &[u8], mut p: usize, eol: usize, mut at_start: bool, meter: &mut Meter) {
        let end = eol.min(b.len());
        meter.read(p, end + 1);
        loop {
            // Reasoning ends at its closer wherever the closer stands (inside code too: to the
            // model it is one token); the reading of what it held goes on after it.
            let closer = self.reasoning.and_then(|until| closer_in(b, p, end, until));
            let upto = closer.map_or(end, |(start, _)| start);
            let opened = if upto > p || (at_start && closer.is_none()) {
                self.part(b, p, upto, at_start)
            } else {
                None
            };
            match (opened, closer) {
                // Reasoning opened there: its closer may follow on the line.
                (Some(next), _) => p = next,
                (None, Some((_, after))) => {
                    self.reasoning = None;
                    self.opening = false;
                    p = after;
                }
                (None, None) => return,
            }
            at_start = false;
        }
    }

    /// Reads `b[p..end]` (a line, or a part of one, in whatever mode the reading is in);
    /// `Some(offset)` when reasoning opened there and the line goes on from that offset.
    fn part(&mut self, b: &[u8], mut p: usize, end: usize, mut at_start: bool) -> Option<usize> {
        let outside = self.reasoning.is_none();
        let opened = |s: &Self| outside && s.reasoning.is_some();
        loop {
            match self.mode {
                Mode::Prose => {
                    let from = if at_start {
                        self.prose_line_start(b, p, end)?
                    } else {
                        p
                    };
                    if opened(self) {
                        return Some(from);
                    }
                    if self.mode != Mode::Prose {
                        // A raw-text block opened at the line's start: its closer may follow.
                        p = from;
                    } else {
                        match self.inline(b, from, end, at_start) {
                            Some(next) if opened(self) => return Some(next),
                            Some(next) => p = next,
                            None => return None,
                        }
                    }
                }
                Mode::Fence(f) => {
                    if at_start && self.fence_line(b, p, end, f) {
                        // The block quote that held the fence ended on this line: it is prose.
                        continue;
                    }
                    return None;
                }
                Mode::Raw(until, opened) => match raw_end(b, p, end, until) {
                    Some(_) if opened == RawIn::Block => {
                        self.mode = Mode::BlockTail;
                        return None;
                    }
                    Some(next) => {
                        self.mode = Mode::Prose;
                        if opened == RawIn::Html {
                            // Back in the HTML block the raw text was part of.
                            self.para.open = true;
                            self.para.html = true;
                        }
                        p = next;
                    }
                    None => {
                        if opened == RawIn::Html
                            && at_start
                            && b[p..end].iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r'))
                        {
                            // The HTML block ends at a blank line, and the raw text with it
                            // (CommonMark reads no raw text there at all).
                            self.mode = Mode::Prose;
                            self.para = Para::default();
                        }
                        return None;
                    }
                },
                Mode::BlockTail if at_start => {
                    self.mode = Mode::Prose;
                    self.para = Para::default();
                    continue;
                }
                Mode::BlockTail => return None,
                Mode::Json(mut j) => match j.lex(b, p, end) {
                    Some(next) => {
                        self.mode = Mode::Prose;
                        p = next;
                    }
                    None => {
                        self.mode = Mode::Json(j);
                        return None;
                    }
                },
                Mode::Region(mut r) => match r.scan(b, p, end) {
                    Some(next) => {
                        self.mode = Mode::Prose;
                        self.para = Para::default();
                        p = next;
                    }
                    None => {
                        self.mode = Mode::Region(r);
                        return None;
                    }
                },
                Mode::Skip(until) => {
                    if until > end {
                        return None;
                    }
                    self.mode = Mode::Prose;
                    p = until;
                }
                Mode::Diff(d) => {
                    if at_start && !self.diff_line(&b[p..end], d) {
                        // Not a line of the hunk: read again as a line of the reply.
                        self.mode = Mode::Prose;
                        self.para = Para::default();
                        continue;
                    }
                    return None;
                }
            }
            at_start = false;
        }
    }

    /// The start of a prose line at `p`: blank lines, indented code, block quotes, list
    /// markers and fences. `Some(offset)` where its inline text starts.
    fn prose_line_start(&mut self, b: &[u8], p: usize, end: usize) -> Option<usize> {
        let line = &b[p..end];
        let (mut i, cols) = indent(line, 0);
        if i == line.len() || line[i..].iter().all(|&c| c == b'\r') {
            self.para = Para::default();
            return None;
        }
        if self.para.html {
            // Inside an HTML block (CommonMark's sixth or seventh kind) no other block starts.
            // A raw-text element is still read as raw text (as a browser reads it), but only
            // up to the blank line that ends the HTML block: it never swallows a fence that
            // CommonMark reads after it.
            return Some(p + i);
        }
        // The list items the line is in: those whose content column it reaches. A paragraph's
        // lazy continuation line stays in them; a line that starts a block does not, and it
        // ends the paragraph with any code span left open there (a block quote's next line
        // continues its paragraph).
        let interrupts = self.para.open && self.items.len == 0;
        let base = self.items.innermost().filter(|c| cols >= *c).unwrap_or(0);
        let block = cols <= base + 3 && starts_block(line, i, interrupts);
        if !self.para.open || block {
            self.items.close_past(cols);
        }
        if block && !(self.para.quoted && line.get(i) == Some(&b'>')) {
            self.para.ticks = 0;
            if line.get(i) != Some(&b'>') {
                // A block that interrupts a quoted paragraph ends the quote.
                self.para.quoted = false;
            }
        }
        let item = self.items.innermost().filter(|c| cols >= *c).unwrap_or(0);
        if cols >= item + 4 && !self.para.open {
            // Indented code: no inline reading.
            return None;
        }
        if cols <= item + 3 && (atx_heading(&line[i..]) || thematic_break(&line[i..])) {
            // A heading, a thematic break or a setext underline ends the paragraph, and any
            // code span a line of it left open.
            self.para = Para::default();
            return None;
        }
        let mut col = cols;
        let mut in_quote = false;
        // Block quote markers, nested ones too.
        while col <= 3 && line.get(i) == Some(&b'>') {
            in_quote = true;
            i += 1;
            col += 1;
            if matches!(line.get(i), Some(b' ' | b'\t')) {
                let (j, c) = indent(&line[i..], col);
                i += j;
                col = c;
            }
        }
        if in_quote {
            if line[i..].iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
                // A block quote line with nothing in it: no paragraph for a later line to
                // continue.
                self.para = Para::default();
                return None;
            }
            self.para.quoted = true;
        }
        // A list item's marker: its content starts after it.
        let mut container = if in_quote { col } else { item };
        if let Some((content_col, content_at)) =
            list_marker(line, i, col).filter(|_| !interrupts || can_interrupt(&line[i..]))
        {
            if !in_quote {
                self.items.open(content_col);
            }
            container = content_col;
            i = content_at;
            col = content_col;
        }
        if col.saturating_sub(container) <= 3 {
            if let Some(diff) = diff_header(&line[i..]) {
                // A unified diff's hunk: its lines are a file's.
                self.mode = Mode::Diff(diff);
                self.para = Para::default();
                return None;
            }
            if self.reasoning.is_none() && !self.blind_to_reasoning && line.get(i) != Some(&b'<') {
                if let Some((until, len)) = reasoning_open(&line[i..]) {
                    // Reasoning marked by tokens (`[THINK]`): its closer may follow.
                    self.reasoning = Some(until);
                    self.para.open = true;
                    return Some(p + i + len);
                }
            }
            if let Some((ch, len)) = fence_opener(&line[i..]) {
                self.mode = Mode::Fence(Fence {
                    ch,
                    len,
                    col: container,
                    in_quote,
                });
                self.para = Para::default();
                return None;
            }
            // An HTML block of raw text starts here whatever the inline state (it interrupts
            // a paragraph, an open code span included); its closer may be on this same line.
            if let Some(until) = line_head_raw(&line[i..]) {
                self.mode = Mode::Raw(until, RawIn::Block);
                self.para = Para::default();
                return Some(p + i + 1);
            }
            if line.get(i) == Some(&b'<') {
                // An HTML block of raw text (its closing line belongs to it), or an inline
                // code element (the line goes on after its closer).
                let raw = match opens_at(b, p + i, end, false) {
                    Opens::Raw(until, after) => Some((until, after, RawIn::Block)),
                    Opens::Code(until, after) => Some((until, after, RawIn::Line)),
                    _ => None,
                };
                if let Some((until, after, within)) = raw {
                    self.mode = Mode::Raw(until, within);
                    self.para = Para::default();
                    return Some(after);
                }
                if html_block_start(&line[i..], self.para.open) {
                    self.para = Para {
                        open: true,
                        html: true,
                        quoted: self.para.quoted,
                        ticks: 0,
                    };
                    return Some(p + i);
                }
            }
        }
        self.para.open = true;
        Some(p + i)
    }

    /// A line inside a fence: closes it when it is a closer. `true` when the line ended the
    /// block quote holding the fence (and the fence with it): it is then read as prose.
    fn fence_line(&mut self, b: &[u8], p: usize, end: usize, f: Fence) -> bool {
        let line = &b[p..end];
        let (mut i, col) = indent(line, 0);
        if f.in_quote {
            if col > 3 || line.get(i) != Some(&b'>') {
                self.mode = Mode::Prose;
                self.para = Para::default();
                return true;
            }
            while line.get(i) == Some(&b'>') {
                i += 1;
                if line.get(i) == Some(&b' ') {
                    i += 1;
                }
            }
            let (j, rel) = indent(&line[i..], 0);
            if rel > 3 {
                return false;
            }
            i += j;
        } else if col < f.col && i < line.len() && line[i..].iter().any(|&c| c != b'\r') {
            // A line less indented than the list item's content ends the item, and the fence
            // with it: it is read again as a line of its own.
            self.mode = Mode::Prose;
            self.para = Para::default();
            return true;
        } else if col > f.col + 3 {
            return false;
        }
        let rest = &line[i..];
        let n = rest.iter().take_while(|&&c| c == f.ch).count();
        if n >= f.len && rest[n..].iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
            self.mode = Mode::Prose;
            self.para = Para::default();
        }
        false
    }

    /// Inline text of a prose line from `p`: code spans, raw-text openers, JSON. `Some(offset)`
    /// when the mode changed and the line goes on from there in it.
    fn inline(&mut self, b: &[u8], p: usize, end: usize, line_head: bool) -> Option<usize> {
        let head = p;
        let mut i = p;
        while let Some(off) = memchr::memchr3(b'`', b'<', b'{', &b[i..end]) {
            let k = i + off;
            match b[k] {
                b'`' if self.para.html => i = k + 1,
                b'`' => {
                    let run = b[k..end].iter().take_while(|&&c| c == b'`').count();
                    // A backtick after an odd run of backslashes is a literal one (CommonMark's
                    // backslash escape); the rest of its run is a backtick string. Inside a code
                    // span a backslash escapes nothing.
                    let n = if self.para.ticks == 0 && escaped(b, head, k) {
                        run - 1
                    } else {
                        run
                    };
                    if n == 0 {
                    } else if self.para.ticks == 0 {
                        self.para.ticks = n;
                    } else if self.para.ticks == n {
                        self.para.ticks = 0;
                    }
                    i = k + run;
                }
                b'<' if self.para.ticks == 0 => {
                    let at_head = line_head && k == head;
                    let within = |at_head: bool| match (self.para.html, at_head) {
                        (true, _) => RawIn::Html,
                        (false, true) => RawIn::Block,
                        (false, false) => RawIn::Line,
                    };
                    let reasoning = self.reasoning.is_none() && !self.blind_to_reasoning;
                    match opens_at(b, k, end, reasoning) {
                        Opens::Raw(until, after) => {
                            self.mode = Mode::Raw(until, within(at_head));
                            self.para = Para::default();
                            return Some(after);
                        }
                        Opens::Code(until, after) => {
                            self.mode = Mode::Raw(until, within(false));
                            self.para = Para::default();
                            return Some(after);
                        }
                        Opens::Reasoning(until, after) => {
                            // Its closer may follow on the line.
                            self.reasoning = Some(until);
                            return Some(after);
                        }
                        Opens::Quote(marker) => {
                            // Read from the opening tag, which the region counts.
                            self.mode = Mode::Region(Region { marker, depth: 0 });
                            self.para = Para::default();
                            return Some(k);
                        }
                        Opens::Nothing => i = k + 1,
                    }
                }
                b'{' if self.para.ticks == 0 => {
                    let starts_line = line_head && k == head;
                    if starts_line || opens_object(b, k + 1, end) {
                        self.mode = Mode::Json(Json {
                            depth: 1,
                            string: Str::Out,
                        });
                        self.para = Para::default();
                        return Some(k + 1);
                    }
                    i = k + 1;
                }
                _ => i = k + 1,
            }
        }
        None
    }
}

/// A reading of one line up to points inside it, for the tokens that start a call in the
/// middle of a line (glued to prose, or after a message boundary).
///
/// Each point is read as if the line ended there: what the text before it opened (a code span,
/// raw HTML, a JSON value, a block quote...) and has not closed makes the point quoted. The
/// points are asked about in order, and the reading goes on from the last one, so each byte of
/// the line is read once; what it decides depends only on the bytes before the point, so it
/// is the same however the line arrives.
#[derive(Debug, Clone)]
pub(crate) struct LineProbe {
    s: Structure,
    line: usize,
    /// Read up to here; `None` before the line's start is read.
    pos: Option<usize>,
    /// Nothing in the line is in the reply's own voice.
    dead: bool,
}

impl LineProbe {
    /// Whether the point `k` (inside the line, at or after the last point asked about) is in the
    /// reply's own voice.
    pub(crate) fn live_at(&mut self, b: &[u8], k: usize, meter: &mut Meter) -> bool {
        if self.dead {
            return false;
        }
        match self.pos {
            // The line starts inside reasoning: read on in it up to the point.
            None if self.s.in_reasoning() => self.s.rest(b, self.line, k, meter),
            // Only the line's indent before the point: it stands at the line's start.
            None if b[self.line..k].iter().all(|&c| c == b' ' || c == b'\t') => {
                meter.read(self.line, k);
                return self.s.live();
            }
            None => {
                meter.read(self.line, k);
                match self.s.prose_line_start(b, self.line, k) {
                    // A blank line, a heading, a thematic break, indented code: no inline text.
                    None => {
                        self.dead = true;
                        return false;
                    }
                    // As a line's start is read: its inline text first, at the line's head.
                    Some(from) if self.s.mode == Mode::Prose && !self.s.in_reasoning() => {
                        if let Some(next) = self.s.inline(b, from, k, true) {
                            self.s.rest(b, next, k, meter);
                        }
                    }
                    Some(from) => self.s.rest(b, from, k, meter),
                }
            }
            Some(pos) if pos < k => self.s.rest(b, pos, k, meter),
            Some(_) => {}
        }
        self.pos = Some(k);
        self.s.live()
    }
}

impl Structure {
    /// Reads `b[p..end]`, the rest of a line whose start has been read, in whatever mode the
    /// reading is in.
    fn rest(&mut self, b: &[u8], p: usize, end: usize, meter: &mut Meter) {
        if p < end {
            self.line(b, p, end, false, meter);
        }
    }
}

impl Json {
    /// Reads `b[p..end]`; `Some(offset)` just past the bracket that closes the value.
    fn lex(&mut self, b: &[u8], p: usize, end: usize) -> Option<usize> {
        let mut i = p;
        while i < end {
            let c = b[i];
            match self.string {
                Str::Out => match c {
                    b'"' | b'\'' | b'`' => self.string = Str::In(c),
                    b'{' | b'[' => self.depth = self.depth.saturating_add(1),
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                },
                Str::In(q) => {
                    // Plain string bytes are passed over at once.
                    match memchr::memchr2(q, b'\\', &b[i..end]) {
                        Some(off) => {
                            i += off;
                            self.string = if b[i] == q {
                                Str::Quote(q)
                            } else {
                                Str::Escape(q)
                            };
                        }
                        None => return None,
                    }
                }
                Str::Escape(q) => self.string = Str::In(q),
                Str::Quote(q) => match c {
                    b' ' | b'\t' | b'\r' => {}
                    b',' | b':' | b'}' | b']' => {
                        self.string = Str::Out;
                        continue;
                    }
                    _ => {
                        self.string = Str::In(q);
                        continue;
                    }
                },
            }
            i += 1;
        }
        None
    }
}

impl Region {
    /// Reads `b[p..end]`; `Some(offset)` just past the tag or token that ends the region.
    fn scan(&mut self, b: &[u8], p: usize, end: usize) -> Option<usize> {
        let text = &b[p..end];
        let (local, fold) = match self.marker {
            Marker::Folded(local) => (local, true),
            Marker::ElementAt(from, to) => (std::str::from_utf8(&b[from..to]).ok()?, false),
            _ => ("", false),
        };
        match self.marker {
            Marker::Folded(_) | Marker::ElementAt(..) => {
                let mut i = 0;
                while let Some(off) = memchr::memchr(b'<', &text[i..]) {
                    let k = i + off;
                    match element_tag(text, k, local, fold) {
                        Some((true, after)) => {
                            self.depth = self.depth.saturating_sub(1);
                            if self.depth == 0 {
                                return Some(p + after);
                            }
                        }
                        Some((false, _)) => self.depth = self.depth.saturating_add(1),
                        None => {}
                    }
                    i = k + 1;
                }
                None
            }
            Marker::Tokens(tokens) => tokens
                .iter()
                .filter_map(|t| find_lit(text, t.as_bytes()).map(|off| p + off + t.len()))
                .min(),
            Marker::Literal(open, close) => {
                let mut i = 0;
                while let Some(off) = memchr::memchr(b'<', &text[i..]) {
                    let k = i + off;
                    if text[k..].starts_with(close.as_bytes()) {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            return Some(p + k + close.len());
                        }
                    } else if text[k..].starts_with(open.as_bytes()) {
                        self.depth = self.depth.saturating_add(1);
                    }
                    i = k + 1;
                }
                None
            }
            Marker::Element(local) => {
                let mut i = 0;
                while let Some(off) = memchr::memchr(b'<', &text[i..]) {
                    let k = i + off;
                    match element_tag(text, k, local, false) {
                        Some((true, after)) => {
                            self.depth = self.depth.saturating_sub(1);
                            if self.depth == 0 {
                                return Some(p + after);
                            }
                        }
                        Some((false, _)) => self.depth = self.depth.saturating_add(1),
                        None => {}
                    }
                    i = k + 1;
                }
                None
            }
        }
    }
}

/// The indent of `line` from column `col`: (bytes, column reached). Tabs go to the next
/// multiple of four.
fn indent(line: &[u8], mut col: usize) -> (usize, usize) {
    let mut i = 0;
    while let Some(&c) = line.get(i) {
        match c {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
        i += 1;
    }
    (i, col)
}

/// The columns a line's indent spans, counted up to 4 (a tab goes to the next multiple of
/// four): what tells indented code from a line of the reply.
pub(crate) fn indent_cols(line: &[u8]) -> usize {
    let mut col = 0;
    for &c in line {
        match c {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
        if col >= 4 {
            break;
        }
    }
    col
}

/// A list item's marker at `line[i..]` (`-`, `*`, `+`, or up to nine digits and `.` or `)`,
/// then a blank): the content's column and offset.
fn list_marker(line: &[u8], i: usize, col: usize) -> Option<(usize, usize)> {
    let rest = &line[i..];
    let width = match rest.first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 || !matches!(rest.get(digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    if !matches!(rest.get(width), Some(b' ' | b'\t')) {
        return None;
    }
    let marker_end = i + width;
    let (j, c) = indent(&line[marker_end..], col + width);
    // Five or more blanks: the content starts one blank after the marker (the rest is code).
    if c - (col + width) > 4 {
        return Some((col + width + 1, marker_end + 1));
    }
    Some((c, marker_end + j))
}

/// A fence opener at the start of `text` (after its indent): the character and the run length.
/// A backtick fence's info string may not hold a backtick.
fn fence_opener(text: &[u8]) -> Option<(u8, usize)> {
    let ch = *text.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = text.iter().take_while(|&&c| c == ch).count();
    if n < 3 || (ch == b'`' && text[n..].contains(&b'`')) {
        return None;
    }
    Some((ch, n))
}

/// Whether a list item at `text` may interrupt a paragraph: a bullet or `1.`/`1)`, with
/// content on its line.
fn can_interrupt(text: &[u8]) -> bool {
    let digits = text.iter().take_while(|c| c.is_ascii_digit()).count();
    let marker = digits.max(1) + usize::from(digits > 0);
    (digits == 0 || &text[..digits] == b"1")
        && text[marker..]
            .iter()
            .any(|c| !matches!(c, b' ' | b'\t' | b'\r'))
}

/// Whether the line's text at `i` starts a block, so that it cannot continue a paragraph
/// lazily: a fence, a list item (one that may interrupt a paragraph, when `interrupts`), a
/// block quote, a heading, a thematic break, an HTML block.
fn starts_block(line: &[u8], i: usize, interrupts: bool) -> bool {
    let text = &line[i..];
    fence_opener(text).is_some()
        || list_marker(line, i, 0).is_some() && (!interrupts || can_interrupt(text))
        || matches!(text.first(), Some(b'>' | b'#'))
        || line_head_raw(text).is_some()
        || (text.first() == Some(&b'<')
            && (matches!(opens_at(line, i, line.len(), false), Opens::Raw(..))
                || html_block_start(text, true)))
        || thematic_break(text)
}

/// `#` to `######` and a blank or the line's end: an ATX heading.
fn atx_heading(text: &[u8]) -> bool {
    let n = text.iter().take_while(|&&c| c == b'#').count();
    (1..=6).contains(&n) && matches!(text.get(n), None | Some(b' ' | b'\t' | b'\r'))
}

/// `***`, `---` or `___` (three or more, blanks between allowed).
fn thematic_break(text: &[u8]) -> bool {
    let Some(&c) = text.first() else {
        return false;
    };
    matches!(c, b'*' | b'-' | b'_')
        && text.iter().filter(|&&b| b == c).count() >= 3
        && text
            .iter()
            .all(|&b| b == c || matches!(b, b' ' | b'\t' | b'\r'))
}

/// Whether `text` (a line from its first non-blank byte, a `<`) starts an HTML block of
/// CommonMark's sixth kind (a block-level element's tag: it may interrupt a paragraph) or
/// seventh (any other complete opening or closing tag alone on its line: not inside a
/// paragraph).
fn html_block_start(text: &[u8], in_paragraph: bool) -> bool {
    let closing = text.get(1) == Some(&b'/');
    let from = usize::from(closing);
    let Some((name, after)) = open_name(&text[from..]) else {
        return false;
    };
    let name_at = from + after - name.len();
    if name_at != from + 1 {
        // A namespace prefix: not an HTML element name.
        return after_tag_blank(text, from + after, closing) && !in_paragraph;
    }
    if HTML_BLOCK_ELEMENTS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(name))
    {
        return true;
    }
    !in_paragraph && after_tag_blank(text, from + after, closing)
}

/// Whether the tag whose name ends at `at` ends on this line (its `>` outside quotes) with only
/// blanks after it.
fn after_tag_blank(text: &[u8], at: usize, closing: bool) -> bool {
    let mut quote = None;
    let mut i = at;
    while let Some(&c) = text.get(i) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') if !closing => quote = Some(c),
            (None, b'>') => {
                return text[i + 1..]
                    .iter()
                    .all(|c| matches!(c, b' ' | b'\t' | b'\r'));
            }
            (None, b'<') => return false,
            _ => {}
        }
        i += 1;
    }
    false
}

/// An HTML block that only counts at a line's start: a processing instruction (`<?`) or a
/// declaration (`<!` and a letter). The other raw-text openers are in [`inline_raw`].
fn line_head_raw(text: &[u8]) -> Option<RawEnd> {
    match text {
        [b'<', b'?', ..] => Some(RawEnd::Literal("?>")),
        [b'<', b'!', c, ..] if c.is_ascii_alphabetic() => Some(RawEnd::Literal(">")),
        _ => None,
    }
}

/// What a `<` opens for the inline reading.
enum Opens {
    /// Raw text up to its closer (a comment, CDATA, a raw-text element, invented results),
    /// wherever in a line it opens (`From the page: <pre>`, `Note <!-- x`): the reading goes
    /// on at the offset given, in it.
    Raw(RawEnd, usize),
    /// An inline code element (`<code>`, `<kbd>`...): what follows is code up to its closing
    /// tag; it starts no HTML block (CommonMark reads it as inline HTML).
    Code(RawEnd, usize),
    /// Reasoning, up to its closer; the reading goes on at the offset given.
    Reasoning(RawEnd, usize),
    /// A region whose content is a quotation ([`quoting_element`]).
    Quote(Marker),
    Nothing,
}

/// The kinds of elements the inline reading knows, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Raw(&'static str),
    Code(&'static str),
    Reasoning(&'static str),
    Quote(&'static str),
    Html,
}

/// Every element name the inline reading acts on, lower case, with its kind: in buckets by
/// first byte, so that a lookup compares a few names of the same length at most.
fn kinds() -> &'static [Vec<(&'static str, Kind)>] {
    static KINDS: std::sync::OnceLock<Vec<Vec<(&'static str, Kind)>>> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let mut out: Vec<Vec<(&'static str, Kind)>> = vec![Vec::new(); 256];
        let mut add = |name: &'static str, kind: Kind| {
            let bucket = &mut out[usize::from(name.as_bytes()[0])];
            if !bucket.iter().any(|(n, _)| *n == name) {
                bucket.push((name, kind));
            }
        };
        for e in RAW_TEXT_ELEMENTS.iter().chain(RESULT_ELEMENTS) {
            add(e, Kind::Raw(e));
        }
        for e in CODE_ELEMENTS {
            add(e, Kind::Code(e));
        }
        for e in QUOTE_ELEMENTS {
            add(e, Kind::Quote(e));
        }
        for mark in registry::reasoning_marks() {
            if let Reasoning::Element(e) = mark {
                add(e, Kind::Reasoning(e));
            }
        }
        for e in HTML_ELEMENTS {
            add(e, Kind::Html);
        }
        out
    })
}

/// The kind of the element `local` (any case); `None` for a name the reading does not know.
fn kind_of(local: &str) -> Option<Kind> {
    let name = local.as_bytes();
    let first = name.first()?.to_ascii_lowercase();
    let bucket = &kinds()[usize::from(first)];
    if bucket.is_empty() {
        return None;
    }
    let mut lower = [0u8; 24];
    let lower = lower.get_mut(..name.len())?;
    for (d, c) in lower.iter_mut().zip(name) {
        *d = c.to_ascii_lowercase();
    }
    bucket
        .iter()
        .find(|(n, _)| n.as_bytes() == &*lower)
        .map(|(_, kind)| *kind)
}

/// What the `<` at `k` opens, read once: the tag's name is looked up, tokens by the byte after
/// the `<`. Reasoning is read only when `reasoning`.
fn opens_at(b: &[u8], k: usize, end: usize, reasoning: bool) -> Opens {
    let text = &b[k..end];
    match text.get(1) {
        Some(b'!') => {
            return if text.starts_with(b"<!--") {
                Opens::Raw(RawEnd::Literal("-->"), k + 4)
            } else if text.starts_with(CDATA_OPEN.as_bytes()) {
                Opens::Raw(RawEnd::Literal("]]>"), k + CDATA_OPEN.len())
            } else {
                Opens::Nothing
            };
        }
        Some(b'|') if reasoning => {
            if let Some((until, len)) = reasoning_open(text) {
                return Opens::Reasoning(until, k + len);
            }
        }
        Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'|' | 0xEF) => {}
        _ => return Opens::Nothing,
    }
    let Some((local, name_end)) = open_name(text) else {
        return Opens::Nothing;
    };
    // The opening tag ends at its `>` (or the line does).
    // A tag ends at its `>`; a `<` first means it never closed.
    let gt = match memchr::memchr2(b'>', b'<', &text[name_end..]) {
        Some(off) if text[name_end + off] == b'>' => Some(name_end + off),
        _ => None,
    };
    let tag_end = gt.map_or(end, |g| k + g + 1);
    match kind_of(local) {
        Some(Kind::Raw(e)) => Opens::Raw(RawEnd::Element(e), tag_end),
        Some(Kind::Code(e)) => Opens::Code(RawEnd::Element(e), tag_end),
        Some(Kind::Reasoning(e)) if reasoning => match gt {
            Some(g) if !text[..g].ends_with(b"/") => {
                Opens::Reasoning(RawEnd::Element(e), k + g + 1)
            }
            _ => Opens::Nothing,
        },
        Some(Kind::Quote(e)) => Opens::Quote(Marker::Folded(e)),
        Some(Kind::Html | Kind::Reasoning(_)) => Opens::Nothing,
        None => match quoting_element(b, k, end, (local, name_end)) {
            Some(marker) => Opens::Quote(marker),
            None => Opens::Nothing,
        },
    }
}

/// `<`, an optional prefix (`ns:`, or a DSML sentinel with an optional space after it) and a
/// name ending in a blank, `>`, `/` or the text's end: the local name and the offset past it.
fn open_name(text: &[u8]) -> Option<(&str, usize)> {
    let mut i = 1;
    // A DSML sentinel starts with a full-width bar's first byte or `|`.
    if matches!(text.get(1), Some(0xEF | b'|')) {
        if let Some(s) = dsml::SENTINELS
            .iter()
            .find(|s| text[i..].starts_with(s.as_bytes()))
        {
            i += s.len();
            if text.get(i) == Some(&b' ') {
                i += 1;
            }
        }
    }
    let n = name_len(text, i);
    if n == 0 {
        return None;
    }
    let mut local = (i, i + n);
    i += n;
    if text.get(i) == Some(&b':') {
        let m = name_len(text, i + 1);
        if m == 0 {
            return None;
        }
        local = (i + 1, i + 1 + m);
        i += 1 + m;
    }
    match text.get(i) {
        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/') => {}
        _ => return None,
    }
    let local = std::str::from_utf8(&text[local.0..local.1]).ok()?;
    Some((local, i))
}

/// The bytes of a tag name: ASCII letters, digits, `_` and `-`.
const NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        c += 1;
    }
    table
};

/// How many name bytes stand at `text[from..]`.
#[inline]
fn name_len(text: &[u8], from: usize) -> usize {
    text.get(from..).map_or(0, |rest| {
        rest.iter()
            .take_while(|&&c| NAME_BYTES[usize::from(c)])
            .count()
    })
}

/// The tag of element `local` (any prefix, any case when `fold`) at the `<` at `k`: whether it
/// closes, and the offset past it (past the `>` of a closing tag, past the name of an opening
/// one).
fn element_tag(text: &[u8], k: usize, local: &str, fold: bool) -> Option<(bool, usize)> {
    let closing = text.get(k + 1) == Some(&b'/');
    let from = if closing { k + 1 } else { k };
    let (name, after) = open_name(&text[from..])?;
    let same = if fold {
        name.eq_ignore_ascii_case(local)
    } else {
        name == local
    };
    if !same {
        return None;
    }
    let after = from + after;
    if closing {
        let gt = memchr::memchr(b'>', &text[after..])?;
        if !text[after..after + gt].iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        return Some((true, after + gt + 1));
    }
    Some((false, after))
}

/// Where a raw-text block's closer is in `b[p..end]`: the offset past it.
fn raw_end(b: &[u8], p: usize, end: usize, until: RawEnd) -> Option<usize> {
    closer_in(b, p, end, until).map(|(_, after)| after)
}

/// Where `lit` (a short literal) first stands in `hay`: a search for its first byte, each hit
/// compared (no searcher is built per line).
fn find_lit(hay: &[u8], lit: &[u8]) -> Option<usize> {
    let (&first, _) = lit.split_first()?;
    let mut i = 0;
    while let Some(off) = memchr::memchr(first, &hay[i..]) {
        let k = i + off;
        if hay[k..].starts_with(lit) {
            return Some(k);
        }
        i = k + 1;
    }
    None
}

/// Whether the `{` before `i` opens a JSON object as Agent Zero's tolerant reader reads one: a
/// quoted key (any of its quotes) or a bare key and its colon follows it after blanks, or
/// nothing more on its line.
fn opens_object(b: &[u8], i: usize, end: usize) -> bool {
    let rest = &b[i..end];
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r');
    let Some(at) = rest.iter().position(|c| !blank(c)) else {
        return true;
    };
    match rest[at] {
        b'"' | b'\'' | b'`' => true,
        c if c.is_ascii_alphabetic() || c == b'_' => {
            let key = rest[at..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            rest[at + key..].iter().find(|c| !blank(c)) == Some(&b':')
        }
        _ => false,
    }
}

/// Whether the byte at `k` follows an odd run of backslashes that starts at or after `from`.
fn escaped(b: &[u8], from: usize, k: usize) -> bool {
    b[from..k].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

impl RawEnd {
    /// Whether the closer starts with a `<`.
    fn starts_with_lt(self) -> bool {
        match self {
            RawEnd::Literal(lit) => lit.starts_with('<'),
            RawEnd::Element(_) => true,
        }
    }
}

/// Where the closer `until` stands in `b[p..end]`: its start and the offset past it.
fn closer_in(b: &[u8], p: usize, end: usize, until: RawEnd) -> Option<(usize, usize)> {
    let text = &b[p..end];
    match until {
        RawEnd::Literal(lit) => {
            find_lit(text, lit.as_bytes()).map(|off| (p + off, p + off + lit.len()))
        }
        RawEnd::Element(local) => {
            let mut i = 0;
            while let Some(off) = find_lit(&text[i..], END_TAG.as_bytes()) {
                let k = i + off;
                if let Some((true, after)) = element_tag(text, k, local, true) {
                    return Some((p + k, p + after));
                }
                i = k + 2;
            }
            None
        }
    }
}

/// What ends `reasoning` in the text.
fn reasoning_end(reasoning: Reasoning) -> RawEnd {
    match reasoning {
        Reasoning::Element(e) => RawEnd::Element(e),
        Reasoning::Tokens { close, .. } => RawEnd::Literal(close),
    }
}

/// A reasoning mark that opens at the start of `text` (any family's, [`registry::reasoning_marks`]):
/// what ends it and the opener's length. An element's opening tag must end on its line and not
/// close itself (`<think/>` opens nothing).
fn reasoning_open(text: &[u8]) -> Option<(RawEnd, usize)> {
    for mark in registry::reasoning_marks() {
        match *mark {
            Reasoning::Tokens { open, close } => {
                if text.starts_with(open.as_bytes()) {
                    return Some((RawEnd::Literal(close), open.len()));
                }
            }
            Reasoning::Element(e) => {
                if text.first() != Some(&b'<') {
                    continue;
                }
                let Some((local, name_end)) = open_name(text) else {
                    continue;
                };
                if !local.eq_ignore_ascii_case(e) {
                    continue;
                }
                let gt = name_end + memchr::memchr(b'>', &text[name_end..])?;
                if text[..gt].ends_with(b"/") {
                    return None;
                }
                return Some((RawEnd::Element(e), gt + 1));
            }
        }
    }
    None
}

/// A unified diff hunk's header at the start of `text` (`@@ -a,b +c,d @@`, the counts optional
/// and 1 when left out): the lines it announces; uncounted when the header gives no numbers.
fn diff_header(text: &[u8]) -> Option<Diff> {
    let rest = text.strip_prefix(b"@@ ")?;
    let range = |r: &[u8], sign: u8| -> Option<(u32, usize)> {
        let r = r.strip_prefix(&[sign])?;
        let digits = r.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        let mut used = digits;
        let mut count = 1;
        if r.get(digits) == Some(&b',') {
            let more = r[digits + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if more == 0 || more > 9 {
                return None;
            }
            count = std::str::from_utf8(&r[digits + 1..digits + 1 + more])
                .ok()?
                .parse()
                .ok()?;
            used += 1 + more;
        }
        Some((count, used + 1))
    };
    let counted = (|| {
        let (old, used) = range(rest, b'-')?;
        let rest = rest[used..].strip_prefix(b" ")?;
        let (new, used) = range(rest, b'+')?;
        rest[used..].strip_prefix(b" @@")?;
        Some(Diff {
            old,
            new,
            counted: true,
        })
    })();
    counted.or_else(|| {
        rest.starts_with(b"-").then_some(Diff {
            old: 0,
            new: 0,
            counted: false,
        })
    })
}

/// An element at the `<` at `k` whose content is a quotation: HTML's `<blockquote>`, a stray
/// `<parameter>` (any namespace), or an element that carries a tool's name (`<function
/// name="response">`, `<tool name=...>`) and is not an HTML element. What is inside it, up to
/// its balancing closing tag, is its text, not the reply's own voice. A tag that closes itself
/// holds nothing.
fn quoting_element(b: &[u8], k: usize, end: usize, name: (&str, usize)) -> Option<Marker> {
    let text = &b[k..end];
    let (local, name_end) = name;
    // The tag's attributes: up to its `>`, or to the next `<` or the line's end when it does
    // not close there.
    let tag = match memchr::memchr2(b'>', b'<', &text[name_end..]) {
        Some(off) if text[name_end + off] == b'>' => {
            if text[..name_end + off].ends_with(b"/") {
                return None;
            }
            &text[name_end..name_end + off]
        }
        Some(off) => &text[name_end..name_end + off],
        None => &text[name_end..],
    };
    // An attribute named as a tool's (`name=`, `tool=`): each `=` of the tag, the word before
    // it.
    let names_tool = || {
        memchr::memchr_iter(b'=', tag).any(|eq| {
            let before = tag[..eq].trim_ascii_end();
            let word = before
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            let at = before.len() - word;
            at > 0
                && before[at - 1].is_ascii_whitespace()
                && TOOL_NAME_ATTRS
                    .iter()
                    .any(|a| a.as_bytes() == &before[at..])
        })
    };
    // (Names of HTML elements never reach here: they have a kind.)
    if local == PARAMETER || names_tool() {
        let from = k + name_end - local.len();
        return Some(Marker::ElementAt(from, k + name_end));
    }
    None
}

impl Structure {
    /// Reads one line of a diff hunk (`line` from its start): `false` when it is no hunk line.
    fn diff_line(&mut self, line: &[u8], mut d: Diff) -> bool {
        match line.first() {
            None | Some(b'\r' | b' ') => {
                d.old = d.old.saturating_sub(1);
                d.new = d.new.saturating_sub(1);
            }
            Some(b'-') => d.old = d.old.saturating_sub(1),
            Some(b'+') => d.new = d.new.saturating_sub(1),
            Some(b'\\') => {}
            Some(b'@') => match diff_header(line) {
                Some(next) => d = next,
                None => return false,
            },
            _ => return false,
        }
        self.mode = if d.counted && d.old == 0 && d.new == 0 {
            Mode::Prose
        } else {
            Mode::Diff(d)
        };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Structure::catch_up`] as it was before lines of an open paragraph were passed over:
    /// every line read, its break searched for.
    fn read_every_line(s: &mut Structure, b: &[u8], to: usize, meter: &mut Meter) {
        while s.done < to {
            let start = s.done;
            let eol = memchr::memchr(b'\n', &b[start..to]).map_or(to - 1, |off| start + off);
            s.read_line(b, start, eol, meter);
        }
    }

    fn state(s: &Structure) -> (usize, bool, Mode, Para, Items) {
        (s.done, s.mid_line, s.mode, s.para, s.items)
    }

    #[test]
    fn lines_passed_over_leave_the_state_as_reading_them_does() {
        // Line pieces: paragraph text, every block start the reading knows, inline code, raw
        // HTML, JSON, indents, blank lines and carriage returns.
        let pieces = [
            "text",
            "more text",
            " ",
            "  ",
            "    ",
            "\t",
            "```",
            "~~~",
            "`",
            "``",
            "- ",
            "* ",
            "+ ",
            "1. ",
            "2) ",
            "> ",
            ">",
            "# ",
            "## x",
            "---",
            "***",
            "___",
            "=== ",
            "<div>",
            "<pre>",
            "</pre>",
            "<!-- ",
            " -->",
            "<?x ",
            "?>",
            "<code>",
            "</code>",
            "<p>",
            "{",
            "{\"a\": ",
            "\"",
            "}",
            "]",
            "\r",
            "é",
            "|",
            "x:",
            "<x:y/>",
            "<!DOCTYPE",
            "_",
            "a < b",
            "<<",
            "</p>",
            "<3",
            "< x",
            "<!-- c -->",
            "<think>",
            "</think>",
            "[THINK]",
            "@@ -1 +1 @@",
            "<foo name=\"x\">",
            "</foo>",
            "<blockquote>",
            "{'a':",
        ];
        let mut rng = ctb_testkit::Rng::new(18);
        for _ in 0..30_000 {
            let lines = 1 + rng.below(8);
            let mut doc = String::new();
            for _ in 0..lines {
                for _ in 0..rng.below(4) {
                    doc.push_str(rng.pick(&pieces));
                }
                doc.push('\n');
            }
            let b = doc.as_bytes();
            let (mut fast, mut slow) = (Structure::default(), Structure::default());
            let (mut fast_meter, mut slow_meter) = (Meter::default(), Meter::default());
            let mut line_start = 0;
            for nl in memchr::memchr_iter(b'\n', b) {
                // Caught up line by line, the way the scanner does, with and without the
                // known end of the line before.
                let to = nl + 1;
                let hint = rng.chance(50).then_some(line_start);
                // The text as far as it has arrived (the search ahead resumes as it grows).
                let arrived = &b[..(to + rng.below(4)).min(b.len())];
                fast.catch_up(arrived, to, hint, &mut fast_meter);
                read_every_line(&mut slow, b, to, &mut slow_meter);
                assert_eq!(state(&fast), state(&slow), "{doc:?} up to {to}");
                assert_eq!(fast_meter, slow_meter, "{doc:?} up to {to}");
                assert_eq!(fast.live(), slow.live());
                line_start = to;
            }
            // Caught up at once.
            let (mut once, mut once_meter) = (Structure::default(), Meter::default());
            once.catch_up(b, b.len(), None, &mut once_meter);
            assert_eq!(state(&once), state(&slow), "{doc:?}");
            assert_eq!(once_meter, slow_meter, "{doc:?}");
        }
    }
}
