//! The final decision and the stream on text dense with the bytes the bridge looks at (`<`,
//! `:`, `{`, backticks, tags, tokens), against plain prose of the same size: no input shape
//! may cost much more per byte than prose.
//!
//! | name | measured | against | target |
//! |---|---|---|---|
//! | `dense_worst_whole_vs_prose` | `Session::finish` on 256 KB of the costliest shape below | the same on 256 KB of prose | <= 4.0 |
//! | `dense_worst_stream_vs_prose` | `Session::advance` in 64-byte deltas, then `finish`, on that shape | the same on prose | <= 4.0 |
//!
//! Each shape is timed against prose side by side; the row reports the worst shape (named in
//! its description). Prose answers are left alone in both (`prose_as_response: false`), so
//! the baseline is reading prose, not writing it out as a `response`. Written to `target/ctb-bench/<name>.json` (see `ctb_testkit::ratio`).

use std::hint::black_box;
use std::time::Duration;

use claude_tool_bridge::{Catalog, Config, FinishReason, Session};
use criterion::{BenchmarkId, Criterion, Throughput};

const SIZE: usize = 256 << 10;
const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// The shapes: a line repeated to `SIZE` bytes.
const SHAPES: &[(&str, &str)] = &[
    (
        "prose",
        "The build finished; next I will look for headings that render twice on the page.\n",
    ),
    (
        "lt_run",
        "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n",
    ),
    (
        "lt_space",
        "< < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < < <\n",
    ),
    (
        "lt_words",
        "<abc<def<ghi <jkl<mno <pqr<stu <vwx<yz <abc<def<ghi <jkl<mno <pqr<stu <vwx\n",
    ),
    (
        "html_tags",
        "<div class=\"x\"><p>Hello <b>world</b> and <i>more</i></p><span>t</span></div>\n",
    ),
    (
        "unknown_tags",
        "<foo bar=\"1\"><baz/><qux name=\"x\"/></foo> <a:b c=\"d\"> <x-y> <z_1>\n",
    ),
    (
        "closing_tags",
        "</a></b></c></d></e></f></g></h></i></j></k></l></m></n></o></p></q></r>\n",
    ),
    (
        "call_words",
        "<invoke <parameter <tool_call <function=x <function_calls <tool_calls <x\n",
    ),
    (
        "tokens",
        "<|a|> <|end|> <|start|> <|channel|> <|open|> <|close|> [TOOL_CALLS] x\n",
    ),
    (
        "colons",
        "a:b c:d e:f g:h i:j k:l m:n o:p q:r s:t u:v w:x y:z a:b c:d e:f g:h i:j\n",
    ),
    (
        "braces",
        "{a: 1} {'b': 2} {\"c\": 3} {d} {{e}} {'f': '}'} {g: [1, 2]} {h: 'x'}\n",
    ),
    (
        "backticks",
        "`a` ``b`` ` \\` ```c``` `d` ``e` f` `g`` h `i` ``j`` ` \\` `k` `l`\n",
    ),
    (
        "think",
        "<think>x</think> <thinking>y</thinking> [THINK] z [/THINK] <reasoning>\n",
    ),
    (
        "entities",
        "&lt;invoke name=&quot;x&quot;&gt; &amp;lt; &#60; &#x3c; &nbsp; &amp;\n",
    ),
    (
        "markdown",
        "> quoted\n- item\n1. item\n# head\n    code\n---\n```\nx\n```\n@@ -1 +1 @@\n",
    ),
];

fn text(unit: &str) -> String {
    let mut s = String::with_capacity(SIZE + unit.len());
    while s.len() < SIZE {
        s.push_str(unit);
    }
    s
}

/// The default settings, prose answers left alone: prose is then read, not rendered as a
/// `response` (which would make the baseline an output cost).
fn config() -> Config {
    Config {
        prose_as_response: false,
        ..Config::default()
    }
}

fn whole(reply: &str, catalog: &Catalog) {
    let mut session = Session::new(config());
    session.begin_turn(MODEL, &[]);
    black_box(
        session
            .finish(black_box(reply), FinishReason::Stop, catalog)
            .ok(),
    );
}

fn streamed(reply: &str, catalog: &Catalog) {
    let mut session = Session::new(config());
    session.begin_turn(MODEL, &[]);
    let b = reply.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let mut end = (at + 64).min(b.len());
        while !reply.is_char_boundary(end) {
            end += 1;
        }
        black_box(session.advance(&reply[at..end], catalog));
        at = end;
    }
    black_box(
        session
            .finish(black_box(reply), FinishReason::Stop, catalog)
            .ok(),
    );
}

fn bench(c: &mut Criterion) {
    let catalog = Catalog::agent_zero();
    let mut group = c.benchmark_group("dense");
    group.throughput(Throughput::Bytes(SIZE as u64));
    group.sample_size(10);
    for (name, unit) in SHAPES {
        let t = text(unit);
        group.bench_with_input(BenchmarkId::new("whole", name), &t, |b, t| {
            b.iter(|| whole(t, &catalog));
        });
    }
    group.finish();
}

fn ratios() {
    let catalog = Catalog::agent_zero();
    let prose = text(SHAPES[0].1);
    for (mode, run) in [
        ("whole", whole as fn(&str, &Catalog)),
        ("stream", streamed as fn(&str, &Catalog)),
    ] {
        let mut worst: Option<ctb_testkit::ratio::Ratio> = None;
        for (name, unit) in &SHAPES[1..] {
            let t = text(unit);
            let r = ctb_testkit::ratio::measure(
                &format!("dense_worst_{mode}_vs_prose"),
                &format!("{mode}: the costliest dense shape ({name}, 256 KB) vs 256 KB of prose"),
                ("dense", "prose"),
                4.0,
                Duration::from_millis(600),
                || run(&t, &catalog),
                || run(&prose, &catalog),
            );
            eprintln!(
                "dense/{mode}/{name}: {:.3} ({:.0} us vs {:.0} us)",
                r.ratio(),
                r.a_ns / 1e3,
                r.b_ns / 1e3
            );
            if worst.as_ref().is_none_or(|w| r.ratio() > w.ratio()) {
                worst = Some(r);
            }
        }
        if let Some(w) = worst {
            if let Err(e) = w.report() {
                eprintln!("cannot write the ratio report: {e}");
            }
        }
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
