//! The reader's values on a tape, turned into a [`Builder`]'s values once the document is read.
//!
//! While reading, a repair sometimes revises what it has already read: an object closed too
//! early is reopened (`{"a": 1}, "b": 2}`), an array gets more items (`{"a": [1], [2]}`), a
//! string turns out to be a key (`["key": "value"]`), several values become one array. A
//! [`Builder`]'s values cannot be revised, so [`Tape`] records the values as small entries in
//! the order they are completed (children before their container), with the text of strings,
//! keys and numbers in one buffer, and makes the revisions there. [`Tape::finish`] then walks
//! the entries once, with a stack and no recursion, calling the builder bottom-up; containers
//! are built once, with their exact sizes. A string that is a plain run of the input (most
//! are) is kept as a range of the input and never copied before the builder gets it.

use crate::build::{Build, Kind, StrBuf};
use crate::builder::Builder;

/// One value (or key) on the tape. Text is a range of the input or of [`Tape::text`].
#[derive(Debug, Clone, Copy)]
enum Entry {
    Null,
    Bool(bool),
    Number(Text),
    Str(Text),
    /// An object member's key; its value follows.
    Key(Text),
    /// The last this many values (at this level) are an array's items.
    Array(u32),
    /// The last this many keys and values (at this level) are an object's members.
    Object(u32),
}

/// Where some text is: a range of the input, or of the tape's own text. (Offsets fit in
/// 32 bits: the reader refuses texts of 4 GiB or more, keeping entries at 16 bytes.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Text {
    start: u32,
    end: u32,
    own: bool,
}

impl Text {
    fn input(start: usize, end: usize) -> Self {
        Text {
            start: start as u32,
            end: end as u32,
            own: false,
        }
    }
}

/// A string's text while it is read: as long as it is one run of the input, only its range.
pub(crate) struct TapeStr<'a> {
    input: &'a str,
    /// The range of the input, while the text is one (`owned` is then unused).
    slice: Option<(usize, usize)>,
    owned: String,
}

impl TapeStr<'_> {
    /// Copies a range into `owned`, to add what is not a run of the input.
    #[inline]
    fn own(&mut self) {
        if self.owned.capacity() == 0 {
            // once per buffer: a string is no longer than the input, give or take
            self.owned.reserve(self.input.len().min(1 << 16) + 16);
        }
        if let Some((a, b)) = self.slice.take() {
            self.owned.clear();
            self.owned.push_str(&self.input[a..b]);
        }
    }

    fn as_str(&self) -> &str {
        match self.slice {
            Some((a, b)) => &self.input[a..b],
            None => &self.owned,
        }
    }
}

impl StrBuf for TapeStr<'_> {
    const JSON: bool = false;

    #[inline]
    fn push_plain(&mut self, s: &str) {
        if self.slice.is_none() && !self.owned.is_empty() {
            self.owned.push_str(s);
            return;
        }
        // where `s` lies in the input, if it does
        let at = (s.as_ptr() as usize).wrapping_sub(self.input.as_ptr() as usize);
        let inside = at <= self.input.len() && s.len() <= self.input.len() - at;
        match self.slice {
            Some((a, b)) if inside && b == at => self.slice = Some((a, at + s.len())),
            None if inside => self.slice = Some((at, at + s.len())),
            _ => {
                self.own();
                self.owned.push_str(s);
            }
        }
    }
    fn push_text(&mut self, s: &str) {
        self.own();
        self.owned.push_str(s);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.own();
        self.owned.push(c);
    }
    fn append(&mut self, other: &Self) {
        self.own();
        self.owned.push_str(other.as_str());
    }
    fn clear(&mut self) {
        self.slice = None;
        self.owned.clear();
    }
    fn decoded(&mut self) -> Option<&mut String> {
        self.own();
        Some(&mut self.owned)
    }
    fn trim_end_spaces(&mut self) {
        match &mut self.slice {
            Some((a, b)) => {
                let n = self.input[*a..*b].trim_end_matches([' ', '\t', '\r']).len();
                *b = *a + n;
            }
            None => self.owned.trim_end_spaces(),
        }
    }
}

/// A value on the tape: where its entries begin, and what it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TapeVal {
    start: usize,
    kind: Kind,
}

/// An array being read.
pub(crate) struct TapeArr {
    start: usize,
    count: u32,
    /// The kind of the last item.
    last: Kind,
}

/// An object being read.
pub(crate) struct TapeObj {
    start: usize,
    count: u32,
    /// Where the current member's key entry is.
    member_start: usize,
    /// The kind of the last member's value.
    last: Option<Kind>,
}

/// Records values for a [`Builder`] (see the module doc).
pub(crate) struct Tape<'a, 'b, U: Builder> {
    builder: &'b mut U,
    input: &'a str,
    entries: Vec<Entry>,
    /// Text that is not a range of the input.
    text: String,
}

