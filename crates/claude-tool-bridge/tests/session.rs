//! The per-agent session: stop lists, the decisions on finished replies, the early stop, and
//! the chunking property (streamed in any split, the decision is the one for the whole text).

use claude_tool_bridge::{Catalog, Config, Decision, FinishReason, Outcome, Reason, Session};
use ctb_testkit::{Rng, files_with_extension, fixtures_dir, random_chunks, stem};
use serde_json::Value;

const MODEL: &str = "anthropic/claude-sonnet-5-5";
const P: &str = concat!("ant", "ml", ":");

fn catalog() -> Catalog {
    Catalog::agent_zero()
}

/// A terminal call, bare or prefixed.
fn call(code: &str, prefixed: bool) -> String {
    let p = if prefixed { P } else { "" };
    format!(
        "<{p}invoke name=\"code_execution_tool\">\n<{p}parameter name=\"runtime\">terminal</{p}parameter>\n<{p}parameter name=\"code\">{code}</{p}parameter>\n</{p}invoke>"
    )
}

/// What Anthropic returns for `text` given `stops` (the workspace's one simulated provider).
fn provider(text: &str, stops: &[String]) -> (String, FinishReason) {
    match ctb_testkit::provider_cut(text, stops) {
        Some(cut) => (
            text[..cut.output_end].to_owned(),
            FinishReason::StopSequence,
        ),
        None => (text.to_owned(), FinishReason::Stop),
    }
}

fn session() -> Session {
    Session::new(Config::default())
}

/// One request: plan, provider, finish (no streaming).
fn ask(s: &mut Session, text: &str, finish: FinishReason) -> (Vec<String>, Decision) {
    let plan = s.begin_turn(MODEL, &[]);
    let (out, by_stop) = provider(text, &plan.stops);
    let finish = if by_stop == FinishReason::StopSequence {
        by_stop
    } else {
        finish
    };
    (plan.stops, s.finish(&out, finish, &catalog()).unwrap())
}

#[test]
fn plan_stop_lists() {
    let mut s = session();
    let plan = s.begin_turn(MODEL, &[]);
    assert!(plan.covered);
    assert_eq!(plan.stops.len(), 4);
    assert_eq!(plan.stops[0], "invoke>");
    let own = vec!["\nHuman:".to_owned(), "X".to_owned(), "Y".to_owned()];
    let plan = s.begin_turn(MODEL, &own);
    assert_eq!(plan.stops, vec!["\nHuman:", "X", "Y", "invoke>"]);
    let plan = s.begin_turn("openai/gpt-5", &own);
    assert!(!plan.covered);
    assert_eq!(plan.stops, own);
    let d = s
        .finish(&call("ls", false), FinishReason::Stop, &catalog())
        .unwrap();
    assert_eq!(
        (d.outcome, d.reason),
        (Outcome::Untouched, Reason::ModelNotCovered)
    );

    let mut quiet = Session::new(Config {
        stop_sequence: false,
        loop_guard: false,
        ..Config::default()
    });
    assert!(quiet.begin_turn(MODEL, &[]).stops.is_empty());
    let mut off = Session::new(Config {
        enabled: false,
        ..Config::default()
    });
    assert!(!off.begin_turn(MODEL, &[]).covered);
}

#[test]
fn stopped_call_is_completed_and_translated() {
    for prefixed in [false, true] {
        let mut s = session();
        let text = format!(
            "Listing.\n{}\n<function_results>x</function_results>",
            call("ls", prefixed)
        );
        let (_, d) = ask(&mut s, &text, FinishReason::Stop);
        assert_eq!(d.outcome, Outcome::Translated, "{d:?}");
        assert_eq!(d.reason, Reason::CompletedAfterStop);
        let req = d.request.unwrap();
        assert_eq!(req["tool_name"], "code_execution_tool");
        assert_eq!(req["tool_args"]["code"], "ls");
    }
}

