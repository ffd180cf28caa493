//! A call reduced to what it does: its tool and its arguments' values, each decoded and
//! squashed, so that the same call in another form, order or encoding compares equal.

use ctb_invoke::vocab::{ELEMENT_PARAMS, REQUEST_TEXT_PARAMS};
use ctb_invoke::{Args as CallArgs, Call};
use serde_json::Value;

use crate::decode::{decode, squash};

/// Arguments: names and squashed values, sorted by name, each name once.
pub(crate) type Args = Vec<(String, Vec<u8>)>;

/// The tool (lower case) and the arguments of `call`: a parameter that wraps the arguments as
/// one JSON object (`tool_args`, `args`...) is read for its members; the request's own
/// `thoughts` and `headline` are left out. `None` when its arguments are JSON that does not
/// read as an object: what the call does is not known.
pub(crate) fn of_call(call: &Call<'_>) -> Option<(String, Args)> {
    let mut args: Args = Vec::new();
    match &call.args {
        CallArgs::Json(text) => {
            if !members(text, &mut args) {
                return None;
            }
        }
        CallArgs::Params(params) => {
            for p in params {
                let name = p.name.trim();
                if REQUEST_TEXT_PARAMS.contains(&name) {
                    continue;
                }
                if ELEMENT_PARAMS.contains(&name) && members(p.value, &mut args) {
                    continue;
                }
                args.push((name.to_owned(), canon(p.value)));
            }
        }
    }
    args.sort_by(|a, b| a.0.cmp(&b.0));
    args.dedup_by(|a, b| a.0 == b.0);
    Some((call.name.trim().to_lowercase(), args))
}

/// The members of the JSON object `text`, read tolerantly; `false` when it is none.
fn members(text: &str, args: &mut Args) -> bool {
    let Ok(Value::Object(map)) = ctb_json::parse(text) else {
        return false;
    };
    for (key, value) in map {
        let squashed = match &value {
            Value::String(s) => canon(s),
            other => canon(&other.to_string()),
        };
        args.push((key, squashed));
    }
    true
}

/// A value as compared: decoded, squashed.
fn canon(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    squash(&decode(text), &mut out);
    out
}

/// Whether two calls' arguments say the same: every name they share has the same value, they
/// share one at least (or both have none), and one of them has no name the other lacks (a
/// model copying a call may add or drop one with a default).
pub(crate) fn same(a: &Args, b: &Args) -> bool {
    if a.is_empty() || b.is_empty() {
        return a.is_empty() && b.is_empty();
    }
    let (mut i, mut j) = (0, 0);
    let mut shared = false;
    let (mut a_only, mut b_only) = (false, false);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Equal => {
                if a[i].1 != b[j].1 {
                    return false;
                }
                shared = true;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                a_only = true;
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                b_only = true;
                j += 1;
            }
        }
    }
    a_only |= i < a.len();
    b_only |= j < b.len();
    shared && !(a_only && b_only)
}
