//! What an agent received, indexed (issue 22): any texts build an index without panicking, a
//! call checked against it never panics, and a call the grammar reads in a received text is
//! an echo of that text (its markup, or the same tool with the same values, is there).
#![no_main]

use ctb_echo::Echoes;
use ctb_invoke::{Found, find_first_call};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Texts separated by NUL bytes, the most recent first; the last one is also the reply.
    let texts: Vec<&str> = text.split('\0').collect();
    let echoes = Echoes::from_texts(&texts);
    let reply = texts.last().copied().unwrap_or("");
    if let Found::Call(call) = find_first_call(reply) {
        let _ = echoes.echoes(&reply[call.head..call.end], &call);
    }
    // A call read in a received text is an echo of it.
    for t in &texts {
        if let Found::Call(call) = find_first_call(t) {
            let alone = Echoes::from_texts([*t]);
            assert!(
                alone.echoes(&t[call.head..call.end], &call),
                "{t:?} does not echo its own call"
            );
        }
    }
});
