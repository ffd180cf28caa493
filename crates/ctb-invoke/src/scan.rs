//! Finding where a call starts: line by line, outside code fences, resumable while streaming.

use crate::ahead::Ahead;
use nom::Parser as _;

use crate::call::{Parser, Prefer};
use crate::grammar::{Call, Start, Step};
use crate::lex::Meter;
use crate::registry::Forms;
use crate::registry::{self, Opener};
use crate::structure::{LineProbe, Structure, indent_cols};
use crate::tag;
use crate::vocab::RESIDUE_WORDS;

/// Why a text holds no call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoCall {
    /// No call tag at the start of any line of the reply's own text.
    NoTags,
    /// Call tags only where they are quoted: in code, raw HTML, invented results, a JSON
    /// string, a block quote, the value of a broken call, in the middle of a line, or in a
    /// form the reply is not read for.
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

/// Every complete call a text holds, wherever it stands (quoted, mid-line, inside a value of
/// another call or not), in any form, and whether the whole text was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllCalls<'a> {
    /// The calls, in the order they start; a call found is skipped over whole.
    pub calls: Vec<Call<'a>>,
    /// Whether the text was read to its end: reading stops once the work reaches the cap a
    /// scan of this text has ([`Scanner::work`]).
    pub complete: bool,
}

/// Every complete call in `text`, wherever it stands: what a text an agent received (a page,
/// a tool result) holds, so that a call the model copies from it can be told. A call is tried
/// at every `<` and every opener that starts with another byte; a candidate that breaks gives
/// way to the next byte, a call found is skipped over. The work is counted as a scan counts
/// it and capped as a scan's is (32 per byte plus 64 KiB).
///
/// ```
/// use ctb_invoke::calls_anywhere;
/// let page = "Docs: `<invoke name=\"sh\"><parameter name=\"cmd\">ls</parameter></invoke>` and \
///             <tool_call>{\"name\": \"web\", \"arguments\": {\"q\": \"x\"}}</tool_call>";
/// let all = calls_anywhere(page);
/// assert!(all.complete);
/// let names: Vec<&str> = all.calls.iter().map(|c| c.name).collect();
/// assert_eq!(names, ["sh", "web"]);
/// ```
pub fn calls_anywhere(text: &str) -> AllCalls<'_> {
    let b = text.as_bytes();
    let cap = budget(text.len());
    let mut meter = Meter::default();
    let glued: Vec<(&'static str, registry::Form)> = registry::FORMS
        .iter()
        .flat_map(|r| {
            r.glued.iter().filter_map(move |o| match o {
                Opener::Literal(t) if !t.starts_with('<') => Some((*t, r.form)),
                _ => None,
            })
        })
        .collect();
    // The bytes a call may start with: `<`, the list openers' byte (in a text the model
    // received, a list anywhere is a call it may copy), and the first bytes of the glued
    // openers without `<`.
    let mut firsts = vec![b'<', LIST_BYTE];
    for (t, _) in &glued {
        if !firsts.contains(&t.as_bytes()[0]) {
            firsts.push(t.as_bytes()[0]);
        }
    }
    let next = |hay: &[u8]| match firsts[..] {
        [a] => memchr::memchr(a, hay),
        [a, x] => memchr::memchr2(a, x, hay),
        [a, x, y] => memchr::memchr3(a, x, y, hay),
        _ => hay.iter().position(|c| firsts.contains(c)),
    };
    let mut calls = Vec::new();
    let mut at = 0;
    while let Some(off) = next(&b[at..]) {
        let k = at + off;
        if meter.work > cap {
            return AllCalls {
                calls,
                complete: false,
            };
        }
        meter.work += off + 1;
        let how = if b[k] == b'<' {
            let head_end = floor_char_boundary(text, k + LINE_HEAD.max(256));
            match tag_starts_call(&text[k..head_end]) {
                Some(Ok(how)) => Some(how),
                _ => None,
            }
        } else {
            glued
                .iter()
                .find(|(t, _)| text[k..].starts_with(t))
                .map(|(t, _)| Start::Literal(t))
                .or_else(|| {
                    let head_end = floor_char_boundary(text, k + LINE_HEAD);
                    match list_starts_call(&text[k..head_end]) {
                        Some(Ok(how)) => Some(how),
                        _ => None,
                    }
                })
        };
        let Some(how) = how else {
            at = k + 1;
            continue;
        };
        let mut parser = Parser::new(k, how, Prefer::ALL);
        match parser.run(text, &mut meter) {
            Step::Done(end) if end > k => {
                calls.push(parser.call(text, end));
                at = end;
            }
            _ => at = k + 1,
        }
    }
    AllCalls {
        calls,
        complete: true,
    }
}

/// Incremental search for the first call in a reply that arrives in pieces.
///
/// Hand it the whole text received so far each time (the text only ever grows), then the
/// whole reply to [`Scanner::finish`]. However the reply is split, every byte is examined a
/// bounded number of times and every decision is made on the same bytes, so the answer does
/// not depend on the split (and the work, [`Scanner::work`], only by the first bytes of a
/// line read once more while it is still arriving):
///
/// - a line is classified once, when its newline has arrived, or its first bytes hold a `>`
///   or are long enough to tell ([`LINE_HEAD`] bytes);
/// - a call that starts on a line is parsed by an incremental parser that resumes where it
///   stopped; a tag is parsed (by nom) once, when its end has arrived;
/// - a candidate that turns out not to be a call gives way to the next line, so a call
///   written inside a broken one is still found; but at most [`MAX_RESCANS`] candidates in a
///   row may start inside text that failed candidates have read, after which the scan moves
///   on to the furthest point a candidate broke at (no byte is read by more than a bounded
///   number of candidates).
///
/// ```
/// use ctb_invoke::{Found, Scanner, find_first_call};
///
/// let reply = "Go.\n<invoke name=\"sh\">\n<parameter name=\"cmd\">ls</parameter>\n</invoke>\nmore";
/// let mut scanner = Scanner::new();
/// let mut early = None;
/// for end in 1..=reply.len() {
///     if let Found::Call(call) = scanner.advance(&reply[..end]) {
///         early = Some(call.end);
///         break;
///     }
/// }
/// let Found::Call(call) = find_first_call(reply) else { panic!("no call") };
/// assert_eq!(early, Some(call.end));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Scanner {
    /// Start of the line being looked at.
    line: usize,
    /// The newline that ends it, once found.
    eol: Option<usize>,
    /// Where the search for that newline goes on.
    eol_from: usize,
    /// Where the search for a `>` in the line's first bytes goes on.
    gt_from: usize,
    /// Whether a `>` was seen in the line's first bytes.
    gt_seen: bool,
    /// What the line is, once classified.
    kind: LineKind,
    /// Where each line stands: the reply's own text, or quoted.
    structure: Structure,
    /// The markup forms read; a complete call in another form is a quotation.
    forms: Forms,
    /// A call that started and has not been decided.
    candidate: Option<Candidate>,
    /// Call tags were seen where they are quoted.
    quoted: bool,
    /// Work of the line scan and of the call parsers; reach of the parsers.
    meter: Meter,
    /// The call, once complete: its parser and end.
    found: Option<(Parser, usize)>,
    /// The furthest offset a failed candidate broke at.
    barrier: usize,
    /// Candidates started before `barrier` since the scan last moved past it.
    rescans: usize,
    /// The work cap was reached; nothing more is read.
    exhausted: bool,
    /// Where the bytes a mention needs are ([`mention_bytes`]), found ahead of the lines that
    /// need them: a complete line without them (most lines of prose) is ordinary text without
    /// being classified. No call starts there (every start but a DeepSeek name or a fence,
    /// which show in the line's first byte, holds one) and it quotes no call tag.
    tag_bytes: Ahead,
    /// The tokens that start a call inside a line, for the forms read.
    breaks: Breaks,
    /// The search for them in the current line, when it is in the reply's own voice.
    watch: Option<Watch>,
    /// The start of the line that ends just before `line`, when it was read as one line (its
    /// line break found, none before it): the structure need not search for that break again.
    line_before: Option<usize>,
    /// While a reply that started inside reasoning (its chat template opened it in the prompt)
    /// has not shown the reasoning's closer: the same reply read as if it had not (a serving
    /// stack may have stripped the reasoning). The text is read as this twin reads it when no
    /// closer comes.
    twin: Option<Box<Scanner>>,
    /// The reply ended inside reasoning: an opening mark not closed, or a reply that started
    /// inside reasoning showed no closer.
    unclosed_reasoning: bool,
    /// Tests: plain lines are passed over one by one by the scan's loop only.
    #[cfg(test)]
    one_by_one: bool,
}

