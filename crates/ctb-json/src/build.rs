//! What the reader builds: a `serde_json::Value` ([`ValueBuild`], for `parse`) or compact JSON
//! text written as it goes ([`TextBuild`], for `repair`, with no tree in between). The reader
//! calls the same methods in the same order for both, so both give the same result: the text
//! reads back (with serde_json) to the value.

use serde_json::{Map, Number, Value};

/// Receives the values the reader finds, in document order.
pub(crate) trait Build {
    /// A finished value.
    type V;
    /// An array being filled.
    type Arr;
    /// An object being filled.
    type Obj;

    fn null(&mut self) -> Self::V;
    fn boolean(&mut self, b: bool) -> Self::V;
    /// `repaired` is valid JSON number text; `raw` is what the input said, used as a string if
    /// the number cannot be represented.
    fn number(&mut self, repaired: &str, raw: &str) -> Self::V;
    /// A string; the buffer is left empty.
    fn string(&mut self, s: &mut String) -> Self::V;
    /// A string from the input as is.
    fn text(&mut self, s: &str) -> Self::V;

    fn is_string(&self, v: &Self::V) -> bool;
    fn is_object(&self, v: &Self::V) -> bool;
    fn is_array(&self, v: &Self::V) -> bool;
    /// Takes back the last value built, which must be a string, and returns its text.
    fn take_string(&mut self, v: Self::V) -> String;
    /// Forgets the last value built.
    fn discard(&mut self, v: Self::V);

    fn arr_begin(&mut self) -> Self::Arr;
    /// Called before reading each item; [`Build::arr_abort_item`] undoes it when no item came.
    fn arr_item(&mut self, a: &mut Self::Arr);
    fn arr_abort_item(&mut self, a: &mut Self::Arr);
    fn arr_push(&mut self, a: &mut Self::Arr, v: Self::V);
    fn arr_end(&mut self, a: Self::Arr) -> Self::V;
    /// A new array whose first item is `v` (the last value built).
    fn arr_wrap(&mut self, v: Self::V) -> Self::Arr;
    /// The only item of `a`, instead of the array.
    fn arr_unwrap_single(&mut self, a: Self::Arr) -> Self::V;

    fn obj_begin(&mut self) -> Self::Obj;
    /// The key of the next member, before its value is read; the buffer is left empty.
    fn obj_key(&mut self, o: &mut Self::Obj, key: &mut String);
    fn obj_value(&mut self, o: &mut Self::Obj, v: Self::V);
    /// Whether the object already has a member with this key (only asked once per text, for
    /// a key the end of the text cuts off, so it need not be fast).
    fn obj_has_key(&self, o: &Self::Obj, key: &str) -> bool;
    /// Drops the member whose key was given last.
    fn obj_abort_member(&mut self, o: &mut Self::Obj);
    fn obj_end(&mut self, o: Self::Obj) -> Self::V;
    /// Reopens the last value built, an object, to add members.
    fn obj_reopen(&mut self, v: Self::V) -> Self::Obj;
    /// Whether the last member's value is an array.
    fn obj_last_is_array(&self, o: &Self::Obj) -> bool;
    /// Appends the items of `v` (an array, the last value built) to the last member's array.
    fn obj_extend_last(&mut self, o: &mut Self::Obj, v: Self::V);
}

// ----- Value ------------------------------------------------------------------------------

/// Builds a `serde_json::Value`.
pub(crate) struct ValueBuild;

pub(crate) struct ValueObj {
    map: Map<String, Value>,
    key: Option<String>,
    /// Where the last member is when its value is an array (for `obj_extend_last`).
    last_array: LastArray,
}

/// Where to find the last member's array.
pub(crate) enum LastArray {
    None,
    /// At this position (a new key).
    Index(usize),
    /// Under this key (a key seen before, which keeps its first position).
    Key(String),
}

impl Build for ValueBuild {
    type V = Value;
    type Arr = Vec<Value>;
    type Obj = ValueObj;

