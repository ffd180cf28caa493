//! Tag-level productions, one small nom function each.
//!
//! Every parser here is a *streaming* parser: when the text ends before a production is
//! decided it answers `Err::Incomplete`. The line scanner uses that on the start of a line that
//! is still arriving; the call parser hands them whole tags only (see [`complete`]), whose ends
//! [`crate::lex`] has found, so there `Incomplete` simply means "not this production".

use nom::branch::alt;
use nom::bytes::streaming::{tag, take_till, take_while, take_while1};
use nom::character::streaming::char;
use nom::combinator::opt;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};

use crate::vocab::dsml;

pub(crate) type Res<'a, T> = IResult<&'a str, T>;

/// An element name, with its namespace prefix when it has one (`ns:name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name<'a> {
    pub(crate) prefix: Option<&'a str>,
    pub(crate) local: &'a str,
}

/// An opening tag: `<name attr="v" ...>` or the self-closing `<name ... />`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Open<'a> {
    pub(crate) name: Name<'a>,
    pub(crate) attrs: Vec<(&'a str, &'a str)>,
    pub(crate) self_closing: bool,
}

impl<'a> Open<'a> {
    pub(crate) fn attr(&self, key: &str) -> Option<&'a str> {
        self.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `[A-Za-z0-9_-]+`
pub(crate) fn ident(i: &str) -> Res<'_, &str> {
    // As nom's streaming `take_while1(is_ident_char)`, a byte at a time (every name byte is
    // ASCII, so the first other byte is a character boundary).
    match i.bytes().position(|b| !is_ident_char(char::from(b))) {
        Some(0) => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::TakeWhile1,
        ))),
        Some(n) => Ok((&i[n..], &i[..n])),
        None => Err(nom::Err::Incomplete(nom::Needed::new(1))),
    }
}

/// Spaces, tabs and line breaks, possibly none.
pub(crate) fn ws(i: &str) -> Res<'_, &str> {
    take_while(|c: char| c.is_ascii_whitespace()).parse(i)
}

/// `ns:local`, a DSML sentinel and `local` (DeepSeek's `｜DSML｜invoke`, in any of the spellings
/// of [`dsml::SENTINELS`], maybe with one space before the local name), or `local`.
pub(crate) fn name(i: &str) -> Res<'_, Name<'_>> {
    if let Some(sentinel) = dsml::SENTINELS.into_iter().find(|s| i.starts_with(s)) {
        let (prefix, rest) = i.split_at(sentinel.len());
        let (rest, _) = opt(char(' ')).parse(rest)?;
        let (rest, local) = ident(rest)?;
        return Ok((
            rest,
            Name {
                prefix: Some(prefix),
                local,
            },
        ));
    }
    if dsml::SENTINELS.iter().any(|s| s.starts_with(i)) {
        // The text ends inside a sentinel (or is empty).
        return Err(nom::Err::Incomplete(nom::Needed::new(1)));
    }
    let (rest, first) = ident(i)?;
    match rest.strip_prefix(':') {
        Some(after) => {
            let (rest, local) = ident(after)?;
            Ok((
                rest,
                Name {
                    prefix: Some(first),
                    local,
                },
            ))
        }
        None => Ok((
            rest,
            Name {
                prefix: None,
                local: first,
            },
        )),
    }
}

/// An attribute value: double-quoted, single-quoted, or bare up to a space or `>`.
pub(crate) fn attr_value(i: &str) -> Res<'_, &str> {
    alt((
        delimited(char('"'), take_till(|c| c == '"'), char('"')),
        delimited(char('\''), take_till(|c| c == '\''), char('\'')),
        take_while1(|c: char| !c.is_ascii_whitespace() && c != '>' && c != '/'),
    ))
    .parse(i)
}

/// `key = "value"` (spaces around `=` allowed).
fn attr(i: &str) -> Res<'_, (&str, &str)> {
    let (i, key) = ident(i)?;
    let (i, _) = (ws, char('='), ws).parse(i)?;
    let (i, value) = attr_value(i)?;
    Ok((i, (key, value)))
}

/// The attributes and end of an opening tag, after its name: ` a="1" b='2' >` or ` />`.
pub(crate) fn attrs_and_close(i: &str) -> Res<'_, (Vec<(&str, &str)>, bool)> {
    let mut attrs = Vec::new();
    let mut i = i;
    loop {
        let (rest, _) = ws(i)?;
        match rest.as_bytes().first() {
            None => return Err(nom::Err::Incomplete(nom::Needed::new(1))),
            Some(b'>') => return Ok((&rest[1..], (attrs, false))),
            Some(b'/') => {
                let (rest, _) = tag("/>").parse(rest)?;
                return Ok((rest, (attrs, true)));
            }
            _ => {}
        }
        // An attribute must be separated from the name or the previous one by white space.
        if rest.len() == i.len() && !attrs.is_empty() {
            return Err(nom::Err::Error(nom::error::Error::new(
                rest,
                nom::error::ErrorKind::Space,
            )));
        }
        let (rest, kv) = attr(rest)?;
        attrs.push(kv);
        i = rest;
    }
}

