//! When a plain prose reply should go to Agent Zero as its `response` tool.
//!
//! In chat mode Agent Zero rejects a reply that holds no tool request, and the model then
//! sends the same answer again through `response`. This crate decides when a reply is such a
//! final answer already, so the bridge can send it through `response` the first time.
//!
//! A reply qualifies when it has no call tags and no JSON, is at least `min_chars` characters
//! long (800 by default), does not end with a colon (the model announcing its next step),
//! does not end with the residue word of a call that never came, did not run out of
//! `max_tokens` and is not a loop. Everything else is left alone.
//!
//! ```
//! use ctb_prose::{Leave, Policy, Verdict, decide};
//!
//! let policy = Policy::default();
//! let answer = "The report is finished. ".repeat(40);
//! assert_eq!(decide(&answer, &policy, false, false), Verdict::Respond);
//! assert_eq!(decide("Next I will run the tests:", &policy, false, false),
//!            Verdict::Leave(Leave::TooShort));
//! ```

/// The settings of the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Minimum length in characters (Unicode scalar values) of the trimmed reply.
    pub min_chars: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            min_chars: DEFAULT_MIN_CHARS,
        }
    }
}

/// The default minimum length.
pub const DEFAULT_MIN_CHARS: usize = 800;

/// Why a reply is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Leave {
    /// Nothing but whitespace.
    Empty,
    /// Call tags (`<invoke`, `<function_calls>`, `<parameter`, ... or the namespace prefix).
    CallTags,
    /// JSON (an object or array, or a fenced JSON block): Agent Zero reads it itself.
    Json,
    /// Shorter than the minimum.
    TooShort,
    /// Ends with a colon: the model announces what it will do next.
    EndsWithColon,
    /// Ends with the residue word of a call that was never written.
    ResidueWord,
    /// Ran out of `max_tokens`.
    Truncated,
    /// Looks like a loop.
    Loop,
}

/// The policy's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Send the trimmed reply as the `text` of the `response` tool.
    Respond,
    /// Leave the reply as it is.
    Leave(Leave),
}

/// Whether `text` holds call markup of any family (tags, bare or prefixed, the namespace
/// prefix, or a family's special call tokens).
pub fn has_call_tags(text: &str) -> bool {
    use ctb_invoke::registry::all_markers;
    use ctb_invoke::vocab::PREFIX;
    text.contains(PREFIX) || all_markers().any(|m| text.contains(m))
}

/// Whether `text` holds JSON: it starts with `{` or `[`, has an object whose first key is
/// quoted (`{"`, `{ '`, also after whitespace), or a fenced `json` block.
pub fn has_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return true;
    }
    if text.contains(ctb_invoke::vocab::JSON_FENCE) || text.contains("~~~json") {
        return true;
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < bytes.len() && matches!(bytes[j], b'"' | b'\'') {
                return true;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    false
}

/// Whether the reply, trimmed (also of trailing markdown emphasis), ends with a colon.
pub fn ends_with_colon(text: &str) -> bool {
    let end = text.trim_end().trim_end_matches(['*', '_', '`']).trim_end();
    end.ends_with(':') || end.ends_with('：')
}

/// Whether `text` has at least `min` characters, counting no further than `min`.
fn at_least_chars(text: &str, min: usize) -> bool {
    min == 0 || text.chars().nth(min - 1).is_some()
}

/// Decides whether `reply` is a prose answer for the `response` tool. `truncated`: the reply
/// ran out of `max_tokens`; `is_loop`: the loop guard judged it a loop.
pub fn decide(reply: &str, policy: &Policy, truncated: bool, is_loop: bool) -> Verdict {
    let text = reply.trim();
    let leave = if text.is_empty() {
        Some(Leave::Empty)
    } else if truncated {
        Some(Leave::Truncated)
    } else if is_loop {
        Some(Leave::Loop)
    } else if has_call_tags(text) {
        Some(Leave::CallTags)
    } else if has_json(text) {
        Some(Leave::Json)
    } else if !at_least_chars(text, policy.min_chars) {
        Some(Leave::TooShort)
    } else if ends_with_colon(text) {
        Some(Leave::EndsWithColon)
    } else if ctb_guard::trailing_residue_repeats(text) > 0 {
        Some(Leave::ResidueWord)
    } else {
        None
    };
    leave.map_or(Verdict::Respond, Verdict::Leave)
}

/// The text to send as `response`'s `text`: the reply without surrounding whitespace.
pub fn response_text(reply: &str) -> &str {
    reply.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(s: &str) -> String {
        let mut out = String::new();
        while out.chars().count() < 900 {
            out.push_str("This paragraph explains the result in some detail. ");
        }
        out.push_str(s);
        out
    }

    #[test]
    fn long_plain_answer_is_a_response() {
        let p = Policy::default();
        assert_eq!(decide(&long("Done."), &p, false, false), Verdict::Respond);
        assert_eq!(response_text("  hi \n"), "hi");
    }

    #[test]
    fn everything_else_is_left_alone() {
        let p = Policy::default();
        let cases = [
            (long("\n<invoke name=\"x\">"), Leave::CallTags),
            (
                long(&format!("\n<{}invoke", ctb_guard::PREFIX)),
                Leave::CallTags,
            ),
            // Other families' call markup, mid-line too (a broken call is not an answer).
            (
                long(" then <|tool_call_begin|>functions.x:0"),
                Leave::CallTags,
            ),
            (
                long(" then <\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}>"),
                Leave::CallTags,
            ),
            (
                long(" <|channel|>commentary to=functions.x"),
                Leave::CallTags,
            ),
            (long("\n<arg_key>path</arg_key>"), Leave::CallTags),
            (long("\n<minimax:tool_call>"), Leave::CallTags),
            (long("\n{\"tool_name\": \"x\"}"), Leave::Json),
            (long("\n```json\n[1]\n```"), Leave::Json),
            (long("\nNext I will check the logs:"), Leave::EndsWithColon),
            (long("\nNow the fix**:**  "), Leave::EndsWithColon),
            (long("\n\ncourt"), Leave::ResidueWord),
            ("Short answer.".to_owned(), Leave::TooShort),
            ("   ".to_owned(), Leave::Empty),
        ];
        for (text, why) in cases {
            assert_eq!(
                decide(&text, &p, false, false),
                Verdict::Leave(why),
                "{text}"
            );
        }
        assert_eq!(
            decide(&long("x"), &p, true, false),
            Verdict::Leave(Leave::Truncated)
        );
        assert_eq!(
            decide(&long("x"), &p, false, true),
            Verdict::Leave(Leave::Loop)
        );
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        let p = Policy { min_chars: 10 };
        assert_eq!(
            decide("ééééééééé", &p, false, false),
            Verdict::Leave(Leave::TooShort)
        );
        assert_eq!(decide("éééééééééé", &p, false, false), Verdict::Respond);
        assert_eq!(
            decide("x", &Policy { min_chars: 0 }, false, false),
            Verdict::Respond
        );
    }

    #[test]
    fn braces_in_prose_are_not_json() {
        assert!(!has_json("use a set {1, 2} here"));
        assert!(has_json("the body { \"a\": 1 }"));
        assert!(!has_json("trailing {"));
    }
}
