//! The family registry: one row per model family, one row per markup form. Everything else
//! reads it.
//!
//! A **family** is a maker's models (Claude, Qwen, Kimi...): its row gives the model-name
//! patterns that pick it, the markup forms its models write (their replies are read for these
//! only; another family's syntax is a quotation), the stop strings that end a reply right after
//! the first call, and what the documentation shows. A **form** is one syntax a call is written
//! in: its row gives the family that owns it, how a call of it may start at a line start, the
//! grammar engine that reads it, the substrings that tell its markup apart (the prose policy
//! and the loop guard watch them), how its values are trimmed and what counts as a line start.
//!
//! The scanner ([`crate::Scanner`]), the stop strings (`ctb-guard`), the model patterns and the
//! settings (the facade), the Python stubs and the generated documentation all read these
//! tables. Adding a family is a row here (and a [`Family`] constant), plus a grammar file only
//! when its shape is new, plus fixtures.
//!
//! ```
//! use ctb_invoke::registry::{FAMILIES, Family, Form};
//!
//! let qwen = Family::QWEN.row();
//! assert_eq!(qwen.code, "qwen");
//! assert!(qwen.forms.contains(&Form::HERMES));
//! assert_eq!(Form::HERMES.family(), Family::QWEN);
//! assert_eq!(Form::from_code("qwen3_coder"), Some(Form::QWEN3_CODER));
//! // Every family but the two whose forms have no end of their own stops after the first call.
//! assert_eq!(FAMILIES.iter().filter(|row| row.stops.is_empty()).count(), 2);
//! ```

use std::fmt;

use crate::forms::{gemma, inkling, llama4, minimax_m3, mistral, xtml};
use crate::grammar::Body;
use crate::vocab::{
    self, TOOL_CALL_CLOSE, deepseek, dsml, glm, grok, harmony, kimi, loops, qwen, step3,
};

pub use crate::grammar::{Family, Form};

/// How a call of a form may start at the start of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Opener {
    /// `<`, an optional namespace prefix, then this element name.
    Element(&'static str),
    /// This literal (a special token, `<function=`).
    Literal(&'static str),
    /// `<`, one of these namespace prefixes, then this element name: the element opens a call
    /// only under them (DeepSeek V4.1's `<｜DSML｜calls>`; a bare `<calls>` is a word).
    Prefixed(&'static [&'static str], &'static str),
}

impl Opener {
    /// Whether an opening tag with this prefix and local name is this opener (never for a
    /// literal).
    pub fn is_element(&self, prefix: Option<&str>, local: &str) -> bool {
        match self {
            Opener::Element(e) => *e == local,
            Opener::Prefixed(prefixes, e) => {
                *e == local && prefix.is_some_and(|p| prefixes.contains(&p))
            }
            Opener::Literal(_) => false,
        }
    }
}

/// How a form's parameter values are cut from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Values {
    /// Byte for byte between the tags.
    AsWritten,
    /// Without one line break right after the opening tag and one right before the closing
    /// tag (Qwen3-Coder writes each value on lines of its own: `prompts/a.md` + newline +
    /// `</parameter>` is the path `prompts/a.md`).
    OneLineBreak,
    /// The arguments are one JSON object: no values to trim.
    Json,
}

/// The grammar engine that reads a form.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Engine {
    /// Elements with a name attribute (`<invoke name>` and `<parameter name>`), read by the
    /// XML dispatcher and [`crate::invoke`]; the element or wrapper prefix picks the form.
    Xml,
    /// Literal key/value tags (the key/value engine), as the spec says.
    KeyValue(&'static Spec),
    /// Special tokens around a name and JSON arguments ([`crate::json_call`]).
    Tokens,
    /// A grammar file of its own (`crate::forms`): the body starts at the form's literal
    /// opener.
    Body(BodyEngine),
}

/// A form read by a body of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyEngine {
    /// The body of a call whose opener is at the offset given.
    pub(crate) new: fn(usize) -> Box<dyn Body>,
    /// What ends the text of a candidate that broke (the quotation rules read no call inside
    /// it); none when the form has no end of its own.
    pub(crate) ends: &'static [&'static str],
}

/// How a key/value form writes its call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// Where the tool name is.
    pub(crate) head: Head,
    /// How a parameter's key is written.
    pub(crate) key: Key,
    /// Closes a value.
    pub(crate) value_close: &'static str,
    /// Closes the call.
    pub(crate) call_close: &'static str,
    /// How values are cut.
    pub(crate) values: Values,
    /// The slips of the form's models the engine reads through.
    pub(crate) slips: Slips,
}

/// Slips a family's models make in their own key/value form that leave the call readable: the
/// engine reads through those the spec names and through no other. Each one is read only
/// where nothing can be misread (see `docs/forms-2026.md`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Slips {
    /// A value's closer written right after the name of a call without arguments
    /// (`<tool_call>NAME</arg_value></tool_call>`): read as nothing when the call's closer
    /// follows it after white space.
    pub(crate) closer_after_name: Option<&'static str>,
    /// A value whose opener is missing (`</arg_key>VALUE</arg_value>`): the value runs from the
    /// key's closer to the structural value closer. Refused when it starts with white space or
    /// `<`, or holds one of these literals (a key, a value's opener, the call's closer: the
    /// opener was not missing, the pair was).
    pub(crate) value_without_opener: Option<&'static [&'static str]>,
}

