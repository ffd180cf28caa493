//! Data-driven grammar tests: every `tests/data/*.txt` reply is scanned, the result rendered and
//! snapshotted, and three invariants are checked on it:
//! - the same reply with every tag namespace-prefixed (and with mixed prefixes) reads the same;
//! - feeding it in pieces (every split point, plus seeded random chunkings) ends in the same
//!   result, and a call reported early is the call reported at the end, and the call a scan of
//!   the text up to the scanner's reach finds as a whole reply (what an early stop hands on);
//! - offsets are in bounds and on character boundaries.

use std::fmt::Write as _;
use std::path::Path;

use ctb_invoke::{Found, NoCall, Scanner, find_first_call};
use ctb_testkit::{Rng, files_with_extension, stem};

/// The namespace prefix, built from parts (see the display caveat in the README).
const NS: &str = concat!("ant", "ml:");

/// Markers of the other families' forms: their fixtures are not run with the prefix added.
const OTHER_FAMILY_MARKERS: &[&str] = &["<function=", "<tool_call>", "<|", "<\u{ff5c}", "xai:"];

fn render(text: &str, found: &Found<'_>) -> String {
    let mut out = String::new();
    match found {
        Found::Call(c) => {
            writeln!(out, "call {:?}", c.name).unwrap();
            if c.form != ctb_invoke::Form::CLAUDE {
                writeln!(out, "form {}", c.form).unwrap();
            }
            writeln!(out, "prose {:?}", &text[..c.prose_end]).unwrap();
            if let Some(r) = &c.residue {
                writeln!(out, "residue {:?}", &text[r.clone()]).unwrap();
            }
            if let ctb_invoke::Args::Json(json) = &c.args {
                writeln!(out, "json {json:?}").unwrap();
            }
            for p in c.params() {
                let extra: Vec<String> = p
                    .attrs
                    .iter()
                    .filter(|(k, _)| *k != "name")
                    .map(|(k, v)| format!("{k}={v:?}"))
                    .collect();
                writeln!(out, "param {:?} {:?} {}", p.name, p.value, extra.join(" ")).unwrap();
            }
            writeln!(out, "after {:?}", &text[c.end..]).unwrap();
        }
        Found::Incomplete {
            start,
            in_parameter,
        } => {
            writeln!(
                out,
                "incomplete in_parameter={in_parameter} from {:?}",
                &text[*start..]
            )
            .unwrap();
        }
        Found::Nothing(why) => writeln!(out, "nothing {why:?}").unwrap(),
    }
    out
}

fn prefixed(text: &str, closing_too: bool) -> String {
    let mut s = text.to_owned();
    for t in ["invoke", "parameter", "function_calls"] {
        s = s.replace(&format!("<{t}"), &format!("<{NS}{t}"));
        if closing_too {
            s = s.replace(&format!("</{t}"), &format!("</{NS}{t}"));
        }
    }
    s
}

fn char_boundaries(text: &str) -> Vec<usize> {
    (1..text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect()
}

/// Feeds `text` cut at `cuts`; returns where an early stop would cut (the call's end or the
/// scanner's reach, whichever is further) when a call was reported before the end.
fn check_streaming(text: &str, batch: &Found<'_>, cuts: &[usize]) -> Option<usize> {
    let mut sc = Scanner::new();
    let mut early = None;
    for &cut in cuts {
        let partial = sc.advance(&text[..cut]);
        // What a host may pass on as it arrives is never more than the call's prose.
        if let Found::Call(c) = batch {
            let settled = sc.settled(&text[..cut]);
            assert!(
                settled <= c.prose_end,
                "settled {settled} past the prose end {} at cut {cut}",
                c.prose_end
            );
        }
        if let Found::Call(c) = &partial {
            // An early answer must be the final answer.
            assert_eq!(&partial, batch, "early call differs at cut {cut}");
            assert!(c.end <= cut && sc.reach() <= cut);
            // Cut where an early stop cuts, the text is a whole reply with the same first call.
            let stop = c.end.max(sc.reach());
            assert_eq!(
                &find_first_call(&text[..stop]),
                batch,
                "the early stop's text at {stop} reads differently"
            );
            early.get_or_insert(stop);
        }
    }
    let last = sc.finish(text);
    assert_eq!(&last, batch, "streamed result differs for cuts {cuts:?}");
    early
}

fn check_offsets(text: &str, found: &Found<'_>) {
    if let Found::Call(c) = found {
        assert!(c.prose_end <= c.start && c.start < c.end && c.end <= text.len());
        assert!(text.is_char_boundary(c.prose_end) && text.is_char_boundary(c.end));
    }
}

#[test]
fn grammar_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = files_with_extension(&dir, "txt").unwrap();
    assert!(files.len() >= 30, "fixtures missing");
    for path in files {
        let name = stem(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let found = find_first_call(&text);
        check_offsets(&text, &found);
        let shown = render(&text, &found);
        insta::assert_snapshot!(name.clone(), shown);

        // Prefixed and mixed-prefix variants read the same (offsets aside); only for Claude's
        // form (the other families have their own tags).
        let claude_form = matches!(&found, Found::Call(c) if c.form == ctb_invoke::Form::CLAUDE)
            || !matches!(&found, Found::Call(_))
                && !OTHER_FAMILY_MARKERS.iter().any(|m| text.contains(m));
        for closing in [true, false].into_iter().filter(|_| claude_form) {
            let p = prefixed(&text, closing);
            let pf = find_first_call(&p);
            check_offsets(&p, &pf);
            let shown_p = render(&p, &pf);
            let expect = if name == "fenced_backticks" || name == "inline_mention" {
                shown.replace("<invoke", &format!("<{NS}invoke"))
            } else {
                shown.clone()
            };
            let norm = |s: &str| {
                let mut s = s.to_owned();
                for t in ["invoke", "parameter", "function_calls"] {
                    s = s.replace(&format!("{NS}{t}"), t);
                }
                s
            };
            assert_eq!(
                norm(&shown_p),
                norm(&expect),
                "{name}: prefixed (closing={closing})"
            );
        }

        // Streaming: one character at a time, every single split point, then random
        // chunkings. Wherever an early stop happens, it cuts at the same point.
        let bounds = char_boundaries(&text);
        let stop = check_streaming(&text, &found, &bounds);
        let same_stop = |s: Option<usize>, how: &str| {
            if let (Some(s), Some(want)) = (s, stop) {
                assert_eq!(s, want, "{name}: the early stop moved ({how})");
            }
        };
        for &b in &bounds {
            same_stop(check_streaming(&text, &found, &[b]), "one split");
        }
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15 ^ text.len() as u64);
        for _ in 0..200 {
            let mut cuts: Vec<usize> = bounds.iter().copied().filter(|_| rng.chance(25)).collect();
            cuts.dedup();
            same_stop(check_streaming(&text, &found, &cuts), "random chunks");
        }
    }
}