#[test]
fn stops_the_model_list_crowded_out_are_not_trusted() {
    let own: Vec<String> = (0..4).map(|i| format!("<stop{i}>")).collect();
    let mut s = session();
    let plan = s.begin_turn(MODEL, &own);
    assert_eq!(plan.stops, own);
    let full = call("ls", false);
    let half = &full[..full.len() - "invoke>".len()];
    let d = s
        .finish(half, FinishReason::StopSequence, &catalog())
        .unwrap();
    assert_ne!(d.reason, Reason::CompletedAfterStop);
    // Three own stops: the end-of-call stop fits, the loop stops do not.
    let mut s = session();
    let plan = s.begin_turn(MODEL, &own[..3]);
    assert_eq!(plan.stops.last().map(String::as_str), Some("invoke>"));
    let d = s
        .finish("x\n<invoke_", FinishReason::StopSequence, &catalog())
        .unwrap();
    assert_ne!(d.reason, Reason::Loop);
}

#[test]
fn half_tag_is_never_completed_after_max_tokens_or_when_not_asked() {
    let cut = call("ls", false);
    let cut = &cut[..cut.len() - "invoke>".len()];
    let mut s = session();
    s.begin_turn(MODEL, &[]);
    let d = s.finish(cut, FinishReason::MaxTokens, &catalog()).unwrap();
    assert_eq!(d.outcome, Outcome::Untouched);
    assert_eq!(d.reply, cut);
    // Without the end-of-call stop in the request, the half tag is not ours.
    let mut s = Session::new(Config {
        stop_sequence: false,
        ..Config::default()
    });
    s.begin_turn(MODEL, &[]);
    let d = s
        .finish(cut, FinishReason::StopSequence, &catalog())
        .unwrap();
    assert_ne!(d.reason, Reason::CompletedAfterStop);
}

#[test]
fn unusable_stopped_call_is_discarded_and_the_stop_paused_for_three_turns() {
    let mut s = session();
    let bad = "Screenshot.\n<invoke name=\"save_screenshot\">\n<parameter name=\"path\">a.html</parameter>\n</invoke>\nmore";
    let (stops, d) = ask(&mut s, bad, FinishReason::Stop);
    assert_eq!(stops[0], "invoke>");
    assert_eq!(
        (d.outcome, d.reason),
        (Outcome::Discard, Reason::StoppedWithoutCall)
    );
    assert!(d.retry_without_stops);
    // The re-ask and the next three turns: no end-of-call stop, loop stops still on.
    for turn in 0..4 {
        let (stops, d) = ask(&mut s, &call("ls", false), FinishReason::Stop);
        assert!(
            !stops.iter().any(|x| x == "invoke>"),
            "turn {turn}: {stops:?}"
        );
        assert_eq!(stops.len(), 3);
        assert_eq!(d.outcome, Outcome::Translated);
    }
    let (stops, _) = ask(&mut s, &call("ls", false), FinishReason::Stop);
    assert_eq!(stops[0], "invoke>");
}

#[test]
fn call_cut_inside_a_parameter_pauses_every_stop() {
    let mut s = session();
    let text = "<invoke name=\"text_editor:write\">\n<parameter name=\"path\">a.md</parameter>\n<parameter name=\"content\">Write </invoke> like this</parameter>\n</invoke>";
    let (_, d) = ask(&mut s, text, FinishReason::Stop);
    assert_eq!(
        (d.outcome, d.reason),
        (Outcome::Discard, Reason::CutInsideParameter)
    );
    assert!(d.retry_without_stops);
    for _ in 0..4 {
        let (stops, d) = ask(&mut s, text, FinishReason::Stop);
        assert!(stops.is_empty(), "{stops:?}");
        assert_eq!(d.outcome, Outcome::Translated, "{d:?}");
    }
    let (stops, _) = ask(&mut s, &call("ls", false), FinishReason::Stop);
    assert_eq!(stops.len(), 4);
}

