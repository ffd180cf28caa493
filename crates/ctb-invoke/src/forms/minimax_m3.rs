//! MiniMax-M3: the marker `]<]minimax[>[` (one special token) stands before every tag, and a
//! parameter is named by its tag:
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="get_weather">
//! ]<]minimax[>[<location>Paris]<]minimax[>[</location>
//! ]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Entry: the body starts at the marker before `<tool_call>`; the call ends just past the
//! marker and `</invoke>` of the first invoke (the wrapper's closing tag is in the tail).
//!
//! The grammar read, strictly (anything else breaks the call):
//! - the marker is followed directly by `<` (no white space); white space may stand between
//!   tags (before a marker), never inside them;
//! - `<tool_call>`, then `<invoke name="NAME">` (one attribute, double quotes);
//! - the invoke's children are parameters `<KEY>...</KEY>`, each name once; a key is the bytes
//!   up to `>` (hyphens, dots, digits and non-ASCII letters included), no white space, quotes,
//!   `/`, `=`, `&` or `\`;
//! - an element's content is either text (a leaf: every byte up to the marker, which must
//!   start its closing tag; the text is kept byte for byte and may hold `<` or `]`) or only
//!   child elements separated by white space (text and children mixed breaks the call);
//! - children all named `item` make an array, children with other names an object; a name
//!   repeated in an object folds its values into an array (`<tag>a</tag><tag>b</tag>` gives
//!   `{"tag": ["a", "b"]}`); `item` mixed with other names breaks the call;
//! - elements nest at most [`MAX_DEPTH`] deep below the invoke.
//!
//! A parameter whose content is text is [`ValueKind::Text`] (typed by the tool's schema, like
//! every raw value). A parameter with children is [`ValueKind::Converted`]: the JSON the
//! grammar wrote, its leaves JSON strings as written (the schema types them, as it types
//! text), its `value` range the markup between the parameter's tags.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::forms::{name_byte, push_json_string, starts_with_parts};
use crate::grammar::{Body, RawParam, Spans, Step, ValueKind};
use crate::lex::{Meter, Poll, skip_ws, starts_with};
use crate::vocab::END_TAG;
use crate::vocab::minimax_m3::{CALL_END, INVOKE_OPEN, MARKER, TOOL_CALL_OPEN};

/// The invoke's closing tag's name.
const INVOKE: &[u8] = crate::vocab::INVOKE.as_bytes();
/// The name of an array item's element.
const ITEM: &[u8] = b"item";

/// Deepest nesting of elements below the invoke (a parameter is depth 1).
pub(crate) const MAX_DEPTH: usize = 16;
/// What ends the text of a call that broke.
pub(crate) const ENDS: &[&str] = &[CALL_END];

/// Longest tool name read.
const MAX_NAME: usize = 256;
/// Longest key read.
const MAX_KEY: usize = 128;

/// The body of one MiniMax-M3 call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MiniMaxM3 {
    /// The decision, once made: every later step answers it.
    decided: Option<Step>,
    start: usize,
    pos: usize,
    state: State,
    /// The open elements, the parameter first.
    open: Vec<Element>,
    /// The parameters' names so far.
    names: HashSet<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The marker and `<tool_call>` at the start.
    Wrapper,
    /// White space, then the marker and `<invoke name="`.
    BeforeInvoke,
    /// The tool name, from this offset to its quote.
    ToolName(usize),
    /// `">` after the name.
    NameEnd,
    /// Between children: white space, then a marker.
    Between,
    /// After `<KEY>`: white space, then a marker (children, or an empty element's closing tag)
    /// or text (a leaf).
    Content,
    /// A `]` is the first byte of the content after white space: is it the marker?
    ContentMarker(usize),
    /// Inside a leaf's text, looking for the marker.
    Leaf,
    /// A `]` inside a leaf: is it the marker?
    LeafMarker(usize),
    /// A marker ends at `pos`: `<` must follow, then `/` or a key.
    AfterMarker(usize),
    /// A key from this offset (just after `<`) up to `>`.
    Key(usize),
    /// The closing tag after the marker at this offset.
    Closer(usize),
}

/// An element that is open.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Element {
    key: Range<usize>,
    content: usize,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// Nothing but white space so far.
    Empty,
    /// Text.
    Leaf,
    /// Children with names other than `item`.
    Object(Object),
    /// `item` children.
    Array(Vec<String>),
}

/// An object's members as JSON, in the order their names first appear.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Object {
    members: Vec<(String, Vec<String>)>,
    index: HashMap<String, usize>,
}

impl Object {
    fn add(&mut self, key: &str, json: String) {
        match self.index.get(key) {
            Some(&i) => self.members[i].1.push(json),
            None => {
                self.index.insert(key.to_owned(), self.members.len());
                self.members.push((key.to_owned(), vec![json]));
            }
        }
    }

    fn render(self) -> String {
        let mut out = String::from("{");
        for (i, (key, values)) in self.members.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(&mut out, &key);
            out.push(':');
            match values.as_slice() {
                [one] => out.push_str(one),
                many => push_array(&mut out, many),
            }
        }
        out.push('}');
        out
    }
}

