//! `cargo xtask fuzz [--seconds N] [TARGET...]`: runs the cargo-fuzz targets in `fuzz/` (every
//! file in `fuzz/fuzz_targets/`, or the ones named), N seconds each (default 60), then prints
//! the executions and crashes per target. Fails when a target crashes.
//!
//! Each target runs as `cargo +nightly fuzz run <t> <corpus> -- -max_total_time=N`, building
//! into `target/fuzz`. Its corpus is `target/fuzz-corpus/<t>/` (never committed), seeded on
//! every run from the project's own files: the reply fixtures and catalogs, the grammar's
//! data files, the JSON test data (each case of a `=== title` case file on its own) and the
//! prefix documents. A crash is written by
//! libFuzzer to `fuzz/artifacts/<t>/`; turn it into a fixture or test case, then delete it.
//!
//! Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::root;

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [TARGET...]";

/// What one target's run gave.
struct Outcome {
    target: String,
    execs: Option<u64>,
    crashes: Vec<PathBuf>,
    failed: bool,
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut seconds = 60u64;
    let mut wanted = Vec::new();
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = rest
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{USAGE}\n--seconds takes a positive number"))?;
            }
            flag if flag.starts_with('-') => return Err(format!("{USAGE}\nunknown flag {flag}")),
            target => wanted.push(target.to_owned()),
        }
    }
    let all = targets()?;
    for t in &wanted {
        if !all.contains(t) {
            let known: Vec<&str> = all.iter().map(String::as_str).collect();
            return Err(format!(
                "{USAGE}\nno fuzz target `{t}` (known: {})",
                known.join(", ")
            ));
        }
    }
    let chosen: Vec<String> = if wanted.is_empty() { all } else { wanted };
    check_tools()?;
    let seeds = seeds()?;
    let mut outcomes = Vec::new();
    for target in &chosen {
        let corpus = root().join("target/fuzz-corpus").join(target);
        write_seeds(&corpus, &seeds)?;
        outcomes.push(run_target(target, &corpus, seconds)?);
    }
    println!(
        "\n{:<24} {:>8} {:>14} {:>8}",
        "target", "seconds", "execs", "crashes"
    );
    for o in &outcomes {
        let execs = o.execs.map_or("?".to_owned(), |n| n.to_string());
        println!(
            "{:<24} {:>8} {:>14} {:>8}",
            o.target,
            seconds,
            execs,
            o.crashes.len()
        );
        for c in &o.crashes {
            println!("    crash: {}", c.display());
        }
    }
    let bad: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.failed || !o.crashes.is_empty())
        .map(|o| o.target.as_str())
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("fuzzing failed: {}", bad.join(", ")))
    }
}

/// The targets: the file stems in `fuzz/fuzz_targets/`.
fn targets() -> Result<Vec<String>, String> {
    let dir = root().join("fuzz/fuzz_targets");
    let files = ctb_testkit::files_with_extension(&dir, "rs")?;
    Ok(files.iter().map(|p| ctb_testkit::stem(p)).collect())
}

/// Seed inputs from the project's files, each with a stable name.
fn seeds() -> Result<Vec<(String, Vec<u8>)>, String> {
    let r = root();
    let mut seeds = Vec::new();
    let mut add_files = |dir: &Path, ext: &str, split_cases: bool| -> Result<(), String> {
        for path in ctb_testkit::files_with_extension(dir, ext)? {
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let stem = ctb_testkit::stem(&path);
            if split_cases {
                for (n, case) in split_case_file(&String::from_utf8_lossy(&bytes))
                    .into_iter()
                    .enumerate()
                {
                    seeds.push((format!("seed-{stem}-{n}"), case.into_bytes()));
                }
            } else {
                seeds.push((format!("seed-{stem}"), bytes));
            }
        }
        Ok(())
    };
    add_files(&r.join("fixtures/replies"), "txt", false)?;
    add_files(&r.join("fixtures/catalogs"), "json", false)?;
    add_files(&r.join("crates/ctb-invoke/tests/data"), "txt", false)?;
    add_files(&r.join("crates/ctb-json/tests/data/cases"), "txt", true)?;
    add_files(&r.join("crates/ctb-json/tests/data/valid"), "json", false)?;
    add_files(
        &r.join("crates/ctb-json/tests/data/prefixes"),
        "json",
        false,
    )?;
    // The 2026 bodies' samples: each case's `text "..."` line, a JSON string literal.
    let forms = r.join("crates/ctb-invoke/tests/data/forms");
    for path in ctb_testkit::files_with_extension(&forms, "txt")? {
        let data =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let stem = ctb_testkit::stem(&path);
        for (n, line) in data
            .lines()
            .filter_map(|l| l.strip_prefix("text "))
            .enumerate()
        {
            if let Ok(text) = serde_json::from_str::<String>(line) {
                seeds.push((format!("seed-forms-{stem}-{n}"), text.into_bytes()));
            }
        }
    }
    Ok(seeds)
}

