//! `cargo xtask bench [-- criterion args]`: every criterion benchmark of the workspace, then
//! the Python-level benches through the wheel (in the test virtualenv, built in release mode),
//! then one table of every speed ratio with its target.
//!
//! Speed and memory targets live here, never in timed unit tests. A bench reports a ratio by
//! writing `<target>/ctb-bench/<name>.json` (`$CTB_BENCH_DIR`, which this command sets; Rust
//! benches use `ctb_testkit::ratio`): one object with `name`, `a`, `b`, `ratio` and `target`
//! (the ratio must be at most the target), optionally `what`, `a_ns`, `b_ns`. To add a row,
//! write such a file from your bench; the table picks up every file. The folder is emptied
//! before the benches run, and the command fails when a ratio misses its target.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{self, cargo, root};

/// Crates that carry criterion benches.
const BENCHED: &[&str] = &["ctb-invoke", "ctb-json", "claude-tool-bridge"];

/// Python benches run after the criterion ones, with `--check` (each fails on its own target)
/// and `$CTB_BENCH_DIR` (where those that report ratios write them).
const PYTHON_BENCHES: &[&str] = &[
    "crates/ctb-python/bench/stream_bench.py",
    "crates/ctb-python/bench/json_bench.py",
    "crates/ctb-python/bench/litellm_bench.py",
];

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let reports = crate::dist::target_dir().join("ctb-bench");
    if reports.is_dir() {
        std::fs::remove_dir_all(&reports).map_err(|e| format!("{}: {e}", reports.display()))?;
    }
    std::fs::create_dir_all(&reports).map_err(|e| format!("{}: {e}", reports.display()))?;
    let mut cmd = cargo();
    cmd.args(["bench", "--benches"])
        .env("CTB_BENCH_DIR", &reports);
    for p in BENCHED {
        cmd.args(["-p", p]);
    }
    cmd.arg("--");
    // `cargo xtask bench -- <criterion args>`: the `--` is ours to write once.
    cmd.args(args.strip_prefix(&["--".to_owned()][..]).unwrap_or(args));
    util::run(&mut cmd)?;
    let python = python_benches(&reports);
    let table = ratio_table(&reports);
    python?;
    table
}

/// The Python benches, through the wheel (built in release mode into the test virtualenv).
fn python_benches(reports: &Path) -> Result<(), String> {
    let requirements =
        crate::dist::read_requirements(&root().join("tests/python/requirements.txt"))?;
    let python = crate::dist::ensure_venv(&requirements)?;
    crate::dist::develop(&python)?;
    // Every bench runs, also after one missed a target, so the table has every row.
    let mut failed = Ok(());
    for script in PYTHON_BENCHES {
        let path = root().join(script);
        if !path.is_file() {
            continue;
        }
        let run = util::run(
            Command::new(&python)
                .arg(&path)
                .arg("--check")
                .env("CTB_BENCH_DIR", reports)
                .current_dir(root()),
        );
        if failed.is_ok() {
            failed = run;
        }
    }
    failed
}

/// Prints every ratio file in `dir` as one table; fails when one misses its target.
fn ratio_table(dir: &Path) -> Result<(), String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    let mut missed = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let row: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let field = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
        let (Some(ratio), Some(target)) = (
            row.get("ratio").and_then(Value::as_f64),
            row.get("target").and_then(Value::as_f64),
        ) else {
            return Err(format!("{}: no `ratio` or `target`", path.display()));
        };
        let ok = ratio <= target;
        if !ok {
            missed.push(field("name"));
        }
        rows.push((
            field("name"),
            format!("{} / {}", field("a"), field("b")),
            ratio,
            target,
            ok,
        ));
    }
    println!(
        "
speed ratios (median of a / median of b, side by side in one process):"
    );
    let name_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(5);
    let what_w = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).max(5);
    println!(
        "{:<name_w$} {:<what_w$} {:>7} {:>8}",
        "ratio", "a / b", "", "target"
    );
    for (name, what, ratio, target, ok) in &rows {
        println!(
            "{name:<name_w$} {what:<what_w$} {ratio:>7.3} {:>8} {}",
            format!("<= {target}"),
            if *ok { "ok" } else { "MISSED" }
        );
    }
    if rows.is_empty() {
        println!("(no ratio files in {})", dir.display());
    }
    if missed.is_empty() {
        Ok(())
    } else {
        Err(format!("ratios above target: {}", missed.join(", ")))
    }
}
