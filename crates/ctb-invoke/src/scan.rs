//! Finding where a call starts: line by line, outside code fences, resumable while streaming.

use nom::Parser;

use crate::call::{self, Call, Fail, Start};
use crate::tag;

/// Words a model leaves where the wrapper's opening tag should be.
pub const RESIDUE_WORDS: &[&str] = &["court", "course", "count", "call"];

/// Why a text holds no call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoCall {
    /// No call tag at the start of any line outside a code fence.
    NoTags,
    /// Call tags only where they are quoted: inside a code fence or in the middle of a line.
    Quoted,
    /// The hard cap on work per reply was reached before a call was found.
    WorkLimit,
}

/// What a scan found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<'a> {
    /// The first complete, unquoted call.
    Call(Call<'a>),
    /// A call starts at `start` but its closing tag has not arrived (or never will).
    Incomplete {
        /// Where the unfinished call starts.
        start: usize,
        /// Whether the text ends inside a parameter value.
        in_parameter: bool,
    },
    /// No call.
    Nothing(NoCall),
}

/// Finds the first real call in a whole reply.
///
/// ```
/// use ctb_invoke::{find_first_call, Found};
/// let reply = "Listing files.\n<invoke name=\"sh\">\n<parameter name=\"cmd\">ls</parameter>\n</invoke>";
/// let Found::Call(call) = find_first_call(reply) else { panic!("no call") };
/// assert_eq!(call.name, "sh");
/// assert_eq!(&reply[..call.prose_end], "Listing files.");
/// ```
pub fn find_first_call(text: &str) -> Found<'_> {
    Scanner::new().finish(text)
}

/// Incremental search for the first call in a reply that arrives in pieces.
///
/// Hand it the whole text received so far each time (the text only ever grows). Every byte is
/// classified once; a pending call is parsed again only when a tag that can close it
/// (`invoke>`) has arrived since the last attempt, and the total work is capped at a small
/// multiple of the text's length.
#[derive(Debug, Clone, Default)]
pub struct Scanner {
    /// Start of the first line not yet classified.
    line: usize,
    /// Where to continue looking for the end of that line.
    eol_from: usize,
    /// Inside a code fence: its character and run length.
    fence: Option<(u8, usize)>,
    /// A call that started and has not been decided.
    candidate: Option<Pending>,
    /// Call tags were seen where they are quoted.
    quoted: bool,
    /// Bytes examined so far.
    work: usize,
    /// The call once found (its start and how it starts).
    found: Option<(usize, Start)>,
    /// The current line started a candidate that turned out not to be a call.
    skip_line: bool,
    /// The work cap was reached; nothing more is read.
    exhausted: bool,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    start: usize,
    how: Start,
    /// Text length at the last parse attempt.
    tried_at: usize,
    in_parameter: bool,
}

/// Work allowed per reply: a few passes over the text plus a constant.
fn budget(len: usize) -> usize {
    len.saturating_mul(6).saturating_add(1 << 16)
}

const CLOSER: &str = "invoke>";

/// How much of a line's start tells whether a call starts there (a residue word, a prefix
/// and a tag name fit easily).
const LINE_HEAD: usize = 96;

impl Scanner {
    /// A scanner at the start of a reply.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes examined so far: line classification plus every parse attempt. It never goes
    /// far past the cap of six passes over the text plus 64 KiB; after that the scanner
    /// answers [`NoCall::WorkLimit`] without reading again.
    pub fn work(&self) -> usize {
        self.work
    }