#[test]
fn lost_bracket_line_is_a_call() {
    let text = format!(
        "Reading.\n{NS}invoke name=\"Read\">\n<parameter name=\"file_path\">/a</parameter>\n</{NS}invoke>"
    );
    let Found::Call(c) = find_first_call(&text) else {
        panic!("no call")
    };
    assert_eq!(c.name, "Read");
    assert_eq!(&text[..c.prose_end], "Reading.");
}

#[test]
fn prefix_fragments_in_prose_are_not_calls() {
    let text = format!("import from @tanstack/{NS}query and anyhow::{NS}:Result;\n{NS}:x");
    assert!(matches!(find_first_call(&text), Found::Nothing(_)));
}

#[test]
fn pathological_inputs_finish() {
    // Many closing tags inside one never-closed value, fed in pieces: work is capped.
    let mut text = String::from("<invoke name=\"x\">\n<parameter name=\"v\">");
    for _ in 0..20_000 {
        text.push_str("</invoke>\n");
    }
    let mut sc = Scanner::new();
    let mut last = None;
    for cut in (0..text.len()).step_by(7) {
        last = Some(sc.advance(&text[..cut]));
    }
    assert!(last.is_some());
    let r = sc.finish(&text);
    assert!(matches!(r, Found::Incomplete { .. } | Found::Nothing(_)));
    // The work cap holds: at most one attempt past six passes plus 64 KiB.
    assert!(
        sc.work() <= 7 * text.len() + (1 << 16),
        "work {} for {} bytes",
        sc.work(),
        text.len()
    );
    // One megabyte-long line arriving in 16-byte pieces: each piece is read once by the newline
    // search and once by the search for tokens that start a call inside a line, and the
    // complete line once more for quoted call tags and once for its structure (code spans, raw
    // HTML, JSON) that the next line's context depends on.
    let token = format!(
        "{}:x{}",
        "ab".repeat(1 << 19),
        "\n<invoke name=\"Read\">\n</invoke>"
    );
    let mut sc = Scanner::new();
    for end in (16..token.len()).step_by(16) {
        assert!(!matches!(
            sc.advance(&token[..end]),
            Found::Nothing(NoCall::WorkLimit)
        ));
    }
    assert!(
        sc.work() <= 5 * token.len(),
        "work {} for {}",
        sc.work(),
        token.len()
    );
    // A megabyte of prose lines and a call at the end.
    let mut big = "word ".repeat(200_000);
    big.push_str("\n<invoke name=\"Read\">\n<parameter name=\"p\">1</parameter>\n</invoke>");
    assert!(matches!(find_first_call(&big), Found::Call(_)));
    // Deeply nested quoted invokes inside a value.
    let mut nested = String::from("<invoke name=\"x\">\n<parameter name=\"v\">");
    for _ in 0..50_000 {
        nested.push_str("<invoke name=\"y\">");
    }
    assert!(matches!(find_first_call(&nested), Found::Incomplete { .. }));
}