impl<'a, 'b, U: Builder> Tape<'a, 'b, U> {
    pub(crate) fn new(builder: &'b mut U, input: &'a str) -> Self {
        Tape {
            builder,
            input,
            // enough for most texts at once; pages never written cost nothing
            entries: Vec::with_capacity(input.len() / 8 + 16),
            // decoded strings are no longer than the input, give or take a few bytes
            text: String::with_capacity(input.len() + 16),
        }
    }

    fn add_text(&mut self, s: &str) -> Text {
        let start = self.text.len();
        self.text.push_str(s);
        Text {
            start: start as u32,
            end: self.text.len() as u32,
            own: true,
        }
    }

    /// Where `s` is: its range, when it lies in the input, or a copy.
    fn range_of(&mut self, s: &str) -> Text {
        let at = (s.as_ptr() as usize).wrapping_sub(self.input.as_ptr() as usize);
        if at <= self.input.len() && s.len() <= self.input.len() - at {
            Text::input(at, at + s.len())
        } else {
            self.add_text(s)
        }
    }

    /// Where a string buffer's text is, copying it to the tape's text if it is not a range of
    /// the input.
    fn add_str(&mut self, s: &mut TapeStr<'a>) -> Text {
        let text = match s.slice {
            Some((a, b)) => Text::input(a, b),
            None => self.add_text(&s.owned),
        };
        s.clear();
        text
    }

    fn push(&mut self, e: Entry, kind: Kind) -> TapeVal {
        let start = self.entries.len();
        self.entries.push(e);
        TapeVal { start, kind }
    }

    /// The entries from `v` on, built: `v` must be the last value on the tape.
    pub(crate) fn finish(&mut self, v: TapeVal) -> Option<U::Value> {
        let n = self.entries.len() - v.start;
        let mut values: Vec<U::Value> = Vec::with_capacity(n.min(1024));
        let mut keys: Vec<Text> = Vec::with_capacity(n.min(1024));
        let (own, input) = (&self.text, self.input);
        let at = |t: Text| {
            let range = t.start as usize..t.end as usize;
            if t.own { &own[range] } else { &input[range] }
        };
        for &e in &self.entries[v.start..] {
            let built = match e {
                Entry::Null => self.builder.null(),
                Entry::Bool(b) => self.builder.boolean(b),
                Entry::Number(t) => self.builder.number(at(t)),
                Entry::Str(t) => self.builder.string(at(t)),
                Entry::Key(t) => {
                    keys.push(t);
                    continue;
                }
                Entry::Array(n) => {
                    let from = values.len() - n as usize;
                    self.builder.array(values.drain(from..))
                }
                Entry::Object(n) => {
                    let from = values.len() - n as usize;
                    let kfrom = keys.len() - n as usize;
                    let members = keys.drain(kfrom..).map(at).zip(values.drain(from..));
                    self.builder.object(members)
                }
            };
            values.push(built);
        }
        self.entries.truncate(v.start);
        values.pop()
    }

    /// The index of the first entry of the value whose last entry is at `end - 1`.
    fn value_start(&self, mut end: usize) -> usize {
        // entries are in completion order: a container's marker comes after its children
        let mut need = 1usize;
        while need > 0 && end > 0 {
            end -= 1;
            need -= 1;
            match self.entries[end] {
                Entry::Array(n) => need += n as usize,
                Entry::Object(n) => need += 2 * n as usize,
                _ => {}
            }
        }
        end
    }

    fn text_of(&self, t: Text) -> &str {
        let range = t.start as usize..t.end as usize;
        if t.own {
            &self.text[range]
        } else {
            &self.input[range]
        }
    }

    /// The keys of the members of the object read from `o.start`, as far as it goes.
    fn keys_of(&self, o: &TapeObj) -> Vec<&str> {
        let mut keys = Vec::new();
        let mut end = self.entries.len();
        while end > o.start {
            end = self.value_start(end);
            if end == o.start {
                break;
            }
            end -= 1;
            if let Entry::Key(t) = self.entries[end] {
                keys.push(self.text_of(t));
            }
        }
        keys
    }
}

