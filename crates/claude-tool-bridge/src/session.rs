//! Per-agent state carried from turn to turn: stop strings, early stop, loop guard, prose.
//!
//! One [`Session`] per agent. For every request to the model:
//!
//! 1. [`Session::begin_turn`] gives the stop list to send (the model's own stops first, then
//!    the bridge's in the slots left) and whether the model is covered at all;
//! 2. [`Session::feed`] takes each streamed delta and answers `Some(reply)` as soon as the
//!    first call is complete and translates (only with `early_stop`): the caller stops
//!    reading and hands that text to `finish`;
//! 3. [`Session::finish`] decides what Agent Zero sees. On [`Outcome::Discard`] the caller
//!    drops the reply (no warning, nothing in history), calls `begin_turn` again and asks the
//!    model again with the stop list of that new plan.
//!
//! Rules of [`Session::finish`], in order:
//! - the text [`Session::feed`] stopped at gets the decision made then (a translation);
//! - a reply whose first call is complete and makes a request is translated (or left to a
//!   JSON request outside the call): it is never a loop;
//! - a reply an end-of-call stop cut (and that did not run out of `max_tokens`) gets the call's
//!   end written again and is translated ([`Reason::CompletedAfterStop`]); if it holds no
//!   usable call it is discarded, asked again without the end-of-call stops, which stay paused
//!   for the next three turns ([`Reason::StoppedWithoutCall`]); if its call was cut inside a
//!   parameter, all bridge stops are paused ([`Reason::CutInsideParameter`]). A stop that is
//!   the tail of a closing tag (`invoke>`) shows by the half tag it leaves; a whole-token stop
//!   (`</tool_call>`) by the completed call ending exactly there, or by the reported finish;
//! - a reply stopped by a stop string inside a parameter value is discarded and asked again
//!   with every bridge stop off for three turns;
//! - a loop ([`ctb_guard::looks_like_loop`]) is discarded and asked again ([`Reason::Loop`]);
//! - otherwise the reply stays as [`crate::translate`] left it, except that a reply without a
//!   call may go out as the `response` tool ([`ctb_prose`]);
//! - at most two discards in a row: after that, until a usable reply arrives, what would have
//!   been discarded goes to Agent Zero as it is ([`Reason::DiscardLimit`]).

use std::sync::Arc;

use ctb_guard::{StopKind, StopOptions};
use ctb_invoke::Family;
use ctb_invoke::{Forms, Found, NoCall, Scanner};

use crate::policy::{Analysis, decide as decide_reading, guarded};
use crate::reading::{MAX_REPLY_BYTES, Reading};
use crate::{
    Catalog, Config, Context, Decision, Echoes, FinishReason, Outcome, Reason, render_request,
};

/// Discards allowed in a row before replies go through as they are.
pub(crate) const MAX_DISCARDS_IN_ROW: u32 = 2;

/// Turns the stops stay paused after a stopped reply turned out unusable.
pub(crate) const PAUSE_TURNS: u32 = 3;

/// What the bridge asks for at the start of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnPlan {
    /// Whether the chat model is covered by the configuration at all.
    pub covered: bool,
    /// The full stop list to send to the provider: the model's own stops first (all of them),
    /// then the bridge's in the slots left of four.
    pub stops: Vec<String>,
}

/// A session method called out of order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// [`Session::finish`] without a turn: no [`Session::begin_turn`] before it, or a second
    /// `finish` for the same turn.
    NoTurn,
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoTurn => f.write_str(
                "finish() called without a turn: call begin_turn() before each request, and \
                 finish() once per turn",
            ),
        }
    }
}

impl std::error::Error for SessionError {}

/// The bridge's stops that went out with a request.
#[derive(Debug, Clone, Default)]
struct Sent {
    /// The end-of-call stops, in order.
    end_of_call: Vec<&'static str>,
    /// Whether the loop stops went out.
    loops: bool,
}

/// State of the request in progress.
#[derive(Debug, Clone, Default)]
struct Turn {
    covered: bool,
    /// The forms the model writes and what the agent received.
    context: Context,
    /// How much of the buffer is settled (see [`Session::advance`]).
    settled: usize,
    /// The bridge stops actually sent with this request.
    sent: Sent,
    /// What [`Session::feed`] has received (up to [`MAX_REPLY_BYTES`]).
    buffer: String,
    scanner: Scanner,
    /// The early stop: the length of the text handed back and the decision made on it.
    early: Option<(usize, Decision)>,
    /// `feed` does nothing more: the model is not covered, the early stop is off, or it
    /// answered already or gave up on this reply.
    done: bool,
}

