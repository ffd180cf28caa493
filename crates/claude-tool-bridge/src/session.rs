//! Per-agent state carried from turn to turn: stop strings, early stop, loop guard, prose.
//!
//! One [`Session`] per agent. For every request to the model:
//!
//! 1. [`Session::begin_turn`] gives the stop list to send (the model's own stops first, then
//!    the bridge's in the slots left) and whether the model is covered at all;
//! 2. [`Session::feed`] takes each streamed delta and answers `Some(reply)` as soon as the first
//!    call is complete (only with `early_stop`): the caller stops reading and uses that text;
//! 3. [`Session::finish`] decides what Agent Zero sees. On [`Outcome::Discard`] the caller
//!    drops the reply (no warning, nothing in history), calls `begin_turn` again and asks the
//!    model again with the stop list of that new plan.
//!
//! Rules of [`Session::finish`], in order:
//! - a reply that ends in the half closing tag the end-of-call stop leaves (and did not run out
//!   of `max_tokens`) is closed again and translated ([`Reason::CompletedAfterStop`]); if it
//!   holds no usable call it is discarded, asked again without the end-of-call stop, which
//!   stays paused for the next three turns ([`Reason::StoppedWithoutCall`]); if its call was
//!   cut inside a parameter, all bridge stops are paused ([`Reason::CutInsideParameter`]);
//! - a loop ([`ctb_guard::looks_like_loop`]) is discarded and asked again ([`Reason::Loop`]);
//! - a reply stopped by a stop string inside a parameter value is discarded and asked again
//!   with every bridge stop off for three turns;
//! - otherwise [`crate::translate`] decides; a reply it leaves alone for lack of a call may go
//!   out as the `response` tool ([`ctb_prose`]);
//! - at most two discards in a row: after that, until a usable reply arrives, what would have
//!   been discarded goes to Agent Zero as it is ([`Reason::DiscardLimit`]).

use ctb_guard::{CallEndWatch, Finish, StopKind, StopOptions};
use ctb_invoke::{Found, NoCall, Scanner};
use serde_json::{Value, json};

use crate::{Catalog, Config, Decision, FinishReason, Outcome, Reason};

/// Discards allowed in a row before replies go through as they are.
pub(crate) const MAX_DISCARDS_IN_ROW: u32 = 2;

/// Turns the stops stay paused after a stopped reply turned out unusable.
pub(crate) const PAUSE_TURNS: u32 = 3;

/// Largest streamed reply the early stop looks at; beyond it the stream is left alone.
pub(crate) const MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;

/// Most parse attempts per streamed reply (each one is triggered by an arriving `invoke>`).
pub(crate) const MAX_STREAM_CHECKS: u32 = 1024;

/// The `thoughts` of a prose answer sent through `response`.
pub(crate) const PROSE_THOUGHT: &str = "The answer is complete; sending it to the user.";

/// The `headline` of a prose answer sent through `response`.
pub(crate) const PROSE_HEADLINE: &str = "Responding";

/// What the bridge asks for at the start of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnPlan {
    /// Whether the chat model is covered by the configuration at all.
    pub covered: bool,
    /// The full stop list to send to the provider (the model's own stops first).
    pub stops: Vec<String>,
}

/// State of the request in progress.
#[derive(Debug, Clone, Default)]
struct Turn {
    covered: bool,
    /// The bridge stops actually sent with this request.
    sent: StopOptions,
    buffer: String,
    watch: CallEndWatch,
    scanner: Scanner,
    checks: u32,
    /// The early stop answered already, or gave up on this reply.
    done: bool,
}

/// One agent's bridge state.
///
/// ```
/// use claude_tool_bridge::{Catalog, Config, FinishReason, Outcome, Session};
///
/// let mut session = Session::new(Config::default());
/// let plan = session.begin_turn("anthropic/claude-sonnet-5-5", &[]);
/// assert_eq!(plan.stops[0], "invoke>");
///
/// // The provider stopped at the end-of-call stop: the reply ends in a half closing tag.
/// let reply = "Disk usage.\n<invoke name=\"code_execution_tool\">\n\
///              <parameter name=\"runtime\">terminal</parameter>\n\
///              <parameter name=\"code\">df -h</parameter>\n</";
/// let d = session.finish(reply, FinishReason::StopSequence, &Catalog::agent_zero());
/// assert_eq!(d.outcome, Outcome::Translated);
/// assert_eq!(d.request.unwrap()["tool_args"]["code"], "df -h");
/// ```
#[derive(Debug, Clone)]
pub struct Session {
    config: Config,
    turn: Turn,
    /// Turns (counted when one ends) the end-of-call stop stays paused.
    pause_end_of_call: u32,
    /// Turns every bridge stop stays paused.
    pause_all: u32,
    discards_in_row: u32,
}

