//! `translate` on replies of growing size with one call at the end: the median for a 4 KB
//! reply is the number to watch (target: under 10 µs), and the sizes show it is linear.

use std::hint::black_box;

use claude_tool_bridge::{Catalog, translate};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

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
}

criterion_group!(benches, bench);
criterion_main!(benches);
