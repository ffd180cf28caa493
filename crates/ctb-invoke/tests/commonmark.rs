//! The Markdown quoting rules against CommonMark itself: on generated documents, every line
//! that pulldown-cmark (the CommonMark implementation behind rustdoc and mdBook) puts in code
//! (a fenced or indented block, an inline code span), in a raw-text HTML block (`<pre>`,
//! `<script>`, `<style>`, `<textarea>`, a comment, CDATA, a processing instruction, a
//! declaration) or in a block quote is a line the scanner does not start a call on. The call
//! is Claude's at the line's start, or DeepSeek's DSML block after prose on the same line
//! (its opener starts a call in the middle of a line): then the place that counts is the
//! opener, after code spans open or closed before it.
//!
//! The scanner reads a line's context from the text before it only, one pass, so that a
//! streamed reply decides as the whole one; pulldown-cmark needs the whole document. Where the
//! two cannot agree line by line (an inline span that never closes is not code for CommonMark,
//! but while it streams nothing can tell), the scanner takes the safe side: it is allowed to
//! quote more than CommonMark, never less. The test counts how often it does.
//!
//! `CTB_COMMONMARK_CASES` sets the number of documents (default 20,000), `CTB_COMMONMARK_SEED`
//! the seed.

use std::ops::Range;

use ctb_invoke::{Found, find_first_call};
use ctb_testkit::Rng;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

/// The call placed on the line under test (one line, so it starts and ends there).
const CALL: &str = "<invoke name=\"x\"><parameter name=\"a\">1</parameter></invoke>";

/// A DSML block on one line, whose opener may follow prose on its line.
const DSML_CALL: &str = "<|DSML|tool_calls> <|DSML|invoke name=\"x\"> <|DSML|parameter \
                         name=\"a\" string=\"true\">1</|DSML|parameter> </|DSML|invoke> \
                         </|DSML|tool_calls>";

/// Prose before a DSML block on its line: plain, a closed code span, spans that open.
const BEFORE_DSML: &[&str] = &[
    "Let me check. ",
    "Running `ls` first. ",
    "An open ` span ",
    "Two ``ticks ",
    "> Quoted. ",
    "- An item: ",
    "<pre>x</pre> ",
    "<!-- note --> ",
    "<?php x ?> ",
];

/// Lines the documents are made of: prose with and without code spans, block quotes, list
/// items, fences of every kind and indent, indented code, raw-text HTML, blank lines.
const LINES: &[&str] = &[
    "Some prose.",
    "More prose, with `code` in it.",
    "An open span ` here",
    "a span `` with ` inside `` closed",
    "closing span` here",
    "Two ``ticks",
    "ticks`` end",
    "> a quote",
    "> ```",
    ">",
    "- an item",
    "- ```",
    "1. ```",
    "10. ~~~",
    "  ```",
    "   ~~~",
    "    ```",
    "\t```",
    "```",
    "````",
    "~~~",
    "~~~~",
    "```rust",
    "``` x`y",
    "~~~ info `with` ticks",
    "    indented text",
    "\tindented text",
    "  two spaces",
    "",
    "   ",
    "<pre>",
    "</pre>",
    "<pre>one line</pre>",
    "<script type=\"x\">",
    "</script>",
    "<style>",
    "</style>",
    "<textarea>",
    "</textarea>",
    "<!--",
    "-->",
    "<!-- one line -->",
    "<![CDATA[",
    "]]>",
    "<?php",
    "?>",
    "<!DOCTYPE html",
    ">",
    "# A heading",
    "---",
    "<div>",
    "</div>",
];

/// A generated document with the call on one of its lines, and the call's byte offset.
fn document(rng: &mut Rng) -> (String, usize) {
    let n = 1 + rng.below(8);
    let at = rng.below(n + 1);
    let mut text = String::new();
    let mut call_at = 0;
    for i in 0..=n {
        if i == at {
            let indent = rng.pick(&["", "", "", " ", "  ", "   "]);
            text.push_str(indent);
            if rng.chance(50) {
                text.push_str(rng.pick(BEFORE_DSML));
                call_at = text.len();
                text.push_str(DSML_CALL);
            } else {
                call_at = text.len();
                text.push_str(CALL);
            }
        } else {
            text.push_str(rng.pick(LINES));
        }
        text.push('\n');
    }
    (text, call_at)
}

/// Whether CommonMark reads the call at `call_at` as code, raw HTML or a block quote.
fn commonmark_quotes(text: &str, call_at: usize) -> Option<&'static str> {
    let mut quoted = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        let holds = |r: &Range<usize>| r.start <= call_at && call_at < r.end;
        match event {
            Event::Start(Tag::CodeBlock(kind)) if holds(&range) => {
                // An indented block's range starts at its text, a fence's at the fence.
                let _ = matches!(kind, CodeBlockKind::Fenced(_));
                quoted = Some("code block");
            }
            Event::Code(_) if holds(&range) => quoted = Some("code span"),
            Event::Start(Tag::BlockQuote(_)) if holds(&range) => quoted = Some("block quote"),
            Event::Start(Tag::HtmlBlock)
                if holds(&range)
                    && range.start < call_at
                    && raw_html_start(&text[range.clone()]) =>
            {
                quoted = Some("raw html");
            }
            _ => {}
        }
    }
    quoted
}

/// CommonMark's HTML blocks of the first five kinds: raw text up to their end marker.
fn raw_html_start(block: &str) -> bool {
    let head = block.trim_start().to_ascii_lowercase();
    [
        "<pre",
        "<script",
        "<style",
        "<textarea",
        "<!--",
        "<![cdata[",
        "<?",
    ]
    .iter()
    .any(|p| head.starts_with(p))
        || head.starts_with("<!") && head.as_bytes().get(2).is_some_and(u8::is_ascii_alphabetic)
}

/// Whether the scanner reads the call at `call_at` as the reply's first call.
fn scanner_runs(text: &str, call_at: usize) -> bool {
    matches!(find_first_call(text), Found::Call(c) if c.start == call_at)
}

#[test]
fn the_scanner_quotes_every_line_commonmark_quotes() {
    let cases = std::env::var("CTB_COMMONMARK_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let seed = std::env::var("CTB_COMMONMARK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0xC0_44_0B);
    let mut rng = Rng::new(seed);
    let (mut code, mut stricter, mut live) = (0, 0, 0);
    for _ in 0..cases {
        let (text, call_at) = document(&mut rng);
        let runs = scanner_runs(&text, call_at);
        match commonmark_quotes(&text, call_at) {
            Some(what) => {
                code += 1;
                assert!(
                    !runs,
                    "CommonMark reads the call as {what}, the scanner runs it:\n{text}"
                );
            }
            None if runs => live += 1,
            None => {
                stricter += 1;
                if std::env::var_os("CTB_COMMONMARK_SHOW").is_some() && stricter <= 12 {
                    eprintln!("quoted by the scanner only:\n{text}---");
                }
            }
        }
    }
    // Enough of each to mean something.
    assert!(
        code > cases / 10 && live > cases / 10,
        "{code} {live} {stricter}"
    );
    eprintln!(
        "{cases} documents: {code} quoted by CommonMark (and the scanner), {live} calls run, \
         {stricter} quoted by the scanner only"
    );
}