impl Slips {
    /// No slip is read.
    pub(crate) const NONE: Slips = Slips {
        closer_after_name: None,
        value_without_opener: None,
    };
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// Inside the opening tag: `<function=` name `>`.
    Tag(&'static str),
    /// Right where the body starts, up to a line break or `<`.
    Bare,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// Inside the parameter's opening tag: `<parameter=` key `>`, the value right after it.
    Tag(&'static str),
    /// In an element of its own (`<arg_key>` key `</arg_key>`), the value in another
    /// (`<arg_value>` value `</arg_value>`).
    Element {
        open: &'static str,
        close: &'static str,
        value_open: &'static str,
    },
}

impl Key {
    pub(crate) fn open(&self) -> &'static str {
        match self {
            Key::Tag(open) | Key::Element { open, .. } => open,
        }
    }
}

/// Qwen3-Coder's form.
pub(crate) static QWEN3_CODER: Spec = Spec {
    head: Head::Tag(qwen::FUNCTION_OPEN),
    key: Key::Tag(qwen::PARAM_OPEN),
    value_close: qwen::PARAM_CLOSE,
    call_close: qwen::FUNCTION_CLOSE,
    values: Values::OneLineBreak,
    slips: Slips::NONE,
};

/// GLM's form, with GLM-5.x's slips (vllm-project/vllm #49248, fw-ai-external/python-sdk #119).
pub(crate) static GLM: Spec = Spec {
    head: Head::Bare,
    key: Key::Element {
        open: glm::KEY_OPEN,
        close: glm::KEY_CLOSE,
        value_open: glm::VALUE_OPEN,
    },
    value_close: glm::VALUE_CLOSE,
    call_close: TOOL_CALL_CLOSE,
    values: Values::AsWritten,
    slips: Slips {
        closer_after_name: Some(glm::VALUE_CLOSE),
        value_without_opener: Some(&[
            glm::KEY_OPEN,
            glm::KEY_CLOSE,
            glm::VALUE_OPEN,
            TOOL_CALL_CLOSE,
        ]),
    },
};

/// A set of markup forms: the forms a reply is read for. A call written in a form outside the
/// set is a quotation (a Claude model quoting Qwen's documentation), not a call.
///
/// ```
/// use ctb_invoke::{Form, Forms};
/// let claude = Forms::of(&[Form::CLAUDE]);
/// assert!(claude.contains(Form::CLAUDE) && !claude.contains(Form::HERMES));
/// assert!(Forms::ALL.contains(Form::HARMONY));
/// assert_eq!(claude.with(Form::HERMES).iter().count(), 2);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Forms(u32);

impl Forms {
    /// Every form.
    pub const ALL: Forms = Forms((1 << crate::registry::FORMS.len()) - 1);
    /// No form.
    pub const NONE: Forms = Forms(0);

    /// The set of `families`.
    pub const fn of(families: &[Form]) -> Forms {
        let mut bits = 0;
        let mut i = 0;
        while i < families.len() {
            bits |= 1 << families[i].index();
            i += 1;
        }
        Forms(bits)
    }

    /// Whether `family` is in the set.
    pub const fn contains(self, family: Form) -> bool {
        self.0 & (1 << family.index()) != 0
    }

    /// The set with `family` added.
    #[must_use]
    pub const fn with(self, family: Form) -> Forms {
        Forms(self.0 | 1 << family.index())
    }

    /// The set with every form of `other` added.
    #[must_use]
    pub const fn union(self, other: Forms) -> Forms {
        Forms(self.0 | other.0)
    }

    /// The forms in the set, in the registry's order.
    pub fn iter(self) -> impl Iterator<Item = Form> {
        Form::all().filter(move |f| self.contains(*f))
    }
}

impl Default for Forms {
    /// Every form.
    fn default() -> Self {
        Forms::ALL
    }
}

impl std::fmt::Debug for Forms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// How reasoning is marked in a reply's text. A call inside reasoning is the model thinking
/// (drafting a call, weighing an instruction it read), never a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reasoning {
    /// An element, in any namespace and any case: `<think>` ... `</think>`.
    Element(&'static str),
    /// Literal tokens around it (`[THINK]` ... `[/THINK]`, a reasoning channel's header and the
    /// end of its message).
    Tokens {
        /// Opens the reasoning.
        open: &'static str,
        /// Ends it.
        close: &'static str,
    },
}

impl Reasoning {
    /// What ends this reasoning, as the documentation writes it.
    pub fn closer(&self) -> std::borrow::Cow<'static, str> {
        match self {
            Reasoning::Element(e) => format!("</{e}>").into(),
            Reasoning::Tokens { close, .. } => (*close).into(),
        }
    }
}

/// Models of a family whose chat template opens the reasoning in the prompt: their reply starts
/// inside it, and only its closer appears (Qwen3's thinking models end reasoning with a bare
/// `</think>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InPrompt {
    /// Model-name substrings (lower case) of the models whose template does it.
    pub models: &'static [&'static str],
    /// The reasoning the reply starts inside.
    pub reasoning: Reasoning,
}

impl InPrompt {
    /// Whether `model` (a model name, any case) is one of these models.
    pub fn covers(&self, model: &str) -> bool {
        let model = model.to_ascii_lowercase();
        self.models.iter().any(|m| model.contains(m))
    }
}

