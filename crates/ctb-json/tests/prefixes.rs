//! Truncated streams: every prefix of every document in `tests/data/prefixes/` (valid JSON,
//! shaped like the tool requests models write) is repaired, in both readings of the end
//! (`repair`/`parse` and `repair_partial`/`parse_partial`), and must keep every member and item
//! that was complete before the cut, unchanged; `support/prefix.rs` has the rules.

#[path = "support/prefix.rs"]
mod prefix;

use std::path::Path;

use prefix::{Mode, check_document};

fn every_prefix(mode: Mode) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/prefixes");
    let files = ctb_testkit::files_with_extension(&dir, "json").expect("prefix fixtures");
    assert!(files.len() >= 4);
    let mut total = 0;
    let mut report = String::new();
    let mut failed = 0;
    for file in files {
        let name = ctb_testkit::stem(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        let (cuts, failures) = check_document(&name, text.trim_end(), mode);
        total += cuts;
        failed += failures.len();
        if !failures.is_empty() {
            report.push_str(&format!(
                "{name}: {} of {cuts} prefixes fail\n",
                failures.len()
            ));
            for f in failures.iter().take(5) {
                report.push_str(&format!("  {f}\n"));
            }
        }
    }
    assert!(failed == 0, "{failed} of {total} prefixes fail\n{report}");
    assert!(total > 5000, "only {total} prefixes");
}

#[test]
fn every_prefix_keeps_what_was_complete() {
    every_prefix(Mode::Tolerant);
}

#[test]
fn every_prefix_reads_as_a_stream_in_partial_mode() {
    every_prefix(Mode::Partial);
}