impl<'a, U: Builder> Build for Tape<'a, '_, U> {
    type V = TapeVal;
    type Str = TapeStr<'a>;
    type Arr = TapeArr;
    type Obj = TapeObj;

    fn new_str(&self) -> TapeStr<'a> {
        TapeStr {
            input: self.input,
            slice: None,
            owned: String::new(),
        }
    }

    fn null(&mut self) -> TapeVal {
        self.push(Entry::Null, Kind::Scalar)
    }
    fn boolean(&mut self, b: bool) -> TapeVal {
        self.push(Entry::Bool(b), Kind::Scalar)
    }
    fn number(&mut self, repaired: &str, raw: &str) -> TapeVal {
        let t = if repaired == raw {
            self.range_of(raw)
        } else {
            self.add_text(repaired)
        };
        self.push(Entry::Number(t), Kind::Scalar)
    }
    fn string(&mut self, s: &mut TapeStr<'a>) -> TapeVal {
        let t = self.add_str(s);
        self.push(Entry::Str(t), Kind::Str)
    }
    fn text(&mut self, s: &str) -> TapeVal {
        let t = self.range_of(s);
        self.push(Entry::Str(t), Kind::Str)
    }
    fn is_string(&self, v: &TapeVal) -> bool {
        v.kind == Kind::Str
    }
    fn is_object(&self, v: &TapeVal) -> bool {
        matches!(v.kind, Kind::Obj(_))
    }
    fn is_array(&self, v: &TapeVal) -> bool {
        matches!(v.kind, Kind::Arr(_))
    }
    fn take_string(&mut self, v: TapeVal) -> TapeStr<'a> {
        let mut s = self.new_str();
        if let Some(&Entry::Str(t)) = self.entries.get(v.start) {
            if t.own {
                s.owned.push_str(self.text_of(t));
            } else {
                s.slice = Some((t.start as usize, t.end as usize));
            }
        }
        self.entries.truncate(v.start);
        s
    }
    fn discard(&mut self, v: TapeVal) {
        self.entries.truncate(v.start);
    }

    fn arr_begin(&mut self) -> TapeArr {
        TapeArr {
            start: self.entries.len(),
            count: 0,
            last: Kind::Scalar,
        }
    }
    fn arr_item(&mut self, _a: &mut TapeArr) {}
    fn arr_abort_item(&mut self, _a: &mut TapeArr) {}
    fn arr_push(&mut self, a: &mut TapeArr, v: TapeVal) {
        a.count += 1;
        a.last = v.kind;
    }
    fn arr_end(&mut self, a: TapeArr) -> TapeVal {
        self.entries.push(Entry::Array(a.count));
        TapeVal {
            start: a.start,
            kind: Kind::Arr(a.count == 0),
        }
    }
    fn arr_wrap(&mut self, v: TapeVal) -> TapeArr {
        TapeArr {
            start: v.start,
            count: 1,
            last: v.kind,
        }
    }
    fn arr_unwrap_single(&mut self, a: TapeArr) -> TapeVal {
        TapeVal {
            start: a.start,
            kind: a.last,
        }
    }

    fn obj_begin(&mut self) -> TapeObj {
        let start = self.entries.len();
        TapeObj {
            start,
            count: 0,
            member_start: start,
            last: None,
        }
    }
    fn obj_key(&mut self, o: &mut TapeObj, key: &mut TapeStr<'a>) {
        o.member_start = self.entries.len();
        let t = self.add_str(key);
        self.entries.push(Entry::Key(t));
    }
    fn obj_value(&mut self, o: &mut TapeObj, v: TapeVal) {
        o.count += 1;
        o.last = Some(v.kind);
    }
    fn obj_has_key(&self, o: &TapeObj, key: &TapeStr<'a>) -> bool {
        self.keys_of(o).contains(&key.as_str())
    }
    fn obj_abort_member(&mut self, o: &mut TapeObj) {
        self.entries.truncate(o.member_start);
    }
    fn obj_end(&mut self, o: TapeObj) -> TapeVal {
        self.entries.push(Entry::Object(o.count));
        TapeVal {
            start: o.start,
            kind: Kind::Obj(o.count == 0),
        }
    }
    fn obj_reopen(&mut self, v: TapeVal) -> TapeObj {
        let count = match self.entries.last() {
            Some(Entry::Object(n)) => *n,
            _ => 0,
        };
        self.entries.pop();
        let member_start = self.entries.len();
        TapeObj {
            start: v.start,
            count,
            member_start,
            last: None,
        }
    }
    fn obj_last_is_array(&self, o: &TapeObj) -> bool {
        matches!(o.last, Some(Kind::Arr(_)))
    }
    fn obj_extend_last(&mut self, o: &mut TapeObj, v: TapeVal) {
        // `..., [1] marker, [2] items, [2] marker`: drop the first marker, count both
        let (Some(Kind::Arr(_)), Kind::Arr(_)) = (o.last, v.kind) else {
            return;
        };
        let Some(&Entry::Array(first)) = v.start.checked_sub(1).and_then(|p| self.entries.get(p))
        else {
            return;
        };
        let Some(Entry::Array(more)) = self.entries.pop() else {
            return;
        };
        self.entries.remove(v.start - 1);
        self.entries.push(Entry::Array(first + more));
        o.last = Some(Kind::Arr(first + more == 0));
    }
}
