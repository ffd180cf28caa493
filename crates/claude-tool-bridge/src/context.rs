//! What the bridge knows about a reply besides its text: [`Context`], shared by the stateless
//! entry points and the [`Session`](crate::Session).

use std::sync::Arc;

use ctb_invoke::registry::Reasoning;
use ctb_invoke::{Family, Forms, Scanner};

use crate::{Config, Echoes};

/// What the bridge knows about a reply besides its text: the markup forms its model writes
/// (a call in another form is a quotation) and what the agent received (a call copied from
/// there is an echo). The default reads every form and knows of no echoes.
///
/// ```
/// use claude_tool_bridge::{Catalog, Config, Context, Outcome, Reason, translate_with};
///
/// // A Claude model quoting Qwen's documentation: Qwen's syntax is a quotation for it.
/// let reply = "The Qwen docs show:\n<tool_call>\n{\"name\": \"search_engine\", \
///              \"arguments\": {\"query\": \"x\"}}\n</tool_call>";
/// let claude = Context::for_model(&Config::default(), "anthropic/claude-sonnet-4-5");
/// let d = translate_with(reply, &Catalog::agent_zero(), &claude);
/// assert_eq!((d.outcome, d.reason), (Outcome::Untouched, Reason::Quoted));
/// let qwen = Context::for_model(&Config::default(), "openrouter/qwen/qwen3-coder");
/// assert_eq!(translate_with(reply, &Catalog::agent_zero(), &qwen).outcome, Outcome::Translated);
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Context {
    /// The markup forms the reply is read for.
    pub forms: Forms,
    /// What the agent received, when known.
    pub echoes: Option<Arc<Echoes>>,
    /// The model's family, when its name picks one.
    pub family: Option<Family>,
    /// The reasoning the reply starts inside, when the model's chat template opens it in the
    /// prompt ([`ctb_invoke::registry::FamilyRow::reasoning_in_prompt`]).
    pub reasoning_in_prompt: Option<Reasoning>,
}

impl Context {
    /// The context of a reply by `model` under `config`: the forms it writes
    /// ([`Config::forms_for`]: the forms the `forms` setting names for it, else its family's,
    /// none when no family's patterns match the name, every form with `all_forms`), whether
    /// its reply starts inside reasoning (by its family), no echoes.
    pub fn for_model(config: &Config, model: &str) -> Self {
        let family = config.family_of(model);
        Self {
            forms: config.forms_for(model),
            echoes: None,
            family,
            reasoning_in_prompt: family.and_then(|f| f.reasoning_in_prompt(model)),
        }
    }

    /// A context that reads `forms`, knows no model and no echoes.
    pub fn with_forms(forms: Forms) -> Self {
        Self {
            forms,
            ..Self::default()
        }
    }

    /// Whether a call written as the last thing of the reasoning, followed only by its closer,
    /// is meant ([`ctb_invoke::registry::FamilyRow::call_ends_reasoning`]).
    pub(crate) fn call_ends_reasoning(&self) -> bool {
        self.family.is_some_and(|f| f.row().call_ends_reasoning)
    }

    /// The same context with `echoes`, the texts the agent received.
    #[must_use]
    pub fn with_echoes(mut self, echoes: Arc<Echoes>) -> Self {
        self.echoes = Some(echoes);
        self
    }

    /// A scanner for this context's forms (and the reasoning the reply starts in).
    pub(crate) fn scanner(&self) -> Scanner {
        let scanner = Scanner::with_forms(self.forms);
        match self.reasoning_in_prompt {
            Some(reasoning) => scanner.starting_in_reasoning(reasoning),
            None => scanner,
        }
    }

    /// Whether `call` (of `reply`) is copied from what the agent received: its markup, or a
    /// call of the same tool with the same argument values, in any encoding.
    pub(crate) fn echoed(&self, reply: &str, call: &ctb_invoke::Call<'_>) -> bool {
        self.echoes
            .as_ref()
            .is_some_and(|e| e.echoes(&reply[call.head..call.end], call))
    }
}
