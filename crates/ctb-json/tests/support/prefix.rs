//! The prefix check, shared by `tests/prefixes.rs` and the `json_prefix` fuzz target
//! (`fuzz/fuzz_targets/json_prefix.rs` includes this file by path).
//!
//! [`check_document`] cuts a valid JSON document at every character boundary, repairs each
//! prefix, and walks the original next to the repaired value: every member or item complete
//! in the prefix must be present with its final value, every container that was opened must
//! be there (and is checked the same way inside), members and items come in their original
//! order, and nothing is invented: only the last member or item that was started may differ
//! from the final one, and only in the ways the [`Mode`] allows. One exception in tolerant
//! mode: a string cut just after a `]` may be split at its commas into several items
//! (jsonrepair's `["hello, world]` rule), so extra items are allowed there.
//!
//! A value counts as complete when its last character is in the prefix; a number only when
//! the character after it is too (`12` may still become `123`).

use serde_json::Value;

/// A value of the original document with its byte span.
enum Node {
    Scalar {
        span: (usize, usize),
        number: bool,
        value: Value,
    },
    Array {
        span: (usize, usize),
        items: Vec<Node>,
        value: Value,
    },
    Object {
        span: (usize, usize),
        members: Vec<Member>,
        value: Value,
    },
}

impl Node {
    fn span(&self) -> (usize, usize) {
        match self {
            Node::Scalar { span, .. } | Node::Array { span, .. } | Node::Object { span, .. } => {
                *span
            }
        }
    }
    fn value(&self) -> &Value {
        match self {
            Node::Scalar { value, .. } | Node::Array { value, .. } | Node::Object { value, .. } => {
                value
            }
        }
    }
    fn started(&self, cut: usize) -> bool {
        self.span().0 < cut
    }
    fn complete(&self, cut: usize, len: usize) -> bool {
        let end = self.span().1;
        match self {
            Node::Scalar { number: true, .. } => end < cut || (end == len && cut == len),
            _ => end <= cut,
        }
    }
}

/// An object member of the original document.
struct Member {
    key: String,
    /// The span of the quoted key.
    key_span: (usize, usize),
    value: Node,
}

/// Reads valid JSON (already checked by serde_json) into nodes with spans.
struct Spans<'a> {
    s: &'a str,
    i: usize,
}

impl Spans<'_> {
    fn ws(&mut self) {
        let b = self.s.as_bytes();
        while self.i < b.len() && matches!(b[self.i], b' ' | b'\n' | b'\t' | b'\r') {
            self.i += 1;
        }
    }

    fn string_end(&self, start: usize) -> usize {
        let b = self.s.as_bytes();
        let mut i = start + 1;
        while b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        i + 1
    }

    fn node(&mut self, depth: usize) -> Node {
        assert!(depth < 128, "deeper than serde_json reads");
        self.ws();
        let b = self.s.as_bytes();
        let start = self.i;
        match b[start] {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    if b[self.i] == b'}' {
                        break;
                    }
                    if b[self.i] == b',' {
                        self.i += 1;
                        self.ws();
                    }
                    let key_span = (self.i, self.string_end(self.i));
                    let key: String =
                        serde_json::from_str(&self.s[key_span.0..key_span.1]).unwrap();
                    self.i = key_span.1;
                    self.ws();
                    assert_eq!(b[self.i], b':');
                    self.i += 1;
                    let value = self.node(depth + 1);
                    members.push(Member {
                        key,
                        key_span,
                        value,
                    });
                    self.ws();
                }
                self.i += 1;
                let value = serde_json::from_str(&self.s[start..self.i]).unwrap();
                Node::Object {
                    span: (start, self.i),
                    members,
                    value,
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if b[self.i] == b']' {
                        break;
                    }
                    if b[self.i] == b',' {
                        self.i += 1;
                    }
                    items.push(self.node(depth + 1));
                    self.ws();
                }
                self.i += 1;
                let value = serde_json::from_str(&self.s[start..self.i]).unwrap();
                Node::Array {
                    span: (start, self.i),
                    items,
                    value,
                }
            }
            c => {
                self.i = if c == b'"' {
                    self.string_end(start)
                } else {
                    let mut i = start;
                    while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\n') {
                        i += 1;
                    }
                    i
                };
                Node::Scalar {
                    span: (start, self.i),
                    number: c == b'-' || c.is_ascii_digit(),
                    value: serde_json::from_str(&self.s[start..self.i]).unwrap(),
                }
            }
        }
    }
}

/// Which truncation rules the last started member or item follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `repair`/`parse`: a cut-off key is kept as far as it goes (`{"ab` is `{"ab": null}`),
    /// a cut-off number or keyword is completed or kept as text (`1.` is `1.0`, `tru` is
    /// `"tru"`), a value that has not begun is `null`.
    Tolerant,
    /// `parse_partial`: a member whose key or value has not been completed is dropped, as is an
    /// item whose value is a cut-off number or keyword; only a cut-off string is kept (as far
    /// as it goes) and cut-off containers (as far as they go).
    Partial,
}

