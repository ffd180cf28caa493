//! The early stop's cost: a 1 MB reply (prose, then one call whose `content` holds almost all
//! of it) fed to a [`Session`] in 16-byte deltas versus in one piece; the per-delta cost is
//! the 16-byte time divided by the delta count.
//!
//! | name | measured | against | target |
//! |---|---|---|---|
//! | `stream_1mb_deltas_vs_one_piece` | the reply in 16-byte deltas | the reply in one piece | <= 1.2 |
//!
//! Written to `target/ctb-bench/<name>.json` (see `ctb_testkit::ratio`).

use std::hint::black_box;

use std::time::Duration;

use claude_tool_bridge::{Catalog, Config, Session};
use criterion::{Criterion, Throughput};

const MODEL: &str = "anthropic/claude-sonnet-5-5";
const SIZE: usize = 1 << 20;
const DELTA: usize = 16;

/// About 1 MB: a file written through `text_editor:write`, lines of code-like text.
fn reply() -> String {
    let mut body = String::with_capacity(SIZE + 256);
    let mut i: u64 = 0;
    while body.len() < SIZE - 300 {
        i += 1;
        let k = i.wrapping_mul(2_654_435_761) % 9973;
        body.push_str(&format!(
            "    let value_{i} = table.get(\"key-{k}\").map(|v| v * {}) .unwrap_or(0); // é\n",
            i % 17
        ));
    }
    format!(
        "Writing the generated module.\n\n<invoke name=\"text_editor:write\">\n<parameter name=\"path\">/tmp/gen.rs</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n<function_results>ok</function_results>"
    )
}

/// Pieces of about `size` bytes, each ending on a character boundary.
fn deltas(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut pos = 0;
    while pos < text.len() {
        let mut end = (pos + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[pos..end]);
        pos = end;
    }
    out
}

fn run(pieces: &[&str], catalog: &Catalog) -> usize {
    let mut s = Session::new(Config::default());
    s.begin_turn(MODEL, &[]);
    for p in pieces {
        if let Some(r) = s.feed(p, catalog) {
            return r.len();
        }
    }
    0
}

fn bench(c: &mut Criterion) {
    let text = reply();
    let catalog = Catalog::agent_zero();
    let whole = [text.as_str()];
    let small = deltas(&text, DELTA);
    assert_eq!(run(&whole, &catalog), run(&small, &catalog));
    assert!(
        run(&whole, &catalog) > SIZE - 1024,
        "the call must complete near the end"
    );
    let mut g = c.benchmark_group("stream_1mb");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(20);
    g.bench_function("one_piece", |b| b.iter(|| run(black_box(&whole), &catalog)));
    g.bench_function(format!("deltas_{DELTA}_bytes_x{}", small.len()), |b| {
        b.iter(|| run(black_box(&small), &catalog))
    });
    g.finish();
}

/// The ratio with its target (see the module doc).
fn ratios() {
    let text = reply();
    let catalog = Catalog::agent_zero();
    let whole = [text.as_str()];
    let small = deltas(&text, DELTA);
    let ratio = ctb_testkit::ratio::measure(
        "stream_1mb_deltas_vs_one_piece",
        "a 1 MB reply fed to a session in 16-byte deltas vs in one piece",
        ("16-byte deltas", "one piece"),
        1.2,
        Duration::from_secs(4),
        || {
            black_box(run(black_box(&small), &catalog));
        },
        || {
            black_box(run(black_box(&whole), &catalog));
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
