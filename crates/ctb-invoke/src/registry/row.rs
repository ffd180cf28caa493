//! What a registry row is: the [`FamilyRow`] and [`FormRow`] columns, the types they are made
//! of ([`Opener`], [`Reasoning`], [`InPrompt`], the [`Forms`] set), and the lookups everything
//! else makes over the two tables. The tables themselves, and nothing else, are in
//! `registry.rs`; the words the rows name are the vocabulary's ([`crate::vocab`]); the engine a
//! form row names, with its spec, is a file of [`crate::forms`].

use std::fmt;

use super::{FAMILIES, FORMS};
use crate::forms::Engine;
use crate::grammar::{Family, Form, Values};
use crate::vocab;

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
    /// `<` and this element name, without a namespace prefix (the `<tool_call>` Hermes,
    /// Qwen3-Coder and GLM write around a call).
    Bare(&'static str),
    /// This literal as the first byte of a line (after its indent), then a call's name and
    /// `(`: a Python list of calls written with no token around it (Llama's pythonic `[name(`).
    /// Only there: in the middle of a line, or before anything but a name and `(`, the byte is
    /// text.
    List(&'static str),
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
            Opener::Bare(e) => *e == local && prefix.is_none(),
            Opener::Literal(_) | Opener::List(_) => false,
        }
    }

    /// The element name, for an element opener.
    pub fn element(&self) -> Option<&'static str> {
        match self {
            Opener::Element(e) | Opener::Prefixed(_, e) | Opener::Bare(e) => Some(e),
            Opener::Literal(_) | Opener::List(_) => None,
        }
    }

    /// The literal a call starts with, for a literal or list opener.
    pub fn literal(&self) -> Option<&'static str> {
        match self {
            Opener::Literal(l) | Opener::List(l) => Some(l),
            Opener::Element(_) | Opener::Prefixed(..) | Opener::Bare(_) => None,
        }
    }
}

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
    pub const ALL: Forms = Forms((1 << FORMS.len()) - 1);
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
            Reasoning::Element(e) => format!("{}{e}>", vocab::END_TAG).into(),
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
    /// The elements a call of this form may be wrapped in (`<function_calls>`, Qwen3-Coder's
    /// `<tool_call>`); what follows the wrapper decides the form (see `forms/mod.rs`).
    pub wrappers: &'static [Opener],
    /// The grammar engine that reads the form, with the form's spec.
    pub(crate) engine: Engine,
}

impl FormRow {
    /// A row's columns before the row says otherwise: no openers, boundaries, glued openers,
    /// framing or wrappers, values as written. Every row names its form, code, family, looks,
    /// openers, markers and engine.
    pub(crate) const DEFAULT: FormRow = FormRow {
        form: Form(0),
        code: "",
        family: Family(0),
        looks: "",
        openers: &[],
        markers: &[],
        values: Values::AsWritten,
        boundaries: &[],
        glued: &[],
        framing: &[],
        wrappers: &[],
        engine: Engine::Unread,
    };
}

impl FamilyRow {
    /// A row's columns before the row says otherwise: no loop stops, no reasoning marks, no
    /// reasoning opened in the prompt, a call that ends the reasoning not meant.
    pub(crate) const DEFAULT: FamilyRow = FamilyRow {
        family: Family(0),
        code: "",
        title: "",
        patterns: &[],
        forms: &[],
        stops: &[],
        loop_stops: &[],
        reasoning: &[],
        reasoning_in_prompt: None,
        call_ends_reasoning: false,
    };
}

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
            Opener::Element(_) | Opener::Prefixed(..) | Opener::Bare(_) | Opener::List(_) => None,
        })
    })
}

/// The list openers ([`Opener::List`]): a byte that starts a call at a line start when a
/// call's name and `(` follow it.
pub fn list_openers() -> impl Iterator<Item = (&'static str, Form)> {
    FORMS.iter().flat_map(|r| {
        r.openers.iter().filter_map(move |o| match o {
            Opener::List(l) => Some((*l, r.form)),
            _ => None,
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
                if o.element().is_some() && !out.contains(&o) {
                    out.push(o);
                }
            }
            out
        })
        .iter()
        .any(|o| o.is_element(prefix, local))
}

/// Whether a line that lost its `<` and starts with this prefixed element starts a call: the
/// call element of a form whose spec reads that slip (`ns:invoke name="x">`).
pub(crate) fn lost_bracket(prefix: Option<&str>, local: &str) -> bool {
    FORMS.iter().any(|r| {
        r.engine
            .element()
            .is_some_and(|s| s.lost_bracket && s.claims(prefix, local).is_some())
    })
}

/// The call element of the forms whose spec reads a line that lost its `<` or a reply that
/// starts mid-tag (Claude's `invoke`).
pub(crate) fn slip_element() -> Option<&'static str> {
    FORMS
        .iter()
        .filter_map(|r| r.engine.element())
        .find(|s| s.lost_bracket || s.mid_tag)
        .map(|s| s.element)
}

/// The name of an element some form's row opens, wraps or reads a call with, equal to `local`.
pub(crate) fn element_name(local: &str) -> Option<&'static str> {
    FORMS.iter().find_map(|r| {
        r.openers
            .iter()
            .chain(r.wrappers)
            .filter_map(Opener::element)
            .chain(r.engine.element().map(|s| s.element))
            .find(|e| *e == local)
    })
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
}
