//! The project's fixtures, ready to run through the bridge (internal to this workspace).
//!
//! [`ctb_testkit::files`] reads the files; this crate gives them the bridge's types and runs
//! them, the one way every harness and `cargo xtask replay` does:
//!
//! - [`load_replies`]: every reply fixture with its catalog and finish reason; [`ReplyFixture::run`]
//!   decides it with a fresh session;
//! - [`replay`]: one conversation against the simulated provider
//!   ([`ctb_testkit::provider_cut`]), request by request, following discards and re-asks.
//!
//! ```no_run
//! let fixtures = ctb_fixtures::load_replies(&ctb_fixtures::fixtures_dir()).unwrap();
//! for f in &fixtures {
//!     let decision = f.run();
//!     println!("{}: {:?} {}", f.name, decision.outcome, decision.reason.code());
//! }
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use claude_tool_bridge::{Catalog, Config, Decision, Echoes, FinishReason, Outcome, Session};
use ctb_testkit::files::{Conversation, ReplyFile};
use ctb_testkit::{Rng, provider_cut, random_chunks};

/// The model name the reply fixtures are run as: a covered Claude model.
pub const MODEL: &str = "anthropic/claude-sonnet-4-5";

pub use ctb_testkit::files::conversations as load_conversations;
pub use ctb_testkit::fixtures_dir;

/// One reply fixture, ready to run.
#[derive(Debug, Clone)]
pub struct ReplyFixture {
    /// File stem, e.g. `001_bare_call`.
    pub name: String,
    /// The reply text.
    pub reply: String,
    /// What the fixture shows.
    pub note: String,
    /// The catalog the sidecar names.
    pub catalog: Catalog,
    /// The finish reason the provider reported.
    pub finish: FinishReason,
    /// Expected outcome code (`translated`, `untouched`, `prose`, `discard`).
    pub expect_outcome: String,
    /// Expected reason code.
    pub expect_reason: String,
    /// The model the reply is run as.
    pub model: String,
    /// What the agent received before the reply, when the sidecar names texts.
    pub echoes: Option<Arc<Echoes>>,
}

impl ReplyFixture {
    /// Runs the fixture through a fresh session with the default configuration.
    pub fn run(&self) -> Decision {
        let mut session = Session::new(Config::default());
        let _ = session.begin_turn_with(&self.model, &[], self.echoes.clone());
        session
            .finish(&self.reply, self.finish, &self.catalog)
            .expect("a turn was begun")
    }
}

/// Loads every reply fixture of `dir/replies`, sorted by name.
pub fn load_replies(dir: &Path) -> Result<Vec<ReplyFixture>, String> {
    ctb_testkit::files::reply_files(dir)?
        .into_iter()
        .map(|f| fixture(dir, f))
        .collect()
}

fn fixture(dir: &Path, f: ReplyFile) -> Result<ReplyFixture, String> {
    let echoes = if f.echoes.is_empty() {
        None
    } else {
        // The sidecar lists them in the order the agent received them; the index takes the
        // most recent first.
        let mut echoes = Echoes::new();
        for rel in f.echoes.iter().rev() {
            let text = std::fs::read_to_string(dir.join(rel))
                .map_err(|e| format!("{}: echoes: {rel}: {e}", f.name))?;
            echoes.add(&text);
        }
        Some(Arc::new(echoes))
    };
    Ok(ReplyFixture {
        echoes,
        catalog: catalog(dir, &f.tools).map_err(|e| format!("{}: tools: {e}", f.name))?,
        finish: FinishReason::from_name(&f.finish),
        note: f.note,
        expect_outcome: f.expect_outcome,
        expect_reason: f.expect_reason,
        model: f.model.unwrap_or_else(|| MODEL.to_owned()),
        name: f.name,
        reply: f.text,
    })
}

fn catalog(dir: &Path, tools: &[String]) -> Result<Catalog, String> {
    let mut catalog = Catalog::new();
    for rel in tools {
        if rel == "agent_zero" {
            catalog.extend(Catalog::agent_zero());
            continue;
        }
        let text = std::fs::read_to_string(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
        catalog.extend(Catalog::from_text(&text).map_err(|e| format!("{rel}: {e}"))?);
    }
    Ok(catalog)
}

/// Requests per turn before a replay gives up on a turn (a bug guard: the session allows two
/// discards in a row).
pub const MAX_REQUESTS_PER_TURN: usize = 8;

/// How a replay streams each reply to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streaming {
    /// The whole output in one delta.
    OnePiece,
    /// Seeded random deltas of 1 to `max` bytes (moved to character boundaries).
    Random {
        /// The seed.
        seed: u64,
        /// The largest delta.
        max: usize,
    },
}

/// One request of a replayed conversation.
#[derive(Debug, Clone)]
pub struct Request {
    /// Turn number, from 1.
    pub turn: usize,
    /// Request number within the turn, from 1.
    pub request: usize,
    /// The stop list sent.
    pub stops: Vec<String>,
    /// Whether the model was covered.
    pub covered: bool,
    /// The finish reason handed to `finish`.
    pub finish: FinishReason,
    /// Bytes the provider's stop cut from the attempt (the stop string included).
    pub cut_bytes: usize,
    /// Characters the model did not write because a stop string ended the reply (what followed
    /// the matched stop string).
    pub saved_chars: usize,
    /// Whether the attempt's full text, as is, is a reply Agent Zero can use.
    pub usable_without: bool,
    /// The decision.
    pub decision: Decision,
    /// Time spent in the session (`begin_turn`, every `feed`, `finish`).
    pub micros: f64,
}

