//! Loads the reply fixtures in `fixtures/replies/` (internal to this workspace).
//!
//! A fixture is a pair of files: `NAME.txt`, the reply exactly as the model wrote it, and
//! `NAME.json`, its sidecar: `note`, `tools` (`"agent_zero"` or a list of catalog paths
//! relative to `fixtures/`), `finish_reason`, and `expect: {outcome, reason}`.
//!
//! ```no_run
//! let fixtures = ctb_fixtures::load_replies(&ctb_fixtures::fixtures_dir()).unwrap();
//! for f in &fixtures {
//!     let decision = f.run();
//!     println!("{}: {:?} {}", f.name, decision.outcome, decision.reason.code());
//! }
//! ```

use std::path::Path;

use claude_tool_bridge::{Catalog, Config, Decision, FinishReason, Session};
use serde_json::Value;

/// The model name the fixtures are run as: a covered Claude model.
pub const MODEL: &str = "anthropic/claude-sonnet-4-5";

pub use ctb_testkit::fixtures_dir;

/// One reply fixture, ready to run.
#[derive(Debug, Clone)]
pub struct ReplyFixture {
    /// File stem, e.g. `001_bare_call`.
    pub name: String,
    /// The reply text.
    pub reply: String,
    /// What the fixture shows.
    pub note: String,
    /// The catalog the sidecar names.
    pub catalog: Catalog,
    /// The finish reason the provider reported.
    pub finish: FinishReason,
    /// Expected outcome code (`translated`, `untouched`, `prose`, `discard`).
    pub expect_outcome: String,
    /// Expected reason code.
    pub expect_reason: String,
}

impl ReplyFixture {
    /// Runs the fixture through a fresh session with the default configuration.
    pub fn run(&self) -> Decision {
        let mut session = Session::new(Config::default());
        let _ = session.begin_turn(MODEL, &[]);
        session
            .finish(&self.reply, self.finish, &self.catalog)
            .expect("a turn was begun")
    }
}

/// Loads every `*.txt` fixture of `dir/replies`, sorted by name.
pub fn load_replies(dir: &Path) -> Result<Vec<ReplyFixture>, String> {
    let paths = ctb_testkit::files_with_extension(&dir.join("replies"), "txt")?;
    paths.iter().map(|p| load_one(dir, p)).collect()
}

fn load_one(dir: &Path, path: &Path) -> Result<ReplyFixture, String> {
    let name = ctb_testkit::stem(path);
    let err = |what: &str, e: &dyn std::fmt::Display| format!("{name}: {what}: {e}");
    let reply = std::fs::read_to_string(path).map_err(|e| err("reply", &e))?;
    let side_path = path.with_extension("json");
    let side = std::fs::read_to_string(&side_path).map_err(|e| err("sidecar", &e))?;
    let sidecar: Value = serde_json::from_str(&side).map_err(|e| err("sidecar", &e))?;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    Ok(ReplyFixture {
        catalog: catalog(dir, sidecar.get("tools")).map_err(|e| err("tools", &e))?,
        finish: sidecar
            .get("finish_reason")
            .and_then(Value::as_str)
            .map_or(FinishReason::Unknown, FinishReason::from_name),
        note: text(&sidecar["note"]),
        expect_outcome: text(&sidecar["expect"]["outcome"]),
        expect_reason: text(&sidecar["expect"]["reason"]),
        name,
        reply,
    })
}

fn catalog(dir: &Path, tools: Option<&Value>) -> Result<Catalog, String> {
    let list = match tools {
        None | Some(Value::Null) => return Ok(Catalog::agent_zero()),
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(other) => return Err(format!("expected a name or a list, got {other}")),
    };
    let mut catalog = Catalog::new();
    for rel in list {
        if rel == "agent_zero" {
            catalog.extend(Catalog::agent_zero());
            continue;
        }
        let text = std::fs::read_to_string(dir.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
        catalog.extend(Catalog::from_text(&text).map_err(|e| format!("{rel}: {e}"))?);
    }
    Ok(catalog)
}
