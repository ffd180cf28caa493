//! Speed ratios with targets, for benches: two pieces of code timed side by side in one
//! process, and the result written where `cargo xtask bench` finds it.
//!
//! [`measure`] runs `a` and `b` in alternating batches (so both see the same machine load),
//! takes the median time per call of each, and gives `a / b`. [`Ratio::report`] prints one
//! line and writes `<dir>/<name>.json`, where `<dir>` is `$CTB_BENCH_DIR` (set by
//! `cargo xtask bench`) or the workspace's `target/ctb-bench`. The file holds one JSON object:
//! `name`, `what`, `a`, `b`, `a_ns`, `b_ns` (medians per call), `ratio` and `target` (the ratio
//! must be at most the target). Any bench, in any language, can add a row by writing such a
//! file; `cargo xtask bench` prints them all in one table.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One measured ratio.
#[derive(Debug, Clone)]
pub struct Ratio {
    /// File name and row label, like `repair_tool_args_4k_vs_serde_json`.
    pub name: String,
    /// What is compared, in a few words.
    pub what: String,
    /// Label of the measured side.
    pub a: String,
    /// Label of the side it is compared with.
    pub b: String,
    /// Median time per call of `a`, in nanoseconds.
    pub a_ns: f64,
    /// Median time per call of `b`, in nanoseconds.
    pub b_ns: f64,
    /// The most `a_ns / b_ns` may be.
    pub target: f64,
}

impl Ratio {
    /// `a_ns / b_ns`.
    pub fn ratio(&self) -> f64 {
        self.a_ns / self.b_ns
    }

    /// Whether the ratio is within the target.
    pub fn ok(&self) -> bool {
        self.ratio() <= self.target
    }

    /// The JSON object `cargo xtask bench` reads.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"name\": {}, \"what\": {}, \"a\": {}, \"b\": {}, \"a_ns\": {:.1}, \"b_ns\": {:.1}, \"ratio\": {:.4}, \"target\": {}}}\n",
            json_string(&self.name),
            json_string(&self.what),
            json_string(&self.a),
            json_string(&self.b),
            self.a_ns,
            self.b_ns,
            self.ratio(),
            self.target
        )
    }

    /// Prints the ratio against its target and writes the JSON file; returns the file's path.
    pub fn report(&self) -> std::io::Result<PathBuf> {
        println!(
            "ratio {}: {} {:.1} us / {} {:.1} us = {:.3} (target <= {}) {}",
            self.name,
            self.a,
            self.a_ns / 1e3,
            self.b,
            self.b_ns / 1e3,
            self.ratio(),
            self.target,
            if self.ok() { "ok" } else { "MISSED" }
        );
        let dir = report_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.json", self.name));
        std::fs::write(&path, self.to_json())?;
        Ok(path)
    }
}

/// Where ratio files go: `$CTB_BENCH_DIR`, or the workspace's `target/ctb-bench`.
pub fn report_dir() -> PathBuf {
    std::env::var_os("CTB_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/ctb-bench")
        })
}

/// Times `a` against `b`: after a warm-up, alternating batches of calls (`a` first in even
/// rounds, `b` first in odd ones) for about `budget` in all, at least 11 rounds each; the
/// batch size makes one batch last about a millisecond. Medians per call.
pub fn measure(
    name: &str,
    what: &str,
    labels: (&str, &str),
    target: f64,
    budget: Duration,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> Ratio {
    let per_call = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().max(Duration::from_nanos(1))
    };
    // warm-up, and a first idea of the cost
    let once = per_call(&mut a).max(per_call(&mut b));
    let batch = (Duration::from_millis(1).as_nanos() / once.as_nanos()).clamp(1, 10_000) as u32;
    let time_batch = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(batch)
    };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let mut round = 0u32;
    while round < 11 || (start.elapsed() < budget && round < 10_000) {
        if round % 2 == 0 {
            ta.push(time_batch(&mut a));
            tb.push(time_batch(&mut b));
        } else {
            tb.push(time_batch(&mut b));
            ta.push(time_batch(&mut a));
        }
        round += 1;
    }
    Ratio {
        name: name.to_owned(),
        what: what.to_owned(),
        a: labels.0.to_owned(),
        b: labels.1.to_owned(),
        a_ns: median(&mut ta),
        b_ns: median(&mut tb),
        target,
    }
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn json_is_one_object() {
        let r = Ratio {
            name: "n".into(),
            what: "a \"quoted\" thing".into(),
            a: "a".into(),
            b: "b".into(),
            a_ns: 1.0,
            b_ns: 4.0,
            target: 0.5,
        };
        assert_eq!(
            r.to_json(),
            "{\"name\": \"n\", \"what\": \"a \\\"quoted\\\" thing\", \"a\": \"a\", \"b\": \"b\", \"a_ns\": 1.0, \"b_ns\": 4.0, \"ratio\": 0.2500, \"target\": 0.5}\n"
        );
        assert!(r.ok());
    }
}