/// The tokens of the forms read that start a call inside a line: glued openers (the call
/// starts at the token, or at the tag a glued element opener names) and boundaries (a line
/// starts right after the token). See [`registry::FormRow::glued`] and
/// [`registry::FormRow::boundaries`]. Copied with the scanner: the entries are the registry's,
/// filtered by the forms read.
#[derive(Debug, Clone, Copy)]
struct Breaks {
    forms: Forms,
    /// Whether any form read has one.
    any: bool,
    /// The bytes they start with, for the search (`n` of them; more than three means every
    /// byte is looked at).
    firsts: [u8; 3],
    n: usize,
}

#[derive(Debug, Clone, Copy)]
struct Break {
    form: registry::Form,
    kind: BreakKind,
}

#[derive(Debug, Clone, Copy)]
enum BreakKind {
    /// A literal opener: the call starts at it.
    Glued(&'static str),
    /// An element opener (`<` and a tag name): the call starts at its `<`.
    GluedTag(&'static Opener),
    /// A boundary: a line starts right after it.
    After(&'static str),
}

impl Break {
    fn first(&self) -> u8 {
        match self.kind {
            BreakKind::Glued(t) | BreakKind::After(t) => t.as_bytes()[0],
            BreakKind::GluedTag(_) => b'<',
        }
    }
}

/// Every form's break tokens, in the registry's order.
fn all_breaks() -> &'static [Break] {
    static ALL: std::sync::OnceLock<Vec<Break>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut out = Vec::new();
        for row in &registry::FORMS {
            for opener in row.glued {
                let kind = match opener {
                    Opener::Literal(t) => BreakKind::Glued(t),
                    _ => BreakKind::GluedTag(opener),
                };
                out.push(Break {
                    form: row.form,
                    kind,
                });
            }
            for t in row.boundaries {
                out.push(Break {
                    form: row.form,
                    kind: BreakKind::After(t),
                });
            }
        }
        out
    })
}

impl Breaks {
    fn of(forms: Forms) -> Self {
        // Every form, the default, is worked out once.
        static ALL: std::sync::OnceLock<Breaks> = std::sync::OnceLock::new();
        if forms == Forms::ALL {
            return *ALL.get_or_init(|| Self::of_forms(Forms::ALL));
        }
        Self::of_forms(forms)
    }

    fn of_forms(forms: Forms) -> Self {
        let mut this = Self {
            forms,
            any: false,
            firsts: [0; 3],
            n: 0,
        };
        for t in this.iter() {
            this.any = true;
            let first = t.first();
            if !this.firsts[..this.n.min(3)].contains(&first) {
                if this.n < 3 {
                    this.firsts[this.n] = first;
                }
                this.n += 1;
            }
        }
        this
    }

    /// The breaks of the forms read.
    fn iter(&self) -> impl Iterator<Item = &'static Break> + use<> {
        let forms = self.forms;
        all_breaks().iter().filter(move |t| forms.contains(t.form))
    }

    /// The next offset at or after `from`, before `end`, where a token may start.
    fn next(&self, b: &[u8], from: usize, end: usize) -> Option<usize> {
        let hay = &b[from..end];
        let f = self.firsts;
        let off = match self.n {
            0 => None,
            1 => memchr::memchr(f[0], hay),
            2 => memchr::memchr2(f[0], f[1], hay),
            3 => memchr::memchr3(f[0], f[1], f[2], hay),
            _ => hay
                .iter()
                .position(|c| self.iter().any(|t| t.first() == *c)),
        };
        off.map(|o| from + o)
    }
}

impl Default for Breaks {
    fn default() -> Self {
        Self::of(Forms::ALL)
    }
}

/// Where the search for break tokens in the current line stands.
#[derive(Debug, Clone)]
struct Watch {
    /// Tokens are searched from here.
    from: usize,
    /// The line read up to the last token that mattered.
    probe: LineProbe,
}

/// Bytes a line holds when [`mentions_call`] finds something in it: `<`, `:` and the first
/// byte of every family's literal glued opener that holds neither (Mistral's `[`; MiniMax-M3's
/// marker holds a `<`). Every form's, not only the forms read: a mention of any family's call
/// counts, so a line without these bytes is plain for every model.
struct MentionBytes {
    /// Besides `<` and `:`.
    extra: Vec<u8>,
}

impl MentionBytes {
    /// The offset of the first such byte in `hay`.
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match self.extra[..] {
            [] => memchr::memchr2(b'<', b':', hay),
            [x] => memchr::memchr3(b'<', b':', x, hay),
            _ => hay
                .iter()
                .position(|c| matches!(c, b'<' | b':') || self.extra.contains(c)),
        }
    }
}

fn mention_bytes() -> &'static MentionBytes {
    static BYTES: std::sync::OnceLock<MentionBytes> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let mut extra = Vec::new();
        for token in glued_literals().filter(|t| !t.contains(['<', ':'])) {
            let first = token.as_bytes()[0];
            if !extra.contains(&first) {
                extra.push(first);
            }
        }
        MentionBytes { extra }
    })
}

/// Every family's literal glued openers that do not start with `<` (those that do are found
/// from their `<`).
fn glued_literals() -> impl Iterator<Item = &'static str> {
    registry::FORMS
        .iter()
        .flat_map(|r| r.glued)
        .filter_map(|o| match o {
            Opener::Literal(t) if !t.starts_with('<') => Some(*t),
            _ => None,
        })
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum LineKind {
    /// Not classified yet.
    #[default]
    Fresh,
    /// Not a call start: when complete, it is only checked for quoted call tags.
    Ordinary,
}

