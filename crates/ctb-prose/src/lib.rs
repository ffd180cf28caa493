//! Prose policy (STUB, see issue 4).