#[test]
fn loops_are_discarded_without_pausing_stops() {
    let placeholder = format!("Writing.\n{}", "<invoke_placeholder>\n".repeat(500));
    let chain = format!("Writing.\n<{}", P.repeat(500));
    let residue = format!("Checking.\n{}", "court\n".repeat(500));
    let long_unit: String = (0..30)
        .map(|i| format!("Step {i}: check the settings again.\n"))
        .collect();
    let ran_out = long_unit.repeat(40);
    for (text, finish) in [
        (placeholder.as_str(), FinishReason::MaxTokens),
        (chain.as_str(), FinishReason::MaxTokens),
        (residue.as_str(), FinishReason::MaxTokens),
        (residue.as_str(), FinishReason::Unknown),
        (ran_out.as_str(), FinishReason::MaxTokens),
    ] {
        let mut s = session();
        let (_, d) = ask(&mut s, text, finish);
        assert_eq!(
            (d.outcome, d.reason),
            (Outcome::Discard, Reason::Loop),
            "{:?}",
            &text[..40]
        );
        assert!(!d.retry_without_stops);
        let (stops, _) = ask(&mut s, &call("ls", false), FinishReason::Stop);
        assert_eq!(stops.len(), 4);
    }
    // The same long text that did not run out of tokens is not a loop.
    let mut s = session();
    let (_, d) = ask(&mut s, &ran_out, FinishReason::Stop);
    assert_ne!(d.outcome, Outcome::Discard);
    // With the loop guard off, nothing is discarded.
    let mut s = Session::new(Config {
        loop_guard: false,
        ..Config::default()
    });
    let (_, d) = ask(&mut s, &placeholder, FinishReason::MaxTokens);
    assert_eq!(d.outcome, Outcome::Untouched);
}

#[test]
fn empty_call_loop_stop_catches_the_repeat_when_end_of_call_is_paused() {
    let mut s = session();
    let text = format!(
        "Logs.\n{}",
        "<invoke name=\"get_webview_logs\">\n</invoke>\n".repeat(300)
    );
    let (_, d) = ask(&mut s, &text, FinishReason::MaxTokens);
    assert_eq!(d.reason, Reason::StoppedWithoutCall);
    let (stops, d) = ask(&mut s, &text, FinishReason::MaxTokens);
    assert!(!stops.iter().any(|x| x == "invoke>"));
    assert_eq!((d.outcome, d.reason), (Outcome::Discard, Reason::Loop));
}

#[test]
fn at_most_two_discards_in_a_row() {
    let mut s = session();
    let looping = format!("x\n{}", "<invoke_placeholder>\n".repeat(100));
    let (_, a) = ask(&mut s, &looping, FinishReason::MaxTokens);
    let (_, b) = ask(&mut s, &looping, FinishReason::MaxTokens);
    let (_, c) = ask(&mut s, &looping, FinishReason::MaxTokens);
    let (_, d) = ask(&mut s, &looping, FinishReason::MaxTokens);
    assert_eq!(a.outcome, Outcome::Discard);
    assert_eq!(b.outcome, Outcome::Discard);
    assert_eq!(
        (c.outcome, c.reason),
        (Outcome::Untouched, Reason::DiscardLimit)
    );
    assert_eq!(
        (d.outcome, d.reason),
        (Outcome::Untouched, Reason::DiscardLimit)
    );
    assert_eq!(s.discards_in_row(), 2);
    let (_, ok) = ask(&mut s, &call("ls", false), FinishReason::Stop);
    assert_eq!(ok.outcome, Outcome::Translated);
    assert_eq!(s.discards_in_row(), 0);
    let (_, again) = ask(&mut s, &looping, FinishReason::MaxTokens);
    assert_eq!(again.outcome, Outcome::Discard);
}

