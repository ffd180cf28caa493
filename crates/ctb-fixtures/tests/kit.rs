//! The family kit: every form of the registry comes with everything that shows it works, and
//! this test asks for each part (ARCHITECTURE.md has the checklist):
//!
//! - its grammar cases, `crates/ctb-invoke/tests/data/forms/FORM.txt`;
//! - its kit sample, `fixtures/kit/FORM.json`, of its own family, and the standard reply
//!   fixtures `fixtures/generate.py` writes from the row and that sample (`*_kit_FORM_KIND`):
//!   the leak, glued to the prose when the row has glued openers, cut by the family's stop when
//!   the sample holds one of its stops, in a fence, from a model of another family, cut off,
//!   echoed;
//! - a LiteLLM case (`tests/python/data/litellm/cases/`) whose reply is read as a call of the
//!   form under its model;
//! - a conversation (`fixtures/conversations/`) with a reply read as a call of the form under
//!   its model;
//! - the property generator's coverage: replies it writes from the kit sample translate as calls
//!   of the form under the family's own model.

use std::path::Path;

use claude_tool_bridge::{Catalog, Config, FinishReason, Outcome};
use ctb_fixtures::{batch_reply, fixtures_dir, load_conversations, load_replies};
use ctb_invoke::registry::{FORMS, Form, FormRow};
use ctb_invoke::{Found, Scanner};
use ctb_testkit::files::kit_samples;
use ctb_testkit::{Rng, replies};
use serde_json::Value;

/// The namespace prefix the LiteLLM cases write as `{P}`.
const NS: &str = concat!("ant", "ml:");

/// The form of the first call `text` holds, read as `model`'s reply.
fn form_read(config: &Config, model: &str, text: &str) -> Option<Form> {
    match Scanner::with_forms(config.forms_for(model)).finish(text) {
        Found::Call(call) => Some(call.form),
        _ => None,
    }
}

/// The standard fixtures a form's kit has: a stopped one when its sample holds one of its
/// family's stops (Llama's pythonic list ends at no stop of the family's: a token-less list
/// has none).
fn kinds(row: &FormRow, sample: Option<&str>) -> Vec<&'static str> {
    let mut kinds = vec!["leak", "in_fence", "other_model", "cut_off", "echo"];
    if !row.glued.is_empty() {
        kinds.push("glued");
    }
    let stops = row.family.row().stops;
    if sample.is_none_or(|s| stops.iter().any(|stop| s.contains(stop))) && !stops.is_empty() {
        kinds.push("stopped");
    }
    kinds
}

#[test]
fn every_form_has_its_kit() {
    let dir = fixtures_dir();
    let root = dir.join("..");
    let config = Config::default();
    let kits = kit_samples(&dir).unwrap();
    let replies = load_replies(&dir).unwrap();
    let conversations = load_conversations(&dir).unwrap();
    let litellm: Vec<(String, String, String)> =
        std::fs::read_dir(root.join("tests/python/data/litellm/cases"))
            .unwrap()
            .filter_map(|e| {
                let path = e.ok()?.path();
                let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
                Some((
                    path.file_name()?.to_string_lossy().into_owned(),
                    v["model"].as_str()?.to_owned(),
                    v["reply"].as_str()?.replace("{P}", NS),
                ))
            })
            .collect();
    let mut missing = Vec::new();
    for row in &FORMS {
        let code = row.code;
        let family = row.family;
        if !Path::new(&root.join(format!("crates/ctb-invoke/tests/data/forms/{code}.txt")))
            .is_file()
        {
            missing.push(format!(
                "{code}: no grammar cases (crates/ctb-invoke/tests/data/forms/{code}.txt)"
            ));
        }
        match kits.iter().find(|k| k.form == code) {
            None => missing.push(format!(
                "{code}: no kit sample (KIT_SAMPLES in fixtures/generate.py)"
            )),
            Some(kit) => {
                if kit.family != family.code() || config.family_of(&kit.model) != Some(family) {
                    missing.push(format!(
                        "{code}: the kit sample's model {} is not of {family}",
                        kit.model
                    ));
                }
            }
        }
        let sample = kits
            .iter()
            .find(|k| k.form == code)
            .map(|k| k.sample.as_str());
        for kind in kinds(row, sample) {
            let slug = format!("_kit_{code}_{kind}");
            let Some(f) = replies.iter().find(|f| f.name.ends_with(&slug)) else {
                missing.push(format!("{code}: no standard fixture *{slug}"));
                continue;
            };
            let own = config.family_of(&f.model) == Some(family);
            if own == (kind == "other_model") {
                missing.push(format!(
                    "{}: run as {}, of the wrong family",
                    f.name, f.model
                ));
            }
        }
        let litellm_case = litellm.iter().find(|(_, model, reply)| {
            config.family_of(model) == Some(family)
                && form_read(&config, model, reply) == Some(row.form)
        });
        if litellm_case.is_none() {
            missing.push(format!(
                "{code}: no LiteLLM case (tests/python/data/litellm/cases/) with a call of the form"
            ));
        }
        let conversation = conversations.iter().find(|c| {
            config.family_of(&c.model) == Some(family)
                && c.turns
                    .iter()
                    .flatten()
                    .any(|a| form_read(&config, &c.model, &a.text) == Some(row.form))
        });
        if conversation.is_none() {
            missing.push(format!(
                "{code}: no conversation (fixtures/conversations/) with a call of the form"
            ));
        }
    }
    for kit in &kits {
        assert!(
            Form::from_code(&kit.form).is_some(),
            "fixtures/kit/{}.json: no such form",
            kit.form
        );
    }
    assert!(
        missing.is_empty(),
        "the family kit is missing parts:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_property_generator_covers_every_form_under_its_family() {
    let config = Config::default();
    let kits = kit_samples(&fixtures_dir()).unwrap();
    let cat = Catalog::agent_zero();
    let mut rng = Rng::new(0x6b17);
    let mut uncovered = Vec::new();
    for row in &FORMS {
        let Some(k) = kits.iter().position(|k| k.form == row.code) else {
            uncovered.push(format!("{}: no kit sample", row.code));
            continue;
        };
        let covered = (0..400).any(|_| {
            let (model, reply) = replies::kit_shaped_for(&mut rng, &kits, k);
            config.family_of(&model) == Some(row.family)
                && form_read(&config, &model, &reply.text) == Some(row.form)
                && batch_reply(
                    &model,
                    &reply.text,
                    FinishReason::from_name(reply.finish),
                    &cat,
                )
                .outcome
                    == Outcome::Translated
        });
        if !covered {
            uncovered.push(format!(
                "{}: no generated reply translates as a call of it",
                row.code
            ));
        }
    }
    assert!(uncovered.is_empty(), "{}", uncovered.join("\n"));
}