impl Turn {
    /// The delta that fills the window: what fits is the last the bridge reads.
    #[cold]
    fn feed_last(&mut self, delta: &str, catalog: &Catalog) -> Option<String> {
        self.done = true;
        let mut take = MAX_REPLY_BYTES - self.buffer.len();
        while !delta.is_char_boundary(take) {
            take -= 1;
        }
        let piece = &delta[..take];
        self.buffer.push_str(piece);
        if holds_gt(piece.as_bytes()) {
            self.look(catalog)
        } else {
            None
        }
    }

    /// Scans what has arrived for a complete first call (see [`early_stop_for`]); a panic
    /// gives up on this reply's early stop.
    fn look(&mut self, catalog: &Catalog) -> Option<String> {
        let stop = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            early_stop_for(self, catalog)
        }));
        stop.unwrap_or_else(|_| {
            self.done = true;
            None
        })
    }
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
/// let d = session.finish(reply, FinishReason::StopSequence, &Catalog::agent_zero()).unwrap();
/// assert_eq!(d.outcome, Outcome::Translated);
/// assert_eq!(d.request.unwrap()["tool_args"]["code"], "df -h");
/// ```
#[derive(Debug, Clone)]
pub struct Session {
    config: Config,
    turn: Option<Turn>,
    /// Turns (counted when one ends) the end-of-call stop stays paused.
    pause_end_of_call: u32,
    /// Turns every bridge stop stays paused.
    pause_all: u32,
    discards_in_row: u32,
    /// The last model name seen, whether it is covered and its context (family, forms,
    /// reasoning): an agent talks to one model turn after turn, so its name is matched against
    /// the patterns once.
    model: Option<(String, bool, Context)>,
}

impl Session {
    /// A new session with `config`.
    pub fn new(config: Config) -> Self {
        Self {
            config,
            turn: None,
            pause_end_of_call: 0,
            pause_all: 0,
            discards_in_row: 0,
            model: None,
        }
    }

    /// Discards in a row so far (reset by a usable reply).
    pub fn discards_in_row(&self) -> u32 {
        self.discards_in_row
    }

    /// The text of the turn in progress that [`Session::feed`] or [`Session::advance`] took
    /// (up to [`MAX_REPLY_BYTES`]; nothing for a model that is not covered).
    pub fn received(&self) -> &str {
        self.turn.as_ref().map_or("", |t| t.buffer.as_str())
    }

    /// Starts a request for `model` whose own stop list is `model_stops`. Also call it
    /// before asking again after a discard. The reply is read for the markup forms `model`'s
    /// family writes (every form for a model no family's patterns match).
    pub fn begin_turn(&mut self, model: &str, model_stops: &[String]) -> TurnPlan {
        self.begin_turn_with(model, model_stops, None)
    }

    /// [`Session::begin_turn`] with `echoes`, the texts the agent received in this
    /// conversation (tool results, fetched pages): a call copied from them is left alone
    /// ([`Reason::Echoed`]), and stops the stream neither.
    pub fn begin_turn_with(
        &mut self,
        model: &str,
        model_stops: &[String],
        echoes: Option<Arc<Echoes>>,
    ) -> TurnPlan {
        let (covered, mut context) = match &self.model {
            Some((name, covered, context)) if name == model => (*covered, context.clone()),
            _ => {
                let covered = self.config.covers(model);
                let context = Context::for_model(&self.config, model);
                self.model = Some((model.to_owned(), covered, context.clone()));
                (covered, context)
            }
        };
        // A model of no family gets Claude's stops, and its end-of-call stop only when its
        // replies are read for a form at all.
        let family = context.family.unwrap_or(Family::CLAUDE);
        let reads = context.forms != Forms::NONE;
        let wanted = if covered {
            StopOptions {
                end_of_call: self.config.stop_sequence
                    && reads
                    && self.pause_end_of_call == 0
                    && self.pause_all == 0,
                loops: self.config.loop_guard && self.pause_all == 0,
            }
        } else {
            StopOptions::default()
        };
        let stops = ctb_guard::stop_strings(model_stops, family, wanted);
        // What really went out: the model's own stops may have taken the slots.
        let has = |s: &str| stops.iter().any(|x| x == s);
        let sent = Sent {
            end_of_call: if wanted.end_of_call {
                family
                    .row()
                    .stops
                    .iter()
                    .copied()
                    .filter(|s| has(s))
                    .collect()
            } else {
                Vec::new()
            },
            loops: wanted.loops && family.row().loop_stops.iter().any(|s| has(s)),
        };
        context.echoes = echoes;
        self.turn = Some(Turn {
            covered,
            sent,
            scanner: context.scanner(),
            context,
            done: !covered || !self.config.early_stop,
            ..Turn::default()
        });
        TurnPlan { covered, stops }
    }