/// The inputs of a `=== title` case file (the format of `crates/ctb-json/tests/data/cases`).
fn split_case_file(text: &str) -> Vec<String> {
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for line in text.lines() {
        if line.starts_with("=== ") {
            cases.push(Vec::new());
        } else if let Some(case) = cases.last_mut() {
            case.push(line);
        }
    }
    cases.into_iter().map(|lines| lines.join("\n")).collect()
}

fn write_seeds(corpus: &Path, seeds: &[(String, Vec<u8>)]) -> Result<(), String> {
    std::fs::create_dir_all(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    for (name, bytes) in seeds {
        let path = corpus.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Fails with one line saying what to install when the nightly toolchain or cargo-fuzz is
/// missing (instead of a run per target that each fail the same way).
fn check_tools() -> Result<(), String> {
    let works = |args: &[&str]| {
        Command::new("cargo")
            .current_dir(root())
            .env_remove("RUSTUP_TOOLCHAIN")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !works(&["+nightly", "--version"]) {
        return Err("the nightly toolchain is missing: rustup toolchain install nightly".into());
    }
    if !works(&["+nightly", "fuzz", "--version"]) {
        return Err("cargo-fuzz is missing: cargo install cargo-fuzz --locked".into());
    }
    Ok(())
}

fn artifacts(target: &str) -> BTreeSet<PathBuf> {
    let dir = root().join("fuzz/artifacts").join(target);
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Runs one target; libFuzzer's output goes through, its final statistics give the number of
/// executions, and the new files in its artifacts folder are the crashes.
fn run_target(target: &str, corpus: &Path, seconds: u64) -> Result<Outcome, String> {
    let before = artifacts(target);
    // `+nightly` needs rustup's cargo, not the toolchain's own that `$CARGO` names
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root())
        .env_remove("RUSTUP_TOOLCHAIN")
        .args([
            "+nightly",
            "fuzz",
            "run",
            "--target-dir",
            "target/fuzz",
            target,
        ])
        .arg(corpus)
        .args([
            "--",
            &format!("-max_total_time={seconds}"),
            "-print_final_stats=1",
        ])
        .stderr(Stdio::piped());
    eprintln!(
        "$ cargo +nightly fuzz run --target-dir target/fuzz {target} {} -- \
         -max_total_time={seconds} -print_final_stats=1",
        corpus.display()
    );
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start cargo fuzz (is cargo-fuzz installed?): {e}"))?;
    let mut execs = None;
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            // `stat::number_of_executed_units: N`, printed at the end and after a crash
            if let Some(n) = line
                .strip_prefix("stat::number_of_executed_units:")
                .and_then(|n| n.trim().parse().ok())
            {
                execs = Some(n);
            }
            // keep the progress and crash reports, skip the recommended dictionary
            if !line.starts_with('"') {
                eprintln!("{line}");
            }
        }
    }
    let status = child.wait().map_err(|e| format!("cargo fuzz: {e}"))?;
    let crashes: Vec<PathBuf> = artifacts(target).difference(&before).cloned().collect();
    Ok(Outcome {
        target: target.to_owned(),
        execs,
        failed: !status.success(),
        crashes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_files_split_into_inputs() {
        let text = "# comment\n=== one\n{\"a\": 1}\n=== two\nline 1\nline 2\n";
        assert_eq!(split_case_file(text), ["{\"a\": 1}", "line 1\nline 2"]);
    }

    #[test]
    fn every_target_has_a_bin_in_the_fuzz_manifest() {
        let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
        let list = targets().unwrap();
        assert!(list.len() >= 3, "{list:?}");
        for t in list {
            assert!(
                manifest.contains(&format!("name = \"{t}\"\npath = \"fuzz_targets/{t}.rs\"")),
                "fuzz/Cargo.toml has no [[bin]] for {t}"
            );
        }
    }
}