    fn null(&mut self) -> Value {
        Value::Null
    }
    fn boolean(&mut self, b: bool) -> Value {
        Value::Bool(b)
    }
    fn number(&mut self, repaired: &str, raw: &str) -> Value {
        // Small integers directly; serde_json stores them with the same digits.
        let digits = repaired.strip_prefix('-').unwrap_or(repaired);
        if digits.len() <= 18
            && !digits.is_empty()
            && digits.bytes().all(|c| c.is_ascii_digit())
            && (digits.len() == 1 || !digits.starts_with('0'))
            && repaired != "-0"
        {
            if let Ok(n) = repaired.parse::<i64>() {
                return Value::Number(n.into());
            }
        }
        match repaired.parse::<Number>() {
            Ok(n) => Value::Number(n),
            Err(_) => Value::String(raw.to_owned()),
        }
    }
    fn string(&mut self, s: &mut String) -> Value {
        // an exact-size copy; the buffer keeps its capacity for the next string
        let v = Value::String(s.as_str().to_owned());
        s.clear();
        v
    }
    fn text(&mut self, s: &str) -> Value {
        Value::String(s.to_owned())
    }
    fn is_string(&self, v: &Value) -> bool {
        v.is_string()
    }
    fn is_object(&self, v: &Value) -> bool {
        v.is_object()
    }
    fn is_array(&self, v: &Value) -> bool {
        v.is_array()
    }
    fn take_string(&mut self, v: Value) -> String {
        match v {
            Value::String(s) => s,
            other => other.to_string(),
        }
    }
    fn discard(&mut self, _v: Value) {}

    fn arr_begin(&mut self) -> Vec<Value> {
        Vec::new()
    }
    fn arr_item(&mut self, _a: &mut Vec<Value>) {}
    fn arr_abort_item(&mut self, _a: &mut Vec<Value>) {}
    fn arr_push(&mut self, a: &mut Vec<Value>, v: Value) {
        a.push(v);
    }
    fn arr_end(&mut self, a: Vec<Value>) -> Value {
        Value::Array(a)
    }
    fn arr_wrap(&mut self, v: Value) -> Vec<Value> {
        vec![v]
    }
    fn arr_unwrap_single(&mut self, mut a: Vec<Value>) -> Value {
        a.pop().unwrap_or(Value::Null)
    }

    fn obj_begin(&mut self) -> ValueObj {
        ValueObj {
            map: Map::new(),
            key: None,
            last_array: LastArray::None,
        }
    }
    fn obj_key(&mut self, o: &mut ValueObj, key: &mut String) {
        o.key = Some(key.as_str().to_owned());
        key.clear();
    }
    #[inline]
    fn obj_value(&mut self, o: &mut ValueObj, v: Value) {
        if let Some(k) = o.key.take() {
            o.last_array = if !v.is_array() {
                LastArray::None
            } else if o.map.contains_key(&k) {
                LastArray::Key(k.clone())
            } else {
                LastArray::Index(o.map.len())
            };
            o.map.insert(k, v);
        }
    }
    fn obj_has_key(&self, o: &ValueObj, key: &str) -> bool {
        o.map.contains_key(key)
    }
    fn obj_abort_member(&mut self, o: &mut ValueObj) {
        o.key = None;
    }
    fn obj_end(&mut self, o: ValueObj) -> Value {
        Value::Object(o.map)
    }
    fn obj_reopen(&mut self, v: Value) -> ValueObj {
        let map = match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        ValueObj {
            map,
            key: None,
            last_array: LastArray::None,
        }
    }
    fn obj_last_is_array(&self, o: &ValueObj) -> bool {
        !matches!(o.last_array, LastArray::None)
    }
    fn obj_extend_last(&mut self, o: &mut ValueObj, v: Value) {
        let target = match &o.last_array {
            LastArray::None => None,
            LastArray::Index(n) => o.map.values_mut().nth(*n),
            LastArray::Key(k) => o.map.get_mut(k),
        };
        if let (Some(Value::Array(items)), Value::Array(more)) = (target, v) {
            items.extend(more);
        }
    }
}

