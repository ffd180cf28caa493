//! The markup vocabulary: every tag name, marker and word the grammar knows.
//!
//! With the family registry ([`crate::registry`]) this is one of the two places a tag is
//! spelled: the registry's rows say which family writes what, this module spells the words
//! the rows and the grammar share. Other crates of the workspace (the stop strings, the prose
//! policy) take their markers from the registry or from here; a tidy test keeps tag strings
//! out of every other file.

/// What every closing tag starts with.
pub const END_TAG: &str = "</";

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

/// The attribute that names a call's tool or a parameter.
pub const NAME_ATTR: &str = "name";

/// The wrapper Hermes, Qwen3-Coder, GLM and MiniMax write around a call.
pub const TOOL_CALL: &str = "tool_call";

/// MiniMax's namespace: `<minimax:tool_call>`.
pub const MINIMAX_PREFIX: &str = "minimax";

/// The info string of a fenced JSON block (DeepSeek V3 writes its arguments in one).
pub const JSON_FENCE: &str = "```json";

/// The word DeepSeek V3 and StepFun write between their tokens before a call.
pub const FUNCTION_WORD: &str = "function";

/// The keys of a call written as one JSON object (Hermes): the tool's name, and the
/// arguments under one of the others.
pub mod hermes {
    /// The tool's name.
    pub const NAME: &str = super::NAME_ATTR;
    /// The arguments' keys, the usual first.
    pub const ARGUMENTS: [&str; 2] = ["arguments", "parameters"];
}

/// The element that holds one argument.
pub const PARAMETER: &str = "parameter";

/// Claude's wrapper around a call.
pub const FUNCTION_CALLS: &str = "function_calls";

/// A wrapper models write in its place (and DeepSeek V4's block).
pub const TOOL_CALLS: &str = "tool_calls";

/// Wrapper elements around a call (`<function_calls>`, MiniMax's `<minimax:tool_call>`, ...).
pub const WRAPPERS: &[&str] = &[FUNCTION_CALLS, TOOL_CALL, TOOL_CALLS];

/// Substrings that tell a form's markup in a text (the prose policy never sends a reply holding
/// one through `response`), for the forms whose words are not all tokens of their own.
pub mod markers {
    use super::{glm, qwen};

    /// Claude's elements and the results a model invents after them.
    pub const CLAUDE: &[&str] = &[
        "invoke name=",
        "invoke>",
        "function_calls>",
        "<function_calls",
        "function_call>",
        "parameter name=",
        "parameter>",
        "tool_args>",
        "function_results>",
        "think>",
    ];
    /// The `<tool_call>` wrapper (MiniMax's, Hermes's).
    pub const TOOL_CALL: &[&str] = &["tool_call>", "<tool_call"];
    /// Grok's call element.
    pub const GROK: &[&str] = &["function_call>", "xai:function_call"];
    /// Qwen3-Coder's call.
    pub const QWEN3_CODER: &[&str] = &[qwen::FUNCTION_OPEN, "tool_call>"];
    /// GLM's call.
    pub const GLM: &[&str] = &[glm::KEY_OPEN, "tool_call>"];
}

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

/// The parameters a model writes for the request's own text, not the tool's arguments.
pub const REQUEST_TEXT_PARAMS: [&str; 2] = ["thoughts", "headline"];

/// HTML elements whose content is raw text (CommonMark's first kind of HTML block): call
/// markup inside them is quoted.
pub const RAW_TEXT_ELEMENTS: &[&str] = &[
    "pre",
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "listing",
    "plaintext",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "template",
];

/// The attributes that carry a tool's name on an element around a call (`<function
/// name="response">`): an element of no HTML kind that has one quotes what it holds.
pub const TOOL_NAME_ATTRS: &[&str] = &["name", "tool", "tool_name"];

/// HTML's element names: an element of one of these names carrying a `name` attribute is a
/// page's markup (`<input name=...>`, `<meta name=...>`), not a call's.
pub const HTML_ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "noscript",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
    "svg",
    "math",
    "g",
    "path",
    "circle",
    "rect",
    "line",
    "polygon",
    "symbol",
    "use",
    "view",
];

