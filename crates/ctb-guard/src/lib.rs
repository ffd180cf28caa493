//! Stop strings and loop detection for replies that write tool calls as text.
//!
//! The bridge asks the provider for at most four stop strings, after the model's own:
//!
//! 1. The end-of-call stops of the model's family (its registry row's `stops`). For
//!    Claude it is [`END_OF_CALL`] (`invoke>`): the common tail of the bare and of the
//!    namespace-prefixed closing tag (the grammar's [`ctb_invoke::vocab::INVOKE_CLOSE_TAIL`]);
//!    other families stop at the end of their own call (`function>`, `</tool_call>`,
//!    `<|tool_call_end|>`, `<|call|>`, ...). The provider cuts the reply *before* the stop
//!    string; [`completion`] writes the call's end again (for a tag tail such as `invoke>` only
//!    when the reply ends in the half closing tag it leaves: `</`, `</` plus a prefix).
//! 2. For Claude, three loop stops, one per loop kind ([`LoopKind::EmptyCall`],
//!    [`LoopKind::Placeholder`], [`LoopKind::PrefixChain`]). Each spans the seam between the
//!    first and the second repetition of its unit, so the reply ends inside the first
//!    repetition and leaves a recognisable tail ([`classify_stop`]).
//!
//! [`looks_like_loop`] also catches loops no stop string matched: a reply that ran to
//! `max_tokens` and deflates to a tenth of its size or less, or a reply that ends in the
//! residue word (`court`, `course`, `count`, `call`) alone, repeated.
//!
//! Every function is linear in its input and caps its work (see [`MAX_SCAN_BYTES`]).
//!
//! ```
//! use ctb_guard::{Family, StopKind, StopOptions, classify_stop, completion, stop_strings};
//!
//! let all = StopOptions { end_of_call: true, loops: true };
//! let stops = stop_strings(&[], Family::CLAUDE, all);
//! assert_eq!(stops.len(), 4);
//! assert_eq!(stops[0], "invoke>");
//! assert_eq!(stop_strings(&[], Family::GLM, all), ["</tool_call>"]);
//!
//! // What the provider returns when it stopped at the end of the first call:
//! let reply = "Listing.\n<invoke name=\"x\">\n<parameter name=\"a\">1</parameter>\n</";
//! assert_eq!(classify_stop(reply), Some(StopKind::EndOfCall));
//! assert!(completion(reply, "invoke>").unwrap().ends_with("</invoke>"));
//! ```

use std::fmt;

pub use ctb_invoke::Family;
pub use ctb_invoke::vocab::{PREFIX, RESIDUE_WORDS};

/// The end-of-call stop string: the tail shared by `</invoke>` and its prefixed form.
pub const END_OF_CALL: &str = ctb_invoke::vocab::INVOKE_CLOSE_TAIL;

/// Loop stop for [`LoopKind::EmptyCall`]: the end of a call without parameters followed by
/// the start of the next one (`<invoke name="x">`, newline, `</invoke>`, newline, `<invoke`).
/// It starts at the `">` that closes the first call's opening tag.
pub const LOOP_EMPTY_CALL: &str = ctb_invoke::vocab::loops::EMPTY_CALL;

/// Loop stop for [`LoopKind::Placeholder`]: the end of an invented `<..._placeholder>` tag
/// followed by the next tag on the next line.
pub const LOOP_PLACEHOLDER: &str = ctb_invoke::vocab::loops::PLACEHOLDER;

/// Loop stop for [`LoopKind::PrefixChain`]: the namespace prefix written after itself.
pub const LOOP_PREFIX_CHAIN: &str = ctb_invoke::vocab::loops::PREFIX_CHAIN;

/// Most stop strings a request may carry: LiteLLM passes on the first four and silently
/// drops the rest.
pub const MAX_STOPS: usize = 4;

/// Hard cap on the bytes any function here looks at (the tail of a longer text is used).
pub const MAX_SCAN_BYTES: usize = 128 * 1024;

/// The ratio (original size / deflated size) from which a reply that ran to `max_tokens`
/// counts as a loop.
pub const LOOP_DEFLATE_RATIO: f64 = 10.0;

