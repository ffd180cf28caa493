//! One call: from its first tag (wrapper or `<invoke`) to its closing `</invoke>`.

use nom::Parser;
use nom::bytes::streaming::tag;
use nom::character::streaming::char;

use crate::tag::{self, Name, Open, Res, ws};

/// One argument of a call, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param<'a> {
    /// The parameter's name (the `name` attribute, or the element name for `<tool_args>`-style
    /// children).
    pub name: &'a str,
    /// The value exactly as written between the opening tag's `>` and the closing tag.
    pub value: &'a str,
    /// Every attribute of the opening tag, `name` included, in order.
    pub attrs: Vec<(&'a str, &'a str)>,
}

/// The first complete, unquoted call of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<'a> {
    /// The tool name as written in the `name` attribute.
    pub name: &'a str,
    /// The arguments in the order written; a repeated name keeps only its first value.
    pub params: Vec<Param<'a>>,
    /// End of the prose before the call: residue word and trailing white space excluded.
    pub prose_end: usize,
    /// Byte offset of the call's first byte (the wrapper tag when there is one).
    pub start: usize,
    /// Byte offset just past `</invoke>` (a wrapper's closing tag, if any, is in the tail).
    pub end: usize,
    /// Byte range of a residue word (`court`, `call`, ...) between the prose and the call.
    pub residue: Option<std::ops::Range<usize>>,
}

impl<'a> Call<'a> {
    /// The value of the first parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&'a str> {
        self.params.iter().find(|p| p.name == name).map(|p| p.value)
    }
}

/// Why a candidate is not (yet) a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fail {
    /// The text ends before the call does.
    Incomplete { in_parameter: bool },
    /// Not a call at all; found with this many bytes of the text still unread (so the
    /// caller can charge the work actually done).
    Malformed(usize),
}

/// How a candidate starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// At `<`: a wrapper or `<invoke`.
    Tag,
    /// A line that lost its `<` and starts with a prefixed `ns:invoke name=...>`.
    LostBracket,
    /// The reply starts mid-tag: `="tool">` or `name="tool">`.
    MidTag,
}

/// Wrapper elements whose content may be a call.
const WRAPPERS: &[&str] = &["function_calls", "tool_call", "tool_calls"];

/// Whether `local` names a wrapper element (`function_calls` and kin).
pub(crate) fn is_wrapper(local: &str) -> bool {
    WRAPPERS.contains(&local)
}

/// Child elements other than `<parameter>` taken as a parameter named after the element.
pub(crate) const ELEMENT_PARAMS: &[&str] = &[
    "tool_args",
    "args",
    "arguments",
    "parameters",
    "thoughts",
    "headline",
];

fn fail_from(e: nom::Err<nom::error::Error<&str>>, in_parameter: bool) -> Fail {
    match e {
        nom::Err::Incomplete(_) => Fail::Incomplete { in_parameter },
        nom::Err::Error(e) | nom::Err::Failure(e) => Fail::Malformed(e.input.len()),
    }
}

/// Parses a call that starts at `text[start..]`.
pub(crate) fn parse(text: &str, start: usize, how: Start) -> Result<Call<'_>, Fail> {
    let i = &text[start..];
    let (i, name) = match how {
        Start::Tag => {
            let (after, first) = tag::open(i).map_err(|e| fail_from(e, false))?;
            if WRAPPERS.contains(&first.name.local) {
                let (after, _) = ws(after).map_err(|e| fail_from(e, false))?;
                let (after, inv) = tag::open(after).map_err(|e| fail_from(e, false))?;
                (after, invoke_name(&inv, after)?)
            } else {
                (after, invoke_name(&first, after)?)
            }
        }
        Start::LostBracket => {
            let (after, n) = tag::name(i).map_err(|e| fail_from(e, false))?;
            let (after, (attrs, self_closing)) =
                tag::attrs_and_close(after).map_err(|e| fail_from(e, false))?;
            let open = Open {
                name: n,
                attrs,
                self_closing,
            };
            if n.prefix.is_none() {
                return Err(Fail::Malformed(after.len()));
            }
            (after, invoke_name(&open, after)?)
        }
        Start::MidTag => {
            let (after, (_, _, _, _, n, _, _)) = (
                nom::combinator::opt(tag("name")),
                ws,
                char('='),
                ws,
                tag::attr_value,
                ws,
                char('>'),
            )
                .parse(i)
                .map_err(|e| fail_from(e, false))?;
            if n.trim().is_empty() {
                return Err(Fail::Malformed(after.len()));
            }
            (after, n.trim())
        }
    };
    let (end_rest, params) = body(i)?;
    let end = text.len() - end_rest.len();
    Ok(Call {
        name,
        params,
        prose_end: start,
        start,
        end,
        residue: None,
    })
}

/// The tool name of an `<invoke>` opening tag; `rest` is the text after the tag.
fn invoke_name<'a>(open: &Open<'a>, rest: &str) -> Result<&'a str, Fail> {
    match open.attr("name") {
        Some(n) if open.name.local == "invoke" && !open.self_closing && !n.trim().is_empty() => {
            Ok(n.trim())
        }
        _ => Err(Fail::Malformed(rest.len())),
    }
}

