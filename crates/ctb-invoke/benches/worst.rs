//! The grammar on the worst shapes found so far (the hostile shapes), at growing sizes: the
//! time per byte stays flat (linear work). Each shape is scanned in one piece and streamed in
//! small pieces.
//!
//! - `many_params`: one call with ever more parameters (duplicate-name checks);
//! - `fence_line`: one unfinished line of backticks with `invoke>` at its end;
//! - `quoted_closers`: lines quoting `</invoke>` before a real call;
//! - `nested_broken`: calls whose values hold the next call, all broken at the end;
//! - `quoted_mid_line`: one long line of DeepSeek block openers, each in a code span, each
//!   looked at as a call that may start in the middle of the line.
//!
//! Read the `thrpt` column: it should not fall as the size grows.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctb_invoke::{Found, Scanner};

fn many_params(size: usize) -> String {
    let mut s = String::from("<invoke name=\"response\">\n");
    let mut i = 0;
    while s.len() < size {
        s.push_str(&format!("<parameter name=\"p{i}\">v</parameter>\n"));
        i += 1;
    }
    s.push_str("</invoke>");
    s
}

fn fence_line(size: usize) -> String {
    let mut s = "`".repeat(size - 7 * 64);
    s.push_str(&"invoke>".repeat(64));
    s
}

fn quoted_closers(size: usize) -> String {
    let line = "see `</invoke>` here\n";
    let mut s = line.repeat(size / line.len());
    s.push_str("<invoke name=\"response\">\n<parameter name=\"text\">hi</parameter>\n</invoke>");
    s
}

fn nested_broken(size: usize) -> String {
    let open = "<invoke name=\"b\">\n<parameter name=\"y\">\n";
    let k = size / (open.len() + 10);
    let mut s = open.repeat(k);
    s.push_str(&"</invoke>\n".repeat(k));
    s.push_str("</parameter>\n<parameter>x</parameter>\n");
    s
}

fn quoted_mid_line(size: usize) -> String {
    let unit = "a `<\u{ff5c}DSML\u{ff5c}tool_calls>` b ";
    let mut s = unit.repeat(size / unit.len());
    s.push_str("\n<invoke name=\"response\">\n<parameter name=\"text\">hi</parameter>\n</invoke>");
    s
}

/// Feeds `text` in `piece`-byte pieces (moved to character boundaries), then finishes.
fn streamed(text: &str, piece: usize) -> bool {
    let mut sc = Scanner::new();
    let mut end = 0;
    while end < text.len() {
        end = (end + piece).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if let Found::Call(_) = sc.advance(&text[..end]) {
            return true;
        }
    }
    matches!(sc.finish(text), Found::Call(_))
}

/// A named shape and how to build it at a size.
type Shape = (&'static str, fn(usize) -> String);

fn bench(c: &mut Criterion) {
    let shapes: [Shape; 5] = [
        ("many_params", many_params),
        ("fence_line", fence_line),
        ("quoted_closers", quoted_closers),
        ("nested_broken", nested_broken),
        ("quoted_mid_line", quoted_mid_line),
    ];
    for (name, make) in shapes {
        let mut g = c.benchmark_group(format!("worst/{name}"));
        g.sample_size(10);
        for size in [256 << 10, 1 << 20, 4 << 20] {
            let text = make(size);
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::new("whole", size), &text, |b, t| {
                b.iter(|| Scanner::new().finish(black_box(t)))
            });
            g.bench_with_input(BenchmarkId::new("pieces_64", size), &text, |b, t| {
                b.iter(|| streamed(black_box(t), 64))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