/// Minimum length for the deflate test when the finish reason is unknown: only a long reply
/// can have run to a token limit.
pub const UNKNOWN_FINISH_MIN_BYTES: usize = 16 * 1024;

/// How many times a residue word must end the reply to count as a loop.
pub const RESIDUE_REPEATS: usize = 3;

/// Which bridge stop strings to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StopOptions {
    /// The end-of-call stop ([`END_OF_CALL`]).
    pub end_of_call: bool,
    /// The three loop stops.
    pub loops: bool,
}

/// The kinds of degenerate loop the guard recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoopKind {
    /// A call without parameters, repeated.
    EmptyCall,
    /// An invented placeholder tag such as `<invoke_placeholder>`, repeated.
    Placeholder,
    /// The namespace prefix chained to itself.
    PrefixChain,
    /// The residue word alone, repeated.
    Residue,
    /// Ran to `max_tokens` and deflates to a tenth of its size or less.
    Compressible,
}

impl LoopKind {
    /// A short snake_case name.
    pub fn code(self) -> &'static str {
        match self {
            Self::EmptyCall => "empty_call",
            Self::Placeholder => "placeholder",
            Self::PrefixChain => "prefix_chain",
            Self::Residue => "residue",
            Self::Compressible => "compressible",
        }
    }

    /// The stop string that catches this kind, if there is one.
    pub fn stop_string(self) -> Option<&'static str> {
        match self {
            Self::EmptyCall => Some(LOOP_EMPTY_CALL),
            Self::Placeholder => Some(LOOP_PLACEHOLDER),
            Self::PrefixChain => Some(LOOP_PREFIX_CHAIN),
            Self::Residue | Self::Compressible => None,
        }
    }
}

impl fmt::Display for LoopKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Which of the bridge's stop strings ended a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StopKind {
    /// The end-of-call stop: the reply ends in a half closing tag.
    EndOfCall,
    /// One of the loop stops.
    Loop(LoopKind),
}

impl StopKind {
    /// The stop string of this kind (`None` for loop kinds no stop string catches).
    pub fn stop_string(self) -> Option<&'static str> {
        match self {
            Self::EndOfCall => Some(END_OF_CALL),
            Self::Loop(kind) => kind.stop_string(),
        }
    }
}

/// How a reply ended, as the provider reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FinishReason {
    /// Natural end of the reply (`end_turn`, `stop`; LiteLLM also reports a stop string as
    /// `stop`).
    Stop,
    /// One of the request's stop strings matched.
    StopSequence,
    /// The reply ran out of `max_tokens`.
    MaxTokens,
    /// Not reported (Agent Zero before its newest version): inferred from the text.
    #[default]
    Unknown,
}

impl FinishReason {
    /// Parses the names providers and LiteLLM use (`stop`, `end_turn`, `stop_sequence`,
    /// `max_tokens`, `length`), ignoring case and surrounding white space; anything else is
    /// `Unknown`.
    ///
    /// ```
    /// use ctb_guard::FinishReason;
    /// assert_eq!(FinishReason::from_name("end_turn"), FinishReason::Stop);
    /// assert_eq!(FinishReason::from_name(" LENGTH "), FinishReason::MaxTokens);
    /// assert_eq!(FinishReason::from_name("tool_use"), FinishReason::Unknown);
    /// ```
    pub fn from_name(name: &str) -> Self {
        match name.trim().to_ascii_lowercase().as_str() {
            "stop" | "end_turn" => Self::Stop,
            "stop_sequence" => Self::StopSequence,
            "max_tokens" | "length" => Self::MaxTokens,
            _ => Self::Unknown,
        }
    }

    /// The snake_case name (`stop`, `stop_sequence`, `max_tokens`, `unknown`).
    pub fn code(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::StopSequence => "stop_sequence",
            Self::MaxTokens => "max_tokens",
            Self::Unknown => "unknown",
        }
    }
}

/// The bridge's own stop strings for `family` and `options`, end-of-call first, loop stops
/// after.
pub fn bridge_stops(family: Family, options: StopOptions) -> Vec<&'static str> {
    let row = family.row();
    let mut out = Vec::with_capacity(MAX_STOPS);
    if options.end_of_call {
        out.extend(row.stops);
    }
    if options.loops {
        out.extend(row.loop_stops);
    }
    out
}