struct Check<'a> {
    name: &'a str,
    /// The whole document.
    text: &'a str,
    cut: usize,
    mode: Mode,
}

/// What the repair must give for a value that started before the cut.
enum Want<'n> {
    /// This value.
    Exactly(Value),
    /// Nothing: the member or item is left out.
    Absent,
    /// A container of the same kind, checked member by member.
    Opened(&'n Node),
    /// A string that starts the final one.
    StartOf(&'n str),
    /// Anything, or nothing (a cut-off scalar in tolerant mode).
    Anything,
}

impl Check<'_> {
    fn fail(&self, what: &str, path: &str) -> Result<(), String> {
        Err(format!(
            "{} cut at {} ({:?} mode), at {path}: {what}\n  prefix ends: {:?}",
            self.name,
            self.cut,
            self.mode,
            tail(&self.text[..self.cut])
        ))
    }

    fn want<'n>(&self, node: &'n Node) -> Want<'n> {
        if node.complete(self.cut, self.text.len()) {
            return Want::Exactly(node.value().clone());
        }
        let (start, _) = node.span();
        match (node, self.mode) {
            (Node::Array { .. } | Node::Object { .. }, _) => Want::Opened(node),
            (
                Node::Scalar {
                    value: Value::String(s),
                    ..
                },
                Mode::Tolerant,
            ) => Want::StartOf(s),
            (
                Node::Scalar {
                    value: Value::String(_),
                    ..
                },
                Mode::Partial,
            ) => Want::Exactly(Value::String(decode_cut_string(
                &self.text[start + 1..self.cut],
            ))),
            (Node::Scalar { number: true, .. }, Mode::Partial) => {
                let raw = &self.text[start..self.cut];
                if raw.ends_with(|c: char| c.is_ascii_digit()) {
                    Want::Exactly(serde_json::from_str(raw).unwrap())
                } else {
                    Want::Absent
                }
            }
            (Node::Scalar { .. }, Mode::Partial) => Want::Absent,
            (Node::Scalar { .. }, Mode::Tolerant) => Want::Anything,
        }
    }

    /// Checks what the repair gave (`got`) for `node`, which started before the cut.
    fn node(&self, node: &Node, got: Option<&Value>, path: &str) -> Result<(), String> {
        match (self.want(node), got) {
            (Want::Exactly(v), Some(g)) if *g == v => Ok(()),
            (Want::Exactly(v), g) => self.fail(&format!("{g:?} instead of {v}"), path),
            (Want::Absent, None) | (Want::Anything, _) => Ok(()),
            (Want::Absent, Some(g)) => self.fail(&format!("{g} for a cut-off value"), path),
            (Want::StartOf(want), Some(Value::String(g))) if want.starts_with(g.as_str()) => Ok(()),
            (Want::StartOf(want), g) => self.fail(&format!("{g:?} does not start {want:?}"), path),
            (Want::Opened(Node::Array { items, .. }), Some(Value::Array(got_items))) => {
                self.items(items, got_items, path)
            }
            (Want::Opened(Node::Object { members, .. }), Some(Value::Object(got_members))) => {
                self.members(members, got_members, path)
            }
            (Want::Opened(n), g) => self.fail(&format!("{g:?} for {}", n.value()), path),
        }
    }

    fn items(&self, items: &[Node], got: &[Value], path: &str) -> Result<(), String> {
        let started = items.iter().filter(|n| n.started(self.cut)).count();
        if got.len() > started && !self.split_words(&items[..started]) {
            return self.fail("more items than were started", path);
        }
        for (k, item) in items.iter().enumerate().take(started) {
            self.node(item, got.get(k), &format!("{path}[{k}]"))?;
        }
        Ok(())
    }

    /// Whether the repair may have split the last started item into several: in tolerant
    /// mode, a string cut off just after a `]` is taken as missing its end quote before the
    /// array's `]`, and jsonrepair splits it at its commas (`["hello, world]`).
    fn split_words(&self, started: &[Node]) -> bool {
        let cut_string = matches!(
            started.last(),
            Some(n @ Node::Scalar { value: Value::String(_), .. })
                if !n.complete(self.cut, self.text.len())
        );
        self.mode == Mode::Tolerant && cut_string && self.text[..self.cut].trim_end().ends_with(']')
    }

    fn members(
        &self,
        members: &[Member],
        got: &serde_json::Map<String, Value>,
        path: &str,
    ) -> Result<(), String> {
        let mut got = got.iter().peekable();
        for (n, m) in members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.key_span.0 < self.cut)
        {
            let p = format!("{path}.{}", m.key);
            let key_done = m.key_span.1 <= self.cut;
            let begun = m.value.started(self.cut);
            let kept = match self.mode {
                // `{"` has no key yet; `{"a`, `{"a"` and `{"a":` keep the member
                Mode::Tolerant => m.key_span.0 + 1 < self.cut,
                Mode::Partial => key_done && begun && !matches!(self.want(&m.value), Want::Absent),
            };
            if !kept {
                continue;
            }
            // `{"path": "", "path` (of `"path_to"`): a cut key equal to a complete member's key
            // is left out rather than replace it
            let may_be_left_out = !begun
                && members[..n]
                    .iter()
                    .any(|earlier| m.key.starts_with(earlier.key.as_str()));
            if got.peek().is_none() && may_be_left_out {
                continue;
            }
            let Some((gk, gv)) = got.next() else {
                return self.fail("member missing", &p);
            };
            let key_ok = if key_done {
                *gk == m.key
            } else {
                m.key.starts_with(gk.as_str())
            };
            if !key_ok {
                return self.fail(&format!("key {gk:?} for {:?}", m.key), &p);
            }
            if begun {
                self.node(&m.value, Some(gv), &p)?;
            } else if !gv.is_null() {
                return self.fail(&format!("{gv} for a value not begun"), &p);
            }
        }
        match got.next() {
            Some((k, _)) => self.fail(&format!("member {k:?} invented"), path),
            None => Ok(()),
        }
    }
}

