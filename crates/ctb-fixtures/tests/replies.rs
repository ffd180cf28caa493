//! The reply fixtures (`fixtures/replies/*.txt` with a `.json` sidecar each) run through a
//! fresh session: every fixture's expected outcome and reason (from its sidecar) is asserted,
//! the decision is snapshotted, and invariants are checked on each:
//! - an untouched reply is returned byte for byte;
//! - a translated or prose reply is exactly one JSON object with a non-empty `tool_name` and
//!   an object `tool_args`, i.e. what Agent Zero accepts, and `reply` is `request` rendered;
//! - a translation carries its host-neutral call, and `request` is rendered from it; no other
//!   decision carries a call.

use claude_tool_bridge::Outcome;
use serde_json::Value;

#[test]
fn reply_fixtures() {
    let fixtures = ctb_fixtures::load_replies(&ctb_fixtures::fixtures_dir()).unwrap();
    assert!(
        fixtures.len() >= 60,
        "only {} reply fixtures",
        fixtures.len()
    );
    let mut failures = Vec::new();
    for f in &fixtures {
        let d = f.run();

        // Invariants.
        match d.outcome {
            Outcome::Untouched => {
                assert_eq!(d.reply, f.reply, "{}: untouched must be byte-exact", f.name)
            }
            Outcome::Translated | Outcome::Prose => {
                let parsed: Value = serde_json::from_str(&d.reply)
                    .unwrap_or_else(|e| panic!("{}: reply is not JSON: {e}", f.name));
                assert_eq!(
                    Some(&parsed),
                    d.request.as_ref(),
                    "{}: reply != request",
                    f.name
                );
                let tool = parsed["tool_name"].as_str().unwrap_or("");
                assert!(!tool.is_empty(), "{}: empty tool_name", f.name);
                assert!(parsed["tool_args"].is_object(), "{}: tool_args", f.name);
                assert!(parsed["thoughts"].is_array(), "{}: thoughts", f.name);
                assert!(parsed["headline"].is_string(), "{}: headline", f.name);
            }
            Outcome::Discard => {}
        }
        match (&d.call, d.outcome) {
            (Some(call), Outcome::Translated) => {
                assert_eq!(
                    Some(call.agent_zero_request()),
                    d.request,
                    "{}: request != the call rendered",
                    f.name
                );
                assert!(call.span.end <= f.reply.len(), "{}: span", f.name);
                assert!(f.reply.starts_with(&call.prose), "{}: prose", f.name);
            }
            (None, outcome) => assert_ne!(outcome, Outcome::Translated, "{}: no call", f.name),
            (Some(_), outcome) => panic!("{}: a call on a {outcome:?} decision", f.name),
        }

        // The sidecar's expectation.
        let want = (f.expect_outcome.as_str(), f.expect_reason.as_str());
        let got = (d.outcome.code(), d.reason.code());
        if got != want {
            failures.push(format!("{}: expected {want:?}, got {got:?}", f.name));
        }

        let shown = format!(
            "outcome: {}\nreason: {}\n---\n{}",
            got.0,
            got.1,
            if d.outcome == Outcome::Untouched {
                "(reply untouched)"
            } else {
                &d.reply
            }
        );
        insta::with_settings!({ snapshot_path => "snapshots/replies", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(f.name.clone(), shown);
        });
    }
    assert!(
        failures.is_empty(),
        "{} fixtures disagree with their sidecar:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
