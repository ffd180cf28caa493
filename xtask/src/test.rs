//! `cargo xtask test`: every check CI runs, in order: fmt, clippy, docs, Rust tests, Python
//! tests.

use std::process::Command;

use crate::util::{self, cargo, root};

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
    // Docs build without warnings (broken intra-doc links, private links).
    util::run(
        cargo()
            .args(["doc", "--no-deps", "--workspace", "--quiet"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    // The binding links libpython; it is tested through Python below.
    util::run(cargo().args(["test", "--workspace", "--exclude", "ctb-python"]))?;
    python_tests()?;
    Ok(())
}

/// The Python tests: a virtualenv in `target/py-venv` (made on first use, with the pinned
/// requirements of `tests/python/requirements.txt`), the wheel built by maturin and
/// installed there, then pytest. pytest's exit code 5 (nothing collected) is a failure.
fn python_tests() -> Result<(), String> {
    let tests = root().join("tests").join("python");
    let requirements = crate::dist::read_requirements(&tests.join("requirements.txt"))?;
    let python = crate::dist::ensure_venv(&requirements)?;
    crate::dist::develop(&python)?;
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&tests)
        .current_dir(root())
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    eprintln!("$ {} -m pytest -q {}", python.display(), tests.display());
    let status = pytest
        .status()
        .map_err(|e| format!("cannot start pytest: {e}"))?;
    match status.code() {
        Some(0) => Ok(()),
        Some(5) => Err("pytest collected no tests (exit code 5)".to_owned()),
        _ => Err(format!("the Python tests failed ({status})")),
    }
}