/// The full stop list for a request to a model of `family`: the model's own stops first and
/// untouched (they take precedence and are never dropped, even past [`MAX_STOPS`]; empty ones,
/// which stop nothing, are left out), then the bridge's stops in the slots left of
/// [`MAX_STOPS`], end-of-call first. A bridge stop the model already lists is not repeated.
pub fn stop_strings(model_stops: &[String], family: Family, options: StopOptions) -> Vec<String> {
    let mut out: Vec<String> = model_stops
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect();
    for stop in bridge_stops(family, options) {
        if out.len() >= MAX_STOPS {
            break;
        }
        if !out.iter().any(|s| s == stop) {
            out.push(stop.to_owned());
        }
    }
    out
}

/// Which bridge stop `stop` is, if any.
pub fn stop_kind_of(stop: &str) -> Option<StopKind> {
    if ctb_invoke::registry::FAMILIES
        .iter()
        .any(|row| row.stops.contains(&stop))
    {
        return Some(StopKind::EndOfCall);
    }
    match stop {
        LOOP_EMPTY_CALL => Some(StopKind::Loop(LoopKind::EmptyCall)),
        LOOP_PLACEHOLDER => Some(StopKind::Loop(LoopKind::Placeholder)),
        LOOP_PREFIX_CHAIN => Some(StopKind::Loop(LoopKind::PrefixChain)),
        _ => None,
    }
}

/// The last `MAX_SCAN_BYTES` of `text` (or all of it), starting on a character boundary.
fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Which of the bridge's stops left `reply` as it is, judged from its last bytes alone.
///
/// - [`StopKind::EndOfCall`]: ends in `</` alone or `</` plus the namespace prefix;
/// - [`LoopKind::EmptyCall`]: ends inside an opening tag `<invoke name="x` (no closing quote);
/// - [`LoopKind::Placeholder`]: ends in `<` plus a tag name ending in `_` (`<invoke_`);
/// - [`LoopKind::PrefixChain`]: ends in the prefix's name right after `<` or `</`.
///
/// A reply that ran out of `max_tokens` can end the same way by chance: callers check the
/// finish reason first.
pub fn classify_stop(reply: &str) -> Option<StopKind> {
    let text = tail(reply, 256);
    if ends_in_half_tag(text) {
        return Some(StopKind::EndOfCall);
    }
    let prefix_name = &PREFIX[..PREFIX.len() - 1];
    if let Some(before) = text.strip_suffix(prefix_name) {
        if before.ends_with('<') || before.ends_with(ctb_invoke::vocab::END_TAG) {
            return Some(StopKind::Loop(LoopKind::PrefixChain));
        }
    }
    let lt = text.rfind('<')?;
    let after = &text[lt + 1..];
    let after = after.strip_prefix('/').unwrap_or(after);
    let after = after.strip_prefix(PREFIX).unwrap_or(after);
    if let Some(name) = after.strip_prefix("invoke name=\"") {
        if !name.contains(['"', '<', '>', '\n']) {
            return Some(StopKind::Loop(LoopKind::EmptyCall));
        }
    }
    if after.len() > 1
        && after.ends_with('_')
        && after
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'-' | b'.'))
    {
        return Some(StopKind::Loop(LoopKind::Placeholder));
    }
    None
}

/// Closes the half closing tag the end-of-call stop leaves: `Some(reply + "invoke>")` when the
/// reply ends in `</` alone or `</` plus the namespace prefix, `None` otherwise. It does not
/// look at the finish reason: never call it for a reply that ran out of `max_tokens`.
pub fn complete_half_tag(reply: &str) -> Option<String> {
    completion(reply, END_OF_CALL)
}

