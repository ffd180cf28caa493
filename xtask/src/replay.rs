//! `cargo xtask replay [FIXTURES_DIR]`: runs every bundled reply through the bridge and prints
//! what it decided, then replays the recorded conversations turn by turn.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let dir = match args {
        [] => ctb_fixtures::fixtures_dir(),
        [d] => PathBuf::from(d),
        _ => return Err("usage: cargo xtask replay [FIXTURES_DIR]".to_owned()),
    };
    replies(&dir)?;
    if dir.join("conversations").is_dir() {
        println!();
        crate::conversations::run(&dir)?;
    }
    Ok(())
}

/// The reply table: how many fixtures, and what the bridge did with them.
fn replies(dir: &std::path::Path) -> Result<(), String> {
    let fixtures = ctb_fixtures::load_replies(dir)?;
    let mut by_outcome: BTreeMap<&'static str, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut cpu = std::time::Duration::ZERO;
    for f in &fixtures {
        let t = Instant::now();
        let d = f.run();
        cpu += t.elapsed();
        let outcome = d.outcome.code();
        if outcome != f.expect_outcome || d.reason.code() != f.expect_reason {
            disagreements.push(format!(
                "  {}: expected {}/{}, got {}/{}",
                f.name,
                f.expect_outcome,
                f.expect_reason,
                outcome,
                d.reason.code()
            ));
        }
        *by_outcome
            .entry(outcome)
            .or_default()
            .entry(d.reason.code())
            .or_default() += 1;
    }
    println!(
        "Replies: {} fixtures in {}",
        fixtures.len(),
        dir.join("replies").display()
    );
    println!("{:<12} {:<24} {:>6}", "outcome", "reason", "count");
    for (outcome, reasons) in &by_outcome {
        let total: usize = reasons.values().sum();
        println!("{outcome:<12} {:<24} {total:>6}", "(all)");
        for (reason, n) in reasons {
            println!("{:<12} {reason:<24} {n:>6}", "");
        }
    }
    let per = if fixtures.is_empty() {
        0.0
    } else {
        cpu.as_secs_f64() * 1e6 / fixtures.len() as f64
    };
    let build = if cfg!(debug_assertions) {
        "debug build; `cargo run --release -p xtask -- replay` for release numbers"
    } else {
        "release build"
    };
    println!("CPU per reply ({build}): {per:.1} us");
    if disagreements.is_empty() {
        println!(
            "All {} fixtures match the outcome their sidecar expects.",
            fixtures.len()
        );
        Ok(())
    } else {
        println!(
            "{} fixtures disagree with their sidecar:",
            disagreements.len()
        );
        for d in &disagreements {
            println!("{d}");
        }
        Err(format!(
            "{} fixtures disagree with their sidecar",
            disagreements.len()
        ))
    }
}
