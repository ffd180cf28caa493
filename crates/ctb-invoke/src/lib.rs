//! Finds the first native Claude tool call in a reply (STUB).
