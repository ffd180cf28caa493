//! ctb-json side by side with jsonrepair-rs and serde_json on the same generated inputs, and
//! the two speed ratios the crate promises.
//!
//! Run: `cargo bench -p ctb-json --bench repair -- --warm-up-time 1 --measurement-time 3`
//! (or `cargo xtask bench`, which also prints every ratio in one table).
//!
//! Rows per input (criterion): `ctb_parse` (text to `Value`), `ctb_repair` (text to repaired
//! text), `jsonrepair_rs_value` and `jsonrepair_rs_text` (the same two for jsonrepair-rs), and
//! on valid inputs `serde_json` (text to `Value` with the workspace's serde_json features) and
//! `serde_json_default` (text to [`DefaultValue`], what `Value` is with default features).
//!
//! Ratios (after the criterion rows; timed side by side in one process, alternating batches,
//! medians; see `ctb_testkit::ratio`), each written to `target/ctb-bench/<name>.json`:
//!
//! | name | measured | against | target |
//! |---|---|---|---|
//! | `repair_tool_args_4k_vs_serde_json` | `ctb_json::repair` of a valid 4 KB tool request | serde_json reading it into [`DefaultValue`] | <= 1.2 |
//! | `parse_valid_1mb_vs_jsonrepair_rs` | `ctb_json::parse` of 1 MB of valid JSON | `jsonrepair_rs::jsonrepair_value` | <= 0.5 |
//!
//! Why [`DefaultValue`]: the target compares with serde_json "with default features", but one
//! bench binary links one serde_json, with the workspace's features; [`DefaultValue`] (in
//! `ctb-testkit`, which says more) is the default-features `Value`. The 4 KB tool request holds
//! one number. `IgnoredAny` or a borrowed `RawValue` would be no comparison: they skip the
//! unescaping and allocating that `repair` has to do.

use std::fmt::Write as _;
use std::hint::black_box;

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use ctb_testkit::DefaultValue;
use ctb_testkit::Rng;

const WORDS: [&str; 12] = [
    "alpha", "terminal", "session", "memory", "query", "the", "file", "list", "résumé", "path",
    "done", "value",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for k in 0..words {
        if k > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(&WORDS));
    }
    s
}

/// One record shaped like an Agent Zero tool request.
fn record(rng: &mut Rng, n: usize, quote_keys: bool) -> String {
    let q = |k: &str| {
        if quote_keys {
            format!("\"{k}\"")
        } else {
            k.to_owned()
        }
    };
    format!(
        "{{{}: [\"{}\", \"{}\"], {}: \"{}\", {}: \"code_execution_tool\", {}: {{{}: \"terminal\", {}: {}, {}: {}, {}: \"{}\\n{}\", {}: [{}, {}.5, -{}e3]}}}}",
        q("thoughts"),
        sentence(rng, 8),
        sentence(rng, 6),
        q("headline"),
        sentence(rng, 4),
        q("tool_name"),
        q("tool_args"),
        q("runtime"),
        q("session"),
        n % 7,
        q("reset"),
        n % 2 == 0,
        q("code"),
        sentence(rng, 5),
        sentence(rng, 5),
        q("numbers"),
        rng.below(1_000_000),
        rng.below(1000),
        rng.below(100),
    )
}

fn records(size: usize, quote_keys: bool, sep: &str) -> String {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut out = String::new();
    let mut n = 0;
    while out.len() < size {
        if n > 0 {
            out.push_str(sep);
        }
        out.push_str(&record(&mut rng, n, quote_keys));
        n += 1;
    }
    out
}

/// About 1 MB of valid JSON: an array of tool requests, pretty-printed a little.
fn valid_1mb() -> String {
    format!("[\n{}\n]", records(1 << 20, true, ",\n"))
}

