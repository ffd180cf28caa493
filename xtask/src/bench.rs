//! `cargo xtask bench [FILTER] [-- criterion args]`: every criterion benchmark of the
//! workspace, then the Python-level streaming bench when the binding is built.
//!
//! Speed and memory targets live here, never in timed unit tests.

use crate::util::{self, cargo};

/// Crates that carry criterion benches.
const BENCHED: &[&str] = &["ctb-json", "claude-tool-bridge"];

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut cmd = cargo();
    cmd.arg("bench");
    for p in BENCHED {
        cmd.args(["-p", p]);
    }
    cmd.arg("--");
    cmd.args(args);
    util::run(&mut cmd)
}