fn push_array(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push(']');
}

impl MiniMaxM3 {
    /// A body whose first marker (before `<tool_call>`) is at `at`.
    pub(crate) fn new(at: usize) -> Self {
        Self {
            decided: None,
            start: at,
            pos: at,
            state: State::Wrapper,
            open: Vec::new(),
            names: HashSet::new(),
        }
    }

    /// A child element `<KEY>` (`lt` is its `<`, `gt` its `>`) opens.
    fn open_child(&mut self, text: &str, lt: usize, gt: usize) -> Result<(), usize> {
        let key = &text[lt + 1..gt];
        match self.open.last_mut() {
            None => {
                // A parameter: each name once.
                if !self.names.insert(key.to_owned()) {
                    return Err(lt);
                }
            }
            Some(parent) => {
                let item = key.as_bytes() == ITEM;
                match &parent.kind {
                    Kind::Empty if item => parent.kind = Kind::Array(Vec::new()),
                    Kind::Empty => parent.kind = Kind::Object(Object::default()),
                    Kind::Array(_) if item => {}
                    Kind::Object(_) if !item => {}
                    _ => return Err(lt),
                }
            }
        }
        if self.open.len() >= MAX_DEPTH {
            return Err(lt);
        }
        self.open.push(Element {
            key: lt + 1..gt,
            content: gt + 1,
            kind: Kind::Empty,
        });
        Ok(())
    }

    /// The innermost element closes; its content ends at `end` (the marker of its closing tag).
    fn close(&mut self, text: &str, end: usize, spans: &mut Spans) {
        let Some(element) = self.open.pop() else {
            return;
        };
        let leaf = matches!(element.kind, Kind::Empty | Kind::Leaf);
        let json = match element.kind {
            Kind::Empty | Kind::Leaf if self.open.is_empty() => String::new(),
            Kind::Empty | Kind::Leaf => {
                let mut s = String::new();
                push_json_string(&mut s, &text[element.content..end]);
                s
            }
            Kind::Object(o) => o.render(),
            Kind::Array(items) => {
                let mut s = String::new();
                push_array(&mut s, &items);
                s
            }
        };
        match self.open.last_mut() {
            None => spans.params.push(RawParam {
                name: element.key,
                value: element.content..end,
                attrs: Vec::new(),
                kind: if leaf {
                    ValueKind::Text
                } else {
                    ValueKind::Converted(json)
                },
            }),
            Some(parent) => match &mut parent.kind {
                Kind::Object(o) => o.add(&text[element.key], json),
                Kind::Array(items) => items.push(json),
                // A child was opened, so the parent holds children.
                Kind::Empty | Kind::Leaf => {}
            },
        }
    }
}

impl MiniMaxM3 {
    /// Keeps `step` when it decides the call.
    fn decide(&mut self, step: Step) -> Step {
        if step != Step::Pending {
            self.decided = Some(step);
        }
        step
    }
}

impl Body for MiniMaxM3 {
    fn in_parameter(&self) -> bool {
        !self.open.is_empty()
    }

