//! Runs the `ctb` binary on every case of `tests/data/cases.json` (arguments, optional stdin,
//! expected exit code) and snapshots what it printed. Invariants checked on every case:
//! exit 0 prints exactly one JSON value on stdout; exit 2 prints exactly one line on stderr
//! and nothing on stdout.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

#[test]
fn cli_cases() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = here.join("tests/data");
    let fixtures = here.join("../../fixtures");
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("cases.json")).unwrap()).unwrap();
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let args: Vec<String> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                a.as_str()
                    .unwrap()
                    .replace("{fixtures}", &fixtures.to_string_lossy())
                    .replace("{data}", &data.to_string_lossy())
            })
            .collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ctb"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = case["stdin"].as_str().unwrap_or("").to_owned();
        // A command that fails before reading stdin closes it: a broken pipe is expected then.
        if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{name}: {e}");
        }
        let out = child.wait_with_output().unwrap();
        let code = out.status.code().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr)
            .unwrap()
            .replace(&*fixtures.to_string_lossy(), "{fixtures}")
            .replace(&*data.to_string_lossy(), "{data}");
        assert_eq!(
            code,
            case["code"].as_i64().unwrap() as i32,
            "{name}: exit code\n{stderr}"
        );
        match code {
            0 if name != "version" => {
                let v: Value = serde_json::from_str(stdout.trim())
                    .unwrap_or_else(|e| panic!("{name}: stdout is not one JSON value: {e}"));
                if args[0] == "translate" {
                    for key in ["outcome", "reply", "request", "reason"] {
                        assert!(v.get(key).is_some(), "{name}: no `{key}`");
                    }
                }
            }
            2 => {
                assert!(stdout.is_empty(), "{name}: stdout on error");
                assert_eq!(
                    stderr.lines().count(),
                    1,
                    "{name}: stderr must be one line: {stderr}"
                );
            }
            _ => {}
        }
        let version_free = stdout.replace(env!("CARGO_PKG_VERSION"), "{version}");
        insta::assert_snapshot!(
            name.to_owned(),
            format!("exit: {code}\n--- stdout\n{version_free}--- stderr\n{stderr}")
        );
    }
}

/// A reader that closes the pipe early (`ctb translate big.txt | head -c 1`) ends the command
/// quietly: no panic, no backtrace, exit 0.
#[test]
fn closed_stdout_is_not_a_crash() {
    use std::io::Read;
    let big = format!(
        "<invoke name=\"response\">\n<parameter name=\"text\">{}</parameter>\n</invoke>",
        "x".repeat(1 << 20)
    );
    for args in [
        &["translate", "-"][..],
        &["scan", "-"][..],
        &["repair", "-"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ctb"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = if args[0] == "repair" {
            format!("{{\"a\": \"{}\"}}", "y".repeat(1 << 20))
        } else {
            big.clone()
        };
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        stdout.read_exact(&mut one).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
