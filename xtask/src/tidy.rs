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

/// A Rust file as the tidy checks read it: its code outside test modules, with comments and
/// the contents of string literals blanked (line breaks kept, so lines keep their numbers),
/// and its string literals (plain, byte and raw, escapes kept) with their line numbers.
///
/// Only test modules are left out: a `#[cfg(test)]` on a `mod name { ... }` skips that module
/// to its closing brace (strings and comments inside it read as such, so their braces do not
/// count); a `#[cfg(test)]` on anything else (a field, a function) leaves it in; a file that
/// says `#![cfg(test)]` is a test module and is skipped whole.
struct Code<'a> {
    code: String,
    literals: Vec<(usize, &'a str)>,
}

impl<'a> Code<'a> {
    fn read(text: &'a str) -> Self {
        let b = text.as_bytes();
        let mut code = String::with_capacity(text.len());
        let mut literals = Vec::new();
        if text.contains("#![cfg(test)]") {
            return Self { code, literals };
        }
        let line_of = |at: usize| 1 + b[..at].iter().filter(|&&c| c == b'\n').count();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        // Blanks `from..to` in the code kept (line breaks stay).
        let blank = |code: &mut String, from: usize, to: usize| {
            code.extend(
                b[from..to]
                    .iter()
                    .map(|&c| if c == b'\n' { '\n' } else { ' ' }),
            );
        };
        let mut depth = 0usize;
        // The depth a skipped test module's closing brace returns to.
        let mut skipping: Option<usize> = None;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let prev = if i > 0 { b[i - 1] } else { b' ' };
            // Comments.
            if c == b'/' && b.get(i + 1) == Some(&b'/') {
                let end = memchr_from(b, b'\n', i).unwrap_or(b.len());
                blank(&mut code, i, end);
                i = end;
                continue;
            }
            if c == b'/' && b.get(i + 1) == Some(&b'*') {
                let (mut j, mut nest) = (i + 2, 1);
                while j < b.len() && nest > 0 {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        nest += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        nest -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut code, i, j);
                i = j;
                continue;
            }
            // Raw strings: r"..", r#".."#, br"..", br#".."#.
            let raw_at = if c == b'r' && !ident(prev) {
                Some(i + 1)
            } else if c == b'b' && b.get(i + 1) == Some(&b'r') && !ident(prev) {
                Some(i + 2)
            } else {
                None
            };
            if let Some(mut j) = raw_at {
                let hashes = b[j..].iter().take_while(|&&h| h == b'#').count();
                j += hashes;
                if b.get(j) == Some(&b'"') {
                    let close: Vec<u8> = std::iter::once(b'"')
                        .chain(std::iter::repeat_n(b'#', hashes))
                        .collect();
                    let start = j + 1;
                    let end = find_from(b, &close, start).unwrap_or(b.len());
                    if skipping.is_none() {
                        literals.push((line_of(start), &text[start..end]));
                    }
                    code.push_str(&text[i..start]);
                    blank(&mut code, start, end);
                    i = (end + close.len()).min(b.len());
                    code.push_str(&text[end..i]);
                    continue;
                }
            }
            // Plain and byte strings (the `b` is copied as code).
            if c == b'"' {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                if skipping.is_none() {
                    literals.push((line_of(start), &text[start..end]));
                }
                code.push('"');
                blank(&mut code, start, end);
                if end < b.len() {
                    code.push('"');
                }
                i = end + 1;
                continue;
            }
            // Character literals ('x', '\n', '\u{..}', b'x'); a lifetime is code.
            if c == b'\'' {
                let end = if b.get(i + 1) == Some(&b'\\') {
                    memchr_from(b, b'\'', i + 3)
                } else {
                    let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
                };
                if let Some(end) = end {
                    code.push('\'');
                    blank(&mut code, i + 1, end);
                    code.push('\'');
                    i = end + 1;
                    continue;
                }
            }
            // A test module: skipped to its closing brace.
            if c == b'#' && text[i..].starts_with("#[cfg(test)]") && skipping.is_none() {
                if let Some(open) = test_module_brace(text, i + "#[cfg(test)]".len()) {
                    blank(&mut code, i, open + 1);
                    skipping = Some(depth);
                    depth += 1;
                    i = open + 1;
                    continue;
                }
            }
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if skipping == Some(depth) {
                        skipping = None;
                        code.push(' ');
                        i += 1;
                        continue;
                    }
                }
                _ => {}
            }
            if skipping.is_some() {
                code.push(if c == b'\n' { '\n' } else { ' ' });
                i += 1;
            } else {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                code.push_str(&text[i..i + len]);
                i += len;
            }
        }
        Self { code, literals }
    }

    /// The lines of the code (comments, test modules and string contents blanked), numbered
    /// from 1.
    fn lines(&self) -> impl Iterator<Item = (usize, &str)> {
        self.code.lines().enumerate().map(|(n, l)| (n + 1, l))
    }
}

