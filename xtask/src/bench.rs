//! `cargo xtask bench [-- criterion args]`: every criterion benchmark of the workspace, then
//! the Python-level streaming bench through the wheel (in the test virtualenv, built in
//! release mode).
//!
//! Speed and memory targets live here, never in timed unit tests.

use std::process::Command;

use crate::util::{self, cargo, root};

/// Crates that carry criterion benches.
const BENCHED: &[&str] = &["ctb-invoke", "ctb-json", "claude-tool-bridge"];

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut cmd = cargo();
    cmd.args(["bench", "--benches"]);
    for p in BENCHED {
        cmd.args(["-p", p]);
    }
    cmd.arg("--");
    cmd.args(args);
    util::run(&mut cmd)?;
    python_bench()
}

/// The wheel streamed a 4 KB reply in 40-byte deltas against one `json_repair` parse.
fn python_bench() -> Result<(), String> {
    let requirements =
        crate::dist::read_requirements(&root().join("tests/python/requirements.txt"))?;
    let python = crate::dist::ensure_venv(&requirements)?;
    crate::dist::develop(&python)?;
    util::run(
        Command::new(&python)
            .arg(root().join("crates/ctb-python/bench/stream_bench.py"))
            .arg("--check")
            .current_dir(root()),
    )
}
