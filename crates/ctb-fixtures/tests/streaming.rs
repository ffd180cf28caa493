//! The chunking property on every fixture: each reply fixture (with its own catalog) and every
//! conversation attempt (whole, and as the provider cuts it with the default stop list) is
//! streamed through a session in 1,000 seeded random chunkings. The stream stops early at the
//! same text in every chunking as in one piece, and decides as in one piece.

use claude_tool_bridge::{Catalog, Config, Decision, FinishReason, Session};
use ctb_fixtures::{MODEL, fixtures_dir, load_conversations, load_replies};
use ctb_testkit::{Rng, provider_cut, random_chunks};

/// (name, text, finish, catalog) for every reply fixture and conversation attempt.
fn corpus() -> Vec<(String, String, FinishReason, Catalog)> {
    let mut out = Vec::new();
    for f in load_replies(&fixtures_dir()).unwrap() {
        out.push((f.name, f.reply, f.finish, f.catalog));
    }
    let stops = Session::new(Config::default()).begin_turn(MODEL, &[]).stops;
    let a0 = Catalog::agent_zero();
    for conv in load_conversations(&fixtures_dir()).unwrap() {
        for (t, turn) in conv.turns.iter().enumerate() {
            for (a, attempt) in turn.iter().enumerate() {
                let finish = FinishReason::from_name(&attempt.finish);
                let name = format!("{}/{t}/{a}", conv.file);
                if let Some(cut) = provider_cut(&attempt.text, &stops) {
                    let output = attempt.text[..cut.output_end].to_owned();
                    out.push((
                        format!("{name}/cut"),
                        output,
                        FinishReason::StopSequence,
                        a0.clone(),
                    ));
                }
                out.push((
                    format!("{name}/whole"),
                    attempt.text.clone(),
                    finish,
                    a0.clone(),
                ));
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

fn stream(
    pieces: &[&str],
    whole: &str,
    finish: FinishReason,
    cat: &Catalog,
    decide: bool,
) -> (Option<String>, Option<Decision>) {
    ctb_fixtures::stream_reply(MODEL, pieces, whole, finish, cat, decide)
}

#[test]
fn streaming_in_any_chunking_decides_like_one_piece() {
    let corpus = corpus();
    assert!(corpus.len() >= 200, "fixtures missing: {}", corpus.len());
    let mut rng = Rng::new(0x00C0_FFEE);
    let mut early = 0;
    for (name, text, finish, cat) in &corpus {
        let (want_stop, want) = stream(&[text.as_str()], text, *finish, cat, true);
        if want_stop.is_some() {
            early += 1;
        }
        for run in 0..1000 {
            let pieces = chunk(text, &mut rng, run);
            // The decision is a function of the stream's answer; decide in full on a sample.
            let decide = run < 20;
            let (got_stop, got) = stream(&pieces, text, *finish, cat, decide);
            assert_eq!(got_stop, want_stop, "{name}: run {run} stopped differently");
            if decide {
                assert_eq!(got, want, "{name}: run {run} decided differently");
            }
        }
    }
    assert!(early > 10, "the early stop never fired ({early})");
}