/// Where the `{` of the module a `#[cfg(test)]` (ending at `from`) applies to is, when it
/// applies to an inline module: past white space, line comments, other attributes and a
/// visibility, `mod name {`.
fn test_module_brace(text: &str, from: usize) -> Option<usize> {
    let mut rest = &text[from..];
    loop {
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if trimmed.starts_with("#[") {
            rest = &trimmed[trimmed.find(']')? + 1..];
        } else {
            rest = trimmed;
            break;
        }
    }
    for vis in ["pub(crate) ", "pub(super) ", "pub "] {
        rest = rest.strip_prefix(vis).unwrap_or(rest);
    }
    let name = rest.strip_prefix("mod ")?.trim_start();
    let after = name.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    after
        .trim_start()
        .starts_with('{')
        .then(|| text.len() - after.trim_start().len())
}

fn memchr_from(b: &[u8], byte: u8, from: usize) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&c| c == byte)
        .map(|at| from + at)
}

fn find_from(b: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|at| from + at)
}

/// Whether a string literal spells the vocabulary's markup: one of its tokens or tags (its
/// literals that spell markup, three bytes or more: `tokens`), or a tag, opening or closing,
/// named by one of its words (`names`, in any namespace). The check for code that reads no
/// markup, where `<` and a letter are also usage texts' placeholders and format strings'
/// alignment.
fn spells_vocabulary_markup(
    literal: &str,
    tokens: &std::collections::BTreeSet<&str>,
    names: &std::collections::BTreeSet<&str>,
) -> bool {
    if tokens.iter().any(|t| literal.contains(t)) {
        return true;
    }
    literal.match_indices('<').any(|(at, _)| {
        let rest = &literal[at + 1..];
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let name: &str = rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-')))
            .next()
            .unwrap_or("");
        let local = name.rsplit(':').next().unwrap_or(name);
        names.contains(local)
    })
}

/// Whether a string literal spells call markup: a tag (`<` then a letter, `/`, `|` or the
/// full-width bar), a special token's end (`|>`), or a bracket token.
fn spells_markup(literal: &str) -> bool {
    let b = literal.as_bytes();
    b.windows(2).any(|w| {
        w[0] == b'<' && (w[1].is_ascii_alphabetic() || matches!(w[1], b'/' | b'|' | 0xEF))
            || w == b"|>"
    }) || literal.contains("[TOOL_CALLS]")
}

#[test]
fn the_tidy_reader_skips_test_modules_only_and_reads_every_literal() {
    let text = r####"//! Doc "<invoke>" in a comment.
struct S {
    #[cfg(test)]
    field: bool,
}
const A: &str = "<a>"; // "<comment>"
const B: &[u8] = b"<b>";
const C: &str = r#"<c "quoted">"#;
const D: &[u8] = br"<d>";
const E: char = '"';
fn f<'a>(x: &'a str) -> &'a str { /* "<block>" */ "{e}" }
#[cfg(test)]
mod tests {
    const T: &str = "<test>";
    fn g() { let _ = "}"; }
}
const F: &str = "<after the tests>";
"####;
    let code = Code::read(text);
    let got: Vec<(usize, &str)> = code.literals.clone();
    assert_eq!(
        got,
        [
            (6, "<a>"),
            (7, "<b>"),
            (8, "<c \"quoted\">"),
            (9, "<d>"),
            (11, "{e}"),
            (17, "<after the tests>"),
        ]
    );
    assert_eq!(code.code.lines().count(), text.lines().count());
    assert!(code.code.contains("field: bool"));
    assert!(!code.code.contains("tests") && !code.code.contains("comment"));
    // The markup readers' files are read past a `#[cfg(test)]` field (scan.rs has one).
    let scan = read(&root().join("crates/ctb-invoke/src/scan.rs"));
    let field = scan
        .find("#[cfg(test)]")
        .expect("scan.rs has a test-only item");
    let read_lines = Code::read(&scan)
        .lines()
        .filter(|(_, l)| !l.trim().is_empty())
        .count();
    let before_field = scan[..field].lines().count();
    assert!(
        read_lines > before_field + 100,
        "{read_lines} <= {before_field}"
    );
    // Outside the markup readers: the vocabulary's tokens and tags, not placeholders.
    let vocab = read(&root().join("crates/ctb-invoke/src/vocab.rs"));
    let words: std::collections::BTreeSet<&str> = Code::read(&vocab)
        .literals
        .into_iter()
        .map(|(_, w)| w)
        .filter(|w| w.len() >= 3)
        .collect();
    let tokens = words.iter().copied().filter(|w| spells_markup(w)).collect();
    let names = words
        .iter()
        .copied()
        .filter(|w| w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .collect();
    for (literal, spelled) in [
        ("<invoke name=\"t\">", true),
        ("x LT/ns:parameter>", true),
        ("<tool_call>", true),
        ("usage: <command> [DIR]", false),
        ("{:<name_w$}", false),
        ("tool_name", false),
    ] {
        let literal = literal.replace("LT", "<");
        assert_eq!(
            spells_vocabulary_markup(&literal, &tokens, &names),
            spelled,
            "{literal}"
        );
    }
    assert!(
        Code::read("//! A test file.\n#![cfg(test)]\nconst X: &str = \"<x>\";\n")
            .literals
            .is_empty()
    );
}