    /// Feeds a streamed delta; returns the reply to hand on when the stream should stop now:
    /// once per request, only with `early_stop`, and only when the first call is complete and
    /// translates with `catalog` (so the caller never stops for a call that would then be
    /// left alone).
    ///
    /// Only a call decided by a `>` (the end of its closing tag, or of what the bridge had to
    /// read to know it is the first call) stops the stream, so a delta without one is just
    /// stored (Grok's garbled closing tags end without it, and so may a candidate that
    /// enclosed the call and failed: those replies are decided whole). The text handed back
    /// ends at the call's end, or a little later when the bridge had to read that far to know
    /// it is the first call; [`Session::finish`] on exactly that text returns the
    /// decision made here. Every byte is read a bounded number of times whatever the deltas,
    /// and the answer does not depend on how the reply was split. Past [`MAX_REPLY_BYTES`] the
    /// stream is left alone.
    #[inline]
    pub fn feed(&mut self, delta: &str, catalog: &Catalog) -> Option<String> {
        // The path every delta takes is kept small enough to inline into the caller's loop:
        // store the delta, and look further only when it holds a `>`.
        let turn = self.turn.as_mut()?;
        if turn.done {
            return None;
        }
        if delta.len() > MAX_REPLY_BYTES - turn.buffer.len() {
            return turn.feed_last(delta, catalog);
        }
        turn.buffer.push_str(delta);
        if !holds_gt(delta.as_bytes()) {
            return None;
        }
        turn.look(catalog)
    }

    /// [`Session::feed`] for a host that passes the text on as it arrives: every delta is
    /// scanned, and the answer also says how much of the text fed so far is settled, in bytes:
    /// no call of this reply can include it, and it is not the residue word or the white space
    /// right before one. It never decreases, and when the reply is translated the decision's
    /// [`Decision::prose`] starts with it, so a host can hand the settled text on at once and
    /// hold back only the rest. For a model that is not covered everything is settled.
    pub fn advance(&mut self, delta: &str, catalog: &Catalog) -> (Option<String>, usize) {
        let Some(turn) = self.turn.as_mut() else {
            return (None, 0);
        };
        if !turn.covered {
            // Nothing of an uncovered model's reply is held back.
            turn.settled += delta.len();
            return (None, turn.settled);
        }
        let stop = if turn.done {
            let room = MAX_REPLY_BYTES - turn.buffer.len();
            if room > 0 {
                let mut take = delta.len().min(room);
                while !delta.is_char_boundary(take) {
                    take -= 1;
                }
                turn.buffer.push_str(&delta[..take]);
                if turn.early.is_none() {
                    let _ = turn.scanner.advance(&turn.buffer);
                }
            }
            None
        } else if delta.len() > MAX_REPLY_BYTES - turn.buffer.len() {
            turn.feed_last(delta, catalog)
        } else {
            turn.buffer.push_str(delta);
            turn.look(catalog)
        };
        let now = match &turn.early {
            Some((_, d)) => d.call.as_ref().map_or(0, |c| c.prose.len()),
            None => turn.scanner.settled(&turn.buffer),
        };
        turn.settled = turn.settled.max(now);
        (stop, turn.settled)
    }

    /// Decides what to do with the finished reply (the text [`Session::feed`] returned when
    /// it stopped the stream, else the whole reply) given how it ended. Never panics: an
    /// internal failure leaves the reply untouched ([`Reason::InternalError`]).
    ///
    /// # Errors
    /// [`SessionError::NoTurn`] when no turn is open: `begin_turn` was not called for this
    /// request, or `finish` was already called for it.
    pub fn finish(
        &mut self,
        reply: &str,
        finish: FinishReason,
        catalog: &Catalog,
    ) -> Result<Decision, SessionError> {
        let turn = self.turn.take().ok_or(SessionError::NoTurn)?;
        if !turn.covered {
            return Ok(Decision::untouched(reply, Reason::ModelNotCovered));
        }
        let early = turn
            .early
            .as_ref()
            .filter(|(len, _)| turn.buffer.get(..*len) == Some(reply))
            .map(|(_, d)| d.clone());
        let decision = match early {
            Some(decision) => decision,
            None => guarded(reply, || self.decide(reply, finish, &turn, catalog)),
        };
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
        Ok(decision)
    }