    /// Scans `text` (everything received so far) as a reply that may still grow.
    pub fn advance<'a>(&mut self, text: &'a str) -> Found<'a> {
        self.run(text, false)
    }

    /// Scans `text` as the whole reply: nothing more will arrive.
    pub fn finish<'a>(&mut self, text: &'a str) -> Found<'a> {
        self.run(text, true)
    }

    fn run<'a>(&mut self, text: &'a str, last: bool) -> Found<'a> {
        if self.exhausted {
            return Found::Nothing(NoCall::WorkLimit);
        }
        let found = self.scan(text, last);
        if found == Found::Nothing(NoCall::WorkLimit) {
            // The cap is final: a reply that used it up is not read again.
            self.exhausted = true;
        }
        found
    }

    fn scan<'a>(&mut self, text: &'a str, last: bool) -> Found<'a> {
        if let Some((start, how)) = self.found {
            if let Ok(c) = call::parse(text, start, how) {
                return Found::Call(finish_call(text, c));
            }
        }
        loop {
            if let Some(p) = self.candidate {
                let fresh = p.tried_at == usize::MAX || {
                    let from = p.tried_at.saturating_sub(CLOSER.len() - 1);
                    let from = floor_char_boundary(text, from.max(p.start));
                    text[from..].contains(CLOSER)
                };
                if !fresh && !last {
                    return Found::Incomplete {
                        start: p.start,
                        in_parameter: p.in_parameter,
                    };
                }
                let result = call::parse(text, p.start, p.how);
                // Charge what the attempt read: up to the call's end, the failure, or the text's end.
                let read_to = match &result {
                    Ok(c) => c.end,
                    Err(Fail::Malformed(rest)) => text.len() - rest,
                    Err(Fail::Incomplete { .. }) => text.len(),
                };
                self.work = self.work.saturating_add(read_to.saturating_sub(p.start));
                if self.work > budget(text.len()) {
                    return Found::Nothing(NoCall::WorkLimit);
                }
                match result {
                    Ok(c) => {
                        self.found = Some((p.start, p.how));
                        return Found::Call(finish_call(text, c));
                    }
                    Err(Fail::Incomplete { in_parameter }) => {
                        self.candidate = Some(Pending {
                            tried_at: text.len(),
                            in_parameter,
                            ..p
                        });
                        return Found::Incomplete {
                            start: p.start,
                            in_parameter,
                        };
                    }
                    Err(Fail::Malformed(_)) => {
                        // Not a call after all: the rest of its line is ordinary text. The
                        // line is finished first (its end may not have arrived yet).
                        self.candidate = None;
                        self.skip_line = true;
                        self.eol_from = p.start;
                        continue;
                    }
                }
            }
            if self.work > budget(text.len()) {
                return Found::Nothing(NoCall::WorkLimit);
            }
            // Classify the next line.
            if self.line >= text.len() {
                return self.nothing();
            }
            let eol = match text[self.eol_from..].find('\n') {
                Some(n) => Some(self.eol_from + n),
                None => None,
            };
            let line_end = eol.unwrap_or(text.len());
            let complete = eol.is_some() || last;
            let line = &text[self.line..line_end];
            let kind = if self.skip_line {
                self.ordinary(line, complete)
            } else {
                self.classify(line, complete)
            };
            match kind {
                Line::Candidate(offset, how) => {
                    self.candidate = Some(Pending {
                        start: self.line + offset,
                        how,
                        tried_at: usize::MAX,
                        in_parameter: false,
                    });
                    continue;
                }
                Line::Undecided => {
                    // Wait for more text; remember how far the line has been searched.
                    self.eol_from = text.len();
                    return self.nothing();
                }
                Line::Other => {}
            }
            if !complete {
                self.work = self.work.saturating_add(text.len() - self.eol_from);
                self.eol_from = text.len();
                return self.nothing();
            }
            self.work = self.work.saturating_add(line.len() + 1);
            self.line = line_end + 1;
            self.eol_from = self.line;
            self.skip_line = false;
        }
    }

    fn nothing<'a>(&self) -> Found<'a> {
        if self.quoted {
            Found::Nothing(NoCall::Quoted)
        } else {
            Found::Nothing(NoCall::NoTags)
        }
    }

    /// A line that cannot start a call: only note a quoted call tag in it.
    fn ordinary(&mut self, line: &str, complete: bool) -> Line {
        if complete && mentions_call(line) {
            self.quoted = true;
        }
        Line::Other
    }

    /// Decides what one line is. `complete`: the line's end has arrived.
    fn classify(&mut self, line: &str, complete: bool) -> Line {
        let indent = line
            .bytes()
            .take(4)
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        let body = &line[indent..];
        // Code fences.
        if let Some(f) = fence_run(body) {
            if !complete {
                return Line::Undecided;
            }
            match self.fence {
                None if indent <= 3 => self.fence = Some(f),
                Some((c, n)) if c == f.0 && f.1 >= n && body[f.1..].trim().is_empty() => {
                    self.fence = None
                }
                _ => {}
            }
            return Line::Other;
        }
        if self.fence.is_some() || indent > 3 {
            return self.ordinary(line, complete);
        }
        // Whether a call starts here shows in the line's first few bytes; looking at no more
        // keeps a long line that is still arriving from being read again with every piece.
        let head = &body[..floor_char_boundary(body, LINE_HEAD)];
        let cut = head.len() < body.len();
        match starts_call(head, self.line == 0 && indent == 0) {
            Some(Ok((offset, how))) => return Line::Candidate(indent + offset, how),
            Some(Err(())) if !complete && !cut => return Line::Undecided,
            _ => {}
        }
        self.ordinary(line, complete)
    }
}