#[test]
fn only_the_registry_and_the_vocabulary_spell_a_tag() {
    // Adding a family is a registry row; nothing else names its markup. The grammar's
    // bodies, the guard, the prose policy, the echo index, the facade and xtask take every
    // tag, token and marker from `ctb_invoke::registry` or `ctb_invoke::vocab`.
    let allowed = [
        root().join("crates/ctb-invoke/src/registry.rs"),
        root().join("crates/ctb-invoke/src/vocab.rs"),
    ];
    // Every word the vocabulary spells (its string constants): spelled anywhere else, it is
    // a second place for the same fact.
    let vocab = read(&allowed[1]);
    let words: std::collections::BTreeSet<&str> = Code::read(&vocab)
        .literals
        .into_iter()
        .map(|(_, w)| w)
        .filter(|w| w.len() >= 3)
        .collect();
    assert!(words.len() > 20, "the vocabulary's words were not found");
    // Its tokens and tags, and the words that name tags.
    let tokens: std::collections::BTreeSet<&str> =
        words.iter().copied().filter(|w| spells_markup(w)).collect();
    let names: std::collections::BTreeSet<&str> = words
        .iter()
        .copied()
        .filter(|w| w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .collect();
    assert!(
        tokens.len() > 10 && names.len() > 5,
        "the vocabulary's tags were not found"
    );
    // Where to look, and how strictly.
    #[derive(Clone, Copy, PartialEq)]
    enum Reads {
        // Code that reads markup: no tag-shaped text (`<` and a letter, `|>`, `[TOOL_CALLS]`)
        // and no vocabulary word at all.
        Markup,
        // Code that reads no markup (the facade, xtask): none of the vocabulary's tokens or
        // tags. Bare words are allowed there: they are the keys of the JSON it writes and
        // reads (Agent Zero's request: `thoughts`, `tool_name`; tool definitions: `name`,
        // `parameters`), which no reply's markup decides. Nor is every `<` and a letter:
        // usage texts' placeholders (`<command>`) and format strings (`{:<8}`) are no markup.
        Json,
    }
    let mut dirs: Vec<(PathBuf, Reads)> = Vec::new();
    for dir in crate_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        match name.as_str() {
            "ctb-invoke" | "ctb-guard" | "ctb-prose" | "ctb-echo" => {
                dirs.push((dir, Reads::Markup));
            }
            "claude-tool-bridge" => dirs.push((dir, Reads::Json)),
            // The schema reader, the CLI and the binding use the words as JSON keys of tool
            // definitions; the test helpers spell markup in examples and generators.
            _ => {}
        }
    }
    // xtask writes the generated docs from the registry rows; its conformance harness
    // builds calls from the vocabulary.
    dirs.push((root().join("xtask"), Reads::Json));
    let mut found = Vec::new();
    for (dir, reads) in dirs {
        let mut files = Vec::new();
        walk(&dir.join("src"), &mut files);
        for file in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        {
            if allowed.contains(file) {
                continue;
            }
            let text = read(file);
            for (line, lit) in Code::read(&text).literals {
                let spelled = match reads {
                    Reads::Markup => spells_markup(lit) || words.contains(lit),
                    Reads::Json => spells_vocabulary_markup(lit, &tokens, &names),
                };
                if spelled {
                    let rel = file.strip_prefix(root()).unwrap_or(file);
                    found.push(format!("{}:{line}: \"{lit}\"", rel.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "tags spelled outside the registry and the vocabulary:\n{}",
        found.join("\n")
    );
}

/// The modules a file of a crate uses (`crate::x` paths), by name.
fn module_uses(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let code = Code::read(text);
    for (_, line) in code.lines() {
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
