//! Every conversation (`fixtures/conversations/*.json`) replayed request by request against
//! the simulated provider, the output fed in one piece: one snapshot per conversation with the
//! stop list sent, the finish reason, the bytes the stop cut and the decision.

use claude_tool_bridge::{Catalog, Outcome};
use ctb_fixtures::{Streaming, fixtures_dir, load_conversations, replay};

const NS: &str = concat!("ant", "ml", ":");

/// Which bridge stops a plan carries, as short names.
fn stop_names(stops: &[String]) -> String {
    let names: Vec<&str> = stops
        .iter()
        .map(|s| match s.as_str() {
            x if ctb_guard::stop_kind_of(x) == Some(ctb_guard::StopKind::EndOfCall) => "end",
            x if x.contains("</invoke>") => "empty",
            x if x.contains("placeholder") => "placeholder",
            x if x.contains(NS) => "chain",
            _ => "model",
        })
        .collect();
    format!("[{}]", names.join(","))
}

#[test]
fn conversation_decisions() {
    let cat = Catalog::agent_zero();
    let conversations = load_conversations(&fixtures_dir()).unwrap();
    assert!(conversations.len() >= 20);
    for conv in conversations {
        let mut log = String::new();
        for r in replay(&conv, &cat, Streaming::OnePiece).unwrap() {
            let d = &r.decision;
            log.push_str(&format!(
                "turn {} request {}: stops {} covered {} finish {:?} cut {} -> {:?}/{}{}\n",
                r.turn,
                r.request,
                stop_names(&r.stops),
                r.covered,
                r.finish,
                r.cut_bytes,
                d.outcome,
                d.reason.code(),
                if d.retry_without_stops {
                    " (ask again without stops)"
                } else {
                    ""
                },
            ));
            if d.outcome != Outcome::Discard {
                if let Some(req) = &d.request {
                    log.push_str(&format!("  -> {}\n", req["tool_name"]));
                }
            }
        }
        insta::assert_snapshot!(conv.file.clone(), log);
    }
}
