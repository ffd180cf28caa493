//! Finds the first native Claude tool call in a model reply.
//!
//! Claude models sometimes write a tool call in their own markup instead of the JSON a host
//! asked for: `<invoke name="...">` with one `<parameter name="...">` child per argument,
//! sometimes inside a `<function_calls>` wrapper and sometimes with a namespace prefix on
//! the tags. This crate is the grammar for that markup (written with [`nom`]): given a reply
//! it reports the first complete call that is really a call, its arguments exactly as
//! written, where the prose before it ends, and otherwise why there is none.
//!
//! What counts as a call:
//! - `<invoke` (optionally prefixed, optionally wrapped) at the start of a line, outside
//!   ```` ``` ```` and `~~~` fences; on the wrapper's line right after its opening tag; right
//!   after a residue word (`court`, `course`, `count`, `call`) that stands in for the wrapper;
//!   a prefixed `invoke name=` line that lost its `<`; a reply that starts mid-tag (`="x">`);
//! - a value runs from its opening tag's `>` to the closing tag that is followed by the next
//!   child or by `</invoke>`, and is kept byte for byte; closings that belong to a call quoted
//!   inside the value are skipped;
//! - only the first complete call counts; a call with no `</invoke>` is incomplete, never a call.
//!
//! ```
//! use ctb_invoke::{find_first_call, Found, NoCall};
//!
//! let reply = "I'll list the files.\ncourt\n<invoke name=\"code_execution_tool\">\n\
//!              <parameter name=\"runtime\">terminal</parameter>\n\
//!              <parameter name=\"code\">ls -la</parameter>\n</invoke>\nmore text";
//! let Found::Call(call) = find_first_call(reply) else { panic!("expected a call") };
//! assert_eq!(call.name, "code_execution_tool");
//! assert_eq!(call.param("code"), Some("ls -la"));
//! assert_eq!(&reply[..call.prose_end], "I'll list the files.");
//! assert!(reply[call.end..].starts_with("\nmore text"));
//!
//! let quoted = "Write it like this:\n```\n<invoke name=\"x\">\n</invoke>\n```";
//! assert_eq!(find_first_call(quoted), Found::Nothing(NoCall::Quoted));
//! ```

mod ahead;
mod call;
mod forms;
mod grammar;
mod json;
mod lex;
pub mod registry;
mod scan;
mod structure;
mod tag;
pub mod vocab;

pub use grammar::{Args, Call, Param, ValueKind};
pub use registry::{Family, Form, Forms};
pub use scan::{
    AllCalls, Found, LINE_HEAD, MAX_RESCANS, NoCall, Scanner, calls_anywhere, find_first_call,
};
pub use vocab::{PREFIX, RESIDUE_WORDS};
