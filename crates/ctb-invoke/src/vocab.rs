//! The markup vocabulary: every tag name, marker and word the grammar knows, in one place.
//!
//! Other crates of the workspace (the stop strings, the prose policy) take their markers from
//! here rather than spelling them again.

/// The namespace prefix Claude sometimes writes before its tag names, colon included (built
/// from parts so that no display layer rewrites it).
pub const PREFIX: &str = concat!("ant", "ml", ":");

/// Words a model leaves where the wrapper's opening tag should be.
pub const RESIDUE_WORDS: &[&str] = &["court", "course", "count", "call"];

/// The tail shared by `</invoke>` and every prefixed form of it: what the provider is asked to
/// stop at, and what the stream watch waits for.
pub const INVOKE_CLOSE_TAIL: &str = "invoke>";

/// The element that holds one call.
pub const INVOKE: &str = "invoke";

/// The element that holds one argument.
pub const PARAMETER: &str = "parameter";

/// Wrapper elements around a call (`<function_calls>`, MiniMax's `<minimax:tool_call>`, ...).
pub const WRAPPERS: &[&str] = &["function_calls", "tool_call", "tool_calls"];

/// Child elements of `<invoke>` other than `<parameter>` that are taken as a parameter named
/// after the element (`<tool_args>{...}</tool_args>`).
pub const ELEMENT_PARAMS: &[&str] = &[
    "tool_args",
    "args",
    "arguments",
    "parameters",
    "thoughts",
    "headline",
];

/// Tag names whose mention in a line (right after `<` or a prefix colon) marks the line as
/// quoting a call.
pub const CALL_TAG_NAMES: &[&str] = &[INVOKE, "function_calls"];

/// Whether `local` names a wrapper element.
pub(crate) fn is_wrapper(local: &str) -> bool {
    WRAPPERS.contains(&local)
}

/// Longest tag the grammar reads (name and attributes): a longer one is not a tag. Names and
/// attributes of real calls are a few dozen bytes.
pub const MAX_TAG_BYTES: usize = 1024;

/// Longest tag name (prefix included) the grammar reads.
pub const MAX_NAME_BYTES: usize = 128;
