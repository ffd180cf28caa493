//! A resumable JSON checker: whether the text from an offset starts with one well-formed JSON
//! value (RFC 8259), and where that value ends.
//!
//! [`crate::lex::JsonEnd`] only counts brackets, which is enough where a closing token ends the
//! call and a later reader parses the arguments. The 2026 forms need more: Mistral's call has no
//! closing token, so the end of a *valid* JSON value is the end of the call, and Kimi K3 marks a
//! value's type, so a value that is not JSON of that type breaks the call. This checker reads a
//! byte at a time, keeps its state between pieces of text, reads no byte past the one that
//! decides, and has no recursion: open containers are bits of a counter-limited stack.

use std::ops::Range;

use super::json_scan::Number;
use crate::lex::{Meter, Poll};

/// Deepest nesting of objects and arrays accepted (one bit of the stack each).
pub(crate) const MAX_DEPTH: u32 = 128;

/// The checker of one JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JsonCheck {
    /// The next byte to examine.
    pos: usize,
    /// One bit per open container, the innermost lowest: 1 for an object, 0 for an array.
    stack: u128,
    depth: u32,
    state: S,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum S {
    /// White space, then a value.
    Value,
    /// After `[`: white space, then `]` or a value.
    ItemOrEnd,
    /// After `{`: white space, then `}` or a key.
    KeyOrEnd,
    /// After a `,` in an object: white space, then a key.
    Key,
    /// After a key: white space, then `:`.
    Colon,
    /// After a value inside a container: white space, then `,` or the container's closer.
    After,
    /// Inside a string (a key or a value).
    Str { key: bool },
    /// After a backslash in a string.
    Esc { key: bool },
    /// In the hex digits of a `\u` escape.
    Hex { key: bool, left: u8 },
    /// In a number.
    Num(Number),
    /// In `true`, `false` or `null`: the word and how much of it has been read.
    Word { word: &'static [u8], at: u8 },
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl JsonCheck {
    /// A check of the value that starts at `at` (white space before it is allowed).
    pub(crate) fn new(at: usize) -> Self {
        Self {
            pos: at,
            stack: 0,
            depth: 0,
            state: S::Value,
        }
    }

    /// Resumes over `b` (the text so far). `Ready(Ok(end))`: the value ends just before `end`;
    /// `Ready(Err(at))`: the byte at `at` cannot continue a JSON value (or the value nests deeper
    /// than [`MAX_DEPTH`]). When `complete`, `b` is all there is: a number may end at the end
    /// of `b`, and a value cut off there is an error at `b.len()`.
    pub(crate) fn poll(
        &mut self,
        b: &[u8],
        complete: bool,
        meter: &mut Meter,
    ) -> Poll<Result<usize, usize>> {
        let from = self.pos;
        let (result, seen) = self.scan(b, complete);
        meter.read(from, seen);
        result
    }

    /// The scan proper: the answer, and one past the furthest byte examined.
    fn scan(&mut self, b: &[u8], complete: bool) -> (Poll<Result<usize, usize>>, usize) {
        while self.pos < b.len() {
            let at = self.pos;
            let c = b[at];
            self.pos += 1;
            let done = match self.state {
                S::Value => {
                    if is_ws(c) {
                        continue;
                    }
                    self.begin(c, at)
                }
                S::ItemOrEnd => match c {
                    c if is_ws(c) => continue,
                    b']' => self.close(),
                    c => self.begin(c, at),
                },
                S::KeyOrEnd | S::Key => match c {
                    c if is_ws(c) => continue,
                    b'}' if self.state == S::KeyOrEnd => self.close(),
                    b'"' => {
                        self.state = S::Str { key: true };
                        None
                    }
                    _ => Some(Err(at)),
                },
                S::Colon => match c {
                    c if is_ws(c) => continue,
                    b':' => {
                        self.state = S::Value;
                        None
                    }
                    _ => Some(Err(at)),
                },
                S::After => match c {
                    c if is_ws(c) => continue,
                    b',' => {
                        self.state = if self.in_object() { S::Key } else { S::Value };
                        None
                    }
                    b'}' if self.in_object() => self.close(),
                    b']' if !self.in_object() => self.close(),
                    _ => Some(Err(at)),
                },
                S::Str { key } => {
                    // Plain string bytes are passed over in one run.
                    let mut i = at;
                    while i < b.len() && !matches!(b[i], b'"' | b'\\') && b[i] >= 0x20 {
                        i += 1;
                    }
                    if i == b.len() {
                        self.pos = i;
                        break;
                    }
                    self.pos = i + 1;
                    match b[i] {
                        b'"' if key => {
                            self.state = S::Colon;
                            None
                        }
                        b'"' => self.value_done(),
                        b'\\' => {
                            self.state = S::Esc { key };
                            None
                        }
                        _ => Some(Err(i)),
                    }
                }
                S::Esc { key } => match c {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                        self.state = S::Str { key };
                        None
                    }
                    b'u' => {
                        self.state = S::Hex { key, left: 4 };
                        None
                    }
                    _ => Some(Err(at)),
                },
                S::Hex { key, left } => {
                    if !c.is_ascii_hexdigit() {
                        Some(Err(at))
                    } else {
                        self.state = if left == 1 {
                            S::Str { key }
                        } else {
                            S::Hex {
                                key,
                                left: left - 1,
                            }
                        };
                        None
                    }
                }
                S::Word { word, at: k } => {
                    if c != word[usize::from(k)] {
                        Some(Err(at))
                    } else if usize::from(k) + 1 == word.len() {
                        self.value_done()
                    } else {
                        self.state = S::Word { word, at: k + 1 };
                        None
                    }
                }
                S::Num(n) => {
                    let next = n.next(c);
                    match next {
                        Some(n) => {
                            self.state = S::Num(n);
                            None
                        }
                        None if n.complete() => {
                            // The number ended before this byte, which is read again as what
                            // follows it.
                            self.pos = at;
                            if self.depth == 0 {
                                return (Poll::Ready(Ok(at)), at + 1);
                            }
                            self.state = S::After;
                            None
                        }
                        None => Some(Err(at)),
                    }
                }
            };
            if let Some(r) = done {
                let seen = match r {
                    Ok(end) => end,
                    Err(at) => at + 1,
                };
                return (Poll::Ready(r), seen);
            }
        }
        let end = b.len();
        if !complete {
            return (Poll::Pending, end);
        }
        match self.state {
            S::Num(n) if n.complete() && self.depth == 0 => (Poll::Ready(Ok(end)), end),
            _ => (Poll::Ready(Err(end)), end),
        }
    }

    fn in_object(&self) -> bool {
        self.stack & 1 == 1
    }

    /// The first byte of a value, at `at`.
    fn begin(&mut self, c: u8, at: usize) -> Option<Result<usize, usize>> {
        if let Some(n) = Number::start(c) {
            self.state = S::Num(n);
            return None;
        }
        self.state = match c {
            b'{' | b'[' => {
                if self.depth >= MAX_DEPTH {
                    return Some(Err(at));
                }
                self.depth += 1;
                self.stack = self.stack << 1 | u128::from(c == b'{');
                if c == b'{' { S::KeyOrEnd } else { S::ItemOrEnd }
            }
            b'"' => S::Str { key: false },
            b't' => S::Word {
                word: b"true",
                at: 1,
            },
            b'f' => S::Word {
                word: b"false",
                at: 1,
            },
            b'n' => S::Word {
                word: b"null",
                at: 1,
            },
            _ => return Some(Err(at)),
        };
        None
    }

    /// A container closed at `self.pos - 1`.
    fn close(&mut self) -> Option<Result<usize, usize>> {
        self.depth -= 1;
        self.stack >>= 1;
        self.value_done()
    }

    /// A value ended just before `self.pos`.
    fn value_done(&mut self) -> Option<Result<usize, usize>> {
        if self.depth == 0 {
            return Some(Ok(self.pos));
        }
        self.state = S::After;
        None
    }
}

/// Whether `b[from..]` (complete) is exactly one JSON value, white space around it allowed:
/// `Ok(range)` of the value without that white space, `Err(at)` where it breaks. Reads every
/// byte once.
pub(crate) fn check_whole(b: &[u8], from: usize, meter: &mut Meter) -> Result<Range<usize>, usize> {
    let start = b[from..]
        .iter()
        .position(|c| !is_ws(*c))
        .map_or(b.len(), |k| from + k);
    let mut check = JsonCheck::new(start);
    let Poll::Ready(r) = check.poll(b, true, meter) else {
        unreachable!("a complete text is always decided")
    };
    let end = r?;
    meter.read(end, b.len());
    match b[end..].iter().position(|c| !is_ws(*c)) {
        Some(k) => Err(end + k),
        None => Ok(start..end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str) -> Result<(), usize> {
        check_whole(text.as_bytes(), 0, &mut Meter::default()).map(|_| ())
    }

    #[test]
    fn accepts_json() {
        for ok in [
            "0",
            "-0.5e+10",
            "1E3",
            "true",
            " null ",
            "\"a\\u00e9\\n\"",
            "{}",
            "[]",
            "{\"a\": [1, {\"b\": null}], \"c\": \"}\"}",
            "[[[]]]",
            "\"caf\u{e9}\"",
        ] {
            assert_eq!(whole(ok), Ok(()), "{ok}");
        }
        let r = check_whole(b" \n[1] ", 0, &mut Meter::default());
        assert_eq!(r, Ok(2..5));
    }

    #[test]
    fn refuses_what_is_not_json() {
        for (bad, at) in [
            ("01", 1),
            ("1.", 2),
            ("-", 1),
            ("+1", 0),
            (".5", 0),
            ("tru", 3),
            ("truex", 4),
            ("{a:1}", 1),
            ("{\"a\" 1}", 5),
            ("[1,]", 3),
            ("{\"a\":1,}", 7),
            ("[1 2]", 3),
            ("\"a\nb\"", 2),
            ("\"\\x\"", 2),
            ("\"\\u12g4\"", 5),
            ("'a'", 0),
            ("{} x", 3),
            ("[}", 1),
            ("", 0),
            ("not-json", 1),
        ] {
            assert_eq!(whole(bad), Err(at), "{bad:?}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH as usize) + &"]".repeat(MAX_DEPTH as usize);
        assert_eq!(whole(&deep), Ok(()));
        let deeper = "[".repeat(MAX_DEPTH as usize + 1);
        assert_eq!(whole(&deeper), Err(MAX_DEPTH as usize));
    }

    #[test]
    fn streaming_reads_each_byte_once_and_stops_at_the_closer() {
        let text = r#"{"a": "x\"}", "n": [1, -2.5e3, true]} tail"#;
        let end = text.find(" tail").unwrap();
        for piece in 1..=text.len() {
            let mut check = JsonCheck::new(0);
            let mut meter = Meter::default();
            let mut upto = 0;
            let got = loop {
                upto = (upto + piece).min(text.len());
                match check.poll(&text.as_bytes()[..upto], false, &mut meter) {
                    Poll::Pending => assert!(upto < text.len()),
                    Poll::Ready(r) => break r,
                }
            };
            assert_eq!(got, Ok(end), "piece {piece}");
            assert_eq!((meter.work, meter.reach), (end, end), "piece {piece}");
        }
    }

    #[test]
    fn a_top_level_number_needs_the_byte_after_it() {
        let mut check = JsonCheck::new(0);
        let mut meter = Meter::default();
        assert_eq!(check.poll(b"12", false, &mut meter), Poll::Pending);
        assert_eq!(check.poll(b"12,", false, &mut meter), Poll::Ready(Ok(2)));
        assert_eq!(meter.reach, 3);
    }
}
