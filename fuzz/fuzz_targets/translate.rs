//! Any text through the stateless translation and the grammar: nothing panics or reports an
//! internal error; an untouched reply is the input byte for byte; a translation is exactly one
//! JSON request; `first_call` finds a call exactly when the grammar's first call makes one; the
//! grammar's offsets are in bounds, on character boundaries, and its work is linear.
#![no_main]

use claude_tool_bridge::{Catalog, Outcome, Reason, first_call, translate};
use ctb_invoke::{Found, Scanner};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let catalog = Catalog::agent_zero();
    let d = translate(text, &catalog);
    assert_ne!(d.reason, Reason::InternalError, "{text:?}");
    match d.outcome {
        Outcome::Untouched => assert_eq!(d.reply, text),
        Outcome::Translated => {
            let v: Value = serde_json::from_str(&d.reply).expect("a translation is JSON");
            assert_eq!(Some(&v), d.request.as_ref());
            assert!(v["tool_name"].as_str().is_some_and(|n| !n.is_empty()));
            assert!(v["tool_args"].is_object());
        }
        other => panic!("translate never decides {other:?}"),
    }
    let call = first_call(text, &catalog);
    if d.outcome == Outcome::Translated {
        assert!(call.is_ok(), "translated but first_call says {call:?}");
        // The decision carries that call, and its request is rendered from it.
        assert_eq!(call.as_ref().ok(), d.call.as_ref());
        let c = d.call.as_ref().expect("a translation carries its call");
        assert_eq!(Some(c.agent_zero_request()), d.request);
    }
    let mut scanner = Scanner::new();
    if let Found::Call(c) = scanner.finish(text) {
        assert!(c.prose_end <= c.start && c.start < c.end && c.end <= text.len());
        for at in [c.prose_end, c.start, c.end] {
            assert!(text.is_char_boundary(at));
        }
    }
    assert!(scanner.work() <= 32 * text.len() + (1 << 16), "work {}", scanner.work());
});
