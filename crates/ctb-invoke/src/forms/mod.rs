//! Bodies of the call forms that leak in 2026 (issue 18): Kimi K3's XTML, Gemma 4 and
//! Mistral's `[TOOL_CALLS]`. Each is a [`Body`](crate::grammar::Body): run again and again over
//! the growing reply, it keeps its state, reads each byte a bounded number of times (recording
//! it in the [`Meter`]), reads no byte past the one that decides, and answers
//! [`Step::Pending`] while undecided, [`Step::Done`] just past the call's end, or
//! [`Step::Failed`] where the structure broke. The grammar and every rule for an ambiguous case
//! are in `docs/forms-2026.md`.
//!
//! They are not wired into the scanner yet: the family registry does that. What it needs:
//!
//! | body | construct with | the offset `at` is | the scanner must see, at a line start | stop string |
//! |---|---|---|---|---|
//! | [`xtml::Xtml`] | `Xtml::new(at)` | the `<` of [`xtml::TOOLS_OPEN`] (`<\|open\|>tools<\|sep\|>`), or of a channel close ([`xtml::THINK_CLOSE`], [`xtml::RESPONSE_CLOSE`]) that is followed directly by it | `<\|open\|>tools<\|sep\|>`; also right after `<\|close\|>think<\|sep\|>` or `<\|close\|>response<\|sep\|>` on the same line (a channel close is a line start for this family; the renderer writes no line breaks) | [`xtml::CALL_CLOSE`] |
//! | [`gemma::Gemma`] | `Gemma::new(at)` | the `<` of [`gemma::CALL_OPEN`] (`<\|tool_call>`) | `<\|tool_call>`, also glued to prose (`Let me check. <\|tool_call>call:...`) and right after the reasoning channel's `<channel\|>`; never a bare `call:` | [`gemma::CALL_CLOSE`] |
//! | [`mistral::Mistral`] | `Mistral::new(at)` | the `[` of [`mistral::TOOL_CALLS`] | `[TOOL_CALLS]`, also glued to the prose before it (`bla[TOOL_CALLS]add{...}`: the token is its own line start) | none (no closing token) |
//!
//! The call's `start` (and the prose's end) is `at`. A body reads only from `at` on, so a
//! candidate that fails leaves the scanner free to try the next start. The families' tag
//! strings are the `pub(crate)` constants of each module, for the registry to take over.
//!
//! What each fills in [`Spans`](crate::grammar::Spans): the tool name's range always; Kimi K3
//! one [`RawParam`] per argument (attributes `key` and `type`, kind `Text` or `Json`) or, for
//! its json block, `json`; Gemma 4 one parameter per top-level argument (`Text`, `Json` or
//! `Converted`); Mistral `json` (the arguments object). No body sets the [`Family`]
//! (`crate::call::Family` has no variant for these forms yet), and none leaves a repeated
//! parameter name for the parser to drop: a repeated key breaks the call. A broken candidate's
//! text, for the quotation rules, runs to `<|close|>call<|sep|>` (or `<|close|>tools<|sep|>`)
//! for Kimi K3, to `<tool_call|>` for Gemma 4, and has no end marker for Mistral.
//!
//! [`Family`]: crate::call::Family

// Nothing outside the tests constructs the bodies until the registry does.
#![allow(dead_code)]

pub(crate) mod gemma;
pub(crate) mod json;
pub(crate) mod mistral;
pub(crate) mod xtml;

#[cfg(test)]
mod cases;

use std::collections::HashSet;

use crate::grammar::{RawParam, Step};
use crate::lex::{Meter, Poll, skip_ws, starts_with};

/// `Ok(true/false)` once decided, `Err(Pending)` while the text ends inside a prefix.
pub(crate) fn ready(p: Poll<bool>) -> Result<bool, Step> {
    match p {
        Poll::Ready(r) => Ok(r),
        Poll::Pending => Err(Step::Pending),
    }
}

/// `lit` must follow at `*pos`: past it, or the call breaks at `*pos`.
pub(crate) fn need(b: &[u8], pos: &mut usize, lit: &str, meter: &mut Meter) -> Result<(), Step> {
    if ready(starts_with(b, *pos, lit, meter))? {
        *pos += lit.len();
        Ok(())
    } else {
        Err(Step::Failed(*pos))
    }
}

/// White space from `*pos`: the offset of the next other byte.
pub(crate) fn ws(b: &[u8], pos: &mut usize, meter: &mut Meter) -> Result<usize, Step> {
    skip_ws(b, pos, meter).ok_or(Step::Pending)
}

/// The offset of the name of the first parameter that repeats an earlier one's name.
pub(crate) fn duplicate(text: &str, params: &[RawParam]) -> Option<usize> {
    let mut seen = HashSet::with_capacity(params.len());
    params
        .iter()
        .find(|p| !seen.insert(&text[p.name.clone()]))
        .map(|p| p.name.start)
}