#[derive(Debug, Clone)]
struct Candidate {
    parser: Parser,
    /// Start of the line the call starts on.
    line: usize,
    /// One past the furthest byte this candidate has examined.
    reach: usize,
}

/// How many bytes of a line's start (after up to four bytes of indent) tell whether a call
/// starts there: a residue word, a prefix and a tag name fit easily.
pub const LINE_HEAD: usize = 96;

/// How many candidates in a row may start inside text that failed candidates have read.
pub const MAX_RESCANS: usize = 4;

/// The first byte of every list opener ([`Opener::List`]): a line that starts with it is never
/// passed over as plain.
const LIST_BYTE: u8 = crate::vocab::pythonic::LIST_OPEN.as_bytes()[0];

/// Work allowed per reply: a bounded number of passes over the text plus a constant. The
/// scanner's design keeps it far below that (each byte is examined a few times at most); the
/// cap is the backstop the crate promises.
fn budget(len: usize) -> usize {
    len.saturating_mul(32).saturating_add(1 << 16)
}

/// Work after which the scan stops: half the [`budget`]. The check comes between steps, and
/// one step (a candidate's run up to the text's end, its failure, the line it leaves) reads
/// the text a few times at most, far less than the other half: the work done never passes
/// the budget. Replies read in the ordinary way use a few bytes of work per byte.
fn allowance(len: usize) -> usize {
    budget(len) / 2
}

impl Scanner {
    /// A scanner at the start of a reply, reading every markup form.
    pub fn new() -> Self {
        Self::default()
    }

    /// A scanner that reads only `forms`: a complete call in another form is a quotation.
    ///
    /// ```
    /// use ctb_invoke::{Form, Forms, Found, NoCall, Scanner};
    /// let hermes = "Qwen writes:\n<tool_call>\n{\"name\": \"x\", \"arguments\": {}}\n</tool_call>";
    /// let claude_only = Forms::of(&[Form::CLAUDE]);
    /// assert_eq!(Scanner::with_forms(claude_only).finish(hermes), Found::Nothing(NoCall::Quoted));
    /// assert!(matches!(Scanner::new().finish(hermes), Found::Call(_)));
    /// ```
    pub fn with_forms(forms: Forms) -> Self {
        Self {
            forms,
            breaks: Breaks::of(forms),
            ..Self::default()
        }
    }

    /// A scanner for a reply that starts inside `reasoning`: its model's chat template opens
    /// the reasoning in the prompt, so the reply shows only its closer. Nothing before the
    /// closer is the reply's own voice; a reply that shows no closer at all is read as if it
    /// started in its own voice (its reasoning was stripped upstream), and then counts as
    /// ending inside reasoning ([`Scanner::ended_in_reasoning`]). Until the closer arrives the
    /// text is read both ways, so the work may double.
    ///
    /// ```
    /// use ctb_invoke::registry::Reasoning;
    /// use ctb_invoke::{Found, NoCall, Scanner};
    /// let think = Reasoning::Element("think");
    /// let call = "<invoke name=\"sh\">\n<parameter name=\"cmd\">ls</parameter>\n</invoke>";
    /// let drafted = format!("Maybe:\n{call}\nNo.\n</think>\nI won't.");
    /// let mut s = Scanner::new().starting_in_reasoning(think);
    /// assert_eq!(s.finish(&drafted), Found::Nothing(NoCall::Quoted));
    /// let stripped = format!("Listing.\n{call}");
    /// let mut s = Scanner::new().starting_in_reasoning(think);
    /// assert!(matches!(s.finish(&stripped), Found::Call(_)));
    /// assert!(s.ended_in_reasoning());
    /// ```
    #[must_use]
    pub fn starting_in_reasoning(mut self, reasoning: crate::registry::Reasoning) -> Self {
        let twin = self.clone();
        self.structure = Structure::in_reasoning_from_start(reasoning);
        self.twin = Some(Box::new(twin));
        self
    }

    /// A scanner that reads reasoning marks as prose: what a call written as the last thing of
    /// a reasoning block is, read on its own.
    #[must_use]
    pub fn blind_to_reasoning(mut self) -> Self {
        self.structure = Structure::blind_to_reasoning();
        self
    }

    /// After [`Scanner::finish`]: whether the reply ended inside reasoning (a reasoning mark
    /// that did not close, or a reply that started inside reasoning and showed no closer).
    pub fn ended_in_reasoning(&self) -> bool {
        self.unclosed_reasoning
    }

    /// Bytes examined so far (each examination counted): line classification, every parser
    /// step and every tag parse. It is the same for every split of the same text.
    pub fn work(&self) -> usize {
        self.meter.work + self.twin.as_ref().map_or(0, |t| t.work())
    }

    /// One past the furthest byte the call parsers have examined: every decision so far
    /// depends on `text[..reach]` only. A call found early is found in exactly the same way in
    /// `text[..max(call.end, reach)]` as a whole reply.
    pub fn reach(&self) -> usize {
        self.meter.reach
    }

    /// How many bytes at the start of `text` (the text last scanned) are settled: no call of
    /// the reply can include them, and they are not the residue word or white space that may
    /// stand right before a call (a trailing word that a residue word may still become is held
    /// back too). Once a call is found, its prose. Never more than the prose of the call the
    /// reply turns out to hold, so a host may pass settled text on as it arrives.
    ///
    /// ```
    /// use ctb_invoke::Scanner;
    /// let mut s = Scanner::new();
    /// let text = "Listing.\ncourt\n<invoke name=\"x\">";
    /// s.advance(text);
    /// assert_eq!(&text[..s.settled(text)], "Listing.");
    /// ```
    pub fn settled(&self, text: &str) -> usize {
        let own = self.settled_here(text);
        match &self.twin {
            Some(twin) => own.min(twin.settled(text)),
            None => own,
        }
    }

    fn settled_here(&self, text: &str) -> usize {
        if let Some((parser, end)) = &self.found {
            return finish_call(text, parser.call(text, *end)).prose_end;
        }
        let upto = match &self.candidate {
            Some(c) => c.line,
            None if self.kind == LineKind::Ordinary && self.candidate.is_none() => {
                // A line that starts no call at its start: all of it that has arrived but its
                // last word, up to where a token that starts a call inside it may still be.
                self.watch.as_ref().map_or(text.len(), |w| w.from)
            }
            None => self.line,
        };
        let mut head = text[..upto.min(text.len())].trim_end();
        let word = head.len()
            - head
                .bytes()
                .rev()
                .take_while(u8::is_ascii_alphabetic)
                .count();
        if RESIDUE_WORDS.iter().any(|w| w.starts_with(&head[word..])) {
            head = head[..word].trim_end();
        }
        head.len()
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
        let twin_found = self.twin.as_mut().map(|twin| twin.run(text, last));
        let found = self.scan(text, last);
        if found == Found::Nothing(NoCall::WorkLimit) {
            // The cap is final: a reply that used it up is not read again.
            self.exhausted = true;
        }
        if matches!(found, Found::Call(_)) {
            // A call of the reply's own voice: the reasoning it started in has closed.
            self.twin = None;
        } else if last && !self.exhausted {
            // Whether the reply ends inside reasoning: its last line read too.
            self.structure.read_to_end(text.as_bytes(), &mut self.meter);
            self.unclosed_reasoning = self.structure.in_reasoning();
        }
        if self.twin.is_some() && !self.structure.in_opening_reasoning() {
            // The reasoning the reply started in has closed: it is read one way only.
            self.twin = None;
        } else if last {
            if let (Some(twin), Some(twin_found)) = (self.twin.take(), twin_found) {
                // No closer came: the text is read as the twin read it, and it counts as
                // ending inside reasoning.
                let work = self.meter.work;
                *self = *twin;
                self.meter.work += work;
                self.unclosed_reasoning = true;
                return twin_found;
            }
        }
        found
    }