/// One model family.
#[derive(Debug)]
pub struct FamilyRow {
    /// The family.
    pub family: Family,
    /// The settings' name for it (`claude`, `gpt_oss`...).
    pub code: &'static str,
    /// The name people know it by.
    pub title: &'static str,
    /// Default model-name patterns that pick the family (see the facade's `ModelPatterns`).
    pub patterns: &'static [&'static str],
    /// The forms its models write, its own first: a reply is read for these only.
    pub forms: &'static [Form],
    /// Stops that end a reply right after the first call (the provider cuts before them; the
    /// call's end is then written again).
    pub stops: &'static [&'static str],
    /// Stops that end a degenerate loop in its first repetition.
    pub loop_stops: &'static [&'static str],
    /// How its models mark reasoning in their replies. Every family's marks are read in every
    /// reply (a call inside any of them is not meant); the column says who writes which.
    pub reasoning: &'static [Reasoning],
    /// The models whose chat template opens the reasoning in the prompt, if any.
    pub reasoning_in_prompt: Option<InPrompt>,
    /// Whether a complete call that is the last thing inside the reasoning, followed only by the
    /// reasoning's closer and the end of the reply, is meant (Qwen 3.5 writes its only call
    /// there and ends its turn). Decided on the finished reply only.
    pub call_ends_reasoning: bool,
}

/// One markup form.
#[derive(Debug)]
pub struct FormRow {
    /// The form.
    pub form: Form,
    /// Its name in decisions and logs (`claude`, `qwen3_coder`, `hermes`...).
    pub code: &'static str,
    /// The family whose models write it natively.
    pub family: Family,
    /// What the markup looks like, for the documentation.
    pub looks: &'static str,
    /// How a call may start at a line start.
    pub openers: &'static [Opener],
    /// Substrings that tell this form's markup in a text (the prose policy never sends a reply
    /// holding one through `response`).
    pub markers: &'static [&'static str],
    /// How values are cut.
    pub values: Values,
    /// Tokens after which a call may start as at a line start, in a line of the reply's own
    /// text (harmony: a message boundary joined on one line).
    pub boundaries: &'static [&'static str],
    /// Openers that start a call wherever they stand in a line of the reply's own text, glued
    /// to the prose before them (Mistral's `[TOOL_CALLS]`, DeepSeek V4's block opener after
    /// `Let me check. `).
    pub glued: &'static [Opener],
    /// Tokens that frame the reply's own text in this form (channel and message markers): not
    /// the model's words, so the prose before a call drops them ([`Form::unframe`]).
    pub framing: &'static [&'static str],
    pub(crate) engine: Engine,
}

impl Family {
    /// Claude (Anthropic).
    pub const CLAUDE: Family = Family(0);
    /// MiniMax M2 and later.
    pub const MINIMAX: Family = Family(1);
    /// DeepSeek V3, V3.1, V3.2 and V4.
    pub const DEEPSEEK: Family = Family(2);
    /// Qwen (Qwen3-Coder, Qwen 3.5, Hermes-style fine-tunes).
    pub const QWEN: Family = Family(3);
    /// GLM 4.5 to 4.7 and GLM-5.x.
    pub const GLM: Family = Family(4);
    /// Kimi K2 (Moonshot).
    pub const KIMI: Family = Family(5);
    /// gpt-oss (harmony).
    pub const GPT_OSS: Family = Family(6);
    /// Grok (xAI).
    pub const GROK: Family = Family(7);
    /// StepFun's Step-3.
    pub const STEPFUN: Family = Family(8);
    /// Gemma 4 (Google).
    pub const GEMMA: Family = Family(9);
    /// Mistral, Devstral, Mistral Small.
    pub const MISTRAL: Family = Family(10);
    /// TML Inkling.
    pub const INKLING: Family = Family(11);
    /// Llama 4 (Meta).
    pub const LLAMA: Family = Family(12);
}

impl Form {
    /// `<invoke name>` with `<parameter name>` children, bare or namespace-prefixed, optionally
    /// in `<function_calls>`.
    pub const CLAUDE: Form = Form(0);
    /// Claude's form inside `<minimax:tool_call>`.
    pub const MINIMAX: Form = Form(1);
    /// Claude's form in DeepSeek's full-width namespace (`<｜DSML｜invoke>`).
    pub const DEEPSEEK_DSML: Form = Form(2);
    /// Claude's form after StepFun's tokens (`<steptml:invoke>`).
    pub const STEP3: Form = Form(3);
    /// Grok's `<xai:function_call name>` with `<parameter name>` children.
    pub const GROK: Form = Form(4);
    /// Qwen3-Coder: `<function=name>` with `<parameter=key>` children.
    pub const QWEN3_CODER: Form = Form(5);
    /// GLM: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>`.
    pub const GLM: Form = Form(6);
    /// Hermes-style `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    pub const HERMES: Form = Form(7);
    /// Kimi K2's section tokens around `functions.name:0` and JSON arguments.
    pub const KIMI: Form = Form(8);
    /// DeepSeek V3 / V3.1 tokens around a name and JSON arguments.
    pub const DEEPSEEK: Form = Form(9);
    /// gpt-oss (harmony): `<|channel|>commentary to=functions.name ... <|message|>{json}<|call|>`.
    pub const HARMONY: Form = Form(10);
    /// Kimi K3's XTML: `<|open|>call tool="name"<|sep|>` with `<|open|>argument key=...`.
    pub const KIMI_XTML: Form = Form(11);
    /// MiniMax-M3: `]<]minimax[>[` before every tag, parameters named by their tags.
    pub const MINIMAX_M3: Form = Form(12);
    /// Gemma 4: `<|tool_call>call:name{key:<|"|>text<|"|>}<tool_call|>`.
    pub const GEMMA: Form = Form(13);
    /// Mistral: `[TOOL_CALLS]name[ARGS]{...}` or `[TOOL_CALLS][{"name", "arguments"}]`.
    pub const MISTRAL: Form = Form(14);
    /// TML Inkling: `<|content_invoke_tool_json|>{"name": ..., "args": {...}}<|end_message|>`.
    pub const INKLING: Form = Form(15);
    /// Llama 4: `<|python_start|>{"name": ..., "parameters": {...}}<|python_end|>`.
    pub const LLAMA4: Form = Form(16);
}