/// The block-level HTML elements that open CommonMark's sixth kind of HTML block.
pub const HTML_BLOCK_ELEMENTS: &[&str] = &[
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// Inline elements highlighters and renderers wrap text in: a received text is read without
/// their tags.
pub const HIGHLIGHT_ELEMENTS: &[&str] = &[
    "span", "font", "b", "i", "u", "em", "strong", "mark", "small", "a", "code", "kbd", "samp",
    "var", "tt", "sup", "sub", "s", "del", "ins",
];

/// HTML's quotation element: what the reply writes inside one, up to its balancing closing
/// tag, is a quotation (nested ones counted), wherever in a line it opens.
pub const QUOTE_ELEMENTS: &[&str] = &["blockquote"];

/// HTML's inline code elements: what the reply writes inside one, up to its closing tag, is
/// code it shows, wherever in a line the element opens (`See <code><invoke ...></code>`).
pub const CODE_ELEMENTS: &[&str] = &["code", "kbd", "samp", "tt"];

/// Elements a model invents to hold a call's results (`<function_results>` after a call it
/// could not run): call markup inside them is quoted.
pub const RESULT_ELEMENTS: &[&str] = &[
    "function_results",
    "function_result",
    "tool_results",
    "tool_result",
    "tool_response",
    "tool_output",
    // Anthropic's formats for what the agent was given, written back by the model.
    "document",
    "documents",
    "document_content",
    "search_results",
    "search_result",
];

/// How reasoning is marked in a reply's text, by the families that write it (each family's
/// registry row names its own): a call inside reasoning is the model thinking, never a call.
pub mod reasoning {
    /// Elements around reasoning, in any namespace and any case (`<think>`, `<thinking>`,
    /// `<reasoning>`, MiniMax-M3's `<mm:think>`).
    pub const ELEMENTS: [&str; 3] = ["think", "thinking", "reasoning"];
    /// Magistral's reasoning block.
    pub const MISTRAL_OPEN: &str = "[THINK]";
    /// Closes it.
    pub const MISTRAL_CLOSE: &str = "[/THINK]";
    /// Gemma 4's thought channel.
    pub const GEMMA_OPEN: &str = "<|channel>thought";
    /// Closes it.
    pub const GEMMA_CLOSE: &str = "<channel|>";
    /// TML Inkling's thinking block (its end is the block's `<|end_message|>`).
    pub const INKLING_OPEN: &str = "<|content_thinking|>";
}

/// What opens a CDATA section (`<![CDATA[`): a DSML value wrapped in one is not DeepSeek's
/// grammar, and a raw-text block in the prose.
pub const CDATA_OPEN: &str = "<![CDATA[";

/// DeepSeek's DSML markup (V3.2, V4, V4.1): Claude's elements behind a sentinel namespace,
/// `<｜DSML｜invoke name="x">`, inside a `function_calls`, `tool_calls` or `calls` block.
pub mod dsml {
    /// The sentinel as DeepSeek's tokenizer writes it (full-width bars, U+FF5C).
    pub const FULL_WIDTH: &str = "\u{ff5c}DSML\u{ff5c}";
    /// The doubled full-width bars the official API returns (DeepSeek V4 Flash).
    pub const DOUBLED: &str = "\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}";
    /// The ASCII bars some clients and servers write.
    pub const ASCII: &str = "|DSML|";
    /// Every spelling of the sentinel, the doubled one before the single one it starts like.
    /// One call keeps one spelling in all its tags; one space may follow it in any tag.
    pub const SENTINELS: [&str; 3] = [DOUBLED, FULL_WIDTH, ASCII];
    /// V4.1's block name, a wrapper only under a sentinel.
    pub const CALLS: &str = "calls";
    /// The block names of V3.2 (`function_calls`), V4 (`tool_calls`) and V4.1 (`calls`).
    pub const BLOCKS: [&str; 3] = ["function_calls", "tool_calls", CALLS];

    /// The sentinel `prefix` is, in the one place it is spelled.
    pub fn sentinel(prefix: &str) -> Option<&'static str> {
        SENTINELS.into_iter().find(|s| *s == prefix)
    }

    /// Whether `prefix` is one of the sentinels.
    pub fn is_sentinel(prefix: &str) -> bool {
        sentinel(prefix).is_some()
    }
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
    /// Ends the section of calls.
    pub const SECTION_END: &str = "<|tool_calls_section_end|>";
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
    /// Ends the calls.
    pub const CALLS_END: &str = "<\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>";
    /// The fence V3 writes around the arguments (its opener may carry `json`).
    pub const FENCE: &str = "```";
}

