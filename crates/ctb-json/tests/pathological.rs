//! Pathological inputs: each must finish without a stack overflow or panic and give the
//! stated result. Timing is measured by the `repair` bench, not here; these assertions hold
//! whatever the machine's speed.

use serde_json::{Value, json};

const MB: usize = 1 << 20;

fn parse(text: &str) -> Result<Value, ctb_json::Error> {
    let v = ctb_json::parse(text);
    match (&v, ctb_json::repair(text)) {
        (Ok(v), Ok(repaired)) => {
            // the repaired text reads back to the same value
            let back: Value = serde_json::from_str(&repaired).expect("repaired JSON");
            assert_eq!(&back, v);
        }
        (Err(a), Err(b)) => assert_eq!(a, &b),
        (a, b) => panic!("parse and repair disagree: {a:?} / {b:?}"),
    }
    v
}

fn too_deep_at(text: &str) -> usize {
    let e = parse(text).expect_err("too deep");
    assert_eq!(e.kind(), ctb_json::ErrorKind::TooDeep);
    e.offset()
}

#[test]
fn hundred_thousand_nested_brackets() {
    let depth = 100_000;
    let opens = "[".repeat(depth);
    assert_eq!(too_deep_at(&opens), ctb_json::MAX_DEPTH - 1);
    let closed = format!("{opens}{}", "]".repeat(depth));
    assert_eq!(too_deep_at(&closed), ctb_json::MAX_DEPTH - 1);
    let objects = "{\"a\":".repeat(depth);
    assert!(too_deep_at(&objects) > 0);
    let mixed = "[{(f(".repeat(depth / 4);
    too_deep_at(&mixed);
    // the same inside prose, through first_object
    let text = format!("prose {}", "{\"k\": ".repeat(depth));
    assert_eq!(ctb_json::first_object(&text), None);
}

#[test]
fn deep_but_allowed_nesting_reads() {
    let depth = ctb_json::MAX_DEPTH - 1;
    let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let mut v = &parse(&text).expect("allowed depth");
    for _ in 0..depth {
        v = &v[0];
    }
    assert_eq!(v, &json!(1));
}

#[test]
fn a_megabyte_of_trailing_commas() {
    // small containers that each end in a trailing comma
    let unit = "{\"a\": [1, 2,], \"b\": {\"c\": 3,},},\n";
    let n = MB / unit.len();
    let text = format!("[{}]", unit.repeat(n));
    let v = parse(&text).expect("trailing commas");
    let items = v.as_array().expect("array");
    assert_eq!(items.len(), n);
    assert!(
        items
            .iter()
            .all(|x| x == &json!({"a": [1, 2], "b": {"c": 3}}))
    );
    // a megabyte of bare commas after a value
    let commas = format!("[1{}]", ",".repeat(MB));
    assert_eq!(parse(&commas).expect("commas"), json!([1]));
    let commas = format!("[1{}2]", ",".repeat(MB));
    assert_eq!(parse(&commas).expect("commas"), json!([1, 2]));
    let commas = format!("{{\"a\": 1{}}}", ",".repeat(MB));
    assert_eq!(parse(&commas).expect("commas"), json!({"a": 1}));
}

#[test]
fn ndjson() {
    let n = 50_000;
    let text: String = (0..n)
        .map(|k| format!("{{\"id\": {k}, \"ok\": true}}\n"))
        .collect();
    let v = parse(&text).expect("ndjson");
    let items = v.as_array().expect("array");
    assert_eq!(items.len(), n);
    assert_eq!(items[n - 1], json!({"id": n - 1, "ok": true}));
    let scalars: String = (0..n).map(|k| format!("{k}\n")).collect();
    assert_eq!(
        parse(&scalars).expect("scalars").as_array().map(Vec::len),
        Some(n)
    );
}

#[test]
fn unclosed_string_followed_by_many_fragments() {
    let n = 50_000;
    // an object whose first string never closes, then many key/value fragments
    let text = format!("{{\"a\": \"unclosed{}", ", \"k\": \"v".repeat(n));
    let v = parse(&text).expect("fragments");
    assert!(v.is_object());
    assert!(v.get("a").is_some_and(Value::is_string));
    // quotes that never look like an end, then a delimiter at the very end (every string
    // would otherwise scan to the end of the text once)
    let text = format!("[{}x,", "\"x\"y".repeat(n));
    let v = parse(&text).expect("quotes");
    assert!(v.as_array().is_some_and(|a| !a.is_empty()));
    // many unclosed strings in an array
    let text = format!("[{}", "\"abc, ".repeat(n));
    assert!(parse(&text).expect("unclosed").is_array());
}

#[test]
fn comments_full_of_quotes() {
    let n = 50_000;
    // each quote's look past it would skip the same long comment
    let text = format!("[\"a\" {} */ x]", "/* \"b\" ".repeat(n));
    assert!(parse(&text).is_ok());
    let text = format!("{{\"a\": \"x\" {}", "// \"y\"\n".repeat(n));
    assert!(parse(&text).expect("line comments").is_object());
    let text = format!("[{}", "/* ".repeat(n));
    assert_eq!(parse(&text).expect("open comments"), json!([]));
}

