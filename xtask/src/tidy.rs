//! `tidy`: tests that keep the repository honest (run by `cargo test`, hence by
//! `cargo xtask test`). Each checks a rule a reviewer would otherwise have to remember.

use std::path::{Path, PathBuf};

use crate::util::root;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn crate_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.')
            || name == "target"
            || name.starts_with("target-")
            || name == "dist"
        {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_library_opens_with_a_crate_doc_and_an_example() {
    for dir in crate_dirs() {
        let lib = dir.join("src/lib.rs");
        let file = if lib.is_file() {
            lib
        } else {
            dir.join("src/main.rs")
        };
        let text = read(&file);
        assert!(
            text.starts_with("//!"),
            "{}: must open with a `//!` doc",
            file.display()
        );
        if file.ends_with("lib.rs") {
            let doc: String = text.lines().take_while(|l| l.starts_with("//!")).collect();
            assert!(
                doc.contains("```"),
                "{}: the crate doc needs an example",
                file.display()
            );
        }
    }
}

#[test]
fn readme_lists_every_crate() {
    let readme = read(&root().join("README.md"));
    for dir in crate_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if read(&dir.join("Cargo.toml")).contains("publish = false") {
            continue; // internal to the workspace, not for users
        }
        assert!(
            readme.contains(&format!("`{name}`")),
            "README.md does not list `{name}`"
        );
    }
}

#[test]
fn every_reason_code_is_documented() {
    let docs = read(&root().join("docs/reasons.md"));
    let code = read(&root().join("crates/claude-tool-bridge/src/decision.rs"));
    // The codes are the match arms of `Reason::code`.
    let reasons = code
        .split_once("impl Reason {")
        .map(|(_, rest)| rest.split("\n}\n").next().unwrap_or(""))
        .expect("decision.rs has `impl Reason`");
    let mut n = 0;
    for line in reasons.lines() {
        if let Some((_, rest)) = line.split_once("=> \"") {
            let reason = rest.split('"').next().unwrap();
            assert!(
                docs.contains(&format!("| `{reason}` |")),
                "docs/reasons.md lacks `{reason}`"
            );
            n += 1;
        }
    }
    assert!(n >= 15, "found only {n} reason codes");
}

#[test]
fn no_pending_snapshots() {
    let mut files = Vec::new();
    walk(&root(), &mut files);
    let pending: Vec<_> = files
        .iter()
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".snap.new") || s.ends_with(".pending-snap")
        })
        .collect();
    assert!(pending.is_empty(), "review these snapshots: {pending:?}");
}

#[test]
fn every_reply_fixture_has_a_sidecar() {
    let replies =
        ctb_testkit::files_with_extension(&root().join("fixtures/replies"), "txt").unwrap();
    for p in &replies {
        assert!(
            p.with_extension("json").is_file(),
            "{}: no sidecar",
            p.display()
        );
    }
    let n = replies.len();
    assert!(n > 0);
}

#[test]
fn ci_runs_the_readme_test_command() {
    let ci = read(&root().join(".ci/run"));
    assert!(
        ci.contains("cargo xtask test"),
        ".ci/run must run `cargo xtask test`"
    );
    let readme = read(&root().join("README.md"));
    assert!(readme.contains("cargo xtask test") && readme.contains("cargo xtask replay"));
}

/// The committed fixtures are exactly what their generators write (the prefixed tags are built
/// from parts there, so nobody edits the files by hand).
#[test]
fn fixtures_match_their_generators() {
    for script in ["fixtures/generate.py", "fixtures/conversations/generate.py"] {
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let out = std::process::Command::new(&python)
            .arg(root().join(script))
            .arg("--check")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {python} {script}: {e}"));
        assert!(
            out.status.success(),
            "{script} --check: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every rule of `docs/parser-divergences.json` is explained in `docs/parser-divergences.md`.
#[test]
fn parser_divergence_rules_are_documented() {
    let json: serde_json::Value =
        serde_json::from_str(&read(&root().join("docs/parser-divergences.json"))).unwrap();
    let md = read(&root().join("docs/parser-divergences.md"));
    let rules = json["rules"].as_object().unwrap();
    for (rule, ids) in json["cases"].as_object().unwrap() {
        assert!(
            rules.contains_key(rule),
            "{rule}: cases under an undefined rule"
        );
        let row = format!("| `{rule}` | {} |", ids.as_array().unwrap().len());
        assert!(
            md.contains(&row),
            "parser-divergences.md lacks the row {row}"
        );
    }
}

/// The peer parsers' cases (`../shared/suites/parsers`, present in every checkout and CI run):
/// every disagreement is explained, every family at or above the target.
#[test]
fn parser_conformance_holds() {
    let dir = root().join("../shared/suites/parsers");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is not here", dir.display());
        return;
    };
    let mut docs = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            let text = read(&p);
            let doc = serde_json::from_str(&text)
                .or_else(|e| ctb_json::parse(&text).map_err(|_| e))
                .unwrap();
            docs.push((p.display().to_string(), doc));
        }
    }
    assert!(
        docs.len() > 10,
        "parser suites missing in {}",
        dir.display()
    );
    crate::parsers::run(&docs, true).unwrap();
}
