//! Stop sequences and loop detection (STUB, see issue 4).
