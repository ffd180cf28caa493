//! Prints what a catalog file teaches: one line per tool with its parameters and types.
//!
//! `cargo run -p ctb-schema --example catalog -- FILE...` (no file: the bundled catalog).

use ctb_schema::Catalog;

fn main() {
    let mut catalog = Catalog::new();
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        catalog = Catalog::agent_zero();
    }
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{f}: {e}");
                std::process::exit(2);
            }
        };
        match Catalog::from_text(&text) {
            Ok(c) => catalog.extend(c),
            Err(e) => {
                eprintln!("{f}: {e}");
                std::process::exit(2);
            }
        }
    }
    for tool in &catalog {
        let params: Vec<String> = tool
            .params()
            .map(|p| format!("{}: {}", p.name(), p.expected()))
            .collect();
        let required: Vec<&str> = tool.required().collect();
        println!(
            "{} [{}] ({}){}",
            tool.name,
            tool.source().as_str(),
            params.join(", "),
            if required.is_empty() {
                String::new()
            } else {
                format!(" required: {}", required.join(", "))
            }
        );
    }
}
