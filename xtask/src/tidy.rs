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

/// The non-test source of a Rust file: comment lines and test code left out. A file that is a
/// test module (`#![cfg(test)]` after its documentation) is all test code; elsewhere an item
/// under `#[cfg(test)]` is: a module written in the file, up to the `}` that closes it at its
/// own indent, or one line (a module declared elsewhere, a field, a statement). The rest of
/// the file after a test item is read on.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().any(|l| l.trim() == "#![cfg(test)]") {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let line = lines[n];
        if line.trim() != "#[cfg(test)]" {
            if !line.trim_start().starts_with("//") {
                out.push((n, line));
            }
            n += 1;
            continue;
        }
        // The item under the attribute (other attributes may come between).
        n += 1;
        while n < lines.len() && lines[n].trim_start().starts_with("#[") {
            n += 1;
        }
        let Some(item) = lines.get(n) else { break };
        n += 1;
        if item.trim_end().ends_with('{') {
            let indent = &item[..item.len() - item.trim_start().len()];
            let close = format!("{indent}}}");
            while n < lines.len() && lines[n].trim_end() != close {
                n += 1;
            }
            n += 1;
        }
    }
    out
}

/// Whether a string literal's bytes spell call markup: a tag (`<` then a letter, `/`, `|` or
/// the full-width bar), a special token's end (`|>`), or a bracket token.
fn spells_markup(literal: &[u8]) -> bool {
    literal.windows(2).any(|w| {
        w[0] == b'<' && (w[1].is_ascii_alphabetic() || matches!(w[1], b'/' | b'|' | 0xEF))
            || w == b"|>"
    }) || literal.windows(12).any(|w| w == b"[TOOL_CALLS]")
}

/// The string literals of a line, as the bytes they stand for: `"..."`, byte strings
/// (`b"..."`), raw strings (`r"..."`, `r#"..."#`, `br"..."`) and byte literals (`b'<'`, each a
/// literal of its own), escapes decoded (`\u{ff5c}` is the full-width bar's bytes, `\x3c` a
/// `<`).
fn literals(line: &str) -> Vec<Vec<u8>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // A raw string: `r`, hashes, a quote; it ends at a quote followed by as many hashes.
        let raw_at = if b[i] == b'r' {
            Some(i + 1)
        } else if b[i] == b'b' && b.get(i + 1) == Some(&b'r') {
            Some(i + 2)
        } else {
            None
        };
        if let Some(at) = raw_at.filter(|_| i == 0 || !is_ident(b[i - 1])) {
            let hashes = b[at..].iter().take_while(|c| **c == b'#').count();
            if b.get(at + hashes) == Some(&b'"') {
                let start = at + hashes + 1;
                let mut end = start;
                let closer: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                while end < b.len() && !b[end..].starts_with(&closer) {
                    end += 1;
                }
                out.push(b[start..end.min(b.len())].to_vec());
                i = end + closer.len();
                continue;
            }
        }
        if b[i] == b'\'' {
            // A char or byte literal ('"', b'<', '\n'); a lifetime (`'a`) has no closing quote.
            let len = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|c| *c == b'\'').map(|k| k + 3)
            } else {
                let ch = line[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            if let Some(len) = len {
                out.push(unescape(&line[i + 1..i + len - 1]));
                i += len;
                continue;
            }
        }
        if b[i] == b'"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            out.push(unescape(&line[start..i.min(line.len())]));
        }
        i += 1;
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The bytes a literal's text stands for: Rust's escapes decoded.
fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('0') => out.push(0),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&hex, 16).unwrap_or(b'?'));
            }
            Some('u') => {
                let hex: String = chars
                    .by_ref()
                    .skip_while(|c| *c == '{')
                    .take_while(|c| *c != '}')
                    .collect();
                let c = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('?');
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            // A line continuation, or an escaped quote or backslash.
            Some(c) if c.is_whitespace() => {}
            Some(c) => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            None => {}
        }
    }
    out
}

#[test]
fn only_the_vocabulary_spells_a_tag() {
    // Adding a family is a registry row; nothing else names its markup. The grammar's
    // engines, the registry's tables, the guard, the prose policy and the echo index take
    // every tag, token and marker from `ctb_invoke::vocab` (or from the registry's rows).
    let vocab_file = root().join("crates/ctb-invoke/src/vocab.rs");
    let registry = root().join("crates/ctb-invoke/src/registry.rs");
    // Every word the vocabulary spells (its string constants): spelled anywhere else, it is
    // a second place for the same fact.
    let vocab = read(&vocab_file);
    let words: std::collections::BTreeSet<Vec<u8>> = code_lines(&vocab)
        .into_iter()
        .flat_map(|(_, l)| literals(l))
        .filter(|w| w.len() >= 3)
        .collect();
    assert!(words.len() > 20, "the vocabulary's words were not found");
    let mut found = Vec::new();
    for dir in crate_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        // The crates that read markup. (The facade, the schema reader, the CLI and the binding
        // use some of the same words as JSON keys of requests and tool definitions; the test
        // helpers spell markup in examples and generators.)
        if !matches!(
            name.as_str(),
            "ctb-invoke" | "ctb-guard" | "ctb-prose" | "ctb-echo"
        ) {
            continue;
        }
        let mut files = Vec::new();
        walk(&dir.join("src"), &mut files);
        for file in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        {
            if *file == vocab_file {
                continue;
            }
            let text = read(file);
            // The registry's tables name families (codes, titles, model patterns) with words
            // that may also be the vocabulary's (`minimax` is a family and a namespace), and
            // show each form's markup to the documentation's readers (`looks`, which nothing
            // reads markup from).
            let (mut names, mut looks) = (false, false);
            for (n, line) in code_lines(&text) {
                let field = line.trim_start();
                let in_registry = *file == registry;
                let naming = in_registry
                    && ["code:", "title:", "patterns:", "models:"]
                        .iter()
                        .any(|f| field.starts_with(f));
                names |= naming && field.ends_with('[');
                looks |= in_registry && field.starts_with("looks:");
                if !looks {
                    for lit in literals(line)
                        .into_iter()
                        .filter(|l| spells_markup(l) || words.contains(l) && !(naming || names))
                    {
                        let lit = String::from_utf8_lossy(&lit);
                        found.push(format!("{}:{}: \"{lit}\"", file.display(), n + 1));
                    }
                }
                names &= !field.starts_with(']');
                // A `looks` text runs on over lines that end in a line continuation.
                looks &= field.ends_with('\\');
            }
        }
    }
    assert!(
        found.is_empty(),
        "tags spelled outside the vocabulary:\n{}",
        found.join("\n")
    );
}

