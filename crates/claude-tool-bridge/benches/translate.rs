//! `translate` on replies of growing size with one call at the end (the sizes show it is
//! linear), its parts on the 4 KB reply, and the ratio the bridge promises:
//!
//! | name | measured | against | target |
//! |---|---|---|---|
//! | `translate_4k_vs_serde_json` | `translate` of a 4 KB leaked call (one line of prose, then a call whose code argument is 4 KB of Python) | serde_json reading the JSON request it becomes (default-features value, [`DefaultValue`]) | <= 1.0 |
//! | `translate_4k_prose_vs_serde_json` | `translate` of the 4 KB reply above: 4 KB of prose, then a short call | serde_json reading its request | <= 1.0 |
//!
//! The bridge reads the markup, types the arguments and writes the request; serde_json only
//! reads the request. Written to `target/ctb-bench/<name>.json` (see `ctb_testkit::ratio`).

use std::hint::black_box;

use std::time::Duration;

use claude_tool_bridge::{Catalog, translate};
use criterion::{BenchmarkId, Criterion, Throughput};
use ctb_testkit::DefaultValue;

/// A reply of about `size` bytes: prose lines, then one call with typed arguments.
fn reply(size: usize) -> String {
    let call = "\ncourt\n<invoke name=\"code_execution_tool\">\n\
                <parameter name=\"runtime\">terminal</parameter>\n\
                <parameter name=\"session\">0</parameter>\n\
                <parameter name=\"reset\">false</parameter>\n\
                <parameter name=\"code\">grep -rn '<h1>' site/ | head -20 && echo \"${HOME}\"</parameter>\n\
                </invoke>";
    let mut s = String::with_capacity(size + call.len());
    let line = "The build finished; next I will look for headings that render twice on the page.\n";
    while s.len() + line.len() + call.len() < size {
        s.push_str(line);
    }
    s.push_str(call);
    s
}

fn bench(c: &mut Criterion) {
    let catalog = Catalog::agent_zero();
    let mut group = c.benchmark_group("translate");
    for size in [1 << 10, 4 << 10, 16 << 10, 64 << 10] {
        let text = reply(size);
        assert_eq!(
            translate(&text, &catalog).outcome,
            claude_tool_bridge::Outcome::Translated
        );
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &text, |b, t| {
            b.iter(|| translate(black_box(t), &catalog));
        });
    }
    group.finish();
    // The parts: the grammar alone, and the JSON-request check alone, on the 4 KB reply.
    let text = reply(4 << 10);
    c.bench_function("parts/find_first_call/4096", |b| {
        b.iter(|| ctb_invoke::find_first_call(black_box(&text)));
    });
    c.bench_function("parts/holds_json_request/4096", |b| {
        b.iter(|| claude_tool_bridge::holds_json_request(black_box(&text)));
    });
    let text = call(4 << 10);
    c.bench_function("call/4096", |b| {
        b.iter(|| translate(black_box(&text), &catalog));
    });
}

/// A leaked call of about `size` bytes: one line of prose, then a call whose code argument is
/// a Python script (quotes, backslashes and line breaks to escape).
fn call(size: usize) -> String {
    let head = "I will count the headings per page.\n\
                <invoke name=\"code_execution_tool\">\n\
                <parameter name=\"runtime\">python</parameter>\n\
                <parameter name=\"code\">import re, pathlib\n";
    let tail = "</parameter>\n</invoke>";
    let line = "for p in pathlib.Path(\"site\").rglob(\"*.html\"): print(p, len(re.findall(r'<h1[^>]*>', p.read_text())))\n";
    let mut s = String::with_capacity(size + line.len());
    s.push_str(head);
    while s.len() + line.len() + tail.len() < size {
        s.push_str(line);
    }
    s.push_str(tail);
    s
}

/// The ratios with their targets (see the module doc).
fn ratios() {
    for (name, what, text) in [
        (
            "translate_4k_vs_serde_json",
            "translate of a 4 KB leaked call vs serde_json reading its JSON request",
            call(4 << 10),
        ),
        (
            "translate_4k_prose_vs_serde_json",
            "translate of 4 KB of prose and a short call vs serde_json reading its JSON request",
            reply(4 << 10),
        ),
    ] {
        ratio(name, what, &text);
    }
}

fn ratio(name: &str, what: &str, text: &str) {
    let catalog = Catalog::agent_zero();
    let decision = translate(text, &catalog);
    assert_eq!(decision.outcome, claude_tool_bridge::Outcome::Translated);
    let request = decision.reply;
    assert!(serde_json::from_str::<DefaultValue>(&request).is_ok());
    let ratio = ctb_testkit::ratio::measure(
        name,
        what,
        ("translate", "serde_json"),
        1.0,
        Duration::from_secs(3),
        || {
            black_box(translate(black_box(text), &catalog).reply.len());
        },
        || {
            black_box(serde_json::from_str::<DefaultValue>(black_box(&request)).is_ok());
        },
    );
    if let Err(e) = ratio.report() {
        eprintln!("cannot write the ratio report: {e}");
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test" || a == "--list");
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    if !quick {
        ratios();
    }
}