    fn scan<'a>(&mut self, text: &'a str, last: bool) -> Found<'a> {
        if let Some((parser, end)) = &self.found {
            return Found::Call(finish_call(text, parser.call(text, *end)));
        }
        let b = text.as_bytes();
        loop {
            if self.meter.work > allowance(text.len()) {
                return Found::Nothing(NoCall::WorkLimit);
            }
            if let Some(c) = &mut self.candidate {
                let outer = self.meter.reach;
                self.meter.reach = c.reach;
                let step = c.parser.run(text, &mut self.meter);
                c.reach = self.meter.reach;
                self.meter.reach = outer.max(c.reach);
                match step {
                    Step::Pending => {
                        return Found::Incomplete {
                            start: c.parser.start(),
                            in_parameter: c.parser.in_parameter(),
                        };
                    }
                    Step::Done(end) if !self.forms.contains(c.parser.form()) => {
                        // A form the reply is not read for: the whole call is quoted text.
                        let Some(c) = self.candidate.take() else {
                            unreachable!("a candidate was run")
                        };
                        self.quoted = true;
                        let start = c.parser.start();
                        self.structure.skip(start, end);
                        // From the call's start: its line holds no line break before it (a
                        // line with many calls in it is not searched from its start each time).
                        let back = &b[start..end];
                        self.meter.work += back.len();
                        let line = memchr::memrchr(b'\n', back).map_or(c.line, |nl| start + nl + 1);
                        self.next_line(line);
                        self.kind = LineKind::Ordinary;
                        continue;
                    }
                    Step::Done(end) => {
                        let Some(Candidate { parser, .. }) = self.candidate.take() else {
                            unreachable!("a candidate was run")
                        };
                        self.meter.work += parser.start();
                        let call = finish_call(text, parser.call(text, end));
                        self.found = Some((parser, end));
                        return Found::Call(call);
                    }
                    Step::Failed(at) => {
                        let Some(c) = self.candidate.take() else {
                            unreachable!("a candidate was run")
                        };
                        // A candidate that read into later lines before it broke is a malformed
                        // call: what it enclosed is its text, up to the tag that balances its
                        // opening one. Searched from the candidate's start, not its line's: a
                        // line with many candidates in it is not searched again for each.
                        let start = c.parser.start().min(c.reach);
                        let own = &b[start..c.reach.min(b.len())];
                        self.meter.work += own.len();
                        if memchr::memchr(b'\n', own).is_some_and(|nl| start + nl + 1 < c.reach) {
                            if let Some((marker, depth)) = c.parser.region(text) {
                                self.structure.broken(c.parser.start(), marker, depth);
                            }
                            self.quoted = true;
                        }
                        self.resume_after_failure(text, c.line, start, at);
                        continue;
                    }
                }
            }
            if self.line >= text.len() {
                return self.nothing();
            }
            if self.kind == LineKind::Fresh {
                // Where the line stands depends on every line before it.
                self.structure
                    .catch_up(b, self.line, self.line_before, &mut self.meter);
            }
            if self.eol.is_none() {
                let from = self.eol_from;
                match memchr::memchr(b'\n', &b[from..]) {
                    Some(off) => {
                        self.eol = Some(from + off);
                        self.meter.work += off + 1;
                    }
                    None => {
                        self.eol_from = text.len();
                        self.meter.work += text.len() - from;
                    }
                }
            }
            if let Some(eol) = self.eol {
                if self.kind == LineKind::Fresh && self.is_plain_line(text, eol) {
                    // Charged as classifying it and reading it as an ordinary line are.
                    let line = &text[self.line..eol];
                    self.meter.work += head_work(line) + line.len();
                    let before = self.line;
                    self.next_line(eol + 1);
                    self.line_before = Some(before);
                    self.pass_plain_lines(text);
                    continue;
                }
            }
            let complete = self.eol.is_some() || last;
            let line_end = self.eol.unwrap_or(text.len());
            let line = &text[self.line..line_end];
            match self.kind {
                LineKind::Fresh => {
                    if !complete && !self.head_decidable(b, line_end) {
                        return self.nothing();
                    }
                    if let Some((offset, how)) = self.classify(line, complete) {
                        let start = self.line + offset;
                        self.start_candidate(start, how, None);
                        // Should the candidate fail on its own line, the rest of the line is
                        // ordinary text (where a token may still start a call).
                        self.kind = LineKind::Ordinary;
                        continue;
                    }
                    if self.kind == LineKind::Fresh {
                        // Undecided: the line's first bytes are still arriving.
                        return self.nothing();
                    }
                    continue;
                }
                LineKind::Ordinary => {
                    match self.watch_line(text, line_end, complete) {
                        Some(Ok((start, how, form))) => {
                            self.start_candidate(start, how, Some(form));
                            continue;
                        }
                        Some(Err(())) => return self.nothing(),
                        None => {}
                    }
                    if !complete {
                        return self.nothing();
                    }
                    self.meter.work += line.len();
                    if mentions_call(line) {
                        self.quoted = true;
                    }
                }
            }
            let before = self.eol.map(|_| self.line);
            self.next_line(line_end + 1);
            self.line_before = before;
        }
    }

    /// Goes on over the plain lines after the one just passed over, as this loop would one by
    /// one, as long as each turn of the loop is known to go the same way: the work cap is not
    /// reached, the text goes on, the structure passes over the line before
    /// ([`Structure::pass_line`]), and the line's end has arrived and it is plain
    /// ([`Self::is_plain_line`]). Each line is charged as the loop charges it. Stops at the
    /// start of a line, where the loop takes over.
    fn pass_plain_lines(&mut self, text: &str) {
        #[cfg(test)]
        if self.one_by_one {
            return;
        }
        let b = text.as_bytes();
        let cap = allowance(text.len());
        let from = self.line;
        let mut ends = memchr::memchr_iter(b'\n', b.get(from..).unwrap_or_default());
        while let Some(before) = self.line_before {
            let line = self.line;
            if self.meter.work > cap || line >= text.len() {
                return;
            }
            let Some(eol) = ends.next().map(|off| from + off) else {
                return;
            };
            if !self.is_plain_line(text, eol) {
                return;
            }
            // What the loop does for the line: the structure reads the line before, the
            // line's end is searched for, and it is passed over.
            if !self
                .structure
                .pass_line(b, before, line - 1, &mut self.meter)
            {
                return;
            }
            self.meter.work += eol + 1 - line;
            self.meter.work += head_work_of(&b[line..eol]) + (eol - line);
            self.next_line(eol + 1);
            self.line_before = Some(line);
        }
    }

    /// A candidate call starts at `start`, on the current line (only in the form `only` when
    /// it starts at that form's glued opener or after its boundary).
    fn start_candidate(&mut self, start: usize, how: Start, only: Option<registry::Form>) {
        if start < self.barrier {
            self.rescans += 1;
        } else {
            self.rescans = 0;
        }
        self.candidate = Some(Candidate {
            parser: Parser::new(
                start,
                how,
                Prefer {
                    read: self.forms,
                    only,
                },
            ),
            line: self.line,
            reach: start,
        });
    }

    /// Searches the current line (up to `line_end`, `complete` when its end has arrived) for
    /// the next token that starts a call inside it: `Some(Ok)` where a call starts, `Some(Err)`
    /// while the text that decides has not arrived, `None` when there is none (or the line is
    /// not watched).
    fn watch_line(
        &mut self,
        text: &str,
        line_end: usize,
        complete: bool,
    ) -> Option<Result<(usize, Start, registry::Form), ()>> {
        let b = text.as_bytes();
        let watch = self.watch.as_mut()?;
        while let Some(k) = self.breaks.next(b, watch.from, line_end) {
            self.meter.work += k + 1 - watch.from;
            let rest = &text[k..line_end];
            let mut undecided = false;
            let mut hit = None;
            for t in self.breaks.iter() {
                match t.kind {
                    BreakKind::Glued(token) | BreakKind::After(token) => {
                        if rest.starts_with(token) {
                            hit = Some((t, token.len()));
                            break;
                        }
                        undecided |= !complete && token.starts_with(rest);
                    }
                    BreakKind::GluedTag(opener) => match tag_opens(rest, opener, complete) {
                        Some(Ok(len)) => {
                            hit = Some((t, len));
                            break;
                        }
                        Some(Err(())) => undecided = true,
                        None => {}
                    },
                }
            }
            let Some((hit, len)) = hit else {
                if undecided {
                    // A token may be arriving here.
                    watch.from = k;
                    return Some(Err(()));
                }
                watch.from = k + 1;
                continue;
            };
            let (at, start) = match hit.kind {
                BreakKind::GluedTag(_) => (k, Some(Ok(Start::Element))),
                BreakKind::Glued(_) => (k, opener_at(rest, hit.form, complete)),
                BreakKind::After(_) => {
                    let at = k + len;
                    (at, opener_at(&text[at..line_end], hit.form, complete))
                }
            };
            let start = match start {
                Some(Ok(how)) => how,
                Some(Err(())) => {
                    watch.from = k;
                    return Some(Err(()));
                }
                None => {
                    watch.from = at.max(k + 1);
                    continue;
                }
            };
            self.meter.work += len;
            watch.from = at + 1;
            if at < self.barrier && self.rescans >= MAX_RESCANS {
                // Candidates in a row have started inside text that failed ones read: move on
                // to the furthest point one broke at.
                self.rescans = 0;
                watch.from = watch.from.max(self.barrier.min(line_end));
                continue;
            }
            // A boundary counts where the line starts after it (the token read: it may end
            // reasoning), a glued opener where it stands.
            let point = match hit.kind {
                BreakKind::After(_) => at,
                _ => k,
            };
            if !watch.probe.live_at(b, point, &mut self.meter) {
                // Quoted: in a code span, raw HTML, a JSON value...
                self.quoted = true;
                continue;
            }
            return Some(Ok((at, start, hit.form)));
        }
        self.meter.work += line_end - watch.from;
        watch.from = line_end;
        if complete { None } else { Some(Err(())) }
    }

    fn next_line(&mut self, start: usize) {
        self.line_before = None;
        self.watch = None;
        self.line = start;
        self.eol = None;
        self.eol_from = start;
        self.gt_from = start;
        self.gt_seen = false;
        self.kind = LineKind::Fresh;
    }

    /// A candidate that started on the line at `own_line` broke at `at`. The rest of its own
    /// line is ordinary text and the scan goes on with the next line, so a call written inside
    /// the broken one is still found. Calls that start inside what failed candidates read are
    /// tried at most [`MAX_RESCANS`] times in a row; then the scan moves on to the furthest
    /// point a candidate broke at, so no byte is read by more than a bounded number of
    /// candidates.
    fn resume_after_failure(&mut self, text: &str, own_line: usize, start: usize, at: usize) {
        self.barrier = self.barrier.max(at.min(text.len()));
        if self.rescans < MAX_RESCANS {
            self.kind = LineKind::Ordinary;
            return;
        }
        self.rescans = 0;
        // From the candidate's start: no line break stands between its line's start and it.
        let from = start.max(own_line).min(self.barrier);
        let back = &text.as_bytes()[from..self.barrier];
        self.meter.work += back.len();
        match memchr::memrchr(b'\n', back) {
            None => self.kind = LineKind::Ordinary,
            Some(nl) => {
                // The candidate's own line is complete: like any ordinary line, it may quote a
                // call tag (read once: the scan goes on after it).
                let own_end = from + memchr::memchr(b'\n', back).unwrap_or(nl);
                self.meter.work += own_end - own_line;
                if mentions_call(&text[own_line..own_end]) {
                    self.quoted = true;
                }
                self.next_line(from + nl + 1);
            }
        }
    }

    /// Whether the current line, complete up to `eol`, is plain ordinary text: not the reply's
    /// first line (which may start mid-tag), no DeepSeek name at its start, no `<` or `:` in
    /// it. Classifying such a line finds nothing, so it is passed over.
    #[inline(always)]
    fn is_plain_line(&mut self, text: &str, eol: usize) -> bool {
        if self.line == 0 {
            return false;
        }
        let line = &text.as_bytes()[self.line..eol];
        let first = line.get(indent_of(line));
        first != Some(&0xEF)
            && first != Some(&LIST_BYTE)
            && (self
                .tag_bytes
                .none_in(text.as_bytes(), self.line, eol, |h| mention_bytes().find(h))
                || mentions().dull(line))
    }

    /// Whether the current, unfinished line can be classified already: its first bytes hold a
    /// `>` (the first tag has ended) or are as long as classifying ever needs.
    fn head_decidable(&mut self, b: &[u8], line_end: usize) -> bool {
        let head_end = (self.line + 4 + LINE_HEAD).min(line_end);
        if line_end >= self.line + 4 + LINE_HEAD {
            return true;
        }
        if !self.gt_seen && self.gt_from < head_end {
            let from = self.gt_from;
            self.gt_seen = memchr::memchr(b'>', &b[from..head_end]).is_some();
            self.meter.work += head_end - from;
            self.gt_from = head_end;
        }
        self.gt_seen
    }

    fn nothing<'a>(&self) -> Found<'a> {
        if self.quoted {
            Found::Nothing(NoCall::Quoted)
        } else {
            Found::Nothing(NoCall::NoTags)
        }
    }

    /// Decides what a line is from its first bytes; `Some` when a call starts in it (its
    /// offset in the line and how it starts). Sets `self.kind` otherwise, unless the line is
    /// still undecided.
    fn classify(&mut self, line: &str, complete: bool) -> Option<(usize, Start)> {
        let indent = indent(line);
        let body = &line[indent..];
        let head = &body[..floor_char_boundary(body, LINE_HEAD)];
        self.meter.work += head_work(line);
        let live = self.structure.live();
        // A line that starts inside reasoning may end it: a token after the closer may still
        // start a call in it.
        let watched = live || (self.breaks.any && self.structure.in_reasoning());
        if !watched || indent_cols(line.as_bytes()) > 3 {
            // Quoted (code, raw HTML, a JSON string...) or indented as code.
            self.kind = LineKind::Ordinary;
            return None;
        }
        let cut = head.len() < body.len();
        let found = match starts_call(head, self.line == 0 && indent == 0) {
            _ if !live => None,
            Some(Ok((offset, how))) => Some((indent + offset, how)),
            Some(Err(())) if !complete && !cut => return None,
            _ => None,
        };
        if self.breaks.any {
            // Tokens inside the line may start a call: after the one that starts here, if any.
            self.watch = Some(Watch {
                from: found.map_or(self.line, |(offset, _)| self.line + offset + 1),
                probe: self.structure.probe(self.line),
            });
        }
        if found.is_none() {
            self.kind = LineKind::Ordinary;
        }
        found
    }
}