/// Special tokens of StepFun's Step-3, which wrap Claude's form (`<steptml:invoke>`).
pub mod step3 {
    /// The namespace of its call element.
    pub const PREFIX: &str = "steptml";
    /// Opens the calls.
    pub const CALLS_BEGIN: &str = "<\u{ff5c}tool_calls_begin\u{ff5c}>";
    /// Opens one call.
    pub const CALL_BEGIN: &str = "<\u{ff5c}tool_call_begin\u{ff5c}>";
    /// Between `function` and the call.
    pub const SEP: &str = "<\u{ff5c}tool_sep\u{ff5c}>";
    /// Ends one call.
    pub const CALL_END: &str = "<\u{ff5c}tool_call_end\u{ff5c}>";
    /// Ends the calls.
    pub const CALLS_END: &str = "<\u{ff5c}tool_calls_end\u{ff5c}>";
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
    /// Ends a message; a call message may end with it too.
    pub const END: &str = "<|end|>";
    /// Ends the final message.
    pub const RETURN: &str = "<|return|>";
    /// The role that writes calls (`<|start|>assistant`).
    pub const ROLE: &str = "assistant";
    /// The channel calls are written on (`analysis` is the reasoning, `final` the answer).
    pub const CALL_CHANNEL: &str = "commentary";
    /// Names the recipient (`to=functions.name`), in the role's or the channel's header.
    pub const RECIPIENT: &str = "to=";
    /// The content type of a call's arguments, as gpt-oss writes it.
    pub const CONSTRAIN_JSON: &str = "<|constrain|>json";
    /// The content type of a call's arguments, as the chat template writes it.
    pub const SPACE_JSON: &str = " json";
    /// Frames the reply's text: an assistant message's start.
    pub const ASSISTANT_START: &str = "<|start|>assistant";
    /// Frames the reply's text: the reasoning channel's header.
    pub const ANALYSIS_HEADER: &str = "<|channel|>analysis<|message|>";
    /// Frames the reply's text: the answer channel's header.
    pub const FINAL_HEADER: &str = "<|channel|>final<|message|>";
    /// Frames the reply's text: a commentary message's header without a recipient (a preamble).
    pub const COMMENTARY_HEADER: &str = "<|channel|>commentary<|message|>";
}

/// The namespace of a tool in Kimi's call id (`functions.name:0`) and harmony's recipient
/// (`to=functions.name`).
pub const FUNCTIONS_NS: &str = "functions.";

/// Hermes-style calls: `<tool_call>{json}</tool_call>` (also the wrapper of Qwen3-Coder and
/// GLM calls).
pub const TOOL_CALL_CLOSE: &str = "</tool_call>";

/// Qwen3-Coder's literal tags: `<function=name>`, `<parameter=key>`.
pub mod qwen {
    /// Opens the call element (`<function=name>`).
    pub const FUNCTION_OPEN: &str = "<function=";
    /// Closes it.
    pub const FUNCTION_CLOSE: &str = "</function>";
    /// Opens a parameter (`<parameter=key>`).
    pub const PARAM_OPEN: &str = "<parameter=";
    /// Closes it.
    pub const PARAM_CLOSE: &str = "</parameter>";
    /// The end-of-call stop: the tail of `</function>` (the opening `<function=` has no
    /// `function>`).
    pub const END_OF_FUNCTION: &str = "function>";
}

/// GLM's literal tags: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`.
pub mod glm {
    /// Opens a key.
    pub const KEY_OPEN: &str = "<arg_key>";
    /// Closes a key.
    pub const KEY_CLOSE: &str = "</arg_key>";
    /// Opens a value.
    pub const VALUE_OPEN: &str = "<arg_value>";
    /// Closes a value.
    pub const VALUE_CLOSE: &str = "</arg_value>";
}

/// Grok's call element, `<xai:function_call name="...">`.
pub mod grok {
    /// The element's prefix.
    pub const PREFIX: &str = "xai";
    /// The element's local name.
    pub const ELEMENT: &str = "function_call";
    /// Its closing tag without the `>` Grok often garbles: what ends the call, and its stop.
    pub const CLOSE: &str = "</xai:function_call";
}