// ----- text -------------------------------------------------------------------------------

/// Writes compact JSON text.
pub(crate) struct TextBuild {
    pub(crate) out: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Scalar,
    Str,
    /// An array; whether it is empty.
    Arr(bool),
    /// An object; whether it is empty.
    Obj(bool),
}

/// A value written at `start..` of the output, packed in one non-zero word (start in the high
/// bits, kind in the low three) so that results carrying it travel in registers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextVal(std::num::NonZeroU64);

impl TextVal {
    #[inline]
    fn new(start: usize, kind: Kind) -> Self {
        let code: u64 = match kind {
            Kind::Scalar => 1,
            Kind::Str => 2,
            Kind::Arr(false) => 3,
            Kind::Arr(true) => 4,
            Kind::Obj(false) => 5,
            Kind::Obj(true) => 6,
        };
        let packed = ((start as u64) << 3) | code;
        TextVal(std::num::NonZeroU64::new(packed).unwrap_or(std::num::NonZeroU64::MIN))
    }
    #[inline]
    fn start(self) -> usize {
        (self.0.get() >> 3) as usize
    }
    #[inline]
    fn kind(self) -> Kind {
        match self.0.get() & 7 {
            2 => Kind::Str,
            3 => Kind::Arr(false),
            4 => Kind::Arr(true),
            5 => Kind::Obj(false),
            6 => Kind::Obj(true),
            _ => Kind::Scalar,
        }
    }
}

pub(crate) struct TextArr {
    start: usize,
    count: usize,
    item_start: usize,
    last: Kind,
}

pub(crate) struct TextObj {
    start: usize,
    count: usize,
    member_start: usize,
    last: Option<Kind>,
}

impl TextBuild {
    pub(crate) fn with_capacity(n: usize) -> Self {
        TextBuild {
            out: String::with_capacity(n),
        }
    }

    #[inline]
    fn scalar(&mut self, text: &str) -> TextVal {
        let start = self.out.len();
        match text.as_bytes() {
            [c] => self.out.push(char::from(*c)),
            _ => self.out.push_str(text),
        }
        TextVal::new(start, Kind::Scalar)
    }
}

/// Appends `s` as a JSON string literal, escaped the way serde_json does.
pub(crate) fn write_escaped(out: &mut String, s: &str) {
    out.push('"');
    let b = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c >= 0x20 && c != b'"' && c != b'\\' {
            i += 1;
            continue;
        }
        let esc: &str = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            _ => "",
        };
        out.push_str(&s[run..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(c >> 4)]));
            out.push(char::from(HEX[usize::from(c & 0xF)]));
        } else {
            out.push_str(esc);
        }
        i += 1;
        run = i;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

impl Build for TextBuild {
    type V = TextVal;
    type Arr = TextArr;
    type Obj = TextObj;

    fn null(&mut self) -> TextVal {
        self.scalar("null")
    }
    fn boolean(&mut self, b: bool) -> TextVal {
        self.scalar(if b { "true" } else { "false" })
    }
    fn number(&mut self, repaired: &str, _raw: &str) -> TextVal {
        self.scalar(repaired)
    }
    fn string(&mut self, s: &mut String) -> TextVal {
        let start = self.out.len();
        write_escaped(&mut self.out, s);
        s.clear();
        TextVal::new(start, Kind::Str)
    }
    fn text(&mut self, s: &str) -> TextVal {
        let start = self.out.len();
        write_escaped(&mut self.out, s);
        TextVal::new(start, Kind::Str)
    }
    fn is_string(&self, v: &TextVal) -> bool {
        v.kind() == Kind::Str
    }
    fn is_object(&self, v: &TextVal) -> bool {
        matches!(v.kind(), Kind::Obj(_))
    }
    fn is_array(&self, v: &TextVal) -> bool {
        matches!(v.kind(), Kind::Arr(_))
    }
    fn take_string(&mut self, v: TextVal) -> String {
        // read the literal just written back (rare: only for keys found late)
        let text = serde_json::from_str::<String>(&self.out[v.start()..]).unwrap_or_default();
        self.out.truncate(v.start());
        text
    }
    fn discard(&mut self, v: TextVal) {
        self.out.truncate(v.start());
    }