/// Whether a line's text mentions a call tag (quoted, since it was not a call): a call element
/// or wrapper name right after `<` or a prefix colon, and ending there (`<invoke_x>` is not),
/// a family's start token, or a list opener with a call's name and `(` at the line's start. Looks only at the line's `<` and `:` bytes, each in constant
/// time ([`Mentions`]).
fn mentions_call(line: &str) -> bool {
    let m = mentions();
    let b = line.as_bytes();
    let body = &line[indent_of(b)..];
    matches!(list_starts_call(body), Some(Ok(_)))
        || m.glued.iter().any(|f| f.find(b).is_some())
        || memchr::memchr2_iter(b'<', b':', b).any(|at| m.at(line, at))
}

/// What [`mentions_call`] looks for, sorted for a lookup per `<` or `:`: built once from the
/// registry.
struct Mentions {
    /// The literal glued openers without a `<`, searched for in the whole line.
    glued: Vec<memchr::memmem::Finder<'static>>,
    /// Every literal opener that starts with `<`, by the byte after the `<`.
    literals: Vec<Vec<&'static str>>,
    /// The element openers that open only under a prefix (DeepSeek V4's blocks), and the
    /// first bytes of their prefixes.
    prefixed: Vec<&'static Opener>,
    prefix_firsts: Vec<u8>,
    /// The element names of every form's openers, by first byte.
    words: Vec<Vec<&'static str>>,
    /// The bytes that may follow a `<` in a mention (a token's, a word's first byte), and a `:`
    /// (a word's first byte).
    after_lt: [bool; 256],
    after_colon: [bool; 256],
    /// The first bytes of the glued openers without a `<` ([`MentionBytes::extra`]).
    extra: [bool; 256],
}

