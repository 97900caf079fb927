//! The 10,000-memory home: the 60 hand-written memories among 9,940 distractors expanded from the
//! templates of `synthetic.json`, the same every run (SplitMix64 from the file's seed).
//!
//! The recipe, in order: draw a language by the file's weights, then one of its templates
//! uniformly; fill the name, the description and the body in that order, each `{slot}` at its
//! first appearance — a built-in (below) or a value of that language's list, the same value
//! wherever the slot repeats in the memory, `{slot.1}` being the part after `|` of the value
//! `{slot}` took. A draw whose name (case-folded) or body was drawn before, or is a
//! hand-written memory's, is thrown away and drawn again. Distractor `k` (from 1) is `s0001`…;
//! hand-written memory `j` (from 0) follows distractor `(j + 1) * 9,940 / 61`.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::Memory;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Template {
    lang: String,
    #[serde(rename = "type")]
    memory_type: String,
    name: String,
    description: String,
    body: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Recipe {
    #[allow(dead_code)]
    about: String,
    seed: u64,
    total: usize,
    langs: Vec<(String, u64)>,
    templates: Vec<Template>,
    slots: HashMap<String, HashMap<String, Vec<String>>>,
}

/// SplitMix64: small, fast, and the same on every machine.
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    #[allow(clippy::cast_possible_truncation)]
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

/// A built-in slot's value, or `None` when `name` is not one.
fn builtin(name: &str, rng: &mut Rng) -> Option<String> {
    Some(match name {
        "n" => rng.between(2, 40).to_string(),
        "day" => rng.between(1, 28).to_string(),
        "year" => rng.between(2016, 2025).to_string(),
        "pct" => (rng.between(1, 19) * 5).to_string(),
        "ver" => format!(
            "{}.{}.{}",
            rng.between(0, 9),
            rng.between(0, 19),
            rng.between(0, 9)
        ),
        "ticket" => {
            let letters: String = (0..3)
                .map(|_| char::from(b'A' + u8::try_from(rng.below(26)).unwrap_or(0)))
                .collect();
            format!("{letters}-{}", rng.between(100, 9999))
        }
        _ => return None,
    })
}

/// `text` with its slots filled; `chosen` keeps what each slot took for this memory.
fn fill(
    text: &str,
    slots: &HashMap<String, Vec<String>>,
    chosen: &mut HashMap<String, String>,
    rng: &mut Rng,
) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .unwrap_or_else(|| panic!("synthetic.json: unclosed slot in {text:?}"));
        let spec = &rest[open + 1..close];
        let (name, part) = match spec.split_once('.') {
            Some((n, p)) => (n, p.parse::<usize>().unwrap_or(0)),
            None => (spec, 0),
        };
        if !chosen.contains_key(name) {
            let value = builtin(name, rng).unwrap_or_else(|| {
                let values = slots
                    .get(name)
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| panic!("synthetic.json: no values for {{{name}}}"));
                values[rng.below(values.len())].clone()
            });
            chosen.insert(name.to_owned(), value);
        }
        let value = &chosen[name];
        let piece = value.split('|').nth(part).unwrap_or(value);
        out.push_str(piece);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The 9,940 distractors, in the order drawn (ids `s0001`…), none sharing a name or a body with
/// another or with `hand` (names compared case-folded).
///
/// # Panics
/// When `synthetic.json` is missing, malformed, names a slot it has no values for, or cannot
/// give enough distinct memories.
#[must_use]
pub fn distractors(hand: &[Memory]) -> Vec<Memory> {
    let r: Recipe = super::read("synthetic.json");
    let want = r.total - hand.len();
    let mut rng = Rng::new(r.seed);
    let weight: u64 = r.langs.iter().map(|(_, w)| w).sum();
    let mut names: HashSet<String> = hand.iter().map(|m| m.name.to_lowercase()).collect();
    let mut bodies: HashSet<String> = hand.iter().map(|m| m.body.clone()).collect();
    let mut out = Vec::with_capacity(want);
    let mut draws = 0usize;
    while out.len() < want {
        draws += 1;
        assert!(
            draws < want * 20,
            "synthetic.json gives too few distinct memories"
        );
        let mut pick = rng.next_u64() % weight;
        let lang = r
            .langs
            .iter()
            .find(|(_, w)| {
                let here = pick < *w;
                pick = pick.saturating_sub(*w);
                here
            })
            .map_or("en", |(l, _)| l.as_str());
        let of_lang: Vec<&Template> = r.templates.iter().filter(|t| t.lang == lang).collect();
        assert!(!of_lang.is_empty(), "synthetic.json: no template in {lang}");
        let t = of_lang[rng.below(of_lang.len())];
        let slots = r
            .slots
            .get(lang)
            .unwrap_or_else(|| panic!("synthetic.json: no slots for {lang}"));
        let mut chosen = HashMap::new();
        let name = fill(&t.name, slots, &mut chosen, &mut rng);
        let description = fill(&t.description, slots, &mut chosen, &mut rng);
        let body = fill(&t.body, slots, &mut chosen, &mut rng);
        if names.contains(&name.to_lowercase()) || bodies.contains(&body) {
            continue;
        }
        names.insert(name.to_lowercase());
        bodies.insert(body.clone());
        out.push(Memory {
            id: format!("s{:04}", out.len() + 1),
            lang: lang.to_owned(),
            name,
            description,
            memory_type: t.memory_type.clone(),
            body,
        });
    }
    out
}

/// The 10,000-memory home's memories: `hand` (h60's) among the distractors.
///
/// # Panics
/// As [`distractors`].
#[must_use]
pub fn build_10k(hand: &[Memory]) -> Vec<Memory> {
    let synth = distractors(hand);
    let n = synth.len();
    let mut slots: Vec<usize> = (0..hand.len())
        .map(|j| (j + 1) * n / (hand.len() + 1))
        .collect();
    slots.reverse();
    let mut out = Vec::with_capacity(n + hand.len());
    let mut hand_iter = hand.iter();
    for (k, m) in synth.into_iter().enumerate() {
        out.push(m);
        while slots.last() == Some(&(k + 1)) {
            slots.pop();
            out.extend(hand_iter.next().cloned());
        }
    }
    out.extend(hand_iter.cloned());
    out
}