/// The reply as it would read had the end-of-call stop `stop` not cut it: `Some(text)` when
/// the reply ends the way that stop leaves it. A stop that is the tail of a closing tag
/// (`invoke>`, `function>`) leaves the start of the tag (`</`, with any namespace prefix), and
/// the reply must end in it; a stop that is a whole token leaves nothing to check, and the
/// caller's grammar decides whether the text then holds a call that ends there. Grok's stop
/// is its closing tag without the `>`, which is added. Never call it for a reply that ran out
/// of `max_tokens`.
///
/// ```
/// use ctb_guard::completion;
/// assert_eq!(completion("<invoke name=\"x\">\n</", "invoke>").unwrap(), "<invoke name=\"x\">\n</invoke>");
/// assert_eq!(completion("no half tag", "invoke>"), None);
/// assert_eq!(completion("<tool_call>x\n", "</tool_call>").unwrap(), "<tool_call>x\n</tool_call>");
/// ```
pub fn completion(reply: &str, stop: &str) -> Option<String> {
    let tail_of_tag = !stop.starts_with('<');
    if tail_of_tag && !ends_in_half_tag(reply) {
        return None;
    }
    let mut out = String::with_capacity(reply.len() + stop.len() + 1);
    out.push_str(reply);
    out.push_str(stop);
    if stop == ctb_invoke::vocab::grok::CLOSE {
        out.push('>');
    }
    Some(out)
}

/// Whether `reply` ends in the start of a closing tag: `</`, `</ns:`, or `</` and a DSML
/// sentinel in any spelling the grammar reads (`｜DSML｜`, `｜｜DSML｜｜`, `|DSML|`), with or without
/// the space DeepSeek sometimes adds after it.
fn ends_in_half_tag(reply: &str) -> bool {
    let text = tail(reply, 256);
    let Some(at) = text.rfind(ctb_invoke::vocab::END_TAG) else {
        return false;
    };
    let rest = &text[at + 2..];
    if rest.is_empty() {
        return true;
    }
    if let Some(ns) = rest.strip_suffix(':') {
        return !ns.is_empty()
            && ns
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    }
    ctb_invoke::vocab::dsml::is_sentinel(rest.strip_suffix(' ').unwrap_or(rest))
}

/// Original size divided by deflated size, over the last [`MAX_SCAN_BYTES`] of `text`
/// (default compression level, whose long match search still finds units of a few kilobytes). Empty
/// text gives 1.
pub fn deflate_ratio(text: &str) -> f64 {
    let sample = tail(text, MAX_SCAN_BYTES).as_bytes();
    if sample.is_empty() {
        return 1.0;
    }
    let packed = miniz_oxide::deflate::compress_to_vec(sample, 6);
    sample.len() as f64 / packed.len().max(1) as f64
}

/// How many times a residue word, alone, ends `text` (whitespace between repeats allowed).
pub fn trailing_residue_repeats(text: &str) -> usize {
    let mut rest = tail(text, MAX_SCAN_BYTES).trim_end();
    let mut count = 0;
    let mut glued = false;
    'outer: loop {
        for word in RESIDUE_WORDS.iter().copied() {
            if let Some(before) = rest.strip_suffix(word) {
                glued = before
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric);
                rest = before.trim_end();
                count += 1;
                continue 'outer;
            }
        }
        break;
    }
    // The run must start a word: `recall` is not the residue word `call`.
    if glued {
        count -= 1;
    }
    count
}

