//! Conversation replay: runs `fixtures/conversations/*.json` through a session against the
//! simulated provider (`ctb_fixtures::replay`) and prints what the bridge changed.
//!
//! The provider: each attempt's `text` is the full reply the model would write. The request's
//! stop list cuts it the way Anthropic does (the output ends before the first stop string that
//! is completed while writing; finish `stop_sequence`), otherwise it ends with the attempt's own
//! finish (`stop` or `max_tokens`). The session is fed in seeded random deltas (split at
//! character boundaries); when it answers "stop now" that text is the reply. A discard asks
//! again with the next attempt (the last one repeats).
//!
//! Columns: `turns`; `bad-` replies Agent Zero could not use without the bridge (its rule: the
//! reply is not exactly one JSON request), counting each turn's first reply; `bad+` replies
//! that reached Agent Zero unusable with the bridge; `disc` discards; `re-ask` of those, the
//! ones asked again without stops; `saved` characters the stop strings kept the model from
//! writing (what follows the matched stop string); `us/reply` mean and max time in the session per reply (`begin_turn`, every `feed`,
//! `finish`), single-threaded, so close to CPU time.

use std::path::Path;

use std::collections::BTreeMap;

use claude_tool_bridge::{Catalog, Config, ModelFamily, Outcome};
use ctb_fixtures::{Request, Streaming, load_conversations, replay, usable_by_agent_zero};

#[derive(Default, Clone, Copy)]
struct Tally {
    turns: usize,
    replies: usize,
    unusable_without: usize,
    unusable_with: usize,
    discards: usize,
    reask_without_stops: usize,
    chars_avoided: usize,
    micros_total: f64,
    micros_max: f64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.turns += o.turns;
        self.replies += o.replies;
        self.unusable_without += o.unusable_without;
        self.unusable_with += o.unusable_with;
        self.discards += o.discards;
        self.reask_without_stops += o.reask_without_stops;
        self.chars_avoided += o.chars_avoided;
        self.micros_total += o.micros_total;
        self.micros_max = self.micros_max.max(o.micros_max);
    }

    fn of(requests: &[Request]) -> Self {
        let mut t = Tally::default();
        for r in requests {
            t.replies += 1;
            t.chars_avoided += r.saved_chars;
            t.micros_total += r.micros;
            t.micros_max = t.micros_max.max(r.micros);
            if r.request == 1 {
                t.turns += 1;
                if !r.usable_without {
                    t.unusable_without += 1;
                }
            }
            if r.decision.outcome == Outcome::Discard {
                t.discards += 1;
                if r.decision.retry_without_stops {
                    t.reask_without_stops += 1;
                }
            } else if !usable_by_agent_zero(&r.decision.reply) {
                t.unusable_with += 1;
            }
        }
        t
    }
}

/// Replays every conversation in `dir/conversations` and prints the table.
pub(crate) fn run(dir: &Path) -> Result<(), String> {
    let conversations = load_conversations(dir)?;
    if conversations.is_empty() {
        return Err(format!("no conversations in {}", dir.display()));
    }
    let catalog = Catalog::agent_zero();
    println!(
        "{:<40} {:>5} {:>5} {:>5} {:>5} {:>6} {:>7} {:>9} {:>9}",
        "conversation", "turns", "bad-", "bad+", "disc", "re-ask", "saved", "us/reply", "us max"
    );
    let mut total = Tally::default();
    // Per model family (the family the default settings give the conversation's model), in
    // `ModelFamily::ALL` order.
    let mut by_family: BTreeMap<usize, (ModelFamily, Tally)> = BTreeMap::new();
    let families = Config::default();
    for (index, conv) in conversations.iter().enumerate() {
        let streaming = Streaming::Random {
            seed: 0x5EED_0000 + index as u64,
            max: 24,
        };
        let tally = Tally::of(&replay(conv, &catalog, streaming)?);
        print_row(&conv.name, &tally);
        total.add(&tally);
        let family = families
            .family_of(&conv.model)
            .unwrap_or(claude_tool_bridge::ModelFamily::Claude);
        let order = ModelFamily::ALL
            .iter()
            .position(|f| *f == family)
            .unwrap_or(usize::MAX);
        by_family
            .entry(order)
            .or_insert((family, Tally::default()))
            .1
            .add(&tally);
    }
    print_row("TOTAL", &total);
    println!();
    println!(
        "{:<40} {:>5} {:>5} {:>5} {:>5} {:>6} {:>7} {:>9} {:>9}",
        "model family", "turns", "bad-", "bad+", "disc", "re-ask", "saved", "us/reply", "us max"
    );
    for (family, tally) in by_family.values() {
        print_row(family.code(), tally);
    }
    Ok(())
}

fn print_row(name: &str, t: &Tally) {
    let mean = if t.replies == 0 {
        0.0
    } else {
        t.micros_total / t.replies as f64
    };
    println!(
        "{:<40} {:>5} {:>5} {:>5} {:>5} {:>6} {:>7} {:>9.1} {:>9.1}",
        name,
        t.turns,
        t.unusable_without,
        t.unusable_with,
        t.discards,
        t.reask_without_stops,
        t.chars_avoided,
        mean,
        t.micros_max
    );
}
