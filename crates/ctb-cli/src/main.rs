//! `ctb`: see how claude-tool-bridge reads a reply.
fn main() {}