    fn step(&mut self, text: &str, spans: &mut Spans, meter: &mut Meter) -> Result<(), Step> {
        if let Some(step) = self.decided {
            return Err(step);
        }
        let b = text.as_bytes();
        {
            match self.state {
                State::Wrapper => {
                    let parts: &[&[u8]] = &[MARKER.as_bytes(), TOOL_CALL_OPEN.as_bytes()];
                    match starts_with_parts(b, self.pos, parts, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(false) => return Err(self.decide(Step::Failed(self.start))),
                        Poll::Ready(true) => {
                            self.pos += MARKER.len() + TOOL_CALL_OPEN.len();
                            self.state = State::BeforeInvoke;
                        }
                    }
                }
                State::BeforeInvoke => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    let parts: &[&[u8]] = &[MARKER.as_bytes(), INVOKE_OPEN.as_bytes()];
                    match starts_with_parts(b, at, parts, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(false) => return Err(self.decide(Step::Failed(at))),
                        Poll::Ready(true) => {
                            self.pos = at + MARKER.len() + INVOKE_OPEN.len();
                            self.state = State::ToolName(self.pos);
                        }
                    }
                }
                State::ToolName(from) => {
                    let limit = (from + MAX_NAME + 1).min(b.len());
                    let scan = self.pos;
                    let stop = b[scan..limit]
                        .iter()
                        .position(|&c| c == b'"' || !tool_name_byte(c))
                        .map(|i| scan + i);
                    meter.read(scan, stop.map_or(limit, |s| s + 1));
                    match stop {
                        None if limit == from + MAX_NAME + 1 => {
                            return Err(self.decide(Step::Failed(from)));
                        }
                        None => {
                            self.pos = limit;
                            return Err(Step::Pending);
                        }
                        Some(at) if b[at] != b'"' || at == from => {
                            return Err(self.decide(Step::Failed(at)));
                        }
                        Some(at) => {
                            spans.name = from..at;
                            self.pos = at;
                            self.state = State::NameEnd;
                        }
                    }
                }
                State::NameEnd => match starts_with(b, self.pos, "\">", meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(false) => return Err(self.decide(Step::Failed(self.pos))),
                    Poll::Ready(true) => {
                        self.pos += 2;
                        self.state = State::Between;
                    }
                },
                State::Between => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    match starts_with(b, at, MARKER, meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(false) => return Err(self.decide(Step::Failed(at))),
                        Poll::Ready(true) => {
                            self.pos = at + MARKER.len();
                            self.state = State::AfterMarker(at);
                        }
                    }
                }
                State::Content => {
                    let Some(at) = skip_ws(b, &mut self.pos, meter) else {
                        return Err(Step::Pending);
                    };
                    self.state = if b[at] == b']' {
                        State::ContentMarker(at)
                    } else {
                        self.set_leaf();
                        State::Leaf
                    };
                }
                State::ContentMarker(at) => match starts_with(b, at, MARKER, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(true) => {
                        self.pos = at + MARKER.len();
                        self.state = State::AfterMarker(at);
                    }
                    Poll::Ready(false) => {
                        self.set_leaf();
                        self.pos = at + 1;
                        self.state = State::Leaf;
                    }
                },
                State::Leaf => {
                    let from = self.pos;
                    match memchr::memchr(b']', &b[from..]) {
                        Some(off) => {
                            meter.read(from, from + off + 1);
                            self.state = State::LeafMarker(from + off);
                        }
                        None => {
                            meter.read(from, b.len());
                            self.pos = b.len();
                            return Err(Step::Pending);
                        }
                    }
                }
                State::LeafMarker(at) => match starts_with(b, at, MARKER, meter) {
                    Poll::Pending => return Err(Step::Pending),
                    Poll::Ready(true) => {
                        self.pos = at + MARKER.len();
                        self.state = State::AfterMarker(at);
                    }
                    Poll::Ready(false) => {
                        self.pos = at + 1;
                        self.state = State::Leaf;
                    }
                },
                State::AfterMarker(marker) => {
                    // `<` first; only then the byte after it.
                    let lt = marker + MARKER.len();
                    let Some(&c0) = b.get(lt) else {
                        return Err(Step::Pending);
                    };
                    meter.read(lt, lt + 1);
                    if c0 != b'<' {
                        return Err(self.decide(Step::Failed(marker)));
                    }
                    let Some(&c1) = b.get(lt + 1) else {
                        return Err(Step::Pending);
                    };
                    meter.read(lt + 1, lt + 2);
                    let in_leaf = self.open.last().is_some_and(|e| e.kind == Kind::Leaf);
                    self.state = match c1 {
                        b'/' => State::Closer(marker),
                        _ if !in_leaf => State::Key(lt + 1),
                        // Text, then an element: mixed content.
                        _ => return Err(self.decide(Step::Failed(marker))),
                    };
                }
                State::Key(from) => {
                    let limit = (from + MAX_KEY + 1).min(b.len());
                    let scan = self.pos.max(from);
                    let stop = b[scan..limit]
                        .iter()
                        .position(|&c| c == b'>' || !name_byte(c))
                        .map(|i| scan + i);
                    meter.read(scan, stop.map_or(limit, |s| s + 1));
                    match stop {
                        None if limit == from + MAX_KEY + 1 => {
                            return Err(self.decide(Step::Failed(from - 1)));
                        }
                        None => {
                            self.pos = limit;
                            return Err(Step::Pending);
                        }
                        Some(gt) if b[gt] != b'>' || gt == from => {
                            return Err(self.decide(Step::Failed(from - 1)));
                        }
                        Some(gt) => {
                            if let Err(at) = self.open_child(text, from - 1, gt) {
                                return Err(self.decide(Step::Failed(at)));
                            }
                            self.pos = gt + 1;
                            self.state = State::Content;
                        }
                    }
                }
                State::Closer(marker) => {
                    let lt = marker + MARKER.len();
                    let name = match self.open.last() {
                        Some(e) => &b[e.key.clone()],
                        None => INVOKE,
                    };
                    match starts_with_parts(b, lt, &[END_TAG.as_bytes(), name, b">"], meter) {
                        Poll::Pending => return Err(Step::Pending),
                        Poll::Ready(false) => return Err(self.decide(Step::Failed(marker))),
                        Poll::Ready(true) => {
                            let end = lt + 3 + name.len();
                            if self.open.is_empty() {
                                return Err(self.decide(Step::Done(end)));
                            }
                            self.close(text, marker, spans);
                            self.pos = end;
                            self.state = State::Between;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl MiniMaxM3 {
    /// The innermost element's content is text.
    fn set_leaf(&mut self) {
        if let Some(e) = self.open.last_mut() {
            e.kind = Kind::Leaf;
        }
    }
}

/// Whether `c` may stand in a tool name (between the quotes of `name="..."`).
fn tool_name_byte(c: u8) -> bool {
    !(c.is_ascii_control() || c == b' ' || matches!(c, b'<' | b'>'))
}