/// `pieces` (a reply cut into deltas) fed to a fresh session for `model` (default settings):
/// the text the session handed back when it stopped the stream early, if it did, and, with
/// `decide`, the decision on what Agent Zero then holds (that text, or the whole reply
/// `whole`). The one streaming harness of the tests and fuzz targets.
pub fn stream_reply(
    model: &str,
    pieces: &[&str],
    whole: &str,
    finish: FinishReason,
    catalog: &Catalog,
    decide: bool,
) -> (Option<String>, Option<Decision>) {
    stream_reply_with(model, None, pieces, whole, finish, catalog, decide)
}

/// [`stream_reply`] with `echoes`, the texts the agent received.
pub fn stream_reply_with(
    model: &str,
    echoes: Option<Arc<Echoes>>,
    pieces: &[&str],
    whole: &str,
    finish: FinishReason,
    catalog: &Catalog,
    decide: bool,
) -> (Option<String>, Option<Decision>) {
    let mut session = Session::new(Config::default());
    session.begin_turn_with(model, &[], echoes);
    let mut stopped = None;
    for piece in pieces {
        if let Some(text) = session.feed(piece, catalog) {
            stopped = Some(text);
            break;
        }
    }
    let decision = decide.then(|| {
        let reply = stopped.as_deref().unwrap_or(whole);
        session.finish(reply, finish, catalog).unwrap_or_else(|_| {
            Decision::untouched(reply, claude_tool_bridge::Reason::InternalError)
        })
    });
    (stopped, decision)
}

/// The decision on `text` given whole to a fresh session for `model` (default settings).
pub fn batch_reply(model: &str, text: &str, finish: FinishReason, catalog: &Catalog) -> Decision {
    batch_reply_with(model, None, text, finish, catalog)
}

/// [`batch_reply`] with `echoes`, the texts the agent received.
pub fn batch_reply_with(
    model: &str,
    echoes: Option<Arc<Echoes>>,
    text: &str,
    finish: FinishReason,
    catalog: &Catalog,
) -> Decision {
    stream_reply_with(model, echoes, &[], text, finish, catalog, true)
        .1
        .unwrap_or_else(|| Decision::untouched(text, claude_tool_bridge::Reason::InternalError))
}

/// Agent Zero's rule: the reply is exactly one JSON tool request.
pub fn usable_by_agent_zero(reply: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(reply.trim()) {
        Ok(serde_json::Value::Object(map)) => {
            map.get("tool_name")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|s| !s.is_empty())
                && map
                    .get("tool_args")
                    .is_some_and(serde_json::Value::is_object)
        }
        _ => false,
    }
}

/// Replays `conv` with a fresh session: for every turn, requests until a decision is not a
/// discard. The provider cuts each attempt at the first stop string the request carries (the
/// output ends before it; finish `stop_sequence`), else the attempt ends with its own finish;
/// the output is streamed per `streaming`, and an early stop's text becomes the reply.
pub fn replay(
    conv: &Conversation,
    catalog: &Catalog,
    streaming: Streaming,
) -> Result<Vec<Request>, String> {
    let mut rng = match streaming {
        Streaming::Random { seed, .. } => Rng::new(seed),
        Streaming::OnePiece => Rng::new(0),
    };
    let config = match &conv.config {
        Some(v) => {
            Config::from_value(v.clone())
                .map_err(|e| format!("{}: config: {e}", conv.name))?
                .0
        }
        None => Config::default(),
    };
    let mut session = Session::new(config);
    let mut out = Vec::new();
    for (turn, attempts) in conv.turns.iter().enumerate() {
        let mut done = false;
        for request in 0..MAX_REQUESTS_PER_TURN {
            let attempt = &attempts[request.min(attempts.len() - 1)];
            let started = Instant::now();
            let plan = session.begin_turn(&conv.model, &conv.model_stops);
            let mut elapsed = started.elapsed().as_secs_f64();
            let (output, mut finish, saved_chars) = match provider_cut(&attempt.text, &plan.stops) {
                Some(cut) => (
                    &attempt.text[..cut.output_end],
                    FinishReason::StopSequence,
                    attempt.text[cut.stop_end..].chars().count(),
                ),
                None => (
                    attempt.text.as_str(),
                    FinishReason::from_name(&attempt.finish),
                    0,
                ),
            };
            let pieces = match streaming {
                Streaming::OnePiece => vec![output],
                Streaming::Random { max, .. } => random_chunks(output, &mut rng, max),
            };
            let started = Instant::now();
            let mut reply = output.to_owned();
            for delta in pieces {
                if let Some(stopped) = session.feed(delta, catalog) {
                    reply = stopped;
                    finish = FinishReason::Stop;
                    break;
                }
            }
            if !conv.finish_reported {
                finish = FinishReason::Unknown;
            }
            let decision = session
                .finish(&reply, finish, catalog)
                .map_err(|e| format!("{}: {e}", conv.name))?;
            elapsed += started.elapsed().as_secs_f64();
            let discard = decision.outcome == Outcome::Discard;
            out.push(Request {
                turn: turn + 1,
                request: request + 1,
                stops: plan.stops,
                covered: plan.covered,
                finish,
                cut_bytes: attempt.text.len() - output.len(),
                saved_chars,
                usable_without: usable_by_agent_zero(&attempt.text),
                decision,
                micros: elapsed * 1e6,
            });
            if !discard {
                done = true;
                break;
            }
        }
        if !done {
            return Err(format!(
                "{}: turn {} was still discarded after {MAX_REQUESTS_PER_TURN} requests",
                conv.name,
                turn + 1
            ));
        }
    }
    Ok(out)
}