/// The families, in the order the settings and documentation list them.
pub static FAMILIES: [FamilyRow; 13] = [
    FamilyRow {
        family: Family::CLAUDE,
        code: "claude",
        title: "Claude",
        patterns: &["claude"],
        forms: &[Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL],
        loop_stops: &[loops::EMPTY_CALL, loops::PLACEHOLDER, loops::PREFIX_CHAIN],
        reasoning: &[
            Reasoning::Element(vocab::reasoning::ELEMENTS[1]),
            Reasoning::Element(vocab::reasoning::ELEMENTS[2]),
            Reasoning::Element(vocab::reasoning::ELEMENTS[0]),
        ],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::MINIMAX,
        code: "minimax",
        title: "MiniMax",
        patterns: &["minimax"],
        forms: &[Form::MINIMAX, Form::MINIMAX_M3, Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL],
        loop_stops: &[],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::DEEPSEEK,
        code: "deepseek",
        title: "DeepSeek",
        patterns: &["deepseek"],
        forms: &[Form::DEEPSEEK_DSML, Form::DEEPSEEK, Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL, deepseek::CALL_END],
        loop_stops: &[],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: Some(InPrompt {
            models: &["r1", "reasoner"],
            reasoning: Reasoning::Element(vocab::reasoning::ELEMENTS[0]),
        }),
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::QWEN,
        code: "qwen",
        title: "Qwen",
        patterns: &["qwen"],
        forms: &[Form::QWEN3_CODER, Form::HERMES],
        stops: &[qwen::END_OF_FUNCTION, vocab::TOOL_CALL_CLOSE],
        loop_stops: &[],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: Some(InPrompt {
            models: &["thinking", "qwq", "qwen3.5", "qwen3.6"],
            reasoning: Reasoning::Element(vocab::reasoning::ELEMENTS[0]),
        }),
        call_ends_reasoning: true,
    },
    FamilyRow {
        family: Family::GLM,
        code: "glm",
        title: "GLM",
        patterns: &["glm"],
        forms: &[Form::GLM],
        stops: &[vocab::TOOL_CALL_CLOSE],
        loop_stops: &[],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::KIMI,
        code: "kimi",
        title: "Kimi",
        patterns: &["kimi", "moonshot"],
        forms: &[Form::KIMI, Form::KIMI_XTML],
        stops: &[kimi::CALL_END, vocab::kimi_k3::CALL_CLOSE],
        loop_stops: &[],
        reasoning: &[
            Reasoning::Element(vocab::reasoning::ELEMENTS[0]),
            Reasoning::Tokens {
                open: vocab::kimi_k3::THINK_OPEN,
                close: vocab::kimi_k3::THINK_CLOSE,
            },
        ],
        reasoning_in_prompt: Some(InPrompt {
            models: &["k3"],
            reasoning: Reasoning::Tokens {
                open: vocab::kimi_k3::THINK_OPEN,
                close: vocab::kimi_k3::THINK_CLOSE,
            },
        }),
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::GPT_OSS,
        code: "gpt_oss",
        title: "gpt-oss",
        patterns: &["gpt-oss"],
        forms: &[Form::HARMONY],
        stops: &[harmony::CALL],
        loop_stops: &[],
        reasoning: &[Reasoning::Tokens {
            open: harmony::ANALYSIS_HEADER,
            close: harmony::END,
        }],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::GROK,
        code: "grok",
        title: "Grok",
        patterns: &["grok"],
        forms: &[Form::GROK],
        stops: &[grok::CLOSE],
        loop_stops: &[],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::STEPFUN,
        code: "stepfun",
        title: "StepFun",
        patterns: &["stepfun", "step-3", "step3"],
        forms: &[Form::STEP3, Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL],
        loop_stops: &[],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::GEMMA,
        code: "gemma",
        title: "Gemma",
        patterns: &["gemma"],
        forms: &[Form::GEMMA],
        stops: &[vocab::gemma::CALL_CLOSE],
        loop_stops: &[],
        reasoning: &[Reasoning::Tokens {
            open: vocab::reasoning::GEMMA_OPEN,
            close: vocab::reasoning::GEMMA_CLOSE,
        }],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::MISTRAL,
        code: "mistral",
        title: "Mistral",
        patterns: &[
            "mistral",
            "devstral",
            "mixtral",
            "ministral",
            "magistral",
            "codestral",
        ],
        forms: &[Form::MISTRAL],
        // The form has no closing token: the call ends with its JSON value.
        stops: &[],
        loop_stops: &[],
        reasoning: &[Reasoning::Tokens {
            open: vocab::reasoning::MISTRAL_OPEN,
            close: vocab::reasoning::MISTRAL_CLOSE,
        }],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::INKLING,
        code: "inkling",
        title: "TML Inkling",
        patterns: &["inkling"],
        forms: &[Form::INKLING],
        // `<|end_message|>` ends every block, text included: no stop is safe.
        stops: &[],
        loop_stops: &[],
        reasoning: &[Reasoning::Tokens {
            open: vocab::reasoning::INKLING_OPEN,
            close: vocab::inkling::END_MESSAGE,
        }],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
    FamilyRow {
        family: Family::LLAMA,
        code: "llama",
        title: "Llama 4",
        patterns: &["llama-4", "llama4"],
        forms: &[Form::LLAMA4],
        stops: &[vocab::llama4::PYTHON_END],
        loop_stops: &[],
        reasoning: &[],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    },
];

/// The forms. The order decides nothing but the documentation's.
pub static FORMS: [FormRow; 17] = [
    FormRow {
        form: Form::CLAUDE,
        code: "claude",
        family: Family::CLAUDE,
        looks: "`<invoke name>` / `<parameter name>`, bare or namespace-prefixed, maybe inside \
                `<function_calls>`",
        openers: &[
            Opener::Element(vocab::INVOKE),
            Opener::Element("function_calls"),
            Opener::Element("tool_calls"),
            Opener::Element("tool_call"),
        ],
        markers: &[
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
        ],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Xml,
    },
    FormRow {
        form: Form::MINIMAX,
        code: "minimax",
        family: Family::MINIMAX,
        looks: "Claude's elements inside `<minimax:tool_call>`",
        openers: &[Opener::Element("tool_call")],
        markers: &["tool_call>", "<tool_call"],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Xml,
    },
    FormRow {
        form: Form::DEEPSEEK_DSML,
        code: "deepseek_dsml",
        family: Family::DEEPSEEK,
        looks: "DSML: `<｜DSML｜invoke name>` / `<｜DSML｜parameter name string=\"true\">`",
        openers: &[
            Opener::Element("function_calls"),
            Opener::Element("tool_calls"),
            Opener::Prefixed(&dsml::SENTINELS, dsml::CALLS),
            Opener::Element(vocab::INVOKE),
        ],
        markers: &dsml::SENTINELS,
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[0]),
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[1]),
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[2]),
        ],
        framing: &[],
        engine: Engine::Xml,
    },
    FormRow {
        form: Form::STEP3,
        code: "step3",
        family: Family::STEPFUN,
        looks: "StepFun's tokens, then `<steptml:invoke name>`",
        openers: &[
            Opener::Literal(step3::CALLS_BEGIN),
            Opener::Literal(step3::CALL_BEGIN),
        ],
        markers: &[step3::CALLS_BEGIN, step3::CALL_BEGIN],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Tokens,
    },
    FormRow {
        form: Form::GROK,
        code: "grok",
        family: Family::GROK,
        looks: "`<xai:function_call name>` with `<parameter>` children (its closing tag often \
                garbled)",
        openers: &[Opener::Element(grok::ELEMENT)],
        markers: &["function_call>", "xai:function_call"],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Xml,
    },
    FormRow {
        form: Form::QWEN3_CODER,
        code: "qwen3_coder",
        family: Family::QWEN,
        looks: "`<tool_call><function=name><parameter=key>`",
        openers: &[
            Opener::Literal(qwen::FUNCTION_OPEN),
            Opener::Element("tool_call"),
        ],
        markers: &[qwen::FUNCTION_OPEN, "tool_call>"],
        values: Values::OneLineBreak,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::KeyValue(&QWEN3_CODER),
    },
    FormRow {
        form: Form::GLM,
        code: "glm",
        family: Family::GLM,
        looks: "`<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>`",
        openers: &[Opener::Element("tool_call")],
        markers: &[glm::KEY_OPEN, "tool_call>"],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::KeyValue(&GLM),
    },
    FormRow {
        form: Form::HERMES,
        code: "hermes",
        family: Family::QWEN,
        looks: "`<tool_call>{\"name\", \"arguments\"}</tool_call>`",
        openers: &[Opener::Element("tool_call")],
        markers: &["tool_call>", "<tool_call"],
        values: Values::Json,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Tokens,
    },
    FormRow {
        form: Form::KIMI,
        code: "kimi",
        family: Family::KIMI,
        looks: "`<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}`",
        openers: &[
            Opener::Literal(kimi::SECTION_BEGIN),
            Opener::Literal(kimi::CALL_BEGIN),
        ],
        markers: &[kimi::SECTION_BEGIN, kimi::CALL_BEGIN],
        values: Values::Json,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Tokens,
    },
    FormRow {
        form: Form::DEEPSEEK,
        code: "deepseek",
        family: Family::DEEPSEEK,
        looks: "V3 / V3.1 special tokens with JSON arguments",
        openers: &[
            Opener::Literal(deepseek::CALLS_BEGIN),
            Opener::Literal(deepseek::CALL_BEGIN),
        ],
        markers: &[deepseek::CALLS_BEGIN, deepseek::CALL_BEGIN],
        values: Values::Json,
        boundaries: &[],
        glued: &[],
        framing: &[],
        engine: Engine::Tokens,
    },
    FormRow {
        form: Form::HARMONY,
        code: "harmony",
        family: Family::GPT_OSS,
        looks: "harmony channels: `to=functions.name ... <|message|>{...}<|call|>`",
        openers: &[
            Opener::Literal(harmony::START),
            Opener::Literal(harmony::CHANNEL),
        ],
        markers: &[harmony::START, harmony::CHANNEL],
        values: Values::Json,
        boundaries: &[harmony::END, harmony::CALL, harmony::RETURN],
        glued: &[],
        framing: &[
            vocab::harmony::ASSISTANT_START,
            vocab::harmony::ANALYSIS_HEADER,
            vocab::harmony::FINAL_HEADER,
            vocab::harmony::COMMENTARY_HEADER,
            vocab::harmony::END,
            vocab::harmony::RETURN,
        ],
        engine: Engine::Tokens,
    },
    FormRow {
        form: Form::KIMI_XTML,
        code: "kimi_xtml",
        family: Family::KIMI,
        looks: "XTML: `<|open|>tools<|sep|><|open|>call tool=\"name\"<|sep|>` with \
                `<|open|>argument key=\"k\" type=\"t\"<|sep|>`",
        openers: &[Opener::Literal(vocab::kimi_k3::TOOLS_OPEN)],
        markers: &[vocab::kimi_k3::TOOLS_OPEN, vocab::kimi_k3::CALL_OPEN],
        values: Values::AsWritten,
        boundaries: &[vocab::kimi_k3::THINK_CLOSE, vocab::kimi_k3::RESPONSE_CLOSE],
        glued: &[],
        framing: &[
            vocab::kimi_k3::THINK_OPEN,
            vocab::kimi_k3::THINK_CLOSE,
            vocab::kimi_k3::RESPONSE_OPEN,
            vocab::kimi_k3::RESPONSE_CLOSE,
        ],
        engine: Engine::Body(BodyEngine {
            new: |at| Box::new(xtml::Xtml::new(at)),
            ends: &[vocab::kimi_k3::CALL_CLOSE, vocab::kimi_k3::TOOLS_CLOSE],
        }),
    },
    FormRow {
        form: Form::MINIMAX_M3,
        code: "minimax_m3",
        family: Family::MINIMAX,
        looks: "`]<]minimax[>[` before every tag; `<invoke name>` with `<key>value</key>` children",
        openers: &[Opener::Literal(vocab::minimax_m3::CALL_START)],
        markers: &[vocab::minimax_m3::MARKER],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[Opener::Literal(vocab::minimax_m3::CALL_START)],
        framing: &[],
        engine: Engine::Body(BodyEngine {
            new: |at| Box::new(minimax_m3::MiniMaxM3::new(at)),
            ends: &[vocab::minimax_m3::CALL_END],
        }),
    },
    FormRow {
        form: Form::GEMMA,
        code: "gemma",
        family: Family::GEMMA,
        looks: "`<|tool_call>call:name{key:<|\"|>text<|\"|>}<tool_call|>`",
        openers: &[Opener::Literal(vocab::gemma::CALL_OPEN)],
        markers: &[vocab::gemma::CALL_OPEN, vocab::gemma::CALL_CLOSE],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[Opener::Literal(vocab::gemma::CALL_OPEN)],
        framing: &[],
        engine: Engine::Body(BodyEngine {
            new: |at| Box::new(gemma::Gemma::new(at)),
            ends: &[vocab::gemma::CALL_CLOSE],
        }),
    },
    FormRow {
        form: Form::MISTRAL,
        code: "mistral",
        family: Family::MISTRAL,
        looks: "`[TOOL_CALLS]name[ARGS]{...}` or `[TOOL_CALLS] [{\"name\", \"arguments\"}]`",
        openers: &[Opener::Literal(vocab::mistral::TOOL_CALLS)],
        markers: &[vocab::mistral::TOOL_CALLS],
        values: Values::Json,
        boundaries: &[],
        glued: &[Opener::Literal(vocab::mistral::TOOL_CALLS)],
        framing: &[],
        engine: Engine::Body(BodyEngine {
            new: |at| Box::new(mistral::Mistral::new(at)),
            ends: &[],
        }),
    },
    FormRow {
        form: Form::INKLING,
        code: "inkling",
        family: Family::INKLING,
        looks: "`<|message_model|>name<|content_invoke_tool_json|>{\"name\", \"args\"}<|end_message|>`",
        openers: &[
            Opener::Literal(vocab::inkling::MESSAGE_MODEL),
            Opener::Literal(vocab::inkling::INVOKE_TOOL_JSON),
        ],
        markers: &[vocab::inkling::INVOKE_TOOL_JSON],
        values: Values::Json,
        boundaries: &[vocab::inkling::END_MESSAGE, vocab::inkling::END_SAMPLING],
        glued: &[Opener::Literal(vocab::inkling::MESSAGE_MODEL)],
        framing: &[
            vocab::inkling::MESSAGE_MODEL,
            vocab::inkling::CONTENT_TEXT,
            vocab::inkling::END_MESSAGE,
        ],
        engine: Engine::Body(BodyEngine {
            new: |at| Box::new(inkling::Inkling::new(at)),
            ends: &[vocab::inkling::END_MESSAGE, vocab::inkling::END_SAMPLING],
        }),
    },
    FormRow {
        form: Form::LLAMA4,
        code: "llama4",
        family: Family::LLAMA,
        looks: "`<|python_start|>{\"name\", \"parameters\"}<|python_end|>`",
        openers: &[Opener::Literal(vocab::llama4::PYTHON_START)],
        markers: &[vocab::llama4::PYTHON_START],
        values: Values::Json,
        boundaries: &[],
        glued: &[Opener::Literal(vocab::llama4::PYTHON_START)],
        framing: &[],
        engine: Engine::Body(BodyEngine {
            new: |at| Box::new(llama4::Llama4::new(at)),
            ends: &[vocab::llama4::PYTHON_END],
        }),
    },
];

