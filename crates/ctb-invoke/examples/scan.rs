//! Prints what the grammar finds in a file (or stdin): `cargo run -p ctb-invoke --example scan FILE`.
use std::io::Read;

fn main() {
    let mut text = String::new();
    match std::env::args().nth(1) {
        Some(p) => text = std::fs::read_to_string(p).unwrap_or_default(),
        None => {
            let _ = std::io::stdin().read_to_string(&mut text);
        }
    }
    println!("{:#?}", ctb_invoke::find_first_call(&text));
}