/// Claude's loop stops: each spans the seam between the first and the second repetition of a
/// degenerate loop's unit, so the reply ends inside the first one.
pub mod loops {
    /// A call without parameters repeated: from the `">` that closes the first call's opening
    /// tag to the start of the next.
    pub const EMPTY_CALL: &str = "\">\n</invoke>\n<invoke";
    /// An invented `<..._placeholder>` tag followed by the next tag on the next line.
    pub const PLACEHOLDER: &str = "placeholder>\n<";
    /// The namespace prefix written after itself.
    pub const PREFIX_CHAIN: &str = concat!(":", "ant", "ml", ":");
}

/// Gemini 3: `<call_record tool="NAME">` with Claude's `<parameter name>` children.
pub mod gemini {
    /// The call element.
    pub const CALL_RECORD: &str = "call_record";
    /// The attribute that names the tool.
    pub const TOOL_ATTR: &str = "tool";
    /// The tail of the closing tag: the stop string that ends the model right after the
    /// first call.
    pub const CLOSE_TAIL: &str = "call_record>";
    /// What tells its markup in a text.
    pub const MARKERS: &[&str] = &["<call_record", CLOSE_TAIL];
}

/// Kimi K3 ("XTML"): `<|open|>NAME attr="v"<|sep|>` ... `<|close|>NAME<|sep|>`.
pub mod kimi_k3 {
    /// Opens the section of calls: where the body starts (after an optional channel close).
    pub const TOOLS_OPEN: &str = "<|open|>tools<|sep|>";
    /// Ends the thinking channel; the section may follow it directly.
    pub const THINK_CLOSE: &str = "<|close|>think<|sep|>";
    /// Ends the response channel; the section may follow it directly.
    pub const RESPONSE_CLOSE: &str = "<|close|>response<|sep|>";
    /// Opens the thinking channel.
    pub const THINK_OPEN: &str = "<|open|>think<|sep|>";
    /// Opens the response channel.
    pub const RESPONSE_OPEN: &str = "<|open|>response<|sep|>";
    /// Ends one call: the stop string that ends the model right after the first call.
    pub const CALL_CLOSE: &str = "<|close|>call<|sep|>";
    /// Ends the section of calls.
    pub const TOOLS_CLOSE: &str = "<|close|>tools<|sep|>";
    /// Opens a tag.
    pub const OPEN: &str = "<|open|>";
    /// Opens a closing tag.
    pub const CLOSE: &str = "<|close|>";
    /// Ends a tag's head.
    pub const SEP: &str = "<|sep|>";
    /// Opens a call, up to its tool name.
    pub const CALL_OPEN: &str = "<|open|>call tool=\"";
    /// The call's index attribute, up to its value.
    pub const INDEX_ATTR: &str = " index=\"";
    /// Opens an argument, up to its key.
    pub const ARG_OPEN: &str = "<|open|>argument key=\"";
    /// The argument's type attribute, up to its value.
    pub const TYPE_ATTR: &str = " type=\"";
    /// Closes an argument.
    pub const ARG_CLOSE: &str = "<|close|>argument<|sep|>";
    /// Opens the arguments written as one JSON object.
    pub const JSON_OPEN: &str = "<|open|>json type=\"object\"<|sep|>";
    /// Closes them.
    pub const JSON_CLOSE: &str = "<|close|>json<|sep|>";
}

/// Gemma 4: `<|tool_call>call:name{key:<|"|>text<|"|>}<tool_call|>`.
pub mod gemma {
    /// Opens the call: where the body starts.
    pub const CALL_OPEN: &str = "<|tool_call>";
    /// Ends the call: the stop string that ends the model right after the first call.
    pub const CALL_CLOSE: &str = "<tool_call|>";
    /// The turn end, which some replies use instead of [`CALL_CLOSE`].
    pub const TURN_END: &str = "<turn|>";
    /// The opener with the word that must follow it.
    pub const HEAD: &str = "<|tool_call>call:";
    /// Delimits strings (and keys that are not words).
    pub const QUOTE: &str = "<|\"|>";
}