impl Family {
    /// Every family, in the registry's order.
    pub fn all() -> impl Iterator<Item = Family> {
        FAMILIES.iter().map(|r| r.family)
    }

    /// The family's row.
    pub fn row(self) -> &'static FamilyRow {
        &FAMILIES[usize::from(self.0)]
    }

    /// The settings' name (`claude`, `gpt_oss`...).
    pub fn code(self) -> &'static str {
        self.row().code
    }

    /// The family with this settings name.
    pub fn from_code(code: &str) -> Option<Family> {
        FAMILIES.iter().find(|r| r.code == code).map(|r| r.family)
    }

    /// The reasoning `model`'s reply starts inside, when its chat template opens it in the
    /// prompt ([`FamilyRow::reasoning_in_prompt`]).
    pub fn reasoning_in_prompt(self, model: &str) -> Option<Reasoning> {
        self.row()
            .reasoning_in_prompt
            .filter(|p| p.covers(model))
            .map(|p| p.reasoning)
    }

    /// The forms its models write.
    pub fn forms(self) -> Forms {
        self.row()
            .forms
            .iter()
            .fold(Forms::NONE, |set, form| set.with(*form))
    }
}

impl Form {
    /// `prose` (the text before a call in this form) without the form's framing tokens
    /// ([`FormRow::framing`]): the pieces between them, each trimmed, the empty ones left out,
    /// joined by blank lines. Unchanged when it holds none. One search per token.
    ///
    /// ```
    /// use ctb_invoke::registry::Form;
    ///
    /// let prose = "<|message_model|><|content_text|>Checking the disk.<|end_message|>";
    /// assert_eq!(Form::INKLING.unframe(prose), "Checking the disk.");
    /// assert_eq!(Form::CLAUDE.unframe("Let me look."), "Let me look.");
    /// ```
    pub fn unframe(self, prose: &str) -> std::borrow::Cow<'_, str> {
        let tokens = self.row().framing;
        let b = prose.as_bytes();
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        for t in tokens {
            cuts.extend(memchr::memmem::find_iter(b, t.as_bytes()).map(|at| (at, at + t.len())));
        }
        if cuts.is_empty() {
            return std::borrow::Cow::Borrowed(prose);
        }
        cuts.sort_unstable();
        let mut out = String::with_capacity(prose.len());
        let mut from = 0;
        for (start, end) in cuts.into_iter().chain([(prose.len(), prose.len())]) {
            if start < from {
                // Overlaps a token already cut.
                continue;
            }
            let piece = prose[from..start].trim();
            if !piece.is_empty() {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(piece);
            }
            from = end;
        }
        std::borrow::Cow::Owned(out)
    }

    /// Every form, in the registry's order.
    pub fn all() -> impl Iterator<Item = Form> {
        FORMS.iter().map(|r| r.form)
    }

    /// The form's row.
    pub fn row(self) -> &'static FormRow {
        &FORMS[usize::from(self.0)]
    }

    /// Its name in decisions and logs.
    pub fn code(self) -> &'static str {
        self.row().code
    }

    /// The form with this name.
    pub fn from_code(code: &str) -> Option<Form> {
        FORMS.iter().find(|r| r.code == code).map(|r| r.form)
    }

    /// The family that writes it natively.
    pub fn family(self) -> Family {
        self.row().family
    }

    /// Its bit in a [`Forms`] set.
    pub(crate) const fn index(self) -> u32 {
        self.0 as u32
    }
}

