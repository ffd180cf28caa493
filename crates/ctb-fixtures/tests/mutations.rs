//! Robustness: every reply fixture, mutated many times around the characters the grammar
//! cares about (`<`, `>`, `/`, quotes, `=`, line breaks, multibyte text), goes through the
//! grammar, `translate` and a session. Whatever comes in:
//! - nothing inside the bridge fails (no `internal_error`, which is what a caught panic becomes);
//! - an untouched reply is the input byte for byte;
//! - streaming the mutated reply in random pieces finds what the whole text finds, and a call
//!   found early is found again in the text an early stop hands on.

use claude_tool_bridge::{Config, Outcome, Reason, translate};
use ctb_invoke::{Found, Scanner, find_first_call};
use ctb_testkit::{Rng, random_chunks};

const PIECES: &[&str] = &[
    "<",
    ">",
    "/",
    "\"",
    "'",
    "=",
    "\n",
    "</",
    "<invoke",
    "</invoke>",
    "<parameter name=\"x\">",
    "</parameter>",
    "```\n",
    "é",
    "中",
    "court\n",
    "{",
    "}",
    "\u{1F600}",
];

/// One random edit: delete a character, insert a piece, or cut the text short.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let bounds: Vec<usize> = (0..=text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect();
    let at = bounds[rng.below(bounds.len())];
    match rng.below(3) {
        0 => {
            let next = bounds.iter().copied().find(|b| *b > at).unwrap_or(at);
            format!("{}{}", &text[..at], &text[next..])
        }
        1 => format!("{}{}{}", &text[..at], rng.pick(PIECES), &text[at..]),
        _ => text[..at].to_owned(),
    }
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn mutated_replies_never_break_the_bridge() {
    let fixtures = ctb_fixtures::load_replies(&ctb_fixtures::fixtures_dir()).unwrap();
    let config = Config::default();
    // More rounds and other seeds locally: CTB_MUTATION_ROUNDS=2000 CTB_MUTATION_SEED=7.
    let rounds = env_number("CTB_MUTATION_ROUNDS", 40);
    let mut rng = Rng::new(env_number("CTB_MUTATION_SEED", 0x5EED) as u64);
    let mut checked = 0;
    for f in &fixtures {
        for _ in 0..rounds {
            let mut text = f.reply.clone();
            for _ in 0..1 + rng.below(3) {
                text = mutate(&text, &mut rng);
            }
            let d = translate(&text, &f.catalog);
            assert_ne!(d.reason, Reason::InternalError, "{}: {text:?}", f.name);
            if d.outcome == Outcome::Untouched {
                assert_eq!(d.reply, text, "{}", f.name);
            }
            let mut session = claude_tool_bridge::Session::new(config.clone());
            session.begin_turn(ctb_fixtures::MODEL, &[]);
            let s = session.finish(&text, f.finish, &f.catalog).unwrap();
            assert_ne!(s.reason, Reason::InternalError, "{}: {text:?}", f.name);

            let whole = find_first_call(&text);
            let mut scanner = Scanner::new();
            for piece_end in random_chunks(&text, &mut rng, 16).iter().scan(0, |end, p| {
                *end += p.len();
                Some(*end)
            }) {
                if let Found::Call(c) = scanner.advance(&text[..piece_end]) {
                    let stop = c.end.max(scanner.reach());
                    assert_eq!(Found::Call(c), whole, "{}: early call differs", f.name);
                    assert_eq!(find_first_call(&text[..stop]), whole, "{}: cut", f.name);
                }
            }
            let streamed = scanner.finish(&text);
            assert_eq!(streamed, whole, "{}: streamed differs: {text:?}", f.name);
            checked += 1;
        }
    }
    assert_eq!(checked, rounds * fixtures.len());
    assert!(fixtures.len() > 100, "fixtures missing");
}