/// The text of a JSON string literal cut off after `raw` (without its opening quote), as far
/// as it goes: an escape the cut leaves unfinished is dropped, with a high surrogate whose low
/// half is missing.
fn decode_cut_string(raw: &str) -> String {
    let b = raw.as_bytes();
    let mut i = 0;
    let mut keep = b.len();
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let escape = if b.get(i + 1) == Some(&b'u') { 6 } else { 2 };
        if i + escape > b.len() {
            keep = i;
            break;
        }
        if escape == 6 {
            let code = u32::from_str_radix(&raw[i + 2..i + 6], 16).unwrap();
            if (0xD800..0xDC00).contains(&code) && i + 12 > b.len() {
                keep = i;
                break;
            }
        }
        i += escape;
    }
    serde_json::from_str(&format!("\"{}\"", &raw[..keep])).unwrap()
}

/// Whether an object in `text` (valid JSON) has the same key twice. The prefix check does not
/// apply there: a later duplicate replaces the earlier member, cut off or not.
pub(crate) fn has_duplicate_keys(text: &str) -> bool {
    let root = Spans { s: text, i: 0 }.node(0);
    let mut todo = vec![&root];
    while let Some(node) = todo.pop() {
        match node {
            Node::Scalar { .. } => {}
            Node::Array { items, .. } => todo.extend(items),
            Node::Object { members, .. } => {
                let keys: std::collections::HashSet<&str> =
                    members.iter().map(|m| m.key.as_str()).collect();
                if keys.len() < members.len() {
                    return true;
                }
                todo.extend(members.iter().map(|m| &m.value));
            }
        }
    }
    false
}

/// Checks every prefix of `text` (valid JSON without duplicate keys); returns the number of
/// prefixes and the failures.
pub(crate) fn check_document(name: &str, text: &str, mode: Mode) -> (usize, Vec<String>) {
    serde_json::from_str::<Value>(text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
    assert!(!has_duplicate_keys(text), "{name}: a key appears twice");
    let root = Spans { s: text, i: 0 }.node(0);
    let mut cuts = 0;
    let mut failures = Vec::new();
    for cut in 1..=text.len() {
        if !text.is_char_boundary(cut) || text[..cut].trim().is_empty() {
            continue;
        }
        cuts += 1;
        let check = Check {
            name,
            text,
            cut,
            mode,
        };
        if let Err(e) = check.prefix(&root) {
            failures.push(e);
        }
    }
    (cuts, failures)
}

impl Check<'_> {
    fn prefix(&self, root: &Node) -> Result<(), String> {
        let prefix = &self.text[..self.cut];
        let (repaired, parsed) = match self.mode {
            Mode::Tolerant => (ctb_json::repair(prefix), ctb_json::parse(prefix)),
            Mode::Partial => (
                ctb_json::repair_partial(prefix),
                ctb_json::parse_partial(prefix),
            ),
        };
        let repaired = match repaired {
            Ok(r) => r,
            // a stream cut inside a root number or keyword has nothing complete in it
            Err(_) if matches!(self.want(root), Want::Absent) => return Ok(()),
            Err(e) => return self.fail(&format!("repair failed: {e}"), "$"),
        };
        if matches!(self.want(root), Want::Absent) {
            return self.fail(&format!("{repaired} for a cut-off root"), "$");
        }
        let got: Value = match serde_json::from_str(&repaired) {
            Ok(v) => v,
            Err(e) => return self.fail(&format!("repair wrote no JSON ({e}): {repaired}"), "$"),
        };
        if parsed.as_ref().ok() != Some(&got) {
            return self.fail(&format!("repair gave {got}, parse {parsed:?}"), "$");
        }
        self.node(root, Some(&got), "$")
    }
}

fn tail(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    chars[chars.len().saturating_sub(60)..].iter().collect()
}