impl fmt::Debug for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Debug for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Every marker of every form: a text holding one holds call markup of some family.
pub fn all_markers() -> impl Iterator<Item = &'static str> {
    FORMS.iter().flat_map(|r| r.markers.iter().copied())
}

/// Where a reasoning closer that ends `text` starts (white space after it allowed): any
/// family's ([`reasoning_marks`]), an element's closing tag in any namespace and any case.
pub fn reasoning_closer_ending(text: &str) -> Option<usize> {
    let trimmed = text.trim_end();
    for mark in reasoning_marks() {
        match *mark {
            Reasoning::Tokens { close, .. } => {
                if let Some(head) = trimmed.strip_suffix(close) {
                    return Some(head.len());
                }
            }
            Reasoning::Element(e) => {
                let Some(body) = trimmed.strip_suffix('>') else {
                    continue;
                };
                let body = body.trim_end();
                let Some(lt) = body.rfind(vocab::END_TAG) else {
                    continue;
                };
                let name = &body[lt + 2..];
                let local = name.rsplit(':').next().unwrap_or(name);
                if local.eq_ignore_ascii_case(e) && name.len() - local.len() <= 64 {
                    return Some(lt);
                }
            }
        }
    }
    None
}

/// The literal tags and tokens of every reasoning mark, bare (`<think>`, `</think>`,
/// `[THINK]`, `[/THINK]`, a channel's header and end...): the prose before a call keeps the
/// reasoning's words as thoughts and drops these.
pub fn reasoning_tags() -> &'static [String] {
    static TAGS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TAGS.get_or_init(|| {
        let mut out = Vec::new();
        for mark in reasoning_marks() {
            match *mark {
                Reasoning::Element(e) => {
                    out.push(format!("<{e}>"));
                    out.push(format!("{}{e}>", vocab::END_TAG));
                }
                Reasoning::Tokens { open, close } => {
                    out.push(open.to_owned());
                    out.push(close.to_owned());
                }
            }
        }
        out.sort_by_key(|t| std::cmp::Reverse(t.len()));
        out.dedup();
        out
    })
}