#[test]
fn prose_answers_go_out_through_response() {
    let answer: String = (0..24)
        .map(|i| {
            format!(
                "Table {i} was copied with {} rows in {} ms. ",
                i * 7919 % 1000,
                i * 31 % 97
            )
        })
        .collect();
    let mut s = session();
    let (_, d) = ask(&mut s, &format!("\n{answer}\n"), FinishReason::Stop);
    assert_eq!((d.outcome, d.reason), (Outcome::Prose, Reason::Prose));
    let req = d.request.clone().unwrap();
    assert_eq!(req["tool_name"], "response");
    assert_eq!(req["tool_args"]["text"], answer.trim());
    assert!(
        req["thoughts"]
            .as_array()
            .is_some_and(|t| t.iter().all(Value::is_string))
    );
    assert!(req["headline"].is_string());
    let reparsed: Value = serde_json::from_str(&d.reply).unwrap();
    assert_eq!(reparsed, req);
    for (text, finish) in [
        ("Short.".to_owned(), FinishReason::Stop),
        (format!("{answer}\nNext:"), FinishReason::Stop),
        (answer.clone(), FinishReason::MaxTokens),
    ] {
        let (_, d) = ask(&mut s, &text, finish);
        assert_eq!(d.outcome, Outcome::Untouched, "{text:?}");
    }
    let mut s = Session::new(Config {
        prose_as_response: false,
        ..Config::default()
    });
    let (_, d) = ask(&mut s, &answer, FinishReason::Stop);
    assert_eq!(d.outcome, Outcome::Untouched);
}

#[test]
fn early_stop_answers_once_at_the_first_complete_call() {
    let first = call("ls", false);
    let text = format!("Go.\n{first}\n{}", call("pwd", false));
    let mut s = session();
    s.begin_turn(MODEL, &[]);
    let mut got = None;
    for piece in text.as_bytes().chunks(5) {
        let piece = std::str::from_utf8(piece).unwrap();
        if let Some(r) = s.feed(piece, &catalog()) {
            got = Some(r);
            break;
        }
    }
    assert_eq!(got.as_deref(), Some(format!("Go.\n{first}").as_str()));
    assert_eq!(s.feed("more>", &catalog()), None);
    // Off, or for an uncovered model: never.
    for (config, model) in [
        (
            Config {
                early_stop: false,
                ..Config::default()
            },
            MODEL,
        ),
        (Config::default(), "openai/gpt-5"),
    ] {
        let mut s = Session::new(config);
        s.begin_turn(model, &[]);
        assert_eq!(s.feed(&text, &catalog()), None);
    }
}

// ---------------------------------------------------------------------------------------
// The chunking property.

/// (name, text, finish) for every reply fixture and every conversation attempt, the latter
/// both whole and as the provider cuts it with the default stop list.
fn corpus() -> Vec<(String, String, FinishReason)> {
    let mut out = Vec::new();
    for p in files_with_extension(&fixtures_dir().join("replies"), "txt").unwrap() {
        let text = std::fs::read_to_string(&p).unwrap();
        let finish = std::fs::read_to_string(p.with_extension("json"))
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            .and_then(|v| v["finish_reason"].as_str().map(FinishReason::from_name))
            .unwrap_or(FinishReason::Unknown);
        out.push((stem(&p), text, finish));
    }
    let stops = session().begin_turn(MODEL, &[]).stops;
    for p in files_with_extension(&fixtures_dir().join("conversations"), "json").unwrap() {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let name = stem(&p);
        for (t, turn) in v["turns"].as_array().unwrap().iter().enumerate() {
            for (a, attempt) in turn["attempts"].as_array().unwrap().iter().enumerate() {
                let text = attempt["text"].as_str().unwrap().to_owned();
                let finish = FinishReason::from_name(attempt["finish"].as_str().unwrap());
                let (cut, cut_finish) = provider(&text, &stops);
                let cut_finish = if cut_finish == FinishReason::StopSequence {
                    cut_finish
                } else {
                    finish
                };
                out.push((format!("{name}/{t}/{a}/cut"), cut, cut_finish));
                out.push((format!("{name}/{t}/{a}/whole"), text, finish));
            }
        }
    }
    out
}

/// Splits `text` into random pieces: byte positions drawn at random, then moved forward to a
/// character boundary (so splits aim inside tags and inside multibyte characters; a `&str`
/// delta cannot hold half a character). Every tenth run uses one-character pieces.
fn chunk<'a>(text: &'a str, rng: &mut Rng, run: usize) -> Vec<&'a str> {
    let max = match run % 10 {
        0 => 1,
        1..=6 => 1 + rng.below(16),
        _ => 1 + rng.below(512),
    };
    random_chunks(text, rng, max)
}