impl Mentions {
    /// Whether `line` holds no mention and starts no call, read pair by pair: no byte a glued
    /// opener without `<` starts with, and no `<` or `:` followed by a byte a mention goes on
    /// with (`a < b`, `<<`, `12:30` are dull).
    fn dull(&self, line: &[u8]) -> bool {
        if line.get(indent_of(line)) == Some(&LIST_BYTE) {
            // A list opener may start a call there.
            return false;
        }
        let mut prev = 0u8;
        for &c in line {
            let c_at = usize::from(c);
            if self.extra[c_at]
                || (prev == b'<' && self.after_lt[c_at])
                || (prev == b':' && self.after_colon[c_at])
            {
                return false;
            }
            prev = c;
        }
        true
    }

    /// Whether the `<` or `:` at `at` starts a mention.
    #[inline]
    fn at(&self, line: &str, at: usize) -> bool {
        let b = line.as_bytes();
        let rest = &b[at + 1..];
        if b[at] == b'<' {
            if let Some(&next) = rest.first() {
                if self.literals[usize::from(next)]
                    .iter()
                    .any(|t| b[at..].starts_with(t.as_bytes()))
                {
                    return true;
                }
                if self.prefix_firsts.contains(&next)
                    && self
                        .prefixed
                        .iter()
                        .any(|o| matches!(tag_opens(&line[at..], o, true), Some(Ok(_))))
                {
                    return true;
                }
            }
        }
        let n = rest
            .iter()
            .take(MAX_WORD + 1)
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
            .count();
        n > 0
            && n <= MAX_WORD
            && matches!(
                rest.get(n),
                None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/')
            )
            && self.words[usize::from(rest[0])]
                .iter()
                .any(|w| w.len() == n && w.as_bytes() == &rest[..n])
    }
}

/// Longest element name an opener has (a longer name is no opener's).
const MAX_WORD: usize = 32;

fn mentions() -> &'static Mentions {
    static TABLE: std::sync::LazyLock<Mentions> = std::sync::LazyLock::new(|| {
        let mut literals = vec![Vec::new(); 256];
        for (t, _) in registry::literal_openers() {
            if let Some(&next) = t.as_bytes().get(1) {
                literals[usize::from(next)].push(t);
            }
        }
        let mut prefixed = Vec::new();
        let mut prefix_firsts = Vec::new();
        for o in registry::FORMS.iter().flat_map(|r| r.glued) {
            match o {
                Opener::Literal(t) if t.starts_with('<') => {
                    if let Some(&next) = t.as_bytes().get(1) {
                        literals[usize::from(next)].push(t);
                    }
                }
                Opener::Literal(_) | Opener::List(_) => {}
                Opener::Prefixed(prefixes, _) => {
                    prefixed.push(o);
                    prefix_firsts.extend(prefixes.iter().map(|p| p.as_bytes()[0]));
                }
                Opener::Element(_) | Opener::Bare(_) => prefixed.push(o),
            }
        }
        let mut words: Vec<&'static str> = registry::FORMS
            .iter()
            .flat_map(|r| r.openers)
            .filter_map(|o| match o {
                Opener::Element(word) => Some(*word),
                _ => None,
            })
            .collect();
        words.sort_unstable();
        words.dedup();
        assert!(words.iter().all(|w| !w.is_empty() && w.len() <= MAX_WORD));
        let mut by_first = vec![Vec::new(); 256];
        let mut after_lt = [false; 256];
        let mut after_colon = [false; 256];
        for w in &words {
            let first = usize::from(w.as_bytes()[0]);
            by_first[first].push(*w);
            after_lt[first] = true;
            after_colon[first] = true;
        }
        for &b in &prefix_firsts {
            after_lt[usize::from(b)] = true;
        }
        // Every token's `<`, and the byte after it.
        let tokens =
            registry::literal_openers()
                .map(|(t, _)| t)
                .chain(registry::FORMS.iter().flat_map(|r| {
                    r.glued
                        .iter()
                        .filter_map(|o| match o {
                            Opener::Literal(t) => Some(*t),
                            _ => None,
                        })
                        .chain(r.boundaries.iter().copied())
                }));
        for t in tokens {
            let b = t.as_bytes();
            for (i, _) in b.iter().enumerate().filter(|(_, c)| **c == b'<') {
                if let Some(&next) = b.get(i + 1) {
                    after_lt[usize::from(next)] = true;
                }
            }
        }
        Mentions {
            glued: glued_literals()
                .map(|t| memchr::memmem::Finder::new(t.as_bytes()))
                .collect(),
            literals,
            prefixed,
            prefix_firsts,
            words: by_first,
            after_lt,
            after_colon,
            extra: {
                let mut table = [false; 256];
                for &b in &mention_bytes().extra {
                    table[usize::from(b)] = true;
                }
                table
            },
        }
    });
    &TABLE
}

