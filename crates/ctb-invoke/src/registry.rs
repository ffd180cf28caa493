//! The family registry: the two tables everything else reads, one row per model family
//! ([`FAMILIES`]) and one row per markup form ([`FORMS`]), and nothing else. What a row's
//! columns mean, and the lookups over the tables, are in `registry/row.rs` (re-exported here);
//! the words the rows name are the vocabulary's ([`crate::vocab`]); the engine and spec a form
//! row names are a file of `forms/`.
//!
//! A **family** is a maker's models (Claude, Qwen, Kimi...): its row gives the model-name
//! patterns that pick it, the markup forms its models write (their replies are read for these
//! only; another family's syntax is a quotation), the stop strings that end a reply right after
//! the first call, how its models mark reasoning, and what the documentation shows. A **form**
//! is one syntax a call is written in: its row gives the family that owns it, how a call of it
//! may start at a line start (and inside a line), the elements that may wrap it, the substrings
//! that tell its markup apart (the prose policy and the loop guard watch them), how its values
//! are cut, the tokens that frame the reply's own text, and the engine (with its spec) that
//! reads it. Columns a row does not name take their defaults (`FormRow::DEFAULT`,
//! `FamilyRow::DEFAULT`).
//!
//! The scanner ([`crate::Scanner`]), the stop strings (`ctb-guard`), the model patterns and the
//! settings (the facade), the Python stubs and the generated documentation all read these
//! tables. Adding a family is a [`Family`] constant and a row here, a [`Form`] constant and a
//! row for each form it brings (its spec beside its engine in `forms/`, a new engine
//! file only when its shape is new), its words in the vocabulary, and its kit: the checklist is
//! in ARCHITECTURE.md, and a test asks for every part.
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

mod row;

pub use row::*;

pub use crate::grammar::{Family, Form, Values};

use crate::forms::{Engine, element, header_json, json_object, key_value, pythonic};
use crate::vocab::{
    self, deepseek, dsml, gemini, gemma, grok, harmony, inkling, kimi, kimi_k3, lfm, llama4, loops,
    markers, minimax_m3, mistral, qwen, step3,
};

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
    /// Llama 3.2 and Llama 4 (Meta).
    pub const LLAMA: Family = Family(12);
    /// Gemini 3 (Google).
    pub const GEMINI: Family = Family(13);
    /// MiMo (Xiaomi).
    pub const MIMO: Family = Family(14);
    /// LFM2 and LFM2.5 (Liquid AI).
    pub const LFM: Family = Family(15);
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
    /// Gemini 3: `<call_record tool="name">` with `<parameter name>` children.
    pub const GEMINI: Form = Form(17);
    /// MiMo: Qwen3-Coder's `<tool_call><function=name>`, glued to the prose, values as written.
    pub const MIMO: Form = Form(18);
    /// LFM2 / LFM2.5: `<|tool_call_start|>[name(key='v', n=3)]<|tool_call_end|>`.
    pub const LFM: Form = Form(19);
    /// Llama 3.2 and Llama 4's pythonic list with no token: `[name(key='v', n=3)]` at the
    /// start of a line.
    pub const PYTHONIC: Form = Form(20);
}

