//! ctb-json side by side with jsonrepair-rs and serde_json on the same generated inputs.
//!
//! Run: `cargo bench -p ctb-json --bench repair -- --warm-up-time 1 --measurement-time 3`
//!
//! Rows per input: `ctb_parse` (text to `Value`), `ctb_repair` (text to repaired text),
//! `jsonrepair_rs_value` and `jsonrepair_rs_text` (the same two for jsonrepair-rs), and
//! `serde_json` on valid inputs only.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
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

fn bench(c: &mut Criterion) {
    let inputs: Vec<(&str, String, bool)> = vec![
        ("valid_1mb", valid_1mb(), true),
        ("broken_1mb", broken_1mb(), false),
        ("trailing_commas_0.5mb", trailing_commas(), false),
        ("ndjson_0.5mb", ndjson(), false),
        ("tool_args_2kb", tool_args_2k(), false),
        ("tool_args_2kb_valid", tool_args_2k_valid(), true),
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
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