/// Does a call start at the beginning of `body`? `Some(Ok((offset, how)))` when it does,
/// `Some(Err(()))` when the line is too short to tell yet, `None` when it does not.
fn starts_call(body: &str, at_reply_start: bool) -> Option<Result<(usize, Start), ()>> {
    if let Some(start) = list_starts_call(body) {
        return Some(start.map(|how| (0, how)));
    }
    if body.starts_with('<') {
        return tag_starts_call(body).map(|r| r.map(|how| (0, how)));
    }
    if at_reply_start {
        let mid: tag::Res<'_, _> = (
            nom::combinator::opt(nom::bytes::streaming::tag(crate::vocab::NAME_ATTR)),
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
    // A line that lost its `<`: `ns:invoke name=...`, `｜DSML｜invoke name=...` (not the ASCII
    // `|DSML|`: a line with no `<` or `:` is passed over as plain unless its first byte is a
    // full-width bar's).
    let lost: tag::Res<'_, _> = tag::name(body);
    match lost {
        Ok((rest, n))
            if n.prefix.is_some_and(|p| p != crate::vocab::dsml::ASCII)
                && registry::lost_bracket(n.prefix, n.local)
                && rest.starts_with(|c: char| c.is_ascii_whitespace()) =>
        {
            Some(Ok((0, Start::LostBracket)))
        }
        Err(nom::Err::Incomplete(_)) => Some(Err(())),
        _ => None,
    }
}

/// Whether a call starts at the list opener that begins `body` ([`Opener::List`]): the opener,
/// spaces or tabs, a call's name (identifiers joined by `.`) and `(`. `None` when `body` starts
/// otherwise (`[TOOL_CALLS]`, a link `[text](url)`, a citation `[1]`); `Err` while the head
/// ends before it is decided.
fn list_starts_call(body: &str) -> Option<Result<Start, ()>> {
    if body.as_bytes().first() != Some(&LIST_BYTE) {
        return None;
    }
    let (lit, _) = registry::list_openers().find(|(l, _)| body.starts_with(l))?;
    let b = body.as_bytes();
    let mut i = lit.len();
    while b.get(i).is_some_and(|c| *c == b' ' || *c == b'\t') {
        i += 1;
    }
    let name = i;
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
    {
        i += 1;
    }
    match b.get(i) {
        None => Some(Err(())),
        Some(b'(') if b[name].is_ascii_alphabetic() || b[name] == b'_' => {
            Some(Ok(Start::Literal(lit)))
        }
        Some(_) => None,
    }
}

/// Whether a call starts at the `<` that begins `body`: a call element (`<invoke`, Grok's
/// `<xai:function_call`), a wrapper (`<function_calls>`, `<tool_call>`, ...), Qwen3-Coder's
/// `<function=`, or a family's start token.
fn tag_starts_call(body: &str) -> Option<Result<Start, ()>> {
    // The literal openers, by the byte after their `<`: a body is compared with those only.
    static BY_SECOND: std::sync::LazyLock<Vec<Vec<&'static str>>> =
        std::sync::LazyLock::new(|| {
            let mut out = vec![Vec::new(); 256];
            for (t, _) in registry::literal_openers() {
                let list: &mut Vec<&'static str> =
                    &mut out[usize::from(t.as_bytes().get(1).copied().unwrap_or(0))];
                if !list.contains(&t) {
                    list.push(t);
                }
            }
            out
        });
    let mut undecided = false;
    let all: Vec<&'static str>;
    let candidates: &[&'static str] = match body.as_bytes().get(1) {
        Some(&second) => &BY_SECOND[usize::from(second)],
        None => {
            all = registry::literal_openers().map(|(t, _)| t).collect();
            &all
        }
    };
    for &token in candidates {
        if body.starts_with(token) {
            return Some(Ok(Start::Literal(token)));
        }
        undecided |= token.starts_with(body);
    }
    let n: tag::Res<'_, _> =
        nom::sequence::preceded(nom::character::streaming::char('<'), tag::name).parse(body);
    match n {
        Ok((_, n)) if registry::element_opens(n.prefix, n.local) => Some(Ok(Start::Element)),
        Ok(_) if undecided => Some(Err(())),
        Ok(_) => None,
        Err(nom::Err::Incomplete(_)) => Some(Err(())),
        Err(_) if undecided => Some(Err(())),
        Err(_) => None,
    }
}

/// Whether the element `opener` opens at the start of `rest` (`<`, its prefix and name, then
/// the name's end): `Some(Ok(len))` the bytes it spans up to the name's end, `Some(Err)` while
/// `rest` is too short to tell and the line goes on, `None` when it does not.
fn tag_opens(rest: &str, opener: &Opener, complete: bool) -> Option<Result<usize, ()>> {
    let body = rest.strip_prefix('<')?;
    // Every prefix of the opener's, before parsing a name: most `<` are not one.
    if let Opener::Prefixed(prefixes, _) = opener {
        let fits = prefixes
            .iter()
            .any(|p| body.starts_with(p) || (!complete && p.starts_with(body)));
        if !fits {
            return None;
        }
    }
    match tag::name(body) {
        Ok((after, n)) if opener.is_element(n.prefix, n.local) => match after.bytes().next() {
            Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/') => Some(Ok(rest.len() - after.len())),
            None if !complete => Some(Err(())),
            _ => None,
        },
        Ok(_) => None,
        Err(nom::Err::Incomplete(_)) if !complete => Some(Err(())),
        Err(_) => None,
    }
}

/// Whether one of `form`'s literal openers starts `rest` (a point inside a line that a break
/// token made a line start): `Some(Ok)` how the call starts, `Some(Err)` while `rest` is a
/// prefix of one and the line goes on, `None` when none does.
fn opener_at(rest: &str, form: registry::Form, complete: bool) -> Option<Result<Start, ()>> {
    let mut undecided = false;
    for opener in form.row().openers {
        if let Opener::Literal(token) = opener {
            if rest.starts_with(token) {
                return Some(Ok(Start::Literal(token)));
            }
            undecided |= !complete && token.starts_with(rest);
        }
    }
    undecided.then_some(Err(()))
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

/// The work of classifying `line`: its indent and the first bytes after it.
#[inline]
fn head_work(line: &str) -> usize {
    head_work_of(line.as_bytes())
}

/// [`head_work`] of a line's bytes (a whole line of the text, so a character boundary ends it).
#[inline]
fn head_work_of(line: &[u8]) -> usize {
    let indent = indent_of(line);
    let body = &line[indent..];
    // The first LINE_HEAD bytes of the body, cut back to a character boundary.
    let mut head = LINE_HEAD.min(body.len());
    while head < body.len() && (body[head] as i8) < -0x40 {
        head -= 1;
    }
    indent + head
}

/// The spaces and tabs that start `line`, up to four (four make it an indented code line).
fn indent(line: &str) -> usize {
    indent_of(line.as_bytes())
}

/// [`indent`] of a line's bytes.
#[inline]
fn indent_of(line: &[u8]) -> usize {
    line.iter()
        .take(4)
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count()
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a scan has done: its answer, the work, the reach and the settled prefix.
    fn seen(s: &Scanner, text: &str, found: &Found<'_>) -> String {
        format!(
            "{found:?} work {} reach {} settled {}",
            s.work(),
            s.reach(),
            s.settled(text)
        )
    }

    #[test]
    fn a_line_without_the_mention_bytes_mentions_no_call() {
        // The plain-line pass relies on it: every glued opener of every family, and every
        // opener, holds one of the bytes (or the line is not plain for another reason).
        let bytes = mention_bytes();
        for row in &registry::FORMS {
            for opener in row.glued.iter().chain(row.openers) {
                if let Opener::Literal(t) = opener {
                    assert!(bytes.find(t.as_bytes()).is_some(), "{t:?}");
                    assert!(mentions_call(&format!("see {t} here")), "{t:?}");
                }
            }
        }
        // One byte besides `<` and `:` keeps the search one vectorised pass (memchr3); a
        // second one still works, a byte at a time.
        assert!(bytes.extra.len() <= 1, "{:?}", bytes.extra);
        assert_eq!(bytes.find(b"plain [x] text: here"), Some(6));
        let wide = MentionBytes {
            extra: vec![b'[', b']'],
        };
        assert_eq!(wide.find(b"plain ] text"), Some(6));
        assert_eq!(wide.find(b"plain text"), None);
    }

    #[test]
    fn every_list_opener_starts_with_the_list_byte() {
        // The plain-line pass, the dull-line check and the line-start check test that byte
        // alone before they look at the openers.
        assert!(registry::list_openers().count() > 0);
        for (t, _) in registry::list_openers() {
            assert_eq!(t.as_bytes().first(), Some(&LIST_BYTE), "{t:?}");
        }
    }

    #[test]
    fn a_dull_line_mentions_no_call_and_starts_none() {
        // Lines dense with `<` and `:`, with every token and word nearby: a line the pair
        // check calls dull is one the mention check and the line-start check find nothing in.
        let mut pieces: Vec<String> = [
            "<",
            "<<",
            "< ",
            ":",
            "::",
            "a:b",
            "12:30",
            "</",
            "</p>",
            "<3",
            "<=",
            "x",
            " ",
            "<a",
            "<invoke",
            ":invoke",
            "<tool_call>",
            "name=",
            "\u{ff5c}",
            "|",
            "[",
            "]",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for (t, _) in registry::literal_openers() {
            pieces.push(t.to_owned());
            pieces.push(t[..t.len() / 2].to_owned());
        }
        for row in &registry::FORMS {
            for o in row.glued.iter().chain(row.openers) {
                match o {
                    Opener::Literal(t) => pieces.push((*t).to_owned()),
                    Opener::List(t) => pieces.push(format!("{t}memory_load(")),
                    Opener::Element(e) | Opener::Prefixed(_, e) | Opener::Bare(e) => {
                        pieces.push(format!("<{e} "))
                    }
                }
            }
            pieces.extend(row.boundaries.iter().map(|t| (*t).to_owned()));
        }
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let m = mentions();
        let mut rng = ctb_testkit::Rng::new(2222);
        let mut dull = 0;
        for _ in 0..50_000 {
            let mut line = String::new();
            for _ in 0..1 + rng.below(6) {
                line.push_str(rng.pick(&pieces));
            }
            if m.dull(line.as_bytes()) {
                dull += 1;
                assert!(!mentions_call(&line), "{line:?}");
                let body = &line[indent(&line)..];
                assert!(!matches!(starts_call(body, false), Some(Ok(_))), "{line:?}");
            }
        }
        assert!(dull > 1_000, "{dull}");
    }

    #[test]
    fn plain_lines_passed_over_in_a_run_as_one_by_one() {
        // Mostly prose lines, with the lines that stop a run: block starts, tags, colons,
        // blank lines, code spans, calls, a line still arriving.
        let pieces = [
            "The build finished; next I look at the page.",
            "More text on the same paragraph",
            "  indented text",
            "\ttabbed text",
            "    four spaces",
            "",
            "   ",
            "- item",
            "1. item",
            "> quoted",
            "```",
            "a `code` span",
            "an { brace",
            "a colon: here",
            "a [bracket",
            "<div>",
            "court",
            "\u{ff5c}DSML\u{ff5c}x",
            "é accented",
            "<invoke name=\"x\">\n<parameter name=\"a\">1</parameter>\n</invoke>",
        ];
        let mut rng = ctb_testkit::Rng::new(1818);
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..1 + rng.below(12) {
                let piece = if rng.chance(60) {
                    pieces[0]
                } else {
                    rng.pick(&pieces)
                };
                text.push_str(piece);
                if rng.chance(95) {
                    text.push('\n');
                }
            }
            let forms = if rng.chance(50) {
                Forms::ALL
            } else {
                Forms::of(&[registry::Form::CLAUDE])
            };
            let (mut bulk, mut one) = (Scanner::with_forms(forms), Scanner::with_forms(forms));
            one.one_by_one = true;
            // Now and then most of the work allowed is used up already, so that the cap is
            // reached in the middle of the text.
            if rng.chance(30) {
                let used = allowance(text.len()).saturating_sub(rng.below(8 * text.len() + 1));
                (bulk.meter.work, one.meter.work) = (used, used);
            }
            // Streamed in random pieces, then finished: the same at every step.
            let mut end = 0;
            while end < text.len() {
                end = (end + 1 + rng.below(40)).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                let part = &text[..end];
                let (a, b) = (bulk.advance(part), one.advance(part));
                assert_eq!(
                    seen(&bulk, part, &a),
                    seen(&one, part, &b),
                    "{text:?} at {end}"
                );
            }
            let (a, b) = (bulk.finish(&text), one.finish(&text));
            assert_eq!(seen(&bulk, &text, &a), seen(&one, &text, &b), "{text:?}");
            // Whole at once.
            let (mut bulk, mut one) = (Scanner::with_forms(forms), Scanner::with_forms(forms));
            one.one_by_one = true;
            if rng.chance(30) {
                let used = allowance(text.len()).saturating_sub(rng.below(8 * text.len() + 1));
                (bulk.meter.work, one.meter.work) = (used, used);
            }
            let (a, b) = (bulk.finish(&text), one.finish(&text));
            assert_eq!(seen(&bulk, &text, &a), seen(&one, &text, &b), "{text:?}");
            // The step that passes the allowance stays within the budget.
            assert!(bulk.work() <= budget(text.len()), "{text:?}");
        }
    }
}