/// The children of `<invoke>` up to and including `</invoke>`.
fn body(mut i: &str) -> Result<(&str, Vec<Param<'_>>), Fail> {
    let mut params: Vec<Param<'_>> = Vec::new();
    loop {
        let (rest, _) = ws(i).map_err(|e| fail_from(e, false))?;
        i = rest;
        if i.starts_with("</") || "</".starts_with(i) {
            let (rest, n) = tag::close(i).map_err(|e| fail_from(e, false))?;
            if n.local == "invoke" {
                return Ok((rest, params));
            }
            return Err(Fail::Malformed(rest.len()));
        }
        if !i.starts_with('<') {
            return Err(if i.is_empty() {
                Fail::Incomplete {
                    in_parameter: false,
                }
            } else {
                Fail::Malformed(i.len())
            });
        }
        let (rest, open) = tag::open(i).map_err(|e| fail_from(e, false))?;
        let pname = match open.name.local {
            "parameter" => open.attr("name").ok_or(Fail::Malformed(rest.len()))?,
            other if ELEMENT_PARAMS.contains(&other) => other,
            _ => return Err(Fail::Malformed(rest.len())),
        };
        let (rest, value) = if open.self_closing {
            (rest, "")
        } else {
            value(rest, open.name)?
        };
        if !params.iter().any(|p| p.name == pname) {
            params.push(Param {
                name: pname,
                value,
                attrs: open.attrs,
            });
        }
        i = rest;
    }
}

/// A value: everything up to the closing tag of `elem` that is followed by the next child or
/// by `</invoke>`, skipping closings that belong to a call quoted inside the value (an
/// `<invoke` that starts a line of the value opens one).
fn value<'a>(i: &'a str, elem: Name<'a>) -> Result<(&'a str, &'a str), Fail> {
    let bytes = i.as_bytes();
    let mut depth = 0usize;
    let mut pos = 0usize;
    while let Some(off) = memchr_lt(&bytes[pos..]) {
        let at = pos + off;
        let here = &i[at..];
        pos = at + 1;
        if let Some(n) = closing_name(here) {
            match n {
                Ok((rest, name)) if name.local == elem.local => {
                    if depth == 0 && followed_by_next(rest)? {
                        return Ok((rest, &i[..at]));
                    }
                }
                Ok((_, name)) if name.local == "invoke" => depth = depth.saturating_sub(1),
                Ok(_) => {}
                Err(()) => {
                    return Err(Fail::Incomplete { in_parameter: true });
                }
            }
        } else if starts_line(i, at) && opens_invoke(here) {
            depth += 1;
        }
    }
    Err(Fail::Incomplete { in_parameter: true })
}

/// `Some(Ok(..))` when `here` starts with a closing tag, `Some(Err(()))` when the text ends
/// inside what may be one, `None` otherwise.
#[allow(clippy::type_complexity)]
fn closing_name(here: &str) -> Option<Result<(&str, Name<'_>), ()>> {
    if !here.starts_with("</") {
        return if here == "<" { Some(Err(())) } else { None };
    }
    match tag::close(here) {
        Ok(ok) => Some(Ok(ok)),
        Err(nom::Err::Incomplete(_)) => Some(Err(())),
        Err(_) => None,
    }
}

/// Whether `at` starts a line of the value (or the value), up to three spaces of indent.
/// Looks at no more than the four bytes before `at`.
fn starts_line(value: &str, at: usize) -> bool {
    let head = &value.as_bytes()[at.saturating_sub(4)..at];
    let indent = match head.iter().rposition(|&b| b == b'\n') {
        Some(nl) => &head[nl + 1..],
        None if at <= 3 => head,
        None => return false,
    };
    indent.iter().all(|&b| b == b' ' || b == b'\t')
}

fn opens_invoke(here: &str) -> bool {
    tag::open_start("invoke").parse(here).is_ok()
}

/// After a value's closing tag: white space, then the next child or `</invoke>`.
/// `Err(Incomplete)` when the text ends before that is decided.
fn followed_by_next(rest: &str) -> Result<bool, Fail> {
    // The value's closing tag is there; what is missing is what comes after it.
    let incomplete = Fail::Incomplete {
        in_parameter: false,
    };
    let next: Res<'_, &str> = ws(rest);
    let after = match next {
        Ok((after, _)) => after,
        Err(_) => return Err(incomplete),
    };
    let mut undecided = false;
    let mut check = |r: Res<'_, &str>| match r {
        Ok(_) => true,
        Err(nom::Err::Incomplete(_)) => {
            undecided = true;
            false
        }
        Err(_) => false,
    };
    if check(tag::close_start("invoke").parse(after))
        || check(tag::open_start("parameter").parse(after))
    {
        return Ok(true);
    }
    for e in ELEMENT_PARAMS {
        if check(tag::open_start(e).parse(after)) {
            return Ok(true);
        }
    }
    if undecided {
        Err(incomplete)
    } else {
        Ok(false)
    }
}

fn memchr_lt(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'<')
}
