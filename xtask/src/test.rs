//! `cargo xtask test`: every check CI runs, in order: fmt, clippy, docs, the version check,
//! Rust tests, then the Python side (the wheel's type stubs against the module, the release
//! workflow's lints, the Python and plugin tests, the browser test in headless Chromium).
//! The Python virtualenvs are filled in the background meanwhile.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

use crate::util::{self, cargo, root};

pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    // What only downloads and unpacks (the test virtualenv's requirements, the client
    // programs' and the newest LiteLLM's virtualenvs) is made while the Rust checks run.
    let prepared = Prepared::start()?;
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
    // The crates, the wheel, plugin.yaml and the changelog state one version.
    crate::dist::check_versions()?;
    // The binding links libpython; it is tested through Python below.
    util::run(cargo().args(["test", "--workspace", "--exclude", "ctb-python"]))?;
    python_tests(prepared)?;
    Ok(())
}

/// The virtualenvs being made in the background: `target/py-venv` with the requirements of
/// `tests/python/requirements.txt` (a thread), and the cached ones of the client programs and
/// the newest LiteLLM (`tests/python/client_venvs.py`, a process whose output goes to
/// `<target>/clients/prepare.log`; the tests that use them wait for them, or make them
/// themselves when this one failed).
struct Prepared {
    venv: Option<JoinHandle<Result<PathBuf, String>>>,
    clients: Option<Child>,
}

impl Prepared {
    fn start() -> Result<Self, String> {
        let tests = root().join("tests").join("python");
        let requirements = crate::dist::read_requirements(&tests.join("requirements.txt"))?;
        let venv = std::thread::spawn(move || crate::dist::ensure_venv(&requirements));
        let folder = crate::dist::target_dir().join("clients");
        let clients = std::fs::create_dir_all(&folder)
            .and_then(|()| std::fs::File::create(folder.join("prepare.log")))
            .and_then(|log| {
                let err = log.try_clone()?;
                Command::new(crate::dist::base_python())
                    .arg(tests.join("client_venvs.py"))
                    .current_dir(root())
                    .stdin(Stdio::null())
                    .stdout(log)
                    .stderr(err)
                    .spawn()
            })
            .map_err(|e| eprintln!("the client virtualenvs are made by the tests instead: {e}"))
            .ok();
        Ok(Self {
            venv: Some(venv),
            clients,
        })
    }

    /// The test virtualenv's interpreter, once its requirements are in.
    fn python(&mut self) -> Result<PathBuf, String> {
        self.venv
            .take()
            .ok_or("the test virtualenv was asked for twice")?
            .join()
            .map_err(|_| "making the test virtualenv panicked".to_owned())?
    }
}

impl Drop for Prepared {
    /// Waits for the client virtualenvs; on an early return (a failed check) they are
    /// stopped instead (a half-made one is made again next time).
    fn drop(&mut self) {
        if let Some(mut child) = self.clients.take() {
            if self.venv.is_some() {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
        if let Some(venv) = self.venv.take() {
            let _ = venv.join();
        }
    }
}

/// The Python side, in a virtualenv in `target/py-venv` (made on first use, with the pinned
/// requirements of `tests/python/requirements.txt`): the wheel built by maturin and installed
/// there, mypy's stubtest, the workflow lints, then pytest in two workers (pytest-xdist,
/// `--dist loadscope`: a module's tests, or a class's, run on one worker, so a module's started
/// proxies and other shared fixtures are made once). pytest's exit code 5 (nothing collected)
/// is a failure.
fn python_tests(mut prepared: Prepared) -> Result<(), String> {
    let tests = root().join("tests").join("python");
    let python = prepared.python()?;
    crate::dist::develop(&python)?;
    // The hand-written stubs describe the compiled module (names, signatures, finality).
    util::run(
        Command::new(&python)
            .args(["-m", "mypy.stubtest", "claude_tool_bridge._native"])
            .current_dir(crate::dist::venv_dir()),
    )?;
    lint_workflows()?;
    ensure_chromium()?;
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(["-n", "2", "--dist", "loadscope"])
        .arg(&tests)
        .current_dir(root())
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    eprintln!(
        "$ {} -m pytest -q -n 2 --dist loadscope {}",
        python.display(),
        tests.display()
    );
    let status = pytest
        .status()
        .map_err(|e| format!("cannot start pytest: {e}"))?;
    drop(prepared);
    match status.code() {
        Some(0) => Ok(()),
        Some(5) => Err("pytest collected no tests (exit code 5)".to_owned()),
        _ => Err(format!("the Python tests failed ({status})")),
    }
}

/// Every workflow against GitHub's workflow schema (check-jsonschema ships it, so no
/// download) and through zizmor's security audits (offline: no GitHub API calls).
fn lint_workflows() -> Result<(), String> {
    let folder = root().join(".github").join("workflows");
    let mut workflows: Vec<_> = std::fs::read_dir(&folder)
        .map_err(|e| format!("cannot read {}: {e}", folder.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| has_extension(p, "yml") || has_extension(p, "yaml"))
        .collect();
    if workflows.is_empty() {
        return Err(format!("no workflows in {}", folder.display()));
    }
    workflows.sort();
    let venv = crate::dist::venv_dir();
    util::run(
        Command::new(crate::dist::script_in(&venv, "check-jsonschema"))
            .args(["--builtin-schema", "vendor.github-workflows"])
            .args(&workflows)
            .current_dir(root()),
    )?;
    util::run(
        Command::new(crate::dist::script_in(&venv, "zizmor"))
            .args(["--offline", "--no-progress"])
            .args(&workflows)
            .current_dir(root()),
    )
}

/// The names Debian's Chromium (and other builds) go by; `tests/python/cdp.py` looks for the
/// same.
const CHROMIUM: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// The browser test (`tests/python/test_browser.py`) drives headless Chromium: installed with
/// `apt-get install -y chromium` when none is on `PATH` (CI runs as root on Debian; the
/// package lists are updated first when the install fails without), else the command fails
/// saying what is missing.
fn ensure_chromium() -> Result<(), String> {
    if CHROMIUM.iter().any(|name| on_path(name)) {
        return Ok(());
    }
    let install = || {
        util::run(
            Command::new("apt-get")
                .args(["install", "-y", "chromium"])
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )
    };
    if install().is_err() {
        util::run(Command::new("apt-get").arg("update"))?;
        install()?;
    }
    if CHROMIUM.iter().any(|name| on_path(name)) {
        Ok(())
    } else {
        Err(
            "no Chromium on PATH after `apt-get install -y chromium`: the browser test \
             (tests/python/test_browser.py) needs it"
                .to_owned(),
        )
    }
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}