impl Session {
    /// A new session with `config`.
    pub fn new(config: Config) -> Self {
        Self {
            config,
            turn: Turn::default(),
            pause_end_of_call: 0,
            pause_all: 0,
            discards_in_row: 0,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Discards in a row so far (reset by a usable reply).
    pub fn discards_in_row(&self) -> u32 {
        self.discards_in_row
    }

    /// Whether the end-of-call stop / all bridge stops are paused for the coming requests.
    pub fn stops_paused(&self) -> (bool, bool) {
        (
            self.pause_end_of_call > 0 || self.pause_all > 0,
            self.pause_all > 0,
        )
    }

    /// Starts a request for `model` whose own stop list is `model_stops`. Also call it
    /// before asking again after a discard.
    pub fn begin_turn(&mut self, model: &str, model_stops: &[String]) -> TurnPlan {
        let covered = self.config.covers(model);
        let wanted = if covered {
            StopOptions {
                end_of_call: self.config.stop_sequence
                    && self.pause_end_of_call == 0
                    && self.pause_all == 0,
                loops: self.config.loop_guard && self.pause_all == 0,
            }
        } else {
            StopOptions::default()
        };
        let stops = ctb_guard::stop_strings(model_stops, wanted);
        // What really went out: the model's own stops may have taken the slots.
        let has = |s: &str| stops.iter().any(|x| x == s);
        let sent = StopOptions {
            end_of_call: wanted.end_of_call && has(ctb_guard::END_OF_CALL),
            loops: wanted.loops
                && (has(ctb_guard::LOOP_EMPTY_CALL)
                    || has(ctb_guard::LOOP_PLACEHOLDER)
                    || has(ctb_guard::LOOP_PREFIX_CHAIN)),
        };
        self.turn = Turn {
            covered,
            sent,
            ..Turn::default()
        };
        TurnPlan { covered, stops }
    }

    /// Feeds a streamed delta; returns the reply up to the end of the first call when the
    /// stream should stop now (once per request, only with `early_stop`). It parses only when
    /// a closing `invoke>` arrives, never re-reads what it has seen, and gives up on a reply
    /// past 16 MiB or 1,024 parse attempts.
    pub fn feed(&mut self, delta: &str) -> Option<String> {
        let turn = &mut self.turn;
        if turn.done || !turn.covered || !self.config.early_stop || delta.is_empty() {
            return None;
        }
        if turn.buffer.len().saturating_add(delta.len()) > MAX_STREAM_BYTES {
            turn.done = true;
            turn.buffer = String::new();
            return None;
        }
        turn.buffer.push_str(delta);
        if turn.watch.push(delta.as_bytes()) == 0 {
            return None;
        }
        turn.checks += 1;
        if turn.checks > MAX_STREAM_CHECKS {
            turn.done = true;
            return None;
        }
        match turn.scanner.advance(&turn.buffer) {
            Found::Call(call) => {
                turn.done = true;
                let end = call.end.min(turn.buffer.len());
                turn.buffer.get(..end).map(str::to_owned)
            }
            Found::Nothing(NoCall::WorkLimit) => {
                turn.done = true;
                None
            }
            _ => None,
        }
    }

    /// Decides what to do with the finished reply (the text [`Session::feed`] returned when
    /// it stopped the stream, else the whole reply) given how it ended.
    pub fn finish(&mut self, reply: &str, finish: FinishReason, catalog: &Catalog) -> Decision {
        let turn = std::mem::take(&mut self.turn);
        if !turn.covered {
            return Decision::untouched(reply, Reason::ModelNotCovered);
        }
        let decision = self.decide(reply, finish, &turn, catalog);
        if decision.outcome == Outcome::Discard {
            self.discards_in_row += 1;
        } else {
            self.pause_end_of_call = self.pause_end_of_call.saturating_sub(1);
            self.pause_all = self.pause_all.saturating_sub(1);
            let usable = matches!(decision.outcome, Outcome::Translated | Outcome::Prose)
                || decision.reason == Reason::JsonRequestPresent;
            if usable {
                self.discards_in_row = 0;
            }
        }
        decision
    }

    fn decide(
        &mut self,
        reply: &str,
        finish: FinishReason,
        turn: &Turn,
        catalog: &Catalog,
    ) -> Decision {
        let guard_finish = match finish {
            FinishReason::Stop => Finish::Stop,
            FinishReason::StopSequence => Finish::StopSequence,
            FinishReason::MaxTokens => Finish::MaxTokens,
            FinishReason::Unknown => Finish::Unknown,
        };
        let limit = self.discards_in_row >= MAX_DISCARDS_IN_ROW;
        let discard = |reason: Reason, retry_without_stops: bool| {
            if limit {
                Decision::untouched(reply, Reason::DiscardLimit)
            } else {
                Decision {
                    outcome: Outcome::Discard,
                    reply: reply.to_owned(),
                    request: None,
                    reason,
                    retry_without_stops,
                }
            }
        };
        // A pause outlives the re-ask: the turn that ends with it does not count.
        let pause = PAUSE_TURNS + 1;
        let ending = classify(reply, finish);

        // 1. Stopped at the end of the first call: close the tag again and translate.
        if turn.sent.end_of_call && ending == Some(StopKind::EndOfCall) {
            if let Some(completed) = ctb_guard::complete_half_tag(reply) {
                let decision = crate::translate(&completed, catalog, &self.config);
                if decision.outcome == Outcome::Translated {
                    return Decision {
                        reason: Reason::CompletedAfterStop,
                        ..decision
                    };
                }
                if decision.reason == Reason::JsonRequestPresent {
                    return Decision::untouched(reply, Reason::JsonRequestPresent);
                }
                if cut_in_parameter(&completed) {
                    self.pause_all = pause;
                    return discard(Reason::CutInsideParameter, true);
                }
                self.pause_end_of_call = pause;
                return discard(Reason::StoppedWithoutCall, true);
            }
        }

        // 2. Loops. A loop-stop ending counts only when the loop stops were sent.
        let loop_kind = ctb_guard::looks_like_loop(reply, guard_finish)
            .filter(|kind| kind.stop_string().is_none() || turn.sent.loops);
        let stopped_here = matches!(ending, Some(StopKind::Loop(_))) && turn.sent.loops;
        if self.config.loop_guard {
            // A loop stop that matched inside a parameter value cut a real call.
            if (stopped_here || finish == FinishReason::StopSequence) && cut_in_parameter(reply) {
                self.pause_all = pause;
                return discard(Reason::CutInsideParameter, true);
            }
            if loop_kind.is_some() {
                return discard(Reason::Loop, false);
            }
        }

        // 3. The stateless translation, then the prose policy.
        let decision = crate::translate(reply, catalog, &self.config);
        if decision.outcome == Outcome::Untouched
            && decision.reason == Reason::NoCall
            && self.config.prose_as_response
        {
            let policy = ctb_prose::Policy {
                min_chars: self.config.prose_min_chars,
            };
            let verdict = ctb_prose::decide(
                reply,
                &policy,
                finish == FinishReason::MaxTokens,
                loop_kind.is_some(),
            );
            if verdict == ctb_prose::Verdict::Respond {
                return prose_decision(ctb_prose::response_text(reply));
            }
        }
        decision
    }
}

/// What the reply's ending says about the stop that ended it (nothing when it ran out of
/// `max_tokens`).
fn classify(reply: &str, finish: FinishReason) -> Option<StopKind> {
    if finish == FinishReason::MaxTokens {
        None
    } else {
        ctb_guard::classify_stop(reply)
    }
}

/// Whether the first call of `text` is unfinished inside a parameter value.
fn cut_in_parameter(text: &str) -> bool {
    matches!(
        ctb_invoke::find_first_call(text),
        Found::Incomplete {
            in_parameter: true,
            ..
        }
    )
}

/// The `response` request for a prose answer.
pub(crate) fn prose_request(text: &str) -> Value {
    json!({
        "thoughts": [PROSE_THOUGHT],
        "headline": PROSE_HEADLINE,
        "tool_name": "response",
        "tool_args": {"text": text},
    })
}

fn prose_decision(text: &str) -> Decision {
    let request = prose_request(text);
    Decision {
        outcome: Outcome::Prose,
        reply: crate::translate::render_request(&request),
        request: Some(request),
        reason: Reason::Prose,
        retry_without_stops: false,
    }
}
