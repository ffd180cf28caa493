//! `ctb`: see how claude-tool-bridge reads a model reply.
//!
//! Every command prints machine-readable JSON on stdout. Bad input (a missing file, an
//! unreadable catalog or config, an unknown flag) prints one line on stderr and exits 2. A
//! reader that closes the pipe early (`ctb translate x | head -c 1`) ends the command quietly.

mod config_file;

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use claude_tool_bridge::{Catalog, Config, Echoes, FinishReason, Session};
use serde_json::{Value, json};

const USAGE: &str = "usage:
  ctb translate [--tools PATH]... [--echo PATH]... [--config PATH] [--model NAME]
                [--finish-reason stop|stop_sequence|max_tokens|unknown] [REPLY|-]
      Decide what Agent Zero should see for a reply, as the plugin would for the model
      NAME (its family's stop strings and markup forms; a Claude model by default); prints
      {\"outcome\", \"reply\", \"request\", \"reason\", \"form\", \"family\"}. Without --tools, Agent Zero's
      built-in tools are the catalog. --tools takes JSON tool definitions or Agent Zero
      prompt text (told apart by content) and may repeat. --echo names a text the agent
      received (a tool result, a fetched page; may repeat, in the order received): a call
      copied from it is left alone (reason echoed).
  ctb scan [REPLY|-]
      Show what the grammar finds: the first call, its raw parameters, where the prose ends.
  ctb repair [FILE|-]
      Repair tolerant JSON into compact JSON (exit 1 when it cannot be repaired).
  ctb stops [--config PATH] [--model NAME]
      Print the stop strings the bridge asks the provider for, for the model NAME (its
      family's end-of-call stops first, then Claude's loop stops).
  ctb --version | --help";

/// A failure that ends the command: the message and the exit code.
struct Failure(String, u8);

fn usage_error(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg, code)) => {
            // One line, whatever the message quotes (a file name or argument may hold a line
            // break).
            let line: String = msg
                .chars()
                .flat_map(|c| match c {
                    '\n' => "\\n".chars().collect::<Vec<_>>(),
                    '\r' => "\\r".chars().collect(),
                    c if c.is_control() => c.escape_default().collect(),
                    c => vec![c],
                })
                .collect();
            let _ = writeln!(std::io::stderr(), "ctb: {line}");
            ExitCode::from(code)
        }
    }
}

/// Prints `text` and a newline on stdout. A closed pipe is not an error: the reader has all it
/// wanted.
fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure(format!("cannot write the output: {e}"), 1)),
    }
}

fn run(args: &[String]) -> Result<(), Failure> {
    let Some((cmd, rest)) = args.split_first() else {
        return Err(usage_error("no command given (try `ctb --help`)"));
    };
    match cmd.as_str() {
        "translate" => translate(rest),
        "scan" => scan(rest),
        "repair" => repair(rest),
        "stops" => stops(rest),
        "--help" | "-h" | "help" => print_out(USAGE),
        "--version" | "-V" => print_out(&format!("ctb {}", env!("CARGO_PKG_VERSION"))),
        other => Err(usage_error(format!(
            "unknown command {other:?} (try `ctb --help`)"
        ))),
    }
}

/// Flags common to the commands, parsed strictly.
#[derive(Default)]
struct Opts {
    tools: Vec<String>,
    echoes: Vec<String>,
    config: Option<String>,
    model: Option<String>,
    finish: Option<String>,
    input: Option<String>,
}

/// Parses `args` against the `allowed` flags; `takes_input`: one positional argument (the
/// reply file, or `-`) may follow.
fn parse_opts(args: &[String], allowed: &[&str], takes_input: bool) -> Result<Opts, Failure> {
    let mut o = Opts::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (a.as_str(), None),
        };
        if flag.starts_with("--") {
            if !allowed.contains(&flag) {
                return Err(usage_error(format!("unknown flag {flag:?}")));
            }
            let value = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| usage_error(format!("{flag} needs a value")))?,
            };
            match flag {
                "--tools" => o.tools.push(value),
                "--echo" => o.echoes.push(value),
                "--config" => o.config = Some(value),
                "--model" => o.model = Some(value),
                "--finish-reason" => o.finish = Some(value),
                _ => unreachable!("flag checked against the allowed list"),
            }
        } else if takes_input && o.input.is_none() {
            o.input = Some(a.clone());
        } else {
            return Err(usage_error(format!("unexpected argument {a:?}")));
        }
    }
    Ok(o)
}

/// Reads a file, or stdin for `-` / no argument.
fn read_input(path: Option<&str>) -> Result<String, Failure> {
    match path {
        None | Some("-") => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| usage_error(format!("cannot read stdin: {e}")))?;
            Ok(s)
        }
        Some(p) => read_file(p),
    }
}

fn read_file(p: &str) -> Result<String, Failure> {
    std::fs::read_to_string(p).map_err(|e| usage_error(format!("cannot read {p:?}: {e}")))
}