    fn decide(
        &mut self,
        reply: &str,
        finish: FinishReason,
        turn: &Turn,
        catalog: &Catalog,
    ) -> Decision {
        let limit = self.discards_in_row >= MAX_DISCARDS_IN_ROW;
        let discard = |reason: Reason, retry_without_stops: bool| {
            if limit {
                Decision::untouched(reply, Reason::DiscardLimit)
            } else {
                Decision::discard(reply, reason, retry_without_stops)
            }
        };
        // The one reading of the reply. The turn's scanner has read what was fed; it goes on
        // from there when the reply is that text continued. Kept open when an end-of-call stop
        // went out: a completion of the reply is read on from there.
        let reading = read(turn, reply);
        // 0. A reply that is exactly one JSON request is what Agent Zero asked for: it is
        // neither a loop nor a stopped call, and it holds no call to translate.
        if reading.exact_request {
            return Decision::untouched(reply, Reason::JsonRequestPresent);
        }
        // A pause outlives the re-ask: the turn that ends with it does not count.
        let pause = PAUSE_TURNS + 1;
        let ending = classify(reply, finish);

        // 1. The translation: a first call that is complete and makes a request is translated
        // (or left to a JSON request outside it), whatever follows it: it is never a loop, and
        // a stop that cut a later call does not matter.
        let Analysis {
            decision,
            in_parameter,
            call_usable,
            ..
        } = decide_reading(&reading, catalog, &turn.context);
        if call_usable {
            return decision;
        }

        // 2. Stopped at the end of the first call: write the call's end again and translate.
        // A stop that is the tail of a closing tag (`invoke>`) leaves half the tag, which tells
        // that it cut the reply; a whole-token stop (`</tool_call>`) tells it only when the
        // completed text holds a call that ends exactly there, or when the provider reports
        // that a stop string matched.
        if finish != FinishReason::MaxTokens {
            for stop in &turn.sent.end_of_call {
                let Some(completed) = ctb_guard::completion(reply, stop) else {
                    continue;
                };
                let half_tag = !stop.starts_with('<');
                let reported = half_tag || finish == FinishReason::StopSequence;
                // The completion is the reply and a few bytes: read on from where the reading
                // stood, not again from the start.
                let completed_reading = reading
                    .completed(&completed)
                    .unwrap_or_else(|| Reading::new(&completed, turn.context.scanner(), false));
                let Analysis {
                    decision,
                    in_parameter,
                    call_end,
                    ..
                } = decide_reading(&completed_reading, catalog, &turn.context);
                // The stop cut a call inside reasoning (or in a reply that started inside
                // reasoning and showed no closer before it): whether the model meant it, only
                // the rest of the reply would tell. Asked again without stops.
                if completed_reading.ended_in_reasoning
                    && stop_cut_a_call_in_reasoning(&completed, &turn.context)
                {
                    self.pause_end_of_call = pause;
                    return discard(Reason::StoppedWithoutCall, true);
                }
                if call_end == Some(completed.len()) {
                    if decision.outcome == Outcome::Translated {
                        return completed_after_stop(decision, reply.len());
                    }
                    if decision.reason == Reason::JsonRequestPresent {
                        return Decision::untouched(reply, Reason::JsonRequestPresent);
                    }
                }
                if reported && in_parameter {
                    self.pause_all = pause;
                    return discard(Reason::CutInsideParameter, true);
                }
                if half_tag || reported && call_end == Some(completed.len()) {
                    self.pause_end_of_call = pause;
                    return discard(Reason::StoppedWithoutCall, true);
                }
            }
        }

        // 3. Loops. A loop-stop ending counts only when the loop stops were sent.
        let loop_kind = ctb_guard::looks_like_loop(reply, finish)
            .filter(|kind| kind.stop_string().is_none() || turn.sent.loops);
        let stopped_here = matches!(ending, Some(StopKind::Loop(_))) && turn.sent.loops;
        if self.config.loop_guard {
            // A loop stop that matched inside a parameter value cut a real call.
            if (stopped_here || finish == FinishReason::StopSequence) && in_parameter {
                self.pause_all = pause;
                return discard(Reason::CutInsideParameter, true);
            }
            if loop_kind.is_some() {
                return discard(Reason::Loop, false);
            }
        }

        // 4. No call at all: a long prose answer goes out through `response`.
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

/// Whether `bytes` holds a `>`: a plain loop for a streamed delta (a few bytes, where setting
/// up a vectorised search costs more than it saves), `memchr` for longer text.
#[inline]
fn holds_gt(bytes: &[u8]) -> bool {
    // Eight bytes at a time (a delta is a few dozen bytes: no call into `memchr`).
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b'>'));
        if x.wrapping_sub(ONES) & !x & HIGH != 0 {
            return true;
        }
    }
    words.remainder().contains(&b'>')
}

