//! The fixture files under `fixtures/`, read the one way every harness reads them.
//!
//! - `replies/NAME.txt` + `NAME.json`: one reply and its sidecar (`note`, `tools`,
//!   `finish_reason`, `expect: {outcome, reason}`), see `fixtures/README.md`;
//! - `conversations/NN_*.json`: one conversation, see `fixtures/conversations/README.md`;
//! - `kit/FORM.json`: one form's kit sample (written by `fixtures/generate.py` with the form's
//!   standard fixtures), which the property generator writes its replies with.
//!
//! This module only reads the files; turning them into catalogs and finish reasons is the job
//! of the crate that knows those types (`ctb-fixtures`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{files_with_extension, stem};

/// The workspace's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// One reply fixture as written on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyFile {
    /// File stem, e.g. `001_bare_call_code_execution`.
    pub name: String,
    /// The reply, byte for byte.
    pub text: String,
    /// What the fixture shows.
    pub note: String,
    /// The catalogs the sidecar names: `agent_zero` (the bundled one) or paths relative to
    /// `fixtures/`.
    pub tools: Vec<String>,
    /// The finish reason the provider reported (`stop`, `stop_sequence`, `max_tokens`,
    /// `unknown`).
    pub finish: String,
    /// The expected outcome code.
    pub expect_outcome: String,
    /// The expected reason code.
    pub expect_reason: String,
    /// The LiteLLM model name the reply is run as, when the sidecar gives one (another model
    /// family's stop strings); else a Claude model.
    pub model: Option<String>,
    /// The texts the agent received before this reply (paths relative to `fixtures/`): a
    /// call copied from them is an echo.
    pub echoes: Vec<String>,
}

/// Every reply fixture of `dir/replies`, sorted by name.
pub fn reply_files(dir: &Path) -> Result<Vec<ReplyFile>, String> {
    let paths = files_with_extension(&dir.join("replies"), "txt")?;
    paths.iter().map(|p| reply_file(p)).collect()
}

fn reply_file(path: &Path) -> Result<ReplyFile, String> {
    let name = stem(path);
    let err = |what: &str, e: &dyn std::fmt::Display| format!("{name}: {what}: {e}");
    let text = std::fs::read_to_string(path).map_err(|e| err("reply", &e))?;
    let side =
        std::fs::read_to_string(path.with_extension("json")).map_err(|e| err("sidecar", &e))?;
    let v: Value = serde_json::from_str(&side).map_err(|e| err("sidecar", &e))?;
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let tools = match v.get("tools") {
        None | Some(Value::Null) => vec!["agent_zero".to_owned()],
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(items)) => items.iter().map(s).collect(),
        Some(other) => {
            return Err(err(
                "tools",
                &format!("expected a name or a list, got {other}"),
            ));
        }
    };
    Ok(ReplyFile {
        note: s(&v["note"]),
        tools,
        finish: v
            .get("finish_reason")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned(),
        expect_outcome: s(&v["expect"]["outcome"]),
        expect_reason: s(&v["expect"]["reason"]),
        model: v.get("model").and_then(Value::as_str).map(str::to_owned),
        echoes: v
            .get("echoes")
            .and_then(Value::as_array)
            .map(|items| items.iter().map(s).collect())
            .unwrap_or_default(),
        name,
        text,
    })
}

/// One attempt of a conversation turn: the full text the model would write if nothing
/// stopped it, and how that full text ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The full reply.
    pub text: String,
    /// `stop` or `max_tokens`.
    pub finish: String,
}

/// One conversation fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    /// File stem, e.g. `05_empty_call_loop`.
    pub file: String,
    /// Its `name`.
    pub name: String,
    /// The LiteLLM model name.
    pub model: String,
    /// The stop list set on the model.
    pub model_stops: Vec<String>,
    /// Whether the finish reason is reported (`false`: Agent Zero before its newest version).
    pub finish_reported: bool,
    /// Per turn, the attempts in order (the last one repeats).
    pub turns: Vec<Vec<Attempt>>,
    /// Settings laid over the defaults for this conversation, if any.
    pub config: Option<Value>,
}

/// Every conversation of `dir/conversations`, sorted by file name.
pub fn conversations(dir: &Path) -> Result<Vec<Conversation>, String> {
    let paths = files_with_extension(&dir.join("conversations"), "json")?;
    paths.iter().map(|p| conversation(p)).collect()
}

fn conversation(path: &Path) -> Result<Conversation, String> {
    let file = stem(path);
    let bad = |what: &str| format!("{}: {what}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| bad(&e.to_string()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut turns = Vec::new();
    for turn in v
        .get("turns")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no turns"))?
    {
        let attempts = turn
            .get("attempts")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no attempts"))?
            .iter()
            .map(|a| {
                Ok(Attempt {
                    text: str_of(a, "text").ok_or_else(|| bad("attempt without text"))?,
                    finish: str_of(a, "finish").unwrap_or_else(|| "stop".to_owned()),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        if attempts.is_empty() {
            return Err(bad("a turn without attempts"));
        }
        turns.push(attempts);
    }
    Ok(Conversation {
        name: str_of(&v, "name").unwrap_or_else(|| file.clone()),
        file,
        model: str_of(&v, "model").ok_or_else(|| bad("no model"))?,
        model_stops: v
            .get("model_stops")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        finish_reported: v
            .get("finish_reported")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        config: v.get("config").cloned(),
        turns,
    })
}

/// One form's kit sample: a call of the form, as a model of its family leaks it in Agent Zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KitSample {
    /// The form's code.
    pub form: String,
    /// Its family's code.
    pub family: String,
    /// A LiteLLM model name of the family.
    pub model: String,
    /// What every reply of that model starts with (a reasoning closer its template makes it
    /// write), often nothing.
    pub head: String,
    /// The call, byte for byte.
    pub sample: String,
}

/// Every form's kit sample in `dir/kit`, sorted by form.
pub fn kit_samples(dir: &Path) -> Result<Vec<KitSample>, String> {
    let paths = files_with_extension(&dir.join("kit"), "json")?;
    paths
        .iter()
        .map(|p| {
            let name = stem(p);
            let text = std::fs::read_to_string(p).map_err(|e| format!("{name}: {e}"))?;
            let v: Value = serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
            let field = |k: &str| {
                v[k].as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{name}: no `{k}`"))
            };
            Ok(KitSample {
                form: field("form")?,
                family: field("family")?,
                model: field("model")?,
                head: field("head")?,
                sample: field("sample")?,
            })
        })
        .collect()
}
