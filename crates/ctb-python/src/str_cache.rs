//! The `str` objects `loads` made for short strings, kept from one call to the next.
//!
//! JSON read by a tool bridge repeats itself: the same keys in every request (`tool_name`,
//! `tool_args`, ...), the same short values (`"terminal"`, `"python"`). Making a `str`
//! decodes UTF-8 and allocates; finding the one made last time is a hash and a comparison.
//! Python strings are immutable, so sharing one object between results is invisible (except
//! to `is`, as for Python's own interned strings).
//!
//! The cache is one table for the process, behind a mutex that `loads` takes for a whole
//! call with `try_lock`: a call that finds it busy (another thread, or a finalizer run by the
//! garbage collector inside a call) makes its strings without it. The table keeps 4,096
//! strings of at most [`MAX_LEN`] bytes (about a megabyte at most with their objects, held
//! until the process ends like the strings PyO3's `intern!` keeps), in sets of four by
//! hash: a new string pushes the oldest of its set out. A lookup compares the hash, then
//! the text kept beside the `str` (cheaper than asking Python for the `str`'s UTF-8).

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::prelude::*;
use pyo3::types::PyString;

/// Strings longer than this (in bytes) are made anew each time.
pub(crate) const MAX_LEN: usize = 64;
/// Sets in the table: `1 << SET_BITS`, of [`WAYS`] entries each.
const SET_BITS: u32 = 10;
/// Entries in a set: a new string goes first, the last one leaves.
const WAYS: usize = 4;

/// One kept string: the hash of its text, the text, and its `str`.
struct Entry {
    hash: u64,
    text: Box<str>,
    obj: Py<PyString>,
}

/// Four entries (two cache lines), the most recently made first.
#[repr(align(64))]
#[derive(Default)]
struct Set([Option<Entry>; WAYS]);

/// The table: `1 << SET_BITS` sets once the first string is kept, none before.
pub(crate) struct StrCache {
    sets: Vec<Set>,
}

static CACHE: Mutex<StrCache> = Mutex::new(StrCache { sets: Vec::new() });

impl StrCache {
    /// The process's cache, or `None` while another call holds it.
    pub(crate) fn try_lock() -> Option<MutexGuard<'static, StrCache>> {
        match CACHE.try_lock() {
            Ok(guard) => Some(guard),
            // a panic while it was held (caught at the boundary) leaves every entry whole
            Err(TryLockError::Poisoned(poisoned)) => {
                CACHE.clear_poison();
                Some(poisoned.into_inner())
            }
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// The `str` for `text` (at most [`MAX_LEN`] bytes): the kept one, or a new one that
    /// is kept from now on. (`None` cannot happen: the entry is there once it is made.)
    #[inline]
    pub(crate) fn get<'s, 'py>(
        &'s mut self,
        py: Python<'py>,
        text: &str,
    ) -> Option<&'s Bound<'py, PyString>> {
        debug_assert!(text.len() <= MAX_LEN);
        if self.sets.is_empty() {
            self.sets.resize_with(1 << SET_BITS, Set::default);
        }
        let hash = hash(text.as_bytes());
        // the high bits of the hash depend on every byte of the text
        let set = &mut self.sets[(hash >> (64 - SET_BITS)) as usize].0;
        let found = set.iter().position(|e| {
            e.as_ref()
                .is_some_and(|e| e.hash == hash && *e.text == *text)
        });
        let at = found.unwrap_or_else(|| {
            set.rotate_right(1);
            let obj = PyString::new(py, text).unbind();
            let text = text.into();
            if let Some(old) = set[0].replace(Entry { hash, text, obj }) {
                // dropped as a `Bound`: the thread is known to be attached
                drop(old.obj.into_bound(py));
            }
            0
        });
        set[at].as_ref().map(|e| e.obj.bind(py))
    }
}

/// A hash of a short byte string: FxHash's rotate-xor-multiply over 8-byte words, the last
/// word overlapping the one before (its high bits are the well-mixed ones). With the length
/// mixed in first, two texts that differ get different words.
#[inline]
fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let step = |h: u64, word: u64| (h.rotate_left(26) ^ word).wrapping_mul(K);
    let n = b.len();
    let h = (n as u64).wrapping_mul(K);
    if n >= 8 {
        let mut h = h;
        let mut i = 0;
        while i + 8 < n {
            h = step(h, read8(b, i));
            i += 8;
        }
        step(h, read8(b, n - 8))
    } else if n >= 4 {
        step(h, u64::from(read4(b, 0)) | u64::from(read4(b, n - 4)) << 32)
    } else if n > 0 {
        let word = u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16;
        step(h, word)
    } else {
        h
    }
}

#[inline]
fn read8(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

#[inline]
fn read4(b: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(w)
}