/// Whether `reply` is a degenerate loop, and which kind:
///
/// - it ends the way a loop stop leaves a reply (not when it ran out of `max_tokens`, where
///   such an ending is chance);
/// - it ends in a residue word alone, repeated at least [`RESIDUE_REPEATS`] times;
/// - it ran out of `max_tokens` (or its finish is unknown and it is at least
///   [`UNKNOWN_FINISH_MIN_BYTES`] long) and deflates by [`LOOP_DEFLATE_RATIO`] or more.
pub fn looks_like_loop(reply: &str, finish: FinishReason) -> Option<LoopKind> {
    if finish != FinishReason::MaxTokens {
        if let Some(StopKind::Loop(kind)) = classify_stop(reply) {
            return Some(kind);
        }
    }
    if trailing_residue_repeats(reply) >= RESIDUE_REPEATS {
        return Some(LoopKind::Residue);
    }
    let ran_long = match finish {
        FinishReason::MaxTokens => true,
        FinishReason::Unknown => reply.len() >= UNKNOWN_FINISH_MIN_BYTES,
        FinishReason::Stop | FinishReason::StopSequence => false,
    };
    if ran_long && reply.len() >= 64 && deflate_ratio(reply) >= LOOP_DEFLATE_RATIO {
        return Some(LoopKind::Compressible);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        s.replace("<P:", &format!("<{PREFIX}"))
            .replace("</P:", &format!("</{PREFIX}"))
    }

    #[test]
    fn stop_list_respects_model_stops_and_limit() {
        let all = StopOptions {
            end_of_call: true,
            loops: true,
        };
        assert_eq!(
            stop_strings(&[], Family::CLAUDE, all),
            vec![
                END_OF_CALL,
                LOOP_EMPTY_CALL,
                LOOP_PLACEHOLDER,
                LOOP_PREFIX_CHAIN
            ]
        );
        let model = vec!["Human:".to_owned(), "STOP".to_owned()];
        assert_eq!(
            stop_strings(&model, Family::CLAUDE, all),
            vec!["Human:", "STOP", END_OF_CALL, LOOP_EMPTY_CALL]
        );
        let five: Vec<String> = (0..5).map(|i| format!("s{i}")).collect();
        assert_eq!(stop_strings(&five, Family::CLAUDE, all), five);
        let dup = vec![END_OF_CALL.to_owned()];
        assert_eq!(stop_strings(&dup, Family::CLAUDE, all).len(), 4);
        // Empty model stops stop nothing and take no slot.
        let empty = vec![String::new(), "Human:".to_owned(), String::new()];
        assert_eq!(
            stop_strings(&empty, Family::CLAUDE, all),
            vec!["Human:", END_OF_CALL, LOOP_EMPTY_CALL, LOOP_PLACEHOLDER]
        );
        let loops_only = StopOptions {
            end_of_call: false,
            loops: true,
        };
        assert_eq!(
            stop_strings(&[], Family::CLAUDE, loops_only)[0],
            LOOP_EMPTY_CALL
        );
        assert!(stop_strings(&[], Family::CLAUDE, StopOptions::default()).is_empty());
    }

    #[test]
    fn stop_kinds_round_trip() {
        for s in bridge_stops(
            Family::CLAUDE,
            StopOptions {
                end_of_call: true,
                loops: true,
            },
        ) {
            let kind = stop_kind_of(s).unwrap();
            assert_eq!(kind.stop_string(), Some(s));
        }
        assert_eq!(stop_kind_of("Human:"), None);
    }

    #[test]
    fn provider_cut_leaves_recognisable_tails() {
        let stops: Vec<String> = stop_strings(
            &[],
            Family::CLAUDE,
            StopOptions {
                end_of_call: true,
                loops: true,
            },
        );
        let cases = [
            (
                "Go.\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n<invoke name=\"b\">",
                StopKind::EndOfCall,
            ),
            (
                "<P:invoke name=\"a\">\n<P:parameter name=\"x\">1</P:parameter>\n</P:invoke>",
                StopKind::EndOfCall,
            ),
            (
                "x\n<invoke_placeholder>\n<invoke_placeholder>\n<invoke_placeholder>\n",
                StopKind::Loop(LoopKind::Placeholder),
            ),
            (
                &format!("Checking.\n<{}", PREFIX.repeat(6)),
                StopKind::Loop(LoopKind::PrefixChain),
            ),
        ];
        for (text, want) in cases {
            let text = p(text);
            let text = text.as_str();
            let cut = ctb_testkit::provider_cut(text, &stops).unwrap();
            assert_eq!(stop_kind_of(&stops[cut.index]), Some(want), "{text:?}");
            assert_eq!(
                classify_stop(&text[..cut.output_end]),
                Some(want),
                "{text:?}"
            );
        }
    }

    #[test]
    fn empty_call_loop_is_stopped_by_its_loop_stop_when_end_of_call_is_off() {
        let loops_only: Vec<String> = stop_strings(
            &[],
            Family::CLAUDE,
            StopOptions {
                end_of_call: false,
                loops: true,
            },
        );
        let text = format!(
            "Run.\n{}",
            "<invoke name=\"get_logs\">\n</invoke>\n".repeat(50)
        );
        let stop = ctb_testkit::provider_cut(&text, &loops_only).unwrap();
        assert_eq!(loops_only[stop.index], LOOP_EMPTY_CALL);
        let cut = &text[..stop.output_end];
        assert!(cut.ends_with("<invoke name=\"get_logs"));
        assert_eq!(
            looks_like_loop(cut, FinishReason::StopSequence),
            Some(LoopKind::EmptyCall)
        );
    }

    #[test]
    fn complete_half_tag_only_for_half_tags() {
        assert_eq!(complete_half_tag("a\n</").unwrap(), "a\n</invoke>");
        let prefixed = p("a\n</P:");
        assert_eq!(
            complete_half_tag(&prefixed).unwrap(),
            format!("{prefixed}invoke>")
        );
        assert_eq!(complete_half_tag("a\n</parameter>"), None);
        assert_eq!(complete_half_tag("a < b"), None);
        assert_eq!(complete_half_tag(""), None);
        // Every DSML spelling the grammar reads, with and without the space after it.
        for half in [
            "</\u{ff5c}DSML\u{ff5c}",
            "</\u{ff5c}DSML\u{ff5c} ",
            "</\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}",
            "</\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c} ",
            "</|DSML|",
            "</|DSML| ",
        ] {
            let reply = format!("x\n{half}");
            assert_eq!(
                complete_half_tag(&reply),
                Some(format!("{reply}invoke>")),
                "{half:?}"
            );
            assert_eq!(classify_stop(&reply), Some(StopKind::EndOfCall), "{half:?}");
        }
        // Not spellings: U+2016 bars, spaced ASCII bars, another sentinel, two spaces.
        for half in [
            "</\u{2016}DSML\u{2016}",
            "</ | DSML | ",
            "</|EPSE|",
            "</|DSML|  ",
        ] {
            assert_eq!(complete_half_tag(&format!("x\n{half}")), None, "{half:?}");
        }
    }

    #[test]
    fn every_family_has_end_of_call_stops_that_complete_its_calls() {
        use ctb_invoke::{Found, find_first_call};
        let all = StopOptions {
            end_of_call: true,
            loops: true,
        };
        // (family, a whole reply with one call)
        let cases = [
            (
                Family::CLAUDE,
                "Go.\n<invoke name=\"x\">\n<parameter name=\"a\">1</parameter>\n</invoke>\nafter",
            ),
            (
                Family::MINIMAX,
                "<minimax:tool_call>\n<invoke name=\"x\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
            ),
            (
                Family::DEEPSEEK,
                "<\u{ff5c}DSML\u{ff5c}function_calls>\n<\u{ff5c}DSML\u{ff5c}invoke name=\"x\">\n<\u{ff5c}DSML\u{ff5c}parameter name=\"a\" string=\"true\">1</\u{ff5c}DSML\u{ff5c}parameter>\n</\u{ff5c}DSML\u{ff5c}invoke>\n</\u{ff5c}DSML\u{ff5c}function_calls>",
            ),
            // DeepSeek V4: the `tool_calls` block with doubled bars, V4.1's spaced `calls`
            // block, and ASCII bars.
            (
                Family::DEEPSEEK,
                "Now.\n\n<\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}tool_calls>\n<\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}invoke name=\"x\">\n<\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}parameter name=\"a\" string=\"true\">1</\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}parameter>\n</\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}invoke>\n</\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}tool_calls>",
            ),
            (
                Family::DEEPSEEK,
                "<\u{ff5c}DSML\u{ff5c} calls>\n<\u{ff5c}DSML\u{ff5c} invoke name=\"x\">\n<\u{ff5c}DSML\u{ff5c} parameter name=\"a\" string=\"true\">1</\u{ff5c}DSML\u{ff5c} parameter>\n</\u{ff5c}DSML\u{ff5c} invoke>\n</\u{ff5c}DSML\u{ff5c} calls>",
            ),
            (
                Family::DEEPSEEK,
                "<|DSML|tool_calls>\n<|DSML|invoke name=\"x\">\n<|DSML|parameter name=\"a\" string=\"true\">1</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>",
            ),
            (
                Family::DEEPSEEK,
                "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>x<\u{ff5c}tool\u{2581}sep\u{ff5c}>{\"a\": 1}<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>",
            ),
            (
                Family::QWEN,
                "<tool_call>\n<function=x>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
            ),
            (
                Family::QWEN,
                "<tool_call>\n{\"name\": \"x\", \"arguments\": {\"a\": 1}}\n</tool_call>",
            ),
            (
                Family::GLM,
                "<tool_call>x\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
            ),
            (
                Family::KIMI,
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.x:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>",
            ),
            (
                Family::GPT_OSS,
                "<|start|>assistant<|channel|>commentary to=functions.x <|constrain|>json<|message|>{\"a\": 1}<|call|>",
            ),
            (
                Family::GROK,
                "<xai:function_call name=\"x\">\n<parameter name=\"a\">1</parameter>\n</xai:function_call>",
            ),
        ];
        for (family, text) in cases {
            let Found::Call(whole) = find_first_call(text) else {
                panic!("{family}: no call in {text:?}")
            };
            let stops = stop_strings(&[], family, all);
            let cut = ctb_testkit::provider_cut(text, &stops).expect("a stop matches");
            let output = &text[..cut.output_end];
            let completed = completion(output, &stops[cut.index]).expect("completes");
            let Found::Call(call) = find_first_call(&completed) else {
                panic!("{family}: no call after completing {completed:?}")
            };
            assert_eq!(call.end, completed.len(), "{family}: {completed:?}");
            assert_eq!((call.name, call.args), (whole.name, whole.args), "{family}");
        }
    }

    #[test]
    fn ordinary_endings_are_not_stops() {
        for text in [
            "Done.",
            "<invoke name=\"x\">\n<parameter name=\"a\">1</parameter>\n</invoke>",
            "a <b",
            "use x < y_",
            "<",
            "the html tag is <html",
        ] {
            assert_eq!(classify_stop(text), None, "{text:?}");
        }
    }

    #[test]
    fn residue_repeats() {
        assert_eq!(trailing_residue_repeats("Let me check.\n\ncount"), 1);
        assert_eq!(trailing_residue_repeats("x\ncourt\ncourt\ncourt\n"), 3);
        assert_eq!(trailing_residue_repeats("callcallcall"), 3);
        assert_eq!(trailing_residue_repeats("I will recall"), 0);
        assert_eq!(trailing_residue_repeats("recallcall"), 1);
        assert_eq!(
            looks_like_loop("ok\ncourt court court court", FinishReason::Stop),
            Some(LoopKind::Residue)
        );
        assert_eq!(looks_like_loop("ok\ncourt", FinishReason::Stop), None);
    }

    #[test]
    fn deflate_rule_needs_max_tokens_or_long_unknown() {
        let unit = "<invoke name=\"x\">\n</invoke>\n";
        let loop_text = unit.repeat(400);
        assert!(deflate_ratio(&loop_text) >= LOOP_DEFLATE_RATIO);
        assert_eq!(
            looks_like_loop(&loop_text, FinishReason::MaxTokens),
            Some(LoopKind::Compressible)
        );
        assert_eq!(looks_like_loop(&loop_text, FinishReason::Stop), None);
        // A long unit (about 2 KB) still compresses.
        let long_unit: String = (0..400).map(|i| format!("{i} ")).collect();
        let long_loop = long_unit.repeat(40);
        assert_eq!(
            looks_like_loop(&long_loop, FinishReason::MaxTokens),
            Some(LoopKind::Compressible)
        );
        assert_eq!(
            looks_like_loop(&long_loop, FinishReason::Unknown),
            Some(LoopKind::Compressible)
        );
        // Ordinary prose that ran out of tokens is not a loop.
        let prose: String = (0..300)
            .map(|i| {
                format!(
                    "Sentence {i} talks about item {} and more. ",
                    i * 7919 % 1000
                )
            })
            .collect();
        assert!(deflate_ratio(&prose) < LOOP_DEFLATE_RATIO);
        assert_eq!(looks_like_loop(&prose, FinishReason::MaxTokens), None);
        // A loop-stop ending does not count when the reply ran out of max_tokens.
        assert_eq!(looks_like_loop("x <invoke_", FinishReason::MaxTokens), None);
        assert_eq!(
            looks_like_loop("x\n<invoke_", FinishReason::Unknown),
            Some(LoopKind::Placeholder)
        );
    }
}
