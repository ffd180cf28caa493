//! The chunking property on every fixture: each reply fixture (with its own catalog) and every
//! conversation attempt (whole, and as the provider cuts it with the default stop list) is
//! streamed through a session in 1,000 seeded random chunkings. The stream stops early at the
//! same text in every chunking as in one piece, and decides as in one piece.

use std::sync::Arc;

use claude_tool_bridge::{Catalog, Config, Decision, Echoes, FinishReason, Session};
use ctb_fixtures::{MODEL, fixtures_dir, load_conversations, load_replies};
use ctb_testkit::{Rng, provider_cut, random_chunks};

/// One reply to stream: its name, text, finish reason, catalog, the model it is run as and
/// what the agent received.
struct Case {
    name: String,
    text: String,
    finish: FinishReason,
    catalog: Catalog,
    model: String,
    echoes: Option<Arc<Echoes>>,
}

/// Every reply fixture (run as its model, with its echoes) and conversation attempt.
fn corpus() -> Vec<Case> {
    let mut out = Vec::new();
    for f in load_replies(&fixtures_dir()).unwrap() {
        out.push(Case {
            name: f.name,
            text: f.reply,
            finish: f.finish,
            catalog: f.catalog,
            model: f.model,
            echoes: f.echoes,
        });
    }
    let stops = Session::new(Config::default()).begin_turn(MODEL, &[]).stops;
    let a0 = Catalog::agent_zero();
    for conv in load_conversations(&fixtures_dir()).unwrap() {
        for (t, turn) in conv.turns.iter().enumerate() {
            for (a, attempt) in turn.iter().enumerate() {
                let finish = FinishReason::from_name(&attempt.finish);
                let name = format!("{}/{t}/{a}", conv.file);
                if let Some(cut) = provider_cut(&attempt.text, &stops) {
                    out.push(Case {
                        name: format!("{name}/cut"),
                        text: attempt.text[..cut.output_end].to_owned(),
                        finish: FinishReason::StopSequence,
                        catalog: a0.clone(),
                        model: MODEL.to_owned(),
                        echoes: None,
                    });
                }
                out.push(Case {
                    name: format!("{name}/whole"),
                    text: attempt.text.clone(),
                    finish,
                    catalog: a0.clone(),
                    model: MODEL.to_owned(),
                    echoes: None,
                });
            }
        }
    }
    out
}

/// Random pieces; every tenth run one character at a time.
fn chunk<'a>(text: &'a str, rng: &mut Rng, run: usize) -> Vec<&'a str> {
    let max = match run % 10 {
        0 => 1,
        1..=6 => 1 + rng.below(16),
        _ => 1 + rng.below(512),
    };
    random_chunks(text, rng, max)
}

fn stream(case: &Case, pieces: &[&str], decide: bool) -> (Option<String>, Option<Decision>) {
    ctb_fixtures::stream_reply_with(
        &case.model,
        case.echoes.clone(),
        pieces,
        &case.text,
        case.finish,
        &case.catalog,
        decide,
    )
}

#[test]
fn streaming_in_any_chunking_decides_like_one_piece() {
    let corpus = corpus();
    assert!(corpus.len() >= 200, "fixtures missing: {}", corpus.len());
    let mut rng = Rng::new(0x00C0_FFEE);
    let mut early = 0;
    for case in &corpus {
        let (name, text) = (&case.name, &case.text);
        let (want_stop, want) = stream(case, &[text.as_str()], true);
        if want_stop.is_some() {
            early += 1;
        }
        for run in 0..1000 {
            let pieces = chunk(text, &mut rng, run);
            // The decision is a function of the stream's answer; decide in full on a sample.
            let decide = run < 20;
            let (got_stop, got) = stream(case, &pieces, decide);
            assert_eq!(got_stop, want_stop, "{name}: run {run} stopped differently");
            if decide {
                assert_eq!(got, want, "{name}: run {run} decided differently");
            }
        }
    }
    assert!(early > 10, "the early stop never fired ({early})");
}