/// The families, in the order the settings and documentation list them.
pub static FAMILIES: [FamilyRow; 16] = [
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
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::MINIMAX,
        code: "minimax",
        title: "MiniMax",
        patterns: &["minimax"],
        forms: &[Form::MINIMAX, Form::MINIMAX_M3, Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::DEEPSEEK,
        code: "deepseek",
        title: "DeepSeek",
        patterns: &["deepseek"],
        forms: &[Form::DEEPSEEK_DSML, Form::DEEPSEEK, Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL, deepseek::CALL_END],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: Some(InPrompt {
            models: &["r1", "reasoner"],
            reasoning: Reasoning::Element(vocab::reasoning::ELEMENTS[0]),
        }),
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::QWEN,
        code: "qwen",
        title: "Qwen",
        patterns: &["qwen"],
        forms: &[Form::QWEN3_CODER, Form::HERMES],
        stops: &[qwen::END_OF_FUNCTION, vocab::TOOL_CALL_CLOSE],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        reasoning_in_prompt: Some(InPrompt {
            models: &["thinking", "qwq", "qwen3.5", "qwen3.6"],
            reasoning: Reasoning::Element(vocab::reasoning::ELEMENTS[0]),
        }),
        call_ends_reasoning: true,
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::GLM,
        code: "glm",
        title: "GLM",
        patterns: &["glm"],
        forms: &[Form::GLM],
        stops: &[vocab::TOOL_CALL_CLOSE],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::KIMI,
        code: "kimi",
        title: "Kimi",
        patterns: &["kimi", "moonshot"],
        forms: &[Form::KIMI, Form::KIMI_XTML],
        stops: &[kimi::CALL_END, vocab::kimi_k3::CALL_CLOSE],
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
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::GPT_OSS,
        code: "gpt_oss",
        title: "gpt-oss",
        patterns: &["gpt-oss"],
        forms: &[Form::HARMONY],
        stops: &[harmony::CALL],
        reasoning: &[Reasoning::Tokens {
            open: harmony::ANALYSIS_HEADER,
            close: harmony::END,
        }],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::GROK,
        code: "grok",
        title: "Grok",
        patterns: &["grok"],
        forms: &[Form::GROK],
        stops: &[grok::CLOSE],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::STEPFUN,
        code: "stepfun",
        title: "StepFun",
        patterns: &["stepfun", "step-3", "step3"],
        forms: &[Form::STEP3, Form::CLAUDE],
        stops: &[vocab::INVOKE_CLOSE_TAIL],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::GEMMA,
        code: "gemma",
        title: "Gemma",
        patterns: &["gemma"],
        forms: &[Form::GEMMA],
        stops: &[vocab::gemma::CALL_CLOSE],
        reasoning: &[Reasoning::Tokens {
            open: vocab::reasoning::GEMMA_OPEN,
            close: vocab::reasoning::GEMMA_CLOSE,
        }],
        ..FamilyRow::DEFAULT
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
        reasoning: &[Reasoning::Tokens {
            open: vocab::reasoning::MISTRAL_OPEN,
            close: vocab::reasoning::MISTRAL_CLOSE,
        }],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::INKLING,
        code: "inkling",
        title: "TML Inkling",
        patterns: &["inkling"],
        forms: &[Form::INKLING],
        // `<|end_message|>` ends every block, text included: no stop is safe.
        stops: &[],
        reasoning: &[Reasoning::Tokens {
            open: vocab::reasoning::INKLING_OPEN,
            close: vocab::inkling::END_MESSAGE,
        }],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::LLAMA,
        code: "llama",
        title: "Llama",
        // Llama 3.2 and 4, whose templates ask for the pythonic list; Llama 3.1 and 3.3 write
        // untagged JSON, which no form reads.
        patterns: &["llama-4", "llama4", "llama-3.2", "llama3.2"],
        forms: &[Form::LLAMA4, Form::PYTHONIC],
        stops: &[vocab::llama4::PYTHON_END],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::GEMINI,
        code: "gemini",
        title: "Gemini",
        patterns: &["gemini"],
        forms: &[Form::GEMINI],
        stops: &[gemini::CLOSE_TAIL],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::MIMO,
        code: "mimo",
        title: "MiMo",
        patterns: &["mimo"],
        // MiMo V2.5 also writes Claude's elements (in any namespace).
        forms: &[Form::MIMO, Form::CLAUDE],
        stops: &[qwen::END_OF_FUNCTION, vocab::INVOKE_CLOSE_TAIL],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        ..FamilyRow::DEFAULT
    },
    FamilyRow {
        family: Family::LFM,
        code: "lfm",
        title: "LFM",
        patterns: &["lfm", "liquid"],
        forms: &[Form::LFM],
        stops: &[lfm::TOOL_CALL_END],
        reasoning: &[Reasoning::Element(vocab::reasoning::ELEMENTS[0])],
        ..FamilyRow::DEFAULT
    },
];