/// The early stop for what `turn` has received: when the first call is complete and
/// translates, the text to hand on (and the decision, kept for `finish`).
fn early_stop_for(turn: &mut Turn, catalog: &Catalog) -> Option<String> {
    let found = turn.scanner.advance(&turn.buffer);
    let call_end = match &found {
        Found::Call(call) => call.end,
        Found::Nothing(NoCall::WorkLimit) => {
            turn.done = true;
            return None;
        }
        _ => return None,
    };
    turn.done = true;
    // The text up to the call's end, or as far as the scan read to know it is the first call
    // (past a candidate that enclosed it and failed later): as a whole reply, it has exactly
    // this first call.
    let mut cut = call_end.max(turn.scanner.reach()).min(turn.buffer.len());
    while !turn.buffer.is_char_boundary(cut) {
        cut += 1;
    }
    // Deltas without a `>` are only stored, so the stream stops early only when the byte
    // that decided is one (the end of every family's closing tag but Grok's garbled ones): the
    // delta that brings it is looked at in every split, so whatever the split, the same text
    // stops it. A call decided by another byte is left to the finished reply.
    if !turn.buffer.as_bytes()[..cut].ends_with(b">") {
        return None;
    }
    let text = &turn.buffer[..cut];
    let reading = Reading::found(text, found);
    let decision = decide_reading(&reading, catalog, &turn.context).decision;
    if decision.outcome != Outcome::Translated {
        // The call would be left alone: let the reply run, a correction may follow.
        return None;
    }
    turn.early = Some((cut, decision));
    Some(text.to_owned())
}

/// The reading of `reply`: the turn's scanner read on when `reply` continues what was fed,
/// else a fresh one. Kept open when an end-of-call stop went out (a completion may be read).
fn read<'a>(turn: &Turn, reply: &'a str) -> Reading<'a> {
    let fed = turn.buffer.len();
    let resumes = fed > 0
        && fed < MAX_REPLY_BYTES
        && reply.len() <= MAX_REPLY_BYTES
        && reply.as_bytes().get(..fed) == Some(turn.buffer.as_bytes());
    let scanner = if resumes {
        turn.scanner.clone()
    } else {
        turn.context.scanner()
    };
    Reading::new(reply, scanner, !turn.sent.end_of_call.is_empty())
        .with_call_ending_reasoning(&turn.context)
}

/// Whether `completed` (a stopped reply with the stop written again) ends with a call, read
/// with reasoning marks taken for prose, and text stands before that call: the stop cut a call
/// that may have been written inside reasoning. (A reply that starts with its call wrote no
/// reasoning before it.)
fn stop_cut_a_call_in_reasoning(completed: &str, context: &Context) -> bool {
    let mut blind = Scanner::with_forms(context.forms).blind_to_reasoning();
    matches!(blind.finish(completed), Found::Call(call) if call.end == completed.len() && call.prose_end > 0)
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

fn prose_decision(text: &str) -> Decision {
    let request = crate::request::prose_request(text);
    Decision::prose_answer(render_request(&request), request)
}

/// The translation of a stopped reply's completion, as a decision about the reply: its call
/// runs to the reply's end (the closer written again is not in the reply).
fn completed_after_stop(mut decision: Decision, reply_len: usize) -> Decision {
    if let Some(call) = decision.call.as_mut() {
        call.span.end = call.span.end.min(reply_len);
        call.span.start = call.span.start.min(call.span.end);
    }
    Decision {
        reason: Reason::CompletedAfterStop,
        ..decision
    }
}