enum Line {
    Candidate(usize, Start),
    Undecided,
    Other,
}

/// A line's opening run of three or more backticks or tildes.
fn fence_run(body: &str) -> Option<(u8, usize)> {
    let c = *body.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = body.bytes().take_while(|b| *b == c).count();
    (n >= 3).then_some((c, n))
}

/// Whether a line's text mentions a call tag (quoted, since it was not a call): `invoke` or
/// `function_calls` right after `<` or a prefix colon, and ending there (`<invoke_x>` is not).
fn mentions_call(line: &str) -> bool {
    let b = line.as_bytes();
    b.iter().enumerate().any(|(at, &c)| {
        (c == b'<' || c == b':')
            && ["invoke", "function_calls"].iter().any(|word| {
                let end = at + 1 + word.len();
                b.get(at + 1..end) == Some(word.as_bytes())
                    && matches!(
                        b.get(end),
                        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/')
                    )
            })
    })
}

/// Does a call start at the beginning of `body`? `Some(Ok((offset, how)))` when it does,
/// `Some(Err(()))` when the line is too short to tell yet, `None` when it does not.
fn starts_call(body: &str, at_reply_start: bool) -> Option<Result<(usize, Start), ()>> {
    if body.starts_with('<') {
        return tag_starts_call(body).map(|r| r.map(|how| (0, how)));
    }
    if at_reply_start {
        let mid: tag::Res<'_, _> = (
            nom::combinator::opt(nom::bytes::streaming::tag("name")),
            tag::ws,
            nom::character::streaming::char('='),
            tag::ws,
            nom::character::streaming::one_of("\"'"),
        )
            .parse(body);
        match mid {
            Ok(_) => return Some(Ok((0, Start::MidTag))),
            Err(nom::Err::Incomplete(_)) if !body.is_empty() => return Some(Err(())),
            _ => {}
        }
    }
    // A residue word glued to the call's first tag.
    for w in RESIDUE_WORDS {
        if let Some(rest) = body.strip_prefix(w) {
            if rest.starts_with('<') {
                return tag_starts_call(rest).map(|r| r.map(|how| (w.len(), how)));
            }
            if rest.is_empty() {
                return Some(Err(()));
            }
        }
    }
    // A line that lost its `<`: `ns:invoke name=...`.
    let lost: tag::Res<'_, _> = tag::name(body);
    match lost {
        Ok((rest, n))
            if n.prefix.is_some()
                && n.local == "invoke"
                && rest.starts_with(|c: char| c.is_ascii_whitespace()) =>
        {
            Some(Ok((0, Start::LostBracket)))
        }
        Err(nom::Err::Incomplete(_)) => Some(Err(())),
        _ => None,
    }
}

fn tag_starts_call(body: &str) -> Option<Result<Start, ()>> {
    let n: tag::Res<'_, _> =
        nom::sequence::preceded(nom::character::streaming::char('<'), tag::name).parse(body);
    match n {
        Ok((_, n)) if n.local == "invoke" || call::is_wrapper(n.local) => Some(Ok(Start::Tag)),
        Ok(_) => None,
        Err(nom::Err::Incomplete(_)) => Some(Err(())),
        Err(_) => None,
    }
}

/// Fills in where the prose ends and the residue word, if any.
fn finish_call<'a>(text: &'a str, mut c: Call<'a>) -> Call<'a> {
    let before = text[..c.start].trim_end();
    let mut cut = before.len();
    for w in RESIDUE_WORDS {
        if let Some(head) = before.strip_suffix(w) {
            let line_head = &head[head.rfind('\n').map_or(0, |n| n + 1)..];
            // Glued to the prose (`cleanly.court`, `проверяю:court`), or after the end of a
            // sentence (`Done. court`); a word of a sentence (`the tennis court`) stays prose.
            let glued = line_head
                .chars()
                .last()
                .is_some_and(|ch| !ch.is_whitespace() && !ch.is_ascii_alphanumeric());
            let after_sentence = line_head.ends_with(char::is_whitespace)
                && line_head
                    .trim_end()
                    .ends_with(['.', '!', '?', ':', ';', '。', '！', '？', '：']);
            if line_head.trim().is_empty() || glued || after_sentence {
                c.residue = Some(head.len()..before.len());
                cut = head.len();
            }
            break;
        }
    }
    c.prose_end = text[..cut].trim_end().len();
    c
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
