//! Hostile shapes (the reproducers of the shapes that once went quadratic, `shared/repro/`):
//! the scanner's work stays a small multiple of the text's length however the text is split,
//! and a call the whole text holds is reported while streaming at the point where it
//! completes.
//!
//! No test here is timed: work is counted ([`Scanner::work`]); the criterion benches show the
//! times (`cargo xtask bench`).

use ctb_invoke::{Found, NoCall, Scanner, find_first_call};

/// Feeds `text` in pieces of `piece` bytes (moved to character boundaries); returns the end of
/// the text received when a call was first reported, the final answer's call end, and the
/// scanner's work.
fn stream(text: &str, piece: usize) -> (Option<usize>, Option<usize>, usize) {
    let mut sc = Scanner::new();
    let mut early = None;
    let mut end = 0;
    while end < text.len() {
        end = (end + piece).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        match sc.advance(&text[..end]) {
            Found::Call(_) if early.is_none() => early = Some(end),
            Found::Nothing(NoCall::WorkLimit) => panic!("work cap reached at {end}"),
            _ => {}
        }
    }
    let last = match sc.finish(text) {
        Found::Call(c) => Some(c.end),
        _ => None,
    };
    (early, last, sc.work())
}

fn assert_linear(what: &str, work: usize, len: usize, per_byte: usize) {
    assert!(
        work <= per_byte * len + (1 << 16),
        "{what}: work {work} for {len} bytes (more than {per_byte} per byte)"
    );
}

#[test]
fn many_parameters_are_read_in_linear_work() {
    // `many-params.py`: a call with 100,000 distinct parameters (3.9 MB).
    let n = 100_000;
    let mut text = String::from("<invoke name=\"response\">\n");
    for i in 0..n {
        text.push_str(&format!("<parameter name=\"p{i}\">v</parameter>\n"));
    }
    text.push_str("</invoke>");
    let mut sc = Scanner::new();
    let Found::Call(call) = sc.finish(&text) else {
        panic!("no call")
    };
    assert_eq!(call.params().len(), n);
    assert_eq!(call.params()[n - 1].name, format!("p{}", n - 1));
    assert_linear("many params", sc.work(), text.len(), 6);
    let (early, last, work) = stream(&text, 4096);
    assert_eq!((early, last), (Some(text.len()), Some(text.len())));
    assert_linear("many params, streamed", work, text.len(), 6);
}

#[test]
fn repeated_parameter_names_keep_the_first_value_in_linear_work() {
    let mut text = String::from("<invoke name=\"x\">\n");
    for i in 0..50_000 {
        text.push_str(&format!("<parameter name=\"p{}\">{i}</parameter>\n", i % 3));
    }
    text.push_str("</invoke>");
    let Found::Call(call) = find_first_call(&text) else {
        panic!("no call")
    };
    let got: Vec<(&str, &str)> = call.params().iter().map(|p| (p.name, p.value)).collect();
    assert_eq!(got, [("p0", "0"), ("p1", "1"), ("p2", "2")]);
}

#[test]
fn an_unfinished_fence_line_is_read_once() {
    // `fence-line.py`: 4 MB of backticks on one unfinished line, then `invoke>` 1,100 times,
    // fed in 16-byte pieces.
    let n = 4 << 20;
    let mut text = "`".repeat(n - 7 * 1100);
    text.push_str(&"invoke>".repeat(1100));
    let (early, last, work) = stream(&text, 16);
    assert_eq!((early, last), (None, None));
    assert_linear("fence line", work, text.len(), 4);
}

#[test]
fn closers_inside_a_long_value_do_not_stop_the_stream_early_or_late() {
    // `value-with-closers.py`: a 400 KB value holding ` invoke> ` 40 times.
    let mut text = String::from("Doc.\n<invoke name=\"response\">\n<parameter name=\"text\">");
    for _ in 0..40 {
        text.push_str(&"x".repeat(10_000));
        text.push_str(" invoke> ");
    }
    text.push_str("</parameter>\n</invoke>");
    for piece in [text.len(), 1000, 97, 16] {
        let (early, last, work) = stream(&text, piece);
        assert_eq!(last, Some(text.len()), "piece {piece}");
        assert!(
            early.is_some(),
            "piece {piece}: the call was not reported while streaming"
        );
        assert_linear("closers in a value", work, text.len(), 4);
    }
}

