//! `cargo xtask test`: every check CI runs, in order.

use crate::util::{self, cargo};

pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    util::run(cargo().args(["fmt", "--all", "--check"]))?;
    util::run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    util::run(cargo().args(["test", "--workspace"]))?;
    Ok(())
}
