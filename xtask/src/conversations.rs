//! Conversation replay: runs `fixtures/conversations/*.json` through a [`Session`] against a
//! simulated provider and prints what the bridge changed.
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
use std::time::Instant;

use claude_tool_bridge::{Catalog, Config, FinishReason, Outcome, Session};
use ctb_testkit::{Rng, files_with_extension, provider_cut, random_chunks};
use serde_json::Value;

/// Requests per turn before the replay gives up on a turn (a bug guard: the session allows
/// two discards in a row).
const MAX_REQUESTS_PER_TURN: usize = 8;

struct Attempt {
    text: String,
    finish: String,
}

struct Conversation {
    name: String,
    model: String,
    model_stops: Vec<String>,
    finish_reported: bool,
    turns: Vec<Vec<Attempt>>,
}

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
}

/// Replays every conversation in `dir` and prints the table.
pub(crate) fn run(dir: &Path) -> Result<(), String> {
    let files = files_with_extension(dir, "json")?;
    if files.is_empty() {
        return Err(format!("no conversations in {}", dir.display()));
    }
    let catalog = Catalog::agent_zero();
    println!(
        "{:<40} {:>5} {:>5} {:>5} {:>5} {:>6} {:>7} {:>9} {:>9}",
        "conversation", "turns", "bad-", "bad+", "disc", "re-ask", "saved", "us/reply", "us max"
    );
    let mut total = Tally::default();
    for (index, path) in files.iter().enumerate() {
        let conv = load(path)?;
        let tally = replay(&conv, &catalog, 0x5EED_0000 + index as u64)?;
        print_row(&conv.name, &tally);
        total.add(&tally);
    }
    print_row("TOTAL", &total);
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

fn load(path: &Path) -> Result<Conversation, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |what: &str| format!("{}: {what}", path.display());
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut turns = Vec::new();
    for turn in v
        .get("turns")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no turns"))?
    {
        let mut attempts = Vec::new();
        for a in turn
            .get("attempts")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no attempts"))?
        {
            attempts.push(Attempt {
                text: str_of(a, "text").ok_or_else(|| bad("attempt without text"))?,
                finish: str_of(a, "finish").unwrap_or_else(|| "stop".to_owned()),
            });
        }
        if attempts.is_empty() {
            return Err(bad("a turn without attempts"));
        }
        turns.push(attempts);
    }
    Ok(Conversation {
        name: str_of(&v, "name").unwrap_or_else(|| path.display().to_string()),
        model: str_of(&v, "model").unwrap_or_else(|| "anthropic/claude-sonnet-5-5".to_owned()),
        model_stops: v
            .get("model_stops")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        finish_reported: v
            .get("finish_reported")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        turns,
    })
}

/// Agent Zero's rule: the reply is exactly one JSON tool request.
pub(crate) fn usable_by_agent_zero(reply: &str) -> bool {
    match serde_json::from_str::<Value>(reply.trim()) {
        Ok(Value::Object(map)) => {
            map.get("tool_name")
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
                && map.get("tool_args").is_some_and(Value::is_object)
        }
        _ => false,
    }
}

fn replay(conv: &Conversation, catalog: &Catalog, seed: u64) -> Result<Tally, String> {
    let mut rng = Rng::new(seed);
    let mut session = Session::new(Config::default());
    let mut t = Tally::default();
    for (turn_no, attempts) in conv.turns.iter().enumerate() {
        t.turns += 1;
        if !usable_by_agent_zero(&attempts[0].text) {
            t.unusable_without += 1;
        }
        let mut delivered = None;
        for request in 0..MAX_REQUESTS_PER_TURN {
            let attempt = &attempts[request.min(attempts.len() - 1)];
            let started = Instant::now();
            let plan = session.begin_turn(&conv.model, &conv.model_stops);
            let mut elapsed = started.elapsed().as_secs_f64();
            // The provider.
            let (output, mut finish) = match provider_cut(&attempt.text, &plan.stops) {
                Some(cut) => {
                    t.chars_avoided += attempt.text[cut.stop_end..].chars().count();
                    (&attempt.text[..cut.output_end], FinishReason::StopSequence)
                }
                None => (
                    attempt.text.as_str(),
                    FinishReason::from_name(&attempt.finish),
                ),
            };
            // The stream, in seeded random deltas.
            let started = Instant::now();
            let mut reply = None;
            for delta in random_chunks(output, &mut rng, 24) {
                if let Some(stopped) = session.feed(delta, catalog) {
                    reply = Some(stopped);
                    finish = FinishReason::Stop;
                    break;
                }
            }
            let reply = reply.unwrap_or_else(|| output.to_owned());
            if !conv.finish_reported {
                finish = FinishReason::Unknown;
            }
            let decision = session
                .finish(&reply, finish, catalog)
                .map_err(|e| format!("{}: {e}", conv.name))?;
            elapsed += started.elapsed().as_secs_f64();
            let micros = elapsed * 1e6;
            t.replies += 1;
            t.micros_total += micros;
            t.micros_max = t.micros_max.max(micros);
            if decision.outcome == Outcome::Discard {
                t.discards += 1;
                if decision.retry_without_stops {
                    t.reask_without_stops += 1;
                }
                continue;
            }
            delivered = Some(decision.reply);
            break;
        }
        let Some(delivered) = delivered else {
            return Err(format!(
                "{}: turn {} was still discarded after {MAX_REQUESTS_PER_TURN} requests",
                conv.name,
                turn_no + 1
            ));
        };
        if !usable_by_agent_zero(&delivered) {
            t.unusable_with += 1;
        }
    }
    Ok(t)
}
