//! The streaming property on generated replies (`ctb_testkit::replies`): fed in one piece and
//! in random chunkings, every decision is the batch decision, and an early stop only ever
//! hands on a call that the final decision translates. Half the replies are Claude's
//! (`call_shaped`, run as a Claude model), half are written from every form's kit sample and run
//! as a model of its family (`kit_shaped`); every form must be translated in some of them.
//!
//! For every generated reply:
//! - the grammar streamed in each chunking ends where the whole text does, and a call it
//!   reports early is found again, as the first call, in the text an early stop hands on;
//! - a session fed the reply in each chunking either does not stop early and then decides
//!   exactly as the session that saw the whole reply, or stops early at the same text for
//!   every chunking, decides `translated` there, and that translation is the batch one
//!   whenever the batch decision is a translation at all;
//! - nothing reports an internal error or the work cap, and the work stays linear.
//!
//! `CTB_PROPERTY_CASES` sets the number of replies (default 100,000) and `CTB_PROPERTY_SEED`
//! the seed.

use claude_tool_bridge::{Catalog, Config, Decision, FinishReason, Outcome, Reason};
use ctb_fixtures::{batch_reply, fixtures_dir, stream_reply};
use ctb_invoke::registry::FORMS;
use ctb_invoke::{Found, NoCall, Scanner, find_first_call};
use ctb_testkit::files::kit_samples;
use ctb_testkit::{Rng, random_chunks, replies};

const MODEL: &str = "anthropic/claude-sonnet-5-5";

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn stream(
    model: &str,
    pieces: &[&str],
    whole: &str,
    finish: FinishReason,
    cat: &Catalog,
) -> (Option<String>, Decision) {
    let (stopped, decision) = stream_reply(model, pieces, whole, finish, cat, true);
    (stopped, decision.expect("decided"))
}

fn check_grammar(text: &str, pieces: &[&str], whole: &Found<'_>, forms: ctb_invoke::Forms) {
    let mut sc = Scanner::with_forms(forms);
    let mut end = 0;
    for p in pieces {
        end += p.len();
        if let Found::Call(c) = sc.advance(&text[..end]) {
            assert_eq!(
                &Found::Call(c.clone()),
                whole,
                "early call differs: {text:?}"
            );
            let stop = c.end.max(sc.reach());
            assert_eq!(
                &Scanner::with_forms(forms).finish(&text[..stop]),
                whole,
                "cut differs: {text:?}"
            );
            break;
        }
    }
    assert_eq!(
        &sc.finish(text),
        whole,
        "streamed grammar differs: {text:?}"
    );
    assert!(
        sc.work() <= 32 * text.len() + (1 << 16),
        "work {} for {} bytes",
        sc.work(),
        text.len()
    );
}

#[test]
fn generated_replies_stream_like_the_whole_text() {
    let cases = env_number("CTB_PROPERTY_CASES", 100_000);
    let seed = env_number("CTB_PROPERTY_SEED", 0x0BAD_5EED);
    let cat = Catalog::agent_zero();
    let config = Config::default();
    let kits = kit_samples(&fixtures_dir()).unwrap();
    let mut rng = Rng::new(seed);
    let (mut early, mut translated, mut with_calls) = (0u64, 0u64, 0u64);
    // Per form, the replies of its family's model it was translated in.
    let mut by_form = vec![0u64; FORMS.len()];
    for case in 0..cases {
        let (model, generated) = if case % 2 == 0 {
            (MODEL.to_owned(), replies::call_shaped(&mut rng))
        } else {
            replies::kit_shaped(&mut rng, &kits)
        };
        let model = model.as_str();
        let forms = config.forms_for(model);
        let text = generated.text.as_str();
        let finish = FinishReason::from_name(generated.finish);
        let whole = Scanner::with_forms(forms).finish(text);
        assert_ne!(whole, Found::Nothing(NoCall::WorkLimit), "case {case}");
        assert_ne!(
            find_first_call(text),
            Found::Nothing(NoCall::WorkLimit),
            "case {case}"
        );
        if matches!(whole, Found::Call(_)) {
            with_calls += 1;
        }
        let want = batch_reply(model, text, finish, &cat);
        assert_ne!(want.reason, Reason::InternalError, "case {case}: {text:?}");
        assert_ne!(want.reason, Reason::TooLarge, "case {case}: {text:?}");
        if want.outcome == Outcome::Translated {
            translated += 1;
            if let Found::Call(c) = &whole {
                if config.family_of(model) == Some(c.form.family()) {
                    if let Some(i) = FORMS.iter().position(|r| r.form == c.form) {
                        by_form[i] += 1;
                    }
                }
            }
        }
        let mut cut_seen: Option<Option<String>> = None;
        for run in 0..3 {
            let max = match run {
                0 => text.len().max(1),
                1 => 1 + rng.below(8),
                _ => 1 + rng.below(200),
            };
            let pieces = random_chunks(text, &mut rng, max);
            check_grammar(text, &pieces, &whole, forms);
            let (stopped, got) = stream(model, &pieces, text, finish, &cat);
            match &cut_seen {
                None => cut_seen = Some(stopped.clone()),
                Some(first) => assert_eq!(first, &stopped, "case {case}: the stop point moved"),
            }
            match &stopped {
                None => assert_eq!(got, want, "case {case} run {run}: {text:?}"),
                Some(cut) => {
                    assert!(text.starts_with(cut.as_str()), "case {case}");
                    assert_eq!(got.outcome, Outcome::Translated, "case {case}: {cut:?}");
                    let Found::Call(c) = &whole else {
                        panic!("case {case}: stopped early without a call: {text:?}")
                    };
                    assert_eq!(
                        Scanner::with_forms(forms).finish(cut),
                        Found::Call(c.clone()),
                        "case {case}"
                    );
                    if want.outcome == Outcome::Translated {
                        assert_eq!(got.request, want.request, "case {case}: {text:?}");
                    } else {
                        // Only a JSON request written after the call, which an early stop
                        // never lets arrive, makes the whole text decide otherwise.
                        assert_eq!(
                            want.reason,
                            Reason::JsonRequestPresent,
                            "case {case}: {text:?}"
                        );
                    }
                    if run == 0 {
                        early += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{cases} generated replies: {with_calls} with a call, {translated} translated in batch, {early} stopped early"
    );
    assert!(with_calls > cases / 3 && translated > cases / 10 && early > cases / 20);
    if cases >= 2_000 {
        let uncovered: Vec<&str> = FORMS
            .iter()
            .zip(&by_form)
            .filter(|(_, n)| **n == 0)
            .map(|(r, _)| r.code)
            .collect();
        assert!(
            uncovered.is_empty(),
            "forms never translated under their family: {uncovered:?}"
        );
    }
}
