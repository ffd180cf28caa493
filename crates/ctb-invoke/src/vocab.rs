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
pub const CALL_TAG_NAMES: &[&str] = &[INVOKE, "function_calls", "function_call", "tool_call"];

/// HTML elements whose content is raw text (CommonMark's first kind of HTML block): call
/// markup inside them is quoted.
pub const RAW_TEXT_ELEMENTS: &[&str] = &["pre", "script", "style", "textarea"];

/// Elements a model invents to hold a call's results (`<function_results>` after a call it
/// could not run): call markup inside them is quoted.
pub const RESULT_ELEMENTS: &[&str] = &[
    "function_results",
    "function_result",
    "tool_results",
    "tool_result",
    "tool_response",
    "tool_output",
];

/// Substrings whose presence in a reply means it holds call markup of some family (the prose
/// policy never sends such a reply through `response`). Plain substrings, so prefixed tags
/// (Claude's namespace, `minimax:`, `xai:`, DSML's) match too; the special tokens of the
/// families that write them are in [`START_TOKENS`].
pub const CALL_MARKERS: &[&str] = &[
    "invoke name=",
    "invoke>",
    "function_calls>",
    "<function_calls",
    "function_call>",
    "parameter name=",
    "parameter>",
    "tool_call>",
    "<tool_call",
    "tool_args>",
    "function_results>",
    "<function=",
    "<arg_key>",
    "think>",
];

/// Whether `local` names a wrapper element.
pub(crate) fn is_wrapper(local: &str) -> bool {
    WRAPPERS.contains(&local)
}

/// Longest tag the grammar reads (name and attributes): a longer one is not a tag. Names and
/// attributes of real calls are a few dozen bytes.
pub const MAX_TAG_BYTES: usize = 1024;

/// Longest tag name (prefix included) the grammar reads.
pub const MAX_NAME_BYTES: usize = 128;

/// Special tokens of the families that write them: Kimi K2.
pub mod kimi {
    /// Opens the section of calls.
    pub const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
    /// Opens one call (`functions.name:0` follows).
    pub const CALL_BEGIN: &str = "<|tool_call_begin|>";
    /// Between the call's name and its JSON arguments.
    pub const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
    /// Ends one call.
    pub const CALL_END: &str = "<|tool_call_end|>";
}

/// Special tokens of DeepSeek V3 and V3.1 (full-width bars and `▁` in place of spaces).
pub mod deepseek {
    /// Opens the calls.
    pub const CALLS_BEGIN: &str = "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}>";
    /// Opens one call.
    pub const CALL_BEGIN: &str = "<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>";
    /// Between `function` (V3) or the name (V3.1) and what follows.
    pub const SEP: &str = "<\u{ff5c}tool\u{2581}sep\u{ff5c}>";
    /// Ends one call.
    pub const CALL_END: &str = "<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}>";
}

/// Special tokens of StepFun's Step-3, which wrap Claude's form (`<steptml:invoke>`).
pub mod step3 {
    /// Opens the calls.
    pub const CALLS_BEGIN: &str = "<\u{ff5c}tool_calls_begin\u{ff5c}>";
    /// Opens one call.
    pub const CALL_BEGIN: &str = "<\u{ff5c}tool_call_begin\u{ff5c}>";
    /// Between `function` and the call.
    pub const SEP: &str = "<\u{ff5c}tool_sep\u{ff5c}>";
}

/// gpt-oss (harmony) tokens.
pub mod harmony {
    /// Opens a message (`<|start|>assistant ...`).
    pub const START: &str = "<|start|>";
    /// Names the channel (`<|channel|>commentary to=functions.name`).
    pub const CHANNEL: &str = "<|channel|>";
    /// Opens the message body (the JSON arguments of a call).
    pub const MESSAGE: &str = "<|message|>";
    /// Ends a call.
    pub const CALL: &str = "<|call|>";
}

/// Hermes-style calls: `<tool_call>{json}</tool_call>` (also the wrapper of Qwen3-Coder and
/// GLM calls).
pub const TOOL_CALL_CLOSE: &str = "</tool_call>";

/// The tokens that end a call or a section of calls, in the families that write tokens: a
/// broken call written with tokens runs up to one of them.
pub const END_TOKENS: &[&str] = &[
    kimi::CALL_END,
    "<|tool_calls_section_end|>",
    deepseek::CALL_END,
    "<\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>",
    harmony::CALL,
];

/// The special tokens a call may start with, at a line start.
pub const START_TOKENS: &[&str] = &[
    kimi::SECTION_BEGIN,
    kimi::CALL_BEGIN,
    deepseek::CALLS_BEGIN,
    deepseek::CALL_BEGIN,
    step3::CALLS_BEGIN,
    step3::CALL_BEGIN,
    harmony::START,
    harmony::CHANNEL,
];