/// Streams `pieces` through a fresh session and decides.
fn stream(
    pieces: &[&str],
    whole: &str,
    finish: FinishReason,
    cat: &Catalog,
    decide: bool,
) -> (Option<String>, Option<Decision>) {
    let mut s = session();
    s.begin_turn(MODEL, &[]);
    let mut stopped = None;
    for p in pieces {
        if let Some(r) = s.feed(p, cat) {
            stopped = Some(r);
            break;
        }
    }
    let decision = decide.then(|| match &stopped {
        Some(r) => s.finish(r, FinishReason::Stop, cat).unwrap(),
        None => s.finish(whole, finish, cat).unwrap(),
    });
    (stopped, decision)
}

#[test]
fn streaming_in_any_chunking_decides_like_the_whole_text() {
    let cat = catalog();
    let corpus = corpus();
    assert!(corpus.len() >= 40, "fixtures missing: {}", corpus.len());
    let mut rng = Rng::new(0x00C0_FFEE);
    let mut early = 0;
    for (name, text, finish) in &corpus {
        let (want_stop, want) = stream(&[text.as_str()], text, *finish, &cat, true);
        if want_stop.is_some() {
            early += 1;
        }
        for run in 0..1000 {
            let pieces = chunk(text, &mut rng, run);
            // The decision is a function of the stream's answer; decide in full on a sample.
            let decide = run < 20;
            let (got_stop, got) = stream(&pieces, text, *finish, &cat, decide);
            assert_eq!(got_stop, want_stop, "{name}: run {run} stopped differently");
            if decide {
                assert_eq!(got, want, "{name}: run {run} decided differently");
            }
        }
    }
    assert!(early > 10, "the early stop never fired ({early})");
}

// ---------------------------------------------------------------------------------------
// Conversation decisions, request by request (one snapshot per conversation).

/// Which bridge stops a plan carries, as short names.
fn stop_names(stops: &[String]) -> String {
    let names: Vec<&str> = stops
        .iter()
        .map(|s| match s.as_str() {
            "invoke>" => "end",
            x if x.contains("</invoke>") => "empty",
            x if x.contains("placeholder") => "placeholder",
            x if x.contains(P) => "chain",
            _ => "model",
        })
        .collect();
    format!("[{}]", names.join(","))
}

#[test]
fn conversation_decisions() {
    let cat = catalog();
    let paths = files_with_extension(&fixtures_dir().join("conversations"), "json").unwrap();
    assert!(paths.len() >= 20);
    for p in paths {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let model = v["model"].as_str().unwrap();
        let model_stops: Vec<String> = v["model_stops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        let reported = v["finish_reported"].as_bool().unwrap();
        let mut s = session();
        let mut log = String::new();
        for (t, turn) in v["turns"].as_array().unwrap().iter().enumerate() {
            let attempts = turn["attempts"].as_array().unwrap();
            for r in 0..8 {
                let a = &attempts[r.min(attempts.len() - 1)];
                let plan = s.begin_turn(model, &model_stops);
                let text = a["text"].as_str().unwrap();
                let (out, by_stop) = provider(text, &plan.stops);
                let mut finish = if by_stop == FinishReason::StopSequence {
                    by_stop
                } else {
                    FinishReason::from_name(a["finish"].as_str().unwrap())
                };
                let mut reply = out.clone();
                if let Some(stopped) = s.feed(&out, &cat) {
                    reply = stopped;
                    finish = FinishReason::Stop;
                }
                if !reported {
                    finish = FinishReason::Unknown;
                }
                let d = s.finish(&reply, finish, &cat).unwrap();
                log.push_str(&format!(
                    "turn {} request {}: stops {} covered {} finish {:?} cut {} -> {:?}/{}{}\n",
                    t + 1,
                    r + 1,
                    stop_names(&plan.stops),
                    plan.covered,
                    finish,
                    text.len() - out.len(),
                    d.outcome,
                    d.reason.code(),
                    if d.retry_without_stops {
                        " (ask again without stops)"
                    } else {
                        ""
                    },
                ));
                if d.outcome != Outcome::Discard {
                    if let Some(req) = &d.request {
                        log.push_str(&format!("  -> {}\n", req["tool_name"]));
                    }
                    break;
                }
            }
        }
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(name, log);
    }
}