fn load_config(path: Option<&str>) -> Result<Config, Failure> {
    let Some(p) = path else {
        return Ok(Config::default());
    };
    let text = read_file(p)?;
    let (config, warnings) =
        config_file::parse(&text).map_err(|e| usage_error(format!("bad config {p:?}: {e}")))?;
    for w in warnings {
        let _ = writeln!(std::io::stderr(), "ctb: warning: {p}: {w}");
    }
    Ok(config)
}

fn load_catalog(paths: &[String]) -> Result<Catalog, Failure> {
    if paths.is_empty() {
        return Ok(Catalog::agent_zero());
    }
    let mut catalog = Catalog::new();
    for p in paths {
        let text = read_file(p)?;
        let c = Catalog::from_text(&text)
            .map_err(|e| usage_error(format!("bad tool catalog {p:?}: {e}")))?;
        catalog.extend(c);
    }
    Ok(catalog)
}

fn parse_finish(name: Option<&str>) -> Result<FinishReason, Failure> {
    match name {
        None => Ok(FinishReason::Unknown),
        Some(n) => match n {
            "stop" | "end_turn" | "stop_sequence" | "max_tokens" | "length" | "unknown" => {
                Ok(FinishReason::from_name(n))
            }
            other => Err(usage_error(format!(
                "unknown finish reason {other:?} (expected stop, stop_sequence, max_tokens or unknown)"
            ))),
        },
    }
}

/// The model name assumed when none is given: a covered Claude model.
const DEFAULT_MODEL: &str = "anthropic/claude-sonnet-4-5";

fn translate(args: &[String]) -> Result<(), Failure> {
    let o = parse_opts(
        args,
        &[
            "--tools",
            "--echo",
            "--config",
            "--model",
            "--finish-reason",
        ],
        true,
    )?;
    let finish = parse_finish(o.finish.as_deref())?;
    let config = load_config(o.config.as_deref())?;
    let catalog = load_catalog(&o.tools)?;
    // The files come in the order the agent received them; the index takes the most recent
    // first.
    let mut echoes = Echoes::new();
    let received = o
        .echoes
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    for text in received.iter().rev() {
        echoes.add(text);
    }
    let reply = read_input(o.input.as_deref())?;
    let mut session = Session::new(config);
    let model = o.model.as_deref().unwrap_or(DEFAULT_MODEL);
    session.begin_turn_with(model, &[], (!o.echoes.is_empty()).then(|| Arc::new(echoes)));
    let decision = session
        .finish(&reply, finish, &catalog)
        .map_err(|e| Failure(format!("internal error: {e}"), 1))?;
    let call = decision.call.as_ref();
    let out = json!({
        "outcome": decision.outcome.code(),
        "reply": decision.reply,
        "request": decision.request,
        "reason": decision.reason.code(),
        "form": call.map(|c| c.form.code()),
        "family": call.map(|c| c.family.code()),
    });
    print_out(&out.to_string())
}

fn scan(args: &[String]) -> Result<(), Failure> {
    let o = parse_opts(args, &[], true)?;
    let reply = read_input(o.input.as_deref())?;
    let out = match ctb_invoke::find_first_call(&reply) {
        ctb_invoke::Found::Call(c) => json!({
            "found": "call",
            "form": c.form.code(),
            "family": c.form.family().code(),
            "name": c.name,
            "params": c.params().iter().map(|p| json!({
                "name": p.name,
                "value": p.value,
                "attrs": p.attrs.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "json_args": match &c.args {
                ctb_invoke::Args::Json(raw) => Some(*raw),
                ctb_invoke::Args::Params(_) => None,
            },
            "prose": &reply[..c.prose_end],
            "residue": c.residue.clone().map(|r| &reply[r]),
            "start": c.start,
            "end": c.end,
            "discarded_after": reply.len() - c.end,
        }),
        ctb_invoke::Found::Incomplete {
            start,
            in_parameter,
        } => json!({"found": "incomplete", "start": start, "in_parameter": in_parameter}),
        ctb_invoke::Found::Nothing(why) => json!({"found": "nothing", "why": format!("{why:?}")}),
    };
    print_out(&out.to_string())
}

fn repair(args: &[String]) -> Result<(), Failure> {
    let o = parse_opts(args, &[], true)?;
    let text = read_input(o.input.as_deref())?;
    match ctb_json::repair(&text) {
        Ok(s) => print_out(&s),
        Err(e) => {
            let (line, col) = e.line_col(&text);
            Err(Failure(
                format!("cannot repair: {e} (line {line}, column {col})"),
                1,
            ))
        }
    }
}

fn stops(args: &[String]) -> Result<(), Failure> {
    let o = parse_opts(args, &["--config", "--model"], false)?;
    let config = load_config(o.config.as_deref())?;
    let mut session = Session::new(config);
    let plan = session.begin_turn(o.model.as_deref().unwrap_or(DEFAULT_MODEL), &[]);
    print_out(&Value::from(plan.stops).to_string())
}