#[test]
fn long_runs_of_one_character() {
    for c in [
        "\"", "'", "`", "\\", "{", "}", "[", "]", ",", ":", "/", "#", "+", "-", ".", "0", "a", " ",
        "\n", "“", "\u{a0}", "(", ")",
    ] {
        let text = c.repeat(MB / c.len());
        let _ = parse(&text); // no panic, no overflow; a result or an error
        let _ = ctb_json::first_object(&text);
        let _ = ctb_json::first_value(&text);
        let _ = ctb_json::object_roots(&text);
    }
}

#[test]
fn many_roots() {
    let n = 50_000;
    let text = "{\"a\": 1} prose ".repeat(n);
    let roots = ctb_json::object_roots(&text);
    assert_eq!(roots.len(), n);
    assert!(roots.iter().all(|r| r.value == json!({"a": 1}) && r.closed));
    // roots that never close: each is read only up to the next one
    let text = "{\"a\": \"x ".repeat(n);
    assert!(ctb_json::object_roots(&text).is_empty());
}

#[test]
fn commas_inside_member_strings() {
    let n = 50_000;
    // every quote is followed by a comma and text that is no key
    let text = format!("{{\"a\": \"x{}\"}}", "\", y x".repeat(n));
    let v = parse(&text).expect("commas");
    assert_eq!(v["a"].as_str().map(str::len), Some(1 + 6 * n));
    // the same with the text after each comma in a comment that itself holds such quotes
    let text = format!("{{\"a\": \"x{} */ \"}}", "\", /* \"y".repeat(n));
    let _ = parse(&text); // a value or an error, both fine
    // a long line without a quote after the comma
    let text = format!("{{\"a\": \"x\", \"{}", "y".repeat(MB));
    assert!(parse(&text).expect("long").is_object());
}

#[test]
fn triple_quotes_without_an_end() {
    let n = 50_000;
    let text = format!("[{}]", "\"\"\"a, ".repeat(n));
    assert!(parse(&text).expect("triples").is_array());
}

#[test]
fn every_prefix_of_a_request_reads() {
    let request = concat!(
        "Sure.\n```json\n{\"thoughts\": [\"list 'files'\"], \"headline\": \"ls\", ",
        "\"tool_name\": \"code_execution_tool\", \"tool_args\": {\"runtime\": \"terminal\", ",
        "\"session\": 0, \"reset\": False, \"code\": \"ls -la \\\"$HOME\\\" # all\\n\", ",
        "\"n\": -1.5e3, 'x': [1, 2,], y: “z”,},}\n```\nDone."
    );
    let full = parse(request).expect("full");
    assert_eq!(full["tool_args"]["reset"], json!(false));
    assert_eq!(full["tool_args"]["y"], json!("z"));
    for (end, _) in request.char_indices() {
        let prefix = &request[..end];
        let _ = parse(prefix);
        if let Some(first) = ctb_json::first_object(prefix) {
            assert!(first.value.is_object());
            assert!(first.end <= prefix.len());
            // the brace of the root is only there once the whole object is
            assert_eq!(
                first.closed,
                end >= request.find("}\n```").map_or(0, |p| p + 1)
            );
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let alphabet: Vec<&str> = vec![
        "{", "}", "[", "]", "(", ")", "\"", "'", "`", "“", "”", "‘", "’", "´", ",", ":", "\\", "/",
        "*", "#", "+", "-", ".", "e", "0", "1", "a", "x", "u", " ", "\n", "\t", "\u{a0}", "```",
        "\"\"\"", "...", "true", "None", "NaN", "0x", "_", "é", "😀", "\u{0}", "\u{1}",
    ];
    let mut state = 0x1234_5678_9ABC_DEF1_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let text: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        match (ctb_json::parse(&text), ctb_json::repair(&text)) {
            (Ok(v), Ok(repaired)) => {
                let back: Value = serde_json::from_str(&repaired)
                    .unwrap_or_else(|e| panic!("{e}: {text:?} -> {repaired}"));
                assert_eq!(back, v, "{text:?}");
            }
            (Err(_), Err(_)) => {}
            (a, b) => panic!("parse and repair disagree on {text:?}: {a:?} / {b:?}"),
        }
        if let Some(f) = ctb_json::first_object(&text) {
            assert!(text.is_char_boundary(f.end) && f.start < f.end);
        }
        let _ = ctb_json::first_value(&text);
    }
}

#[test]
fn several_values_stay_within_the_depth_limit() {
    // a second value nested as deep as allowed: wrapped into the array of all values it would
    // be one level too deep for serde_json to read back
    let deep = format!(
        "{}1{}",
        "[".repeat(ctb_json::MAX_DEPTH - 1),
        "]".repeat(ctb_json::MAX_DEPTH - 1)
    );
    let e = parse(&format!("{{\"a\": null}}\n{deep}")).expect_err("too deep inside the array");
    assert_eq!(e.kind(), ctb_json::ErrorKind::TooDeep);
    // the first value as deep as allowed: what follows is ignored
    let v = parse(&format!("{deep}\n{{\"a\": null}}")).expect("the first value");
    assert!(v.is_array() && v[0].is_array());
    // one level less fits
    let fits = format!(
        "{}1{}",
        "[".repeat(ctb_json::MAX_DEPTH - 2),
        "]".repeat(ctb_json::MAX_DEPTH - 2)
    );
    let v = parse(&format!("{{\"a\": null}}\n{fits}")).expect("fits");
    assert_eq!(v[0], json!({"a": null}));
}