/// Runs `parser` on a whole tag: `Some` only when it reads all of `input`.
pub(crate) fn complete<'a, O>(
    mut parser: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
    input: &'a str,
) -> Option<O> {
    match parser.parse(input) {
        Ok(("", out)) => Some(out),
        _ => None,
    }
}

/// `name attrs...>`: an opening tag that lost its `<`.
pub(crate) fn bare_open(i: &str) -> Res<'_, Open<'_>> {
    let (i, name) = name(i)?;
    let (i, (attrs, self_closing)) = attrs_and_close(i)?;
    Ok((
        i,
        Open {
            name,
            attrs,
            self_closing,
        },
    ))
}

/// `="tool">` or `name="tool">`: the tail of an opening tag whose start is missing (a reply that
/// starts mid-tag). Gives the tool name, trimmed; an empty one is not a name.
pub(crate) fn mid_tag(i: &str) -> Res<'_, &str> {
    let (rest, (_, _, _, _, n, _, _)) = (
        opt(tag(crate::vocab::NAME_ATTR)),
        ws,
        char('='),
        ws,
        attr_value,
        ws,
        char('>'),
    )
        .parse(i)?;
    let n = n.trim();
    if n.is_empty() {
        return Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Verify,
        )));
    }
    Ok((rest, n))
}

/// `<name attrs...>`
pub(crate) fn open(i: &str) -> Res<'_, Open<'_>> {
    preceded(char('<'), bare_open).parse(i)
}

/// `</name >`
pub(crate) fn close(i: &str) -> Res<'_, Name<'_>> {
    let (i, name) = preceded(tag(crate::vocab::END_TAG), name).parse(i)?;
    let (i, _) = (ws, char('>')).parse(i)?;
    Ok((i, name))
}

/// `<`, a name, and the byte that ends the name (white space, `>` or `/`): the start of an
/// opening tag, read no further.
pub(crate) fn open_name(i: &str) -> Res<'_, Name<'_>> {
    let (i, n) = preceded(char('<'), name).parse(i)?;
    let (i, _) =
        nom::character::streaming::satisfy(|c| c.is_ascii_whitespace() || c == '>' || c == '/')
            .parse(i)?;
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_tag_with_prefix_and_attrs() {
        let (rest, o) = open("<x:invoke name=\"a.b\" extra='1'>tail").unwrap();
        assert_eq!(rest, "tail");
        assert_eq!(o.name.prefix, Some("x"));
        assert_eq!(o.name.local, "invoke");
        assert_eq!(o.attr("name"), Some("a.b"));
        assert_eq!(o.attr("extra"), Some("1"));
    }

    #[test]
    fn open_tag_cut_is_incomplete() {
        assert!(matches!(
            open("<invoke name=\"a"),
            Err(nom::Err::Incomplete(_))
        ));
        assert!(matches!(open("<inv"), Err(nom::Err::Incomplete(_))));
    }

    #[test]
    fn full_width_namespace() {
        let (rest, n) = name("\u{ff5c}DSML\u{ff5c}invoke name").unwrap();
        assert_eq!(
            (n.prefix, n.local, rest),
            (Some("\u{ff5c}DSML\u{ff5c}"), "invoke", " name")
        );
        assert!(matches!(name("\u{ff5c}DS"), Err(nom::Err::Incomplete(_))));
        let (_, spaced) = name("\u{ff5c}DSML\u{ff5c} parameter>").unwrap();
        assert_eq!(spaced.local, "parameter");
    }

    #[test]
    fn every_sentinel_spelling_and_no_other() {
        for (text, prefix) in [
            (
                "\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c}tool_calls>",
                dsml::DOUBLED,
            ),
            ("\u{ff5c}\u{ff5c}DSML\u{ff5c}\u{ff5c} calls>", dsml::DOUBLED),
            ("|DSML|invoke ", dsml::ASCII),
            ("|DSML| parameter ", dsml::ASCII),
        ] {
            let (_, n) = name(text).unwrap();
            assert_eq!(n.prefix, Some(prefix), "{text}");
        }
        // Cut inside a sentinel: undecided.
        for cut in ["|DS", "\u{ff5c}\u{ff5c}DSM", "\u{ff5c}"] {
            assert!(matches!(name(cut), Err(nom::Err::Incomplete(_))), "{cut}");
        }
        // U+2016, spaced ASCII bars, other sentinels, two spaces: not names.
        for text in [
            "\u{2016}DSML\u{2016}invoke ",
            " | DSML | invoke ",
            "| DSML |invoke ",
            "|EPSE|invoke ",
            "\u{ff5c}EPSE\u{ff5c}invoke ",
            "|DSML|  invoke ",
        ] {
            assert!(matches!(name(text), Err(nom::Err::Error(_))), "{text}");
        }
    }

    #[test]
    fn close_tag() {
        assert_eq!(close("</invoke >x").unwrap().0, "x");
        assert!(matches!(close("</invo"), Err(nom::Err::Incomplete(_))));
    }
}
