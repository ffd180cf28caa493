//! The per-agent session: stop lists, the decisions on finished replies, the early stop. (The
//! chunking property runs on every fixture in `ctb-fixtures` and on generated replies in
//! `tests/property.rs`.)

use claude_tool_bridge::{Catalog, Config, Decision, FinishReason, Outcome, Reason, Session};
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

/// A translation carries the host-neutral call it rests on; Agent Zero's request is rendered
/// from it, and the older `form` and `prose` fields mirror it. A stopped reply's call runs to
/// the reply's end (the closer written again is not part of the reply).
#[test]
#[allow(deprecated)]
fn a_translation_carries_its_call_and_renders_the_request_from_it() {
    let mut s = session();
    let text = format!(
        "Listing.\n{}\n<function_results>x</function_results>",
        call("ls", false)
    );
    let (_, d) = ask(&mut s, &text, FinishReason::Stop);
    assert_eq!(d.reason, Reason::CompletedAfterStop);
    let stopped = text[..text.find("invoke>").unwrap()].to_owned();
    let c = d.call.clone().expect("a translation carries its call");
    assert_eq!(
        (c.name.as_str(), c.family.code()),
        ("code_execution_tool", "claude")
    );
    assert_eq!(c.arguments["code"], "ls");
    assert_eq!(c.prose, "Listing.");
    assert_eq!(c.span, "Listing.\n".len()..stopped.len());
    assert_eq!(Some(c.agent_zero_request()), d.request);
    assert_eq!(d.form, Some(c.form));
    assert_eq!(d.prose.as_deref(), Some("Listing."));

    // The stateless translation and `first_call` give the same call.
    let whole = claude_tool_bridge::translate(&text, &catalog());
    let first = claude_tool_bridge::first_call(&text, &catalog()).unwrap();
    assert_eq!(whole.call.as_ref(), Some(&first));
    assert_eq!(whole.request, Some(first.agent_zero_request()));

    // Lifted `thoughts` and `headline` are the call's, not its arguments.
    let lifted = "<invoke name=\"memory_load\">\n<parameter name=\"thoughts\">[\"one\", \"two\"]</parameter>\n\
                  <parameter name=\"headline\"> Recall </parameter>\n<parameter name=\"query\">vpn</parameter>\n</invoke>";
    let c = claude_tool_bridge::first_call(lifted, &catalog()).unwrap();
    assert_eq!(
        (c.thoughts.clone(), c.headline.clone()),
        (
            vec!["one".to_owned(), "two".to_owned()],
            Some("Recall".to_owned())
        )
    );
    assert!(!c.arguments.contains_key("thoughts") && !c.arguments.contains_key("headline"));
    let request = c.agent_zero_request();
    assert_eq!(request["thoughts"], serde_json::json!(["one", "two"]));
    assert_eq!(request["headline"], "Recall");

    // No other outcome carries a call.
    let (_, prose) = ask(
        &mut session(),
        &"A long answer. ".repeat(80),
        FinishReason::Stop,
    );
    assert_eq!(prose.outcome, Outcome::Prose);
    assert!(prose.call.is_none() && prose.form.is_none());
    let json = "{\"tool_name\": \"response\", \"tool_args\": {\"text\": \"hi\"}}";
    assert_eq!(
        claude_tool_bridge::first_call(json, &catalog()),
        Err(Reason::NoCall)
    );
}

/// A deployment whose template asks DeepSeek V4 for Qwen3-Coder's form names that form under
/// `forms`: the call is translated, where by default it is a quotation (another family's
/// syntax); the family still picks the stop strings.
#[test]
fn a_deployment_setting_names_the_forms_a_model_writes() {
    let model = "hosted_vllm/deepseek-ai/DeepSeek-V4-Flash";
    let reply = "Searching.\n<tool_call>\n<function=memory_load>\n<parameter=query>\nvpn\n</parameter>\n\
                 </function>\n</tool_call>";
    let decide = |config: Config| {
        let mut s = Session::new(config);
        let plan = s.begin_turn(model, &[]);
        (
            plan,
            s.finish(reply, FinishReason::Stop, &catalog()).unwrap(),
        )
    };
    let (plan, d) = decide(Config::default());
    assert_eq!((d.outcome, d.reason), (Outcome::Untouched, Reason::Quoted));
    let (config, warnings) = Config::from_value(serde_json::json!({
        "forms": {"*deepseek-v4*": ["qwen3_coder"]}
    }))
    .unwrap();
    assert!(warnings.is_empty());
    let (named_plan, d) = decide(config.clone());
    assert_eq!(d.outcome, Outcome::Translated, "{d:?}");
    let call = d.call.unwrap();
    assert_eq!(
        (call.form.code(), call.family.code()),
        ("qwen3_coder", "qwen")
    );
    assert_eq!(call.arguments["query"], "vpn");
    assert_eq!(named_plan.stops, plan.stops, "the family picks the stops");
    // DeepSeek's own forms are not read for that deployment any more.
    let dsml = claude_tool_bridge::Context::for_model(&config, model);
    assert!(!dsml.forms.contains(claude_tool_bridge::Form::DEEPSEEK_DSML));
}