/// About 1 MB of broken JSON: unquoted keys, and cut off in the middle of a string.
fn broken_1mb() -> String {
    let mut s = format!("[\n{}\n]", records(1 << 20, false, ",\n"));
    let mut cut = s.len() * 9 / 10;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

/// About 0.5 MB of small containers that each end in a trailing comma.
fn trailing_commas() -> String {
    let mut s = String::from("[");
    let mut n = 0u64;
    while s.len() < (1 << 19) {
        let _ = writeln!(s, "{{\"a\": {n}, \"b\": [1, 2, 3,],}},");
        n += 1;
    }
    s.push(']');
    s
}

/// About 0.5 MB of newline-delimited JSON.
fn ndjson() -> String {
    records(1 << 19, true, "\n")
}

/// A typical `tool_args` value of about 2 KB, the way models write it (a trailing comma, a
/// Python literal, an unescaped newline in the code).
fn tool_args_2k() -> String {
    let mut rng = Rng::new(7);
    let mut code = String::new();
    while code.len() < 1800 {
        let _ = writeln!(
            code,
            "echo \\\"{}\\\" >> /tmp/out.txt",
            sentence(&mut rng, 6)
        );
    }
    format!(
        "{{\"runtime\": \"terminal\", \"session\": 0, \"reset\": False, \"code\": \"{}\",}}",
        code.replace("\n", "\n    ")
    )
}

/// The same value as [`tool_args_2k`], written as valid JSON (for the serde_json row).
fn tool_args_2k_valid() -> String {
    let v = ctb_json::parse(&tool_args_2k()).expect("the 2 KB input parses");
    v.to_string()
}

/// A valid 4 KB tool request (`code_execution_tool`, pretty-printed), whose code string holds
/// escaped quotes, backslashes, `\n` and `\u` escapes: the prefix test's document.
const TOOL_ARGS_4K: &str = include_str!("../tests/data/prefixes/tool_args_4k.json");

fn bench(c: &mut Criterion) {
    let inputs: Vec<(&str, String, bool)> = vec![
        ("valid_1mb", valid_1mb(), true),
        ("broken_1mb", broken_1mb(), false),
        ("trailing_commas_0.5mb", trailing_commas(), false),
        ("ndjson_0.5mb", ndjson(), false),
        ("tool_args_2kb", tool_args_2k(), false),
        ("tool_args_2kb_valid", tool_args_2k_valid(), true),
        ("tool_args_4kb_valid", TOOL_ARGS_4K.to_owned(), true),
    ];
    for (name, input, valid) in &inputs {
        let mut g = c.benchmark_group(*name);
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_with_input(BenchmarkId::new("ctb_parse", input.len()), input, |b, s| {
            b.iter(|| black_box(ctb_json::parse(black_box(s)).is_ok()))
        });
        g.bench_with_input(
            BenchmarkId::new("ctb_repair", input.len()),
            input,
            |b, s| b.iter(|| black_box(ctb_json::repair(black_box(s)).map(|t| t.len()))),
        );
        g.bench_with_input(
            BenchmarkId::new("jsonrepair_rs_value", input.len()),
            input,
            |b, s| b.iter(|| black_box(jsonrepair_rs::jsonrepair_value(black_box(s)).is_ok())),
        );
        g.bench_with_input(
            BenchmarkId::new("jsonrepair_rs_text", input.len()),
            input,
            |b, s| b.iter(|| black_box(jsonrepair_rs::jsonrepair(black_box(s)).map(|t| t.len()))),
        );
        if *valid {
            g.bench_with_input(
                BenchmarkId::new("serde_json", input.len()),
                input,
                |b, s| {
                    b.iter(|| {
                        black_box(serde_json::from_str::<serde_json::Value>(black_box(s)).is_ok())
                    })
                },
            );
            g.bench_with_input(
                BenchmarkId::new("serde_json_default", input.len()),
                input,
                |b, s| {
                    b.iter(|| black_box(serde_json::from_str::<DefaultValue>(black_box(s)).is_ok()))
                },
            );
        }
        g.finish();
    }
}

/// The speed ratios with their targets (see the module doc).
fn ratios() {
    let budget = Duration::from_secs(3);
    let tool_args = TOOL_ARGS_4K;
    assert!(serde_json::from_str::<DefaultValue>(tool_args).is_ok());
    let reports = [
        ctb_testkit::ratio::measure(
            "repair_tool_args_4k_vs_serde_json",
            "repair of a valid 4 KB tool request vs serde_json reading it (default-features value)",
            ("ctb_json::repair", "serde_json"),
            1.2,
            budget,
            || {
                black_box(ctb_json::repair(black_box(tool_args)).map(|t| t.len()).ok());
            },
            || {
                black_box(serde_json::from_str::<DefaultValue>(black_box(tool_args)).is_ok());
            },
        ),
        {
            let valid = valid_1mb();
            ctb_testkit::ratio::measure(
                "parse_valid_1mb_vs_jsonrepair_rs",
                "parse of 1 MB of valid JSON into a Value vs jsonrepair-rs",
                ("ctb_json::parse", "jsonrepair_rs::jsonrepair_value"),
                0.5,
                budget,
                || {
                    black_box(ctb_json::parse(black_box(&valid)).is_ok());
                },
                || {
                    black_box(jsonrepair_rs::jsonrepair_value(black_box(&valid)).is_ok());
                },
            )
        },
    ];
    for r in &reports {
        if let Err(e) = r.report() {
            eprintln!("cannot write the ratio {}: {e}", r.name);
        }
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test" || a == "--list");
    let mut c = Criterion::default().sample_size(20).configure_from_args();
    bench(&mut c);
    c.final_summary();
    if !quick {
        ratios();
    }
}
