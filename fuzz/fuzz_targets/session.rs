//! A reply fed to a session in one piece and in two seeded random chunkings, for a model of a
//! family chosen by the input: the early stop fires at the same text in every chunking and
//! hands on a call whose decision is a translation (the batch one, unless a JSON request after
//! the call changes it); without an early stop the decision is the batch decision. The grammar
//! streamed in the same pieces ends where the whole text does. With the input's top flag bit,
//! the second half of the reply is also a text the agent received (an echo source): the same
//! properties hold, and a call copied from it never stops the stream.
#![no_main]

use std::sync::Arc;

use claude_tool_bridge::{Catalog, Echoes, FinishReason, Outcome, Reason};
use ctb_fixtures::{batch_reply_with, stream_reply_with};
use ctb_invoke::{Found, Scanner, find_first_call};
use ctb_testkit::{Rng, random_chunks};
use libfuzzer_sys::fuzz_target;

/// A model of every family: its first name pattern is a name the family claims; with `thinking`,
/// a model of the family whose chat template opens reasoning in the prompt, when it has one.
fn model(pick: u8, thinking: bool) -> String {
    let families = &ctb_invoke::registry::FAMILIES;
    let row = &families[pick as usize % families.len()];
    match row.reasoning_in_prompt {
        Some(p) if thinking => format!("{}-{}", row.patterns[0], p.models[0]),
        _ => row.patterns[0].to_owned(),
    }
}

const FINISH: [FinishReason; 4] = [
    FinishReason::Stop,
    FinishReason::StopSequence,
    FinishReason::MaxTokens,
    FinishReason::Unknown,
];

fn run(
    model: &str,
    echoes: &Option<Arc<Echoes>>,
    pieces: &[&str],
    whole: &str,
    finish: FinishReason,
    cat: &Catalog,
) -> (Option<String>, claude_tool_bridge::Decision) {
    let (stopped, decision) =
        stream_reply_with(model, echoes.clone(), pieces, whole, finish, cat, true);
    (stopped, decision.expect("decided"))
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let seed = u64::from_le_bytes(data[..8].try_into().unwrap_or_default());
    let Ok(text) = std::str::from_utf8(&data[9..]) else {
        return;
    };
    let model = &model(data[8] & 0x3f, data[7] & 1 == 1);
    let families = ctb_invoke::registry::FAMILIES.len();
    let finish = FINISH[((data[8] & 0x3f) as usize / families) % FINISH.len()];
    let echoes = (data[8] & 0x80 != 0).then(|| {
        let mut half = text.len() / 2;
        while !text.is_char_boundary(half) {
            half += 1;
        }
        Arc::new(Echoes::from_texts([&text[half..]]))
    });
    let cat = Catalog::agent_zero();
    let want = batch_reply_with(model, echoes.clone(), text, finish, &cat);
    assert_ne!(want.reason, Reason::InternalError);
    let whole = find_first_call(text);
    let mut rng = Rng::new(seed);
    let mut first_stop: Option<Option<String>> = None;
    for max in [text.len().max(1), 1 + rng.below(8), 1 + rng.below(300)] {
        let pieces = random_chunks(text, &mut rng, max);
        let mut sc = Scanner::new();
        let mut end = 0;
        for p in &pieces {
            end += p.len();
            if let Found::Call(c) = sc.advance(&text[..end]) {
                assert_eq!(Found::Call(c.clone()), whole);
                assert_eq!(find_first_call(&text[..c.end.max(sc.reach())]), whole);
                break;
            }
        }
        assert_eq!(Scanner::new().finish(text), whole);
        let (stopped, got) = run(model, &echoes, &pieces, text, finish, &cat);
        match &first_stop {
            None => first_stop = Some(stopped.clone()),
            Some(s) => assert_eq!(s, &stopped, "the stop point moved"),
        }
        match stopped {
            None => assert_eq!(got, want),
            Some(cut) => {
                assert!(text.starts_with(&cut));
                assert_eq!(got.outcome, Outcome::Translated);
                if want.outcome == Outcome::Translated {
                    assert_eq!(got.request, want.request);
                } else {
                    assert_eq!(want.reason, Reason::JsonRequestPresent);
                }
            }
        }
    }
});