/// The modules a file of a crate uses (`crate::x` paths), by name.
fn module_uses(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for (_, line) in code_lines(text) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if rest.starts_with('{') {
                // `use crate::{a, b::c}`: every first segment.
                let end = rest.find('}').unwrap_or(rest.len());
                for part in rest[1..end].split(',') {
                    let seg = part.trim().split("::").next().unwrap_or("").trim();
                    if seg.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !seg.is_empty() {
                        out.insert(seg.to_owned());
                    }
                }
                continue;
            }
            let seg: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if rest[seg.len()..].starts_with("::") && !seg.is_empty() {
                out.insert(seg);
            }
        }
    }
    out
}

#[test]
fn modules_import_each_other_one_way() {
    // ARCHITECTURE.md: no import circle inside a crate (the grammar's bodies import the shared
    // types, not the dispatcher; the settings do not import what the patterns import...).
    for dir in crate_dirs() {
        let src = dir.join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            Default::default();
        for file in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        {
            let rel = file.strip_prefix(&src).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let module = first.trim_end_matches(".rs").to_owned();
            if module == "lib" || module == "main" {
                continue;
            }
            let uses = module_uses(&read(file));
            edges
                .entry(module.clone())
                .or_default()
                .extend(uses.into_iter().filter(|u| *u != module));
        }
        // Depth-first search for a cycle.
        fn visit(
            m: &str,
            edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
            state: &mut std::collections::BTreeMap<String, u8>,
            path: &mut Vec<String>,
        ) -> Option<Vec<String>> {
            match state.get(m) {
                Some(2) => return None,
                Some(1) => {
                    let at = path.iter().position(|p| p == m).unwrap_or(0);
                    let mut cycle = path[at..].to_vec();
                    cycle.push(m.to_owned());
                    return Some(cycle);
                }
                _ => {}
            }
            state.insert(m.to_owned(), 1);
            path.push(m.to_owned());
            for next in edges.get(m).into_iter().flatten() {
                if let Some(c) = visit(next, edges, state, path) {
                    return Some(c);
                }
            }
            path.pop();
            state.insert(m.to_owned(), 2);
            None
        }
        let mut state = Default::default();
        for m in edges.keys() {
            if let Some(cycle) = visit(m, &edges, &mut state, &mut Vec::new()) {
                panic!(
                    "{}: modules import each other: {}",
                    dir.display(),
                    cycle.join(" -> ")
                );
            }
        }
    }
}

#[test]
fn generated_parts_match_the_registry() {
    // The families tables, the default model patterns and the stubs' codes are written from
    // the registry (`cargo xtask registry`).
    crate::registry::sync(true).unwrap();
}

#[test]
fn the_source_reader_skips_test_items_only_and_decodes_literals() {
    let text = "struct S {\n    #[cfg(test)]\n    one: bool,\n    two: u8,\n}\n#[cfg(test)]\nmod cases;\nfn f() -> &'static str { \"a\" }\n#[cfg(test)]\n#[allow(dead_code)]\nmod tests {\n    fn g() { let _ = \"<invoke\"; }\n}\nconst X: &[u8] = b\"<|x\";\n";
    let lines: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    assert!(lines.contains(&"    two: u8,") && !lines.contains(&"    one: bool,"));
    assert!(lines.iter().any(|l| l.contains("fn f()")));
    assert!(lines.iter().any(|l| l.contains("const X")));
    assert!(!lines.iter().any(|l| l.contains("<invoke")));
    assert!(code_lines("//! doc\n#![cfg(test)]\nconst A: &str = \"<x\";").is_empty());
    let lits = literals(r##"f("<\u{ff5c}DSML", b"<|a", r#"a"b"#, b'<', '"', "\x3cp")"##);
    assert_eq!(
        lits,
        [
            "<\u{ff5c}DSML".as_bytes(),
            b"<|a",
            b"a\"b",
            b"<",
            b"\"",
            b"<p"
        ]
    );
    assert!(spells_markup(&lits[0]) && spells_markup(&lits[5]) && !spells_markup(&lits[2]));
}
