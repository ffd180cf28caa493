//! Tool catalogs and schema-driven typing of call arguments.
//!
//! A [`Catalog`] is built from JSON tool definitions (Anthropic / MCP / OpenAI shapes) or from
//! Agent Zero prompt text (usage examples in fences, MCP "Input schema for tool_args:"
//! sections, tool headings), or taken from the bundled [`Catalog::agent_zero`]. A [`Tool`] then
//! turns the raw text a model wrote between parameter tags into JSON values of the types the
//! schema (or, failing that, the examples) asks for, and nothing else: a string parameter stays
//! a string byte for byte.
//!
//! ```
//! use ctb_schema::Catalog;
//!
//! let catalog = Catalog::agent_zero();
//! let tool = catalog.get("code_execution_tool").expect("bundled");
//! let args = tool
//!     .type_args([("runtime", "terminal"), ("session", " 0 "), ("reset", "false"), ("code", "echo 123")])
//!     .expect("valid");
//! assert_eq!(
//!     serde_json::Value::Object(args).to_string(),
//!     r#"{"runtime":"terminal","session":0,"reset":false,"code":"echo 123"}"#
//! );
//! ```
//!
//! # Catalog input
//!
//! [`Catalog::from_text`] tells the two formats apart by content: text that parses as strict
//! JSON and is an array or an object without a `tool_name` key is read as tool definitions (a
//! lone request object teaches its one tool); everything else as Agent Zero prompt text.
//!
//! * Definitions: an array of `{"name", "description"?, "input_schema"}` (also `inputSchema`
//!   and `parameters`), `{"tools": [...]}`, an MCP `{"result": {"tools": [...]}}`, OpenAI
//!   `{"type": "function", "function": {"name", "parameters"}}` entries, Agent Zero's MCP
//!   listing `{"server.tool": {...}}`, or a single definition object. An entry without a name
//!   is an error.
//! * Prompt text, read line by line:
//!   - every ```` ``` ```` / `~~~` fence whose info string starts with `json` and holds a
//!     request (`"tool_name"`, `"tool_args"`) teaches that tool and the kinds of its example
//!     values (`"..."` is a string like any other; `null` teaches nothing). Examples are read
//!     strictly, then with `...` lines, `//` comments and trailing commas removed, then with
//!     `ctb_json::parse`. Placeholder names such as `name_of_tool` are ignored;
//!   - every line holding "Input schema for tool_args:" (Agent Zero's MCP section) is followed
//!     by a JSON Schema (or nothing: no declared parameters); the tool is named by the
//!     `"tool_name"` of the usage block after it, else by the last heading before it;
//!   - a `### name` heading whose section has an arguments line (`args:`, `common args:`, any
//!     label of at most six words holding `args`/`arg`/`params`/`parameters`/`arguments`) or an
//!     `actions:`/`methods:` line, and a bullet `` - `name`: args ... `` or
//!     `` - `tool:method`: ... ``, declare a tool from prose. Its parameters are the names on
//!     the arguments line (backticked ones if any, else plain identifiers), or the backticked
//!     heads of the bullets under a bare `args:` line; they are untyped except `name[]`
//!     (array) and `name{..}` (object).
//!
//!   Prompt text that teaches no tool is an error.
//!
//! # Merging
//!
//! Definitions of one name are merged by strength ([`Source`]: schema > examples > prose). The
//! stronger keeps its types, `required` and description and gains the typed parameters only
//! the weaker one declares (untyped prose names add nothing). Between two schemas the later wins outright; two example-learned (or
//! prose) definitions are united: a parameter seen with several kinds accepts all of them,
//! structured kinds tried before strings.
//!
//! # Lookup
//!
//! [`Catalog::get`] / [`Catalog::lookup`]: the exact name first. A `tool:method` name that is
//! not listed falls back to the base tool `tool` ([`Match::Base`]). When `tool:method` entries
//! exist and `tool` is not listed (or is known from prose only), `tool` and unlisted
//! `tool:other` names resolve to a tool merged from all of them plus a string `action`
//! parameter, with nothing required ([`Match::Merged`]; Agent Zero 2.6 passes the method as
//! `action`). Last, a name that matches exactly one listed name when case is ignored finds that
//! tool ([`Match::Folded`]: `Bash` for `bash`; the caller should use the listed name). MCP
//! `server.tool` names have no other fallback.
//!
//! # Bundled catalog
//!
//! `data/agent_zero.json` describes Agent Zero's built-in tools (both the `tool:method` names of
//! 1.x and the `action` style of 2.6), typed after the tools' prompts and code. It requires
//! only what a tool cannot run without: `code` for `code_execution_tool` when `runtime` is
//! `terminal`, `python` or `nodejs` (the tool reads it unconditionally then). Every other
//! missing argument is left to the tool, which answers with its own message.
//!
//! # Typing rules ([`Tool::type_args`], raw text)
//!
//! * A declared parameter is converted only to the kinds its schema lists, tried in order
//!   (`type` arrays, `anyOf`/`oneOf` branches, `$ref` followed, `allOf` gives its first typed
//!   part, `enum`/`const` without `type` give the kinds of their values, `nullable: true` adds
//!   null). Undeclared parameters and parameters without a type stay strings.
//! * `string`: the raw text exactly, never trimmed (`"123"`, `"007"`, `{"a": 1}` stay text).
//! * Other kinds trim surrounding whitespace first. `integer`: optional sign, digits, and an
//!   optional all-zero fraction (`+7`, `007` and `3.0` become `7`, `7`, `3`); `number`: decimal
//!   with optional fraction and exponent (`.5` and `5.` allowed); both are built from the digit
//!   text, so big numbers keep every digit. `boolean`: `true`/`false` in any ASCII case, or
//!   `1`/`0`. `null`: `null` or empty. `array`/`object`: the trimmed text must start and end
//!   with the brackets (`[`..`]`, `{`..`}`) and is read with `ctb_json::parse` (tolerant); the
//!   result must be of that kind. Items and properties are not typed further.
//! * `enum`/`const`: the value must be listed (numbers compare by value); a string matching a
//!   listed string only after trimming and ignoring ASCII case becomes the listed string.
//! * A value no listed kind accepts is a [`TypeError::Mismatch`]: the caller leaves the call
//!   alone. A repeated parameter keeps its first value.
//!
//! # Typing rules ([`Tool::type_json_args`], JSON values)
//!
//! A value that already has a listed kind is kept (integral numbers normalised for
//! `integer`); otherwise the listed kinds are tried in order: a string is read by the raw-text
//! rules, a number or boolean becomes its JSON text for `string`, `0`/`1` become booleans;
//! anything else is a mismatch. Undeclared parameters are kept as they are.
//!
//! # Required parameters
//!
//! Typing never checks them: the caller merges all arguments and then asks
//! [`Tool::missing_required`], which also honours simple
//! conditional requirements (`if: {properties: {P: {enum|const}}}, then: {required}`, at the
//! top or in `allOf`). Tools learned from examples or prose require nothing.

mod catalog;
mod defs;
mod kind;
mod prompt;
mod schema;
mod tool;

pub use catalog::{Catalog, CatalogError, CatalogErrorKind, Lookup, MAX_CATALOG_BYTES, Match};
pub use kind::Kind;
pub use tool::{Param, Source, Tool, TypeError};