#[test]
fn many_quoted_closers_before_a_call() {
    // `many-quoted-closers.py`: 1,100 lines quoting `</invoke>`, then a real call, fed line by
    // line.
    let mut text = "see `</invoke>` here\n".repeat(1100);
    text.push_str("<invoke name=\"response\">\n<parameter name=\"text\">hi</parameter>\n</invoke>");
    let mut sc = Scanner::new();
    let mut early = None;
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        end += line.len();
        if let Found::Call(c) = sc.advance(&text[..end]) {
            early = Some(c.end);
            break;
        }
    }
    assert_eq!(early, Some(text.len()));
    assert_linear("quoted closers", sc.work(), text.len(), 4);
}

#[test]
fn broken_calls_nested_in_broken_calls_are_bounded() {
    // Every line opens a call whose one value holds the next: each is a candidate once the one
    // around it fails, and each would read to the same failure point at the end. At most
    // MAX_RESCANS of them are tried inside text already read; the work stays linear.
    let k = 5_000;
    let mut text = String::new();
    for _ in 0..k {
        text.push_str("<invoke name=\"b\">\n<parameter name=\"y\">\n");
    }
    text.push_str(&"</invoke>\n".repeat(k));
    text.push_str("</parameter>\n<parameter>oops</parameter>\n");
    // A real call after all of it is still found.
    text.push_str("<invoke name=\"ok\">\n<parameter name=\"a\">1</parameter>\n</invoke>");
    let mut sc = Scanner::new();
    let Found::Call(call) = sc.finish(&text) else {
        panic!("no call")
    };
    assert_eq!(call.name, "ok");
    assert_linear(
        "nested broken calls",
        sc.work(),
        text.len(),
        4 * (ctb_invoke::MAX_RESCANS + 2),
    );
    let (early, last, _) = stream(&text, 64);
    assert_eq!((early.is_some(), last), (true, Some(text.len())));
}

#[test]
fn a_call_closed_with_spaces_before_the_bracket() {
    // `close-tag-with-space`: `</invoke >` and `</invoke\n>` close a call, however the text is
    // split.
    for closer in ["</invoke >", "</invoke\n>", "</invoke\t \n>"] {
        let text = format!(
            "see `</invoke>` here\n\nGo.\n<invoke name=\"response\">\n<parameter name=\"text\">hi</parameter>\n{closer}\nafter"
        );
        let Found::Call(whole) = find_first_call(&text) else {
            panic!("{closer:?}: no call")
        };
        assert!(text[..whole.end].ends_with(closer));
        for piece in 1..12 {
            let (early, last, _) = stream(&text, piece);
            assert_eq!(last, Some(whole.end), "{closer:?} piece {piece}");
            assert!(
                early.is_some_and(|e| e >= whole.end),
                "{closer:?} piece {piece}"
            );
        }
    }
}

#[test]
fn glued_openers_that_fail_in_a_row_on_one_line_are_read_in_linear_work() {
    // Found by fuzzing (`translate`): one line of Inkling message openers (a glued opener,
    // so each starts a candidate inside the line), each candidate broken. Each failure
    // searched its line from the line's start, so the work grew with the square of the
    // line's length until the cap stopped the scan, a little past the cap.
    for unit in [
        "<|message_model|>",
        "abc <|message_model|>x",
        "<|message_model|><|content_text|>Bee|><|content_invoke_tool_jso>|>not-sson<|end_message|>",
        "Sure.[TOOL_CALLS]x",
        "Ok <|python_start|>[",
        "Ok <|tool_call_start|>[f(a=[",
        "<|tool_call_start|>[f(a='\\x4",
        "<|tool_call_start|>[f(a={'k': (1",
    ] {
        for k in [100, 1000] {
            let text = unit.repeat(k);
            let mut sc = Scanner::new();
            let found = sc.finish(&text);
            assert_ne!(found, Found::Nothing(NoCall::WorkLimit), "{unit:?} x{k}");
            assert_linear(&format!("{unit:?} x{k}"), sc.work(), text.len(), 12);
            let (_, _, work) = stream(&text, 97);
            assert_linear(&format!("{unit:?} x{k}, streamed"), work, text.len(), 12);
        }
    }
}