    fn arr_begin(&mut self) -> TextArr {
        let start = self.out.len();
        self.out.push('[');
        TextArr {
            start,
            count: 0,
            item_start: start + 1,
            last: Kind::Scalar,
        }
    }
    fn arr_item(&mut self, a: &mut TextArr) {
        a.item_start = self.out.len();
        if a.count > 0 {
            self.out.push(',');
        }
    }
    fn arr_abort_item(&mut self, a: &mut TextArr) {
        self.out.truncate(a.item_start);
    }
    fn arr_push(&mut self, a: &mut TextArr, v: TextVal) {
        a.count += 1;
        a.last = v.kind();
    }
    fn arr_end(&mut self, a: TextArr) -> TextVal {
        self.out.push(']');
        TextVal::new(a.start, Kind::Arr(a.count == 0))
    }
    fn arr_wrap(&mut self, v: TextVal) -> TextArr {
        self.out.insert(v.start(), '[');
        TextArr {
            start: v.start(),
            count: 1,
            item_start: self.out.len(),
            last: v.kind(),
        }
    }
    fn arr_unwrap_single(&mut self, a: TextArr) -> TextVal {
        self.out.remove(a.start);
        TextVal::new(a.start, a.last)
    }

    fn obj_begin(&mut self) -> TextObj {
        let start = self.out.len();
        self.out.push('{');
        TextObj {
            start,
            count: 0,
            member_start: start + 1,
            last: None,
        }
    }
    fn obj_key(&mut self, o: &mut TextObj, key: &mut String) {
        o.member_start = self.out.len();
        if o.count > 0 {
            self.out.push(',');
        }
        write_escaped(&mut self.out, key);
        self.out.push(':');
        key.clear();
    }
    fn obj_value(&mut self, o: &mut TextObj, v: TextVal) {
        o.count += 1;
        o.last = Some(v.kind());
    }
    fn obj_has_key(&self, o: &TextObj, key: &str) -> bool {
        // the members written so far, closed, are a JSON object
        let text = format!("{}}}", &self.out[o.start..]);
        serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.as_object().map(|m| m.contains_key(key)))
            .unwrap_or(false)
    }
    fn obj_abort_member(&mut self, o: &mut TextObj) {
        self.out.truncate(o.member_start);
    }
    fn obj_end(&mut self, o: TextObj) -> TextVal {
        self.out.push('}');
        TextVal::new(o.start, Kind::Obj(o.count == 0))
    }
    fn obj_reopen(&mut self, v: TextVal) -> TextObj {
        if self.out.ends_with('}') {
            self.out.pop();
        }
        TextObj {
            start: v.start(),
            count: usize::from(v.kind() != Kind::Obj(true)),
            member_start: self.out.len(),
            last: None,
        }
    }
    fn obj_last_is_array(&self, o: &TextObj) -> bool {
        matches!(o.last, Some(Kind::Arr(_)))
    }
    fn obj_extend_last(&mut self, o: &mut TextObj, v: TextVal) {
        let (Some(Kind::Arr(prev_empty)), Kind::Arr(new_empty)) = (o.last, v.kind()) else {
            return;
        };
        // `...,"k":[1]` followed by `[2]` at v.start(): join them into `[1,2]`
        if v.start() == 0 || self.out.as_bytes().get(v.start() - 1) != Some(&b']') {
            return;
        }
        let sep = if prev_empty || new_empty { "" } else { "," };
        self.out.replace_range(v.start() - 1..v.start() + 1, sep);
        o.last = Some(Kind::Arr(prev_empty && new_empty));
    }
}