/// Every family's reasoning marks, each once, in the registry's order: every reply is read for
/// all of them.
pub fn reasoning_marks() -> &'static [Reasoning] {
    static MARKS: std::sync::OnceLock<Vec<Reasoning>> = std::sync::OnceLock::new();
    MARKS.get_or_init(|| {
        let mut out: Vec<Reasoning> = Vec::new();
        for mark in FAMILIES.iter().flat_map(|r| r.reasoning) {
            if !out.contains(mark) {
                out.push(*mark);
            }
        }
        out
    })
}

/// The special tokens a call may start with at a line start (the literal openers).
pub fn literal_openers() -> impl Iterator<Item = (&'static str, Form)> {
    FORMS.iter().flat_map(|r| {
        r.openers.iter().filter_map(move |o| match o {
            Opener::Literal(l) => Some((*l, r.form)),
            Opener::Element(_) | Opener::Prefixed(..) => None,
        })
    })
}

/// Whether an element with this prefix and local name may start a call at a line start.
pub fn element_opens(prefix: Option<&str>, local: &str) -> bool {
    // The element openers of every form, each once (a dozen, looked up per tag).
    static ELEMENTS: std::sync::OnceLock<Vec<&'static Opener>> = std::sync::OnceLock::new();
    ELEMENTS
        .get_or_init(|| {
            let mut out: Vec<&'static Opener> = Vec::new();
            for o in FORMS.iter().flat_map(|r| r.openers) {
                if !matches!(o, Opener::Literal(_)) && !out.contains(&o) {
                    out.push(o);
                }
            }
            out
        })
        .iter()
        .any(|o| o.is_element(prefix, local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unframe_keeps_the_words_between_a_forms_framing_tokens() {
        let cases = [
            (
                Form::HARMONY,
                "<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>",
                "Need the weather.",
            ),
            (
                Form::KIMI_XTML,
                "thinking it over<|close|>think<|sep|><|open|>response<|sep|>answer<|close|>response<|sep|>",
                "thinking it over\n\nanswer",
            ),
            (
                Form::INKLING,
                "<|message_model|><|content_text|> I'll check. <|end_message|>",
                "I'll check.",
            ),
            (Form::KIMI_XTML, "<|close|>think<|sep|>", ""),
            // Another form's tokens, or none, leave the text as it is.
            (
                Form::CLAUDE,
                "<|channel|>analysis<|message|>x",
                "<|channel|>analysis<|message|>x",
            ),
            (Form::HARMONY, "  plain words  ", "  plain words  "),
        ];
        for (form, prose, want) in cases {
            assert_eq!(form.unframe(prose), want, "{form:?} {prose:?}");
        }
        // Every framing token is a token of its form's family, never a word of prose.
        for row in &FORMS {
            for t in row.framing {
                assert!(t.starts_with("<|"), "{t:?}");
            }
        }
    }

    #[test]
    fn scanners_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<crate::Scanner>();
    }

    #[test]
    fn rows_are_in_step_with_their_constants() {
        for (i, row) in FAMILIES.iter().enumerate() {
            assert_eq!(usize::from(row.family.0), i, "{}", row.code);
            assert!(
                !row.forms.is_empty() && !row.patterns.is_empty(),
                "{}",
                row.code
            );
            assert_eq!(
                row.forms[0].family(),
                row.family,
                "{}: its own form first",
                row.code
            );
        }
        for (i, row) in FORMS.iter().enumerate() {
            assert_eq!(usize::from(row.form.0), i, "{}", row.code);
            assert!(row.family.row().forms.contains(&row.form), "{}", row.code);
            assert!(
                !row.openers.is_empty() && !row.markers.is_empty(),
                "{}",
                row.code
            );
        }
        assert!(FORMS.len() <= 32, "Forms is a 32-bit set");
        for row in &FORMS {
            for glued in row.glued {
                let opens = match glued {
                    Opener::Literal(_) => row.openers.contains(glued),
                    Opener::Prefixed(prefixes, local) => prefixes
                        .iter()
                        .all(|p| row.openers.iter().any(|o| o.is_element(Some(p), local))),
                    Opener::Element(local) => row.openers.iter().any(|o| o.is_element(None, local)),
                };
                assert!(
                    opens,
                    "{}: a glued opener is one of the form's openers",
                    row.code
                );
            }
        }
        let codes: std::collections::HashSet<_> = FAMILIES.iter().map(|r| r.code).collect();
        assert_eq!(codes.len(), FAMILIES.len());
        let codes: std::collections::HashSet<_> = FORMS.iter().map(|r| r.code).collect();
        assert_eq!(codes.len(), FORMS.len());
    }
}
