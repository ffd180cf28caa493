//! The guard against every reply fixture (`fixtures/replies/*.txt`).

use ctb_guard::{END_OF_CALL, LOOP_EMPTY_CALL, LOOP_PLACEHOLDER, LOOP_PREFIX_CHAIN};
use ctb_invoke::{Found, find_first_call};
use ctb_testkit::files::reply_files;
use ctb_testkit::fixtures_dir;

/// Every reply fixture: (name, text).
fn replies() -> Vec<(String, String)> {
    reply_files(&fixtures_dir())
        .unwrap()
        .into_iter()
        .map(|f| (f.name, f.text))
        .collect()
}

#[test]
fn loop_stops_never_match_an_ordinary_first_call_or_the_prose_before_it() {
    let loop_stops = [LOOP_EMPTY_CALL, LOOP_PLACEHOLDER, LOOP_PREFIX_CHAIN];
    let mut checked = 0;
    let mut problems = Vec::new();
    let mut early_in_prose = Vec::new();
    for (name, text) in replies() {
        let Found::Call(call) = find_first_call(&text) else {
            // No call: only a looping reply may hold a loop stop.
            if !name.contains("loop") {
                for stop in loop_stops {
                    if text.contains(stop) {
                        problems.push(format!("{name}: {stop:?} in a reply without a call"));
                    }
                }
            }
            continue;
        };
        checked += 1;
        for stop in loop_stops {
            // Where the stop would cut: before its first occurrence.
            if let Some(at) = text.find(stop) {
                // An ordinary call (with parameters) must be untouched by every loop stop; an
                // empty call may only be cut when a second call follows it.
                let ordinary = !call.params().is_empty();
                if at < call.end && (ordinary || at + stop.len() <= call.end) {
                    problems.push(format!("{name}: {stop:?} at {at} (call ends {})", call.end));
                }
            }
        }
        // The end-of-call stop fires at the call's own closing tag, unless a parameter value
        // holds the string (a cut inside a parameter) or quoted text before the call does.
        if let Some(at) = text.find(END_OF_CALL) {
            let in_value = call.params().iter().any(|p| p.value.contains(END_OF_CALL));
            if at < call.start {
                early_in_prose.push(name.clone());
            } else if at + END_OF_CALL.len() != call.end && !in_value {
                problems.push(format!(
                    "{name}: end-of-call stop at {at}, call ends {}",
                    call.end
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    eprintln!(
        "checked {checked} reply fixtures with a call; end-of-call stop in the text before the call: {early_in_prose:?}"
    );
}