/// The members of a call written as one JSON object (Mistral's array form, LFM's JSON list).
pub mod call_object {
    /// The tool's name.
    pub const NAME: &str = "name";
    /// The arguments.
    pub const ARGUMENTS: &str = "arguments";
}

/// Mistral: `[TOOL_CALLS]name[ARGS]{json}`.
pub mod mistral {
    /// The token before the calls: where the body starts.
    pub const TOOL_CALLS: &str = "[TOOL_CALLS]";
    /// Between the name and the JSON arguments.
    pub const ARGS: &str = "[ARGS]";
    /// The array form's member that holds the call's id (its name and arguments are
    /// [`super::call_object`]'s).
    pub const ID_MEMBER: &str = "id";
    /// Before a call id, between the name and `[ARGS]`.
    pub const CALL_ID: &str = "[CALL_ID]";
}

/// MiniMax-M3: the marker before every tag, parameters named by their tag.
pub mod minimax_m3 {
    /// The marker before every tag.
    pub const MARKER: &str = "]<]minimax[>[";
    /// The wrapper's opening tag, after the marker.
    pub const TOOL_CALL_OPEN: &str = "<tool_call>";
    /// The invoke's opening tag up to its name.
    pub const INVOKE_OPEN: &str = "<invoke name=\"";
    /// Where a call starts: the marker, then the wrapper's opening tag.
    pub const CALL_START: &str = "]<]minimax[>[<tool_call>";
    /// Ends the first call: the marker and the invoke's closing tag.
    pub const CALL_END: &str = "]<]minimax[>[</invoke>";
}

/// TML Inkling: `<|message_model|>NAME<|content_invoke_tool_json|>{json}<|end_message|>`.
pub mod inkling {
    /// Opens a model message: the block's header follows.
    pub const MESSAGE_MODEL: &str = "<|message_model|>";
    /// Opens a tool block whose payload is JSON.
    pub const INVOKE_TOOL_JSON: &str = "<|content_invoke_tool_json|>";
    /// Ends a block of any kind.
    pub const END_MESSAGE: &str = "<|end_message|>";
    /// Ends sampling: also ends the block it stands in.
    pub const END_SAMPLING: &str = "<|content_model_end_sampling|>";
    /// Opens a text block (the model's own words) after the message's header.
    pub const CONTENT_TEXT: &str = "<|content_text|>";
    /// The payload's member that holds the tool's name.
    pub const NAME_MEMBER: &str = "name";
    /// The payload's member that holds the arguments.
    pub const ARGS_MEMBER: &str = "args";
}

/// Llama 4: `<|python_start|>{"name": ..., "parameters": {...}}<|python_end|>`.
pub mod llama4 {
    /// Opens the call: where the body starts.
    pub const PYTHON_START: &str = "<|python_start|>";
    /// Ends the call: the stop string that ends the model right after the first call.
    pub const PYTHON_END: &str = "<|python_end|>";
    /// The payload's member that holds the tool's name.
    pub const NAME_MEMBER: &str = "name";
    /// The payload's member that holds the arguments.
    pub const PARAMETERS_MEMBER: &str = "parameters";
    /// The payload's optional member that says what it is.
    pub const TYPE_MEMBER: &str = "type";
    /// The only value the type member may have (a JSON string, quotes included).
    pub const FUNCTION_TYPE: &str = "\"function\"";
}

/// Llama 3.2 and Llama 4's pythonic templates: the same Python list of calls as LFM's, with no
/// token around it, `[name(key='v')]` at the start of a line.
pub mod pythonic {
    /// Opens the list of calls at the start of a line, with no token before it.
    pub const LIST_OPEN: &str = "[";
    /// Closes the list: what ends the text of a list that broke.
    pub const LIST_CLOSE: &str = "]";
}

/// LFM2 / LFM2.5 (Liquid AI): a Python list of calls between two tokens,
/// `<|tool_call_start|>[name(key='v')]<|tool_call_end|>`.
pub mod lfm {
    /// Opens the list: where the body starts.
    pub const TOOL_CALL_START: &str = "<|tool_call_start|>";
    /// Ends the list: the stop string that ends the model right after the first call.
    pub const TOOL_CALL_END: &str = "<|tool_call_end|>";
}