/// The forms. The order decides nothing but the documentation's, and which of two forms that
/// read the same candidate comes first when the reply is read for both.
pub static FORMS: [FormRow; 21] = [
    FormRow {
        form: Form::CLAUDE,
        code: "claude",
        family: Family::CLAUDE,
        looks: "`<invoke name>` / `<parameter name>`, bare or namespace-prefixed, maybe inside \
                `<function_calls>`",
        openers: &[
            Opener::Element(vocab::INVOKE),
            Opener::Element(vocab::FUNCTION_CALLS),
            Opener::Element(vocab::TOOL_CALLS),
            Opener::Element(vocab::TOOL_CALL),
        ],
        markers: markers::CLAUDE,
        wrappers: &[
            Opener::Element(vocab::FUNCTION_CALLS),
            Opener::Element(vocab::TOOL_CALLS),
            Opener::Element(vocab::TOOL_CALL),
        ],
        engine: Engine::Element(&element::CLAUDE),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::MINIMAX,
        code: "minimax",
        family: Family::MINIMAX,
        looks: "Claude's elements inside `<minimax:tool_call>`",
        openers: &[Opener::Element(vocab::TOOL_CALL)],
        markers: markers::TOOL_CALL,
        wrappers: &[Opener::Prefixed(&[vocab::MINIMAX_PREFIX], vocab::TOOL_CALL)],
        engine: Engine::Element(&element::MINIMAX),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::DEEPSEEK_DSML,
        code: "deepseek_dsml",
        family: Family::DEEPSEEK,
        looks: "DSML: `<｜DSML｜invoke name>` / `<｜DSML｜parameter name string=\"true\">`",
        openers: &[
            Opener::Element(vocab::FUNCTION_CALLS),
            Opener::Element(vocab::TOOL_CALLS),
            Opener::Prefixed(&dsml::SENTINELS, dsml::CALLS),
            Opener::Element(vocab::INVOKE),
        ],
        markers: &dsml::SENTINELS,
        glued: &[
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[0]),
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[1]),
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[2]),
        ],
        wrappers: &[
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[0]),
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[1]),
            Opener::Prefixed(&dsml::SENTINELS, dsml::BLOCKS[2]),
        ],
        engine: Engine::Element(&element::DEEPSEEK_DSML),
        ..FormRow::DEFAULT
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
        engine: Engine::HeaderJson(&header_json::STEP3),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::GROK,
        code: "grok",
        family: Family::GROK,
        looks: "`<xai:function_call name>` with `<parameter>` children (its closing tag often \
                garbled)",
        openers: &[Opener::Element(grok::ELEMENT)],
        markers: markers::GROK,
        engine: Engine::Element(&element::GROK),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::QWEN3_CODER,
        code: "qwen3_coder",
        family: Family::QWEN,
        looks: "`<tool_call><function=name><parameter=key>`",
        openers: &[
            Opener::Literal(qwen::FUNCTION_OPEN),
            Opener::Element(vocab::TOOL_CALL),
        ],
        markers: markers::QWEN3_CODER,
        values: Values::OneLineBreak,
        wrappers: &[Opener::Bare(vocab::TOOL_CALL)],
        engine: Engine::KeyValue(&key_value::QWEN3_CODER),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::GLM,
        code: "glm",
        family: Family::GLM,
        looks: "`<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>`",
        openers: &[Opener::Element(vocab::TOOL_CALL)],
        markers: markers::GLM,
        wrappers: &[Opener::Bare(vocab::TOOL_CALL)],
        engine: Engine::KeyValue(&key_value::GLM),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::HERMES,
        code: "hermes",
        family: Family::QWEN,
        looks: "`<tool_call>{\"name\", \"arguments\"}</tool_call>`",
        openers: &[Opener::Element(vocab::TOOL_CALL)],
        markers: markers::TOOL_CALL,
        values: Values::Json,
        wrappers: &[Opener::Bare(vocab::TOOL_CALL)],
        engine: Engine::JsonObject(&json_object::HERMES),
        ..FormRow::DEFAULT
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
        engine: Engine::HeaderJson(&header_json::KIMI),
        ..FormRow::DEFAULT
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
        engine: Engine::HeaderJson(&header_json::DEEPSEEK),
        ..FormRow::DEFAULT
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
        framing: &[
            harmony::ASSISTANT_START,
            harmony::ANALYSIS_HEADER,
            harmony::FINAL_HEADER,
            harmony::COMMENTARY_HEADER,
            harmony::END,
            harmony::RETURN,
        ],
        engine: Engine::HeaderJson(&header_json::HARMONY),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::KIMI_XTML,
        code: "kimi_xtml",
        family: Family::KIMI,
        looks: "XTML: `<|open|>tools<|sep|><|open|>call tool=\"name\"<|sep|>` with \
                `<|open|>argument key=\"k\" type=\"t\"<|sep|>`",
        openers: &[Opener::Literal(kimi_k3::TOOLS_OPEN)],
        markers: &[kimi_k3::TOOLS_OPEN, kimi_k3::CALL_OPEN],
        boundaries: &[kimi_k3::THINK_CLOSE, kimi_k3::RESPONSE_CLOSE],
        framing: &[
            kimi_k3::THINK_OPEN,
            kimi_k3::THINK_CLOSE,
            kimi_k3::RESPONSE_OPEN,
            kimi_k3::RESPONSE_CLOSE,
        ],
        engine: Engine::Xtml,
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::MINIMAX_M3,
        code: "minimax_m3",
        family: Family::MINIMAX,
        looks: "`]<]minimax[>[` before every tag; `<invoke name>` with `<key>value</key>` children",
        openers: &[Opener::Literal(minimax_m3::CALL_START)],
        markers: &[minimax_m3::MARKER],
        glued: &[Opener::Literal(minimax_m3::CALL_START)],
        engine: Engine::MiniMaxM3,
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::GEMMA,
        code: "gemma",
        family: Family::GEMMA,
        looks: "`<|tool_call>call:name{key:<|\"|>text<|\"|>}<tool_call|>`",
        openers: &[Opener::Literal(gemma::CALL_OPEN)],
        markers: &[gemma::CALL_OPEN, gemma::CALL_CLOSE],
        glued: &[Opener::Literal(gemma::CALL_OPEN)],
        engine: Engine::Gemma,
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::MISTRAL,
        code: "mistral",
        family: Family::MISTRAL,
        looks: "`[TOOL_CALLS]name[ARGS]{...}` or `[TOOL_CALLS] [{\"name\", \"arguments\"}]`",
        openers: &[Opener::Literal(mistral::TOOL_CALLS)],
        markers: &[mistral::TOOL_CALLS],
        values: Values::Json,
        glued: &[Opener::Literal(mistral::TOOL_CALLS)],
        engine: Engine::Mistral,
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::INKLING,
        code: "inkling",
        family: Family::INKLING,
        looks: "`<|message_model|>name<|content_invoke_tool_json|>{\"name\", \"args\"}<|end_message|>`",
        openers: &[
            Opener::Literal(inkling::MESSAGE_MODEL),
            Opener::Literal(inkling::INVOKE_TOOL_JSON),
        ],
        markers: &[inkling::INVOKE_TOOL_JSON],
        values: Values::Json,
        boundaries: &[inkling::END_MESSAGE, inkling::END_SAMPLING],
        glued: &[Opener::Literal(inkling::MESSAGE_MODEL)],
        framing: &[
            inkling::MESSAGE_MODEL,
            inkling::CONTENT_TEXT,
            inkling::END_MESSAGE,
        ],
        engine: Engine::Inkling,
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::LLAMA4,
        code: "llama4",
        family: Family::LLAMA,
        looks: "`<|python_start|>{\"name\", \"parameters\"}<|python_end|>`",
        openers: &[Opener::Literal(llama4::PYTHON_START)],
        markers: &[llama4::PYTHON_START],
        values: Values::Json,
        glued: &[Opener::Literal(llama4::PYTHON_START)],
        engine: Engine::JsonObject(&json_object::LLAMA4),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::GEMINI,
        code: "gemini",
        family: Family::GEMINI,
        looks: "`<call_record tool=\"name\">` with `<parameter name>` children",
        openers: &[Opener::Element(gemini::CALL_RECORD)],
        markers: gemini::MARKERS,
        engine: Engine::Element(&element::GEMINI),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::MIMO,
        code: "mimo",
        family: Family::MIMO,
        looks: "Qwen3-Coder's `<tool_call><function=name><parameter=key>`, glued to the prose, \
                values as written",
        openers: &[
            Opener::Literal(qwen::FUNCTION_OPEN),
            Opener::Element(vocab::TOOL_CALL),
        ],
        markers: markers::QWEN3_CODER,
        glued: &[Opener::Bare(vocab::TOOL_CALL)],
        wrappers: &[Opener::Bare(vocab::TOOL_CALL)],
        engine: Engine::KeyValue(&key_value::QWEN3_CODER),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::LFM,
        code: "lfm",
        family: Family::LFM,
        looks: "`<|tool_call_start|>[name(key='v', n=3)]<|tool_call_end|>` (or a JSON list)",
        openers: &[Opener::Literal(lfm::TOOL_CALL_START)],
        markers: &[lfm::TOOL_CALL_START],
        glued: &[Opener::Literal(lfm::TOOL_CALL_START)],
        engine: Engine::Pythonic(&pythonic::LFM),
        ..FormRow::DEFAULT
    },
    FormRow {
        form: Form::PYTHONIC,
        code: "pythonic",
        family: Family::LLAMA,
        looks: "`[name(key='v', n=3)]` at the start of a line, no token",
        openers: &[Opener::List(vocab::pythonic::LIST_OPEN)],
        // A `[` tells nothing: the list has no marker of its own.
        markers: &[],
        engine: Engine::Pythonic(&pythonic::BARE),
        ..FormRow::DEFAULT
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_step_with_their_constants() {
        for (i, row) in FAMILIES.iter().enumerate() {
            assert_eq!(usize::from(row.family.0), i, "{}", row.code);
            assert!(
                !row.forms.is_empty() && !row.patterns.is_empty() && !row.title.is_empty(),
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
            // Every form has markers, but one opened by a list opener alone: a `[` tells
            // nothing about a text.
            let list_only = row.openers.iter().all(|o| matches!(o, Opener::List(_)));
            assert!(
                !row.openers.is_empty()
                    && (!row.markers.is_empty() || list_only)
                    && !row.looks.is_empty(),
                "{}",
                row.code
            );
            assert!(
                !matches!(row.engine, Engine::Unread),
                "{}: every form names its engine",
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
                    Opener::Bare(local) => row.openers.iter().any(|o| o.is_element(None, local)),
                    // A list opener starts a call at a line start only.
                    Opener::List(_) => false,
                };
                assert!(
                    opens,
                    "{}: a glued opener is one of the form's openers",
                    row.code
                );
            }
            // A wrapper is an element opener of the form, and something can follow it.
            for wrapper in row.wrappers {
                assert!(wrapper.element().is_some(), "{}", row.code);
                assert!(
                    !matches!(row.engine.lead(), crate::forms::Lead::None),
                    "{}: a wrapped form says what starts its call",
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
