//! The data of the recall eval: personal-memory homes of 5, 25 and 60 memories in five
//! languages with their conversation records (`homes.json`), a 10,000-memory home built from them
//! and `synthetic.json` ([`synthetic`]), and the queries asked in each home (`queries.json`), each
//! with its kind and its split (train or held-out). `README.md` beside this file describes the
//! format and the rules the texts follow; [`check`] holds the data to them.
//!
//! Included by `benches/recall_eval.rs` with `#[path]`; the files are read at run time from the
//! crate's folder, so an edit of the JSON needs no rebuild.

#![allow(dead_code)]

pub mod check;
pub mod gate;
pub mod gate_model;
pub mod signals;
pub mod synthetic;

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// Where the JSON files are.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/recall_eval");

/// The homes, smallest first; `h10k` is `h60`'s memories among 9,940 synthetic ones.
pub const HOMES: [&str; 4] = ["h5", "h25", "h60", "h10k"];

/// The languages of memories, records and queries.
pub const LANGS: [&str; 5] = ["en", "pt", "zh", "ja", "de"];

/// The seed of the split and of the synthetic home (any fixed number: runs must agree).
pub const SEED: u64 = 48;

/// One memory, as the vault would hold it (`type` is a `mnemo_core::MemoryType`).
#[derive(Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    pub id: String,
    pub lang: String,
    pub name: String,
    pub description: String,
    #[serde(rename = "type")]
    pub memory_type: String,
    pub body: String,
}

/// One turn of a conversation.
#[derive(Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// `user` or `assistant`.
    pub role: String,
    pub content: String,
}

/// A conversation record: a short chat on `date` (YYYY-MM-DD) in session `session`.
#[derive(Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub id: String,
    pub lang: String,
    pub date: String,
    pub session: String,
    pub turns: Vec<Turn>,
}

impl Record {
    /// What Mnemo keeps of the chat (`Vault::append_chat_record` takes the person's words): the
    /// user turns, in order.
    #[must_use]
    pub fn user_turns(&self) -> Vec<&str> {
        self.turns
            .iter()
            .filter(|t| t.role == "user")
            .map(|t| t.content.as_str())
            .collect()
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct HomeSpec {
    id: String,
    memories: Vec<String>,
    records: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct HomesFile {
    #[allow(dead_code)]
    about: String,
    memories: Vec<Memory>,
    records: Vec<Record>,
    homes: Vec<HomeSpec>,
}

/// A home: its memories and its conversation records.
#[derive(Clone, Debug)]
pub struct Home {
    pub id: String,
    pub memories: Vec<Memory>,
    pub records: Vec<Record>,
}

/// What a query tests.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Words of the memory's name or description.
    Exact,
    /// Chinese or Japanese, sharing characters with its memory.
    Cjk,
    /// Two scripts in one query (English words inside Chinese or Japanese).
    Mixed,
    /// Full-width or half-width forms that NFKC folds into the memory's words.
    Nfkc,
    /// Words only the memory's body holds.
    BodyOnly,
    /// Nothing in the home answers it: recall should return nothing.
    NoResult,
    /// The same meaning, no shared content word.
    Paraphrase,
    /// Another language than its memory.
    CrossLanguage,
    /// A need the memory bears on ("suggest a snack" → a peanut allergy), no shared content word.
    Indirect,
    /// Answered by a conversation record only.
    Record,
}

impl Kind {
    pub const ALL: [Self; 10] = [
        Self::Exact,
        Self::Cjk,
        Self::Mixed,
        Self::Nfkc,
        Self::BodyOnly,
        Self::NoResult,
        Self::Paraphrase,
        Self::CrossLanguage,
        Self::Indirect,
        Self::Record,
    ];

    /// The name used in `queries.json`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Cjk => "cjk",
            Self::Mixed => "mixed",
            Self::Nfkc => "nfkc",
            Self::BodyOnly => "body_only",
            Self::NoResult => "no_result",
            Self::Paraphrase => "paraphrase",
            Self::CrossLanguage => "cross_language",
            Self::Indirect => "indirect",
            Self::Record => "record",
        }
    }
}

/// Which half a query belongs to: the gate is fit on `Train` and judged on `Heldout`.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    Train,
    Heldout,
}

/// One query asked in one home.
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct Query {
    pub id: String,
    pub home: String,
    pub kind: Kind,
    pub lang: String,
    pub split: Split,
    pub query: String,
    /// Memory ids (record ids for [`Kind::Record`]) that answer it; empty for no-result.
    pub expected: Vec<String>,
    /// What links an indirect query to its memory; for some no-result queries, the word they
    /// share with a memory or the larger home that answers them.
    #[serde(default)]
    pub why: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct QueriesFile {
    #[allow(dead_code)]
    about: String,
    queries: Vec<Query>,
}

/// Everything in `homes.json` and `queries.json`.
pub struct Data {
    pub memories: Vec<Memory>,
    pub records: Vec<Record>,
    /// Home id → (memory ids, record ids), for h5, h25 and h60.
    pub homes: Vec<(String, Vec<String>, Vec<String>)>,
    pub queries: Vec<Query>,
}

fn read<T: serde::de::DeserializeOwned>(file: &str) -> T {
    let path = format!("{DIR}/{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The data, read once.
///
/// # Panics
/// When a file is missing or does not parse.
pub fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let h: HomesFile = read("homes.json");
        let q: QueriesFile = read("queries.json");
        Data {
            memories: h.memories,
            records: h.records,
            homes: h
                .homes
                .into_iter()
                .map(|s| (s.id, s.memories, s.records))
                .collect(),
            queries: q.queries,
        }
    })
}

/// The home `id` (one of [`HOMES`]); `h10k` is built by [`synthetic::build_10k`].
///
/// # Panics
/// On an unknown home or an id a home names but the file lacks.
#[must_use]
pub fn home(id: &str) -> Home {
    if id == "h10k" {
        let h60 = home("h60");
        return Home {
            id: id.to_owned(),
            memories: synthetic::build_10k(&h60.memories),
            records: h60.records,
        };
    }
    let d = data();
    let (_, mems, recs) = d
        .homes
        .iter()
        .find(|(h, _, _)| h == id)
        .unwrap_or_else(|| panic!("no home {id}"));
    let by_id: HashMap<&str, &Memory> = d.memories.iter().map(|m| (m.id.as_str(), m)).collect();
    let rec_by_id: HashMap<&str, &Record> = d.records.iter().map(|r| (r.id.as_str(), r)).collect();
    Home {
        id: id.to_owned(),
        memories: mems
            .iter()
            .map(|m| {
                (*by_id
                    .get(m.as_str())
                    .unwrap_or_else(|| panic!("{id}: no memory {m}")))
                .clone()
            })
            .collect(),
        records: recs
            .iter()
            .map(|r| {
                (*rec_by_id
                    .get(r.as_str())
                    .unwrap_or_else(|| panic!("{id}: no record {r}")))
                .clone()
            })
            .collect(),
    }
}

/// The queries asked in `home` (`h10k` is asked `h60`'s), of one split or of both.
#[must_use]
pub fn queries(home: &str, split: Option<Split>) -> Vec<Query> {
    let asked = if home == "h10k" { "h60" } else { home };
    data()
        .queries
        .iter()
        .filter(|q| q.home == asked && split.is_none_or(|s| q.split == s))
        .cloned()
        .collect()
}

/// FNV-1a, 64 bits: the order of queries inside a stratum of the split.
#[must_use]
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The split the recipe gives each query of `queries` (README.md, "Splits"): per home, the
/// strata (kind, language) in order of kind name then language; inside a stratum, queries by
/// `fnv1a("recall-eval-48/" + id)`, given alternately to train and held-out, beginning with the
/// side this kind has fewer of so far (a tie: the side this language has fewer of in the home;
/// a tie: the side the home has fewer of; a tie: train).
#[must_use]
pub fn recipe_split(queries: &[Query]) -> HashMap<String, Split> {
    let mut out = HashMap::new();
    let mut homes: Vec<&str> = queries.iter().map(|q| q.home.as_str()).collect();
    homes.sort_unstable();
    homes.dedup();
    for home in homes {
        let of_home: Vec<&Query> = queries.iter().filter(|q| q.home == home).collect();
        let mut strata: Vec<(&str, &str)> = of_home
            .iter()
            .map(|q| (q.kind.name(), q.lang.as_str()))
            .collect();
        strata.sort_unstable();
        strata.dedup();
        let mut home_n = [0usize; 2];
        let mut kind_n: HashMap<&str, [usize; 2]> = HashMap::new();
        let mut lang_n: HashMap<&str, [usize; 2]> = HashMap::new();
        for (kind, lang) in strata {
            let mut members: Vec<&&Query> = of_home
                .iter()
                .filter(|q| q.kind.name() == kind && q.lang == lang)
                .collect();
            members.sort_by_key(|q| (fnv1a(&format!("recall-eval-{SEED}/{}", q.id)), &q.id));
            let kn = kind_n.entry(kind).or_default();
            let ln = lang_n.entry(lang).or_default();
            let first = [*kn, *ln, home_n]
                .into_iter()
                .find(|n| n[0] != n[1])
                .map_or(0, |n| usize::from(n[0] > n[1]));
            for (i, q) in members.into_iter().enumerate() {
                let side = if i % 2 == 0 { first } else { 1 - first };
                kn[side] += 1;
                ln[side] += 1;
                home_n[side] += 1;
                let split = if side == 0 {
                    Split::Train
                } else {
                    Split::Heldout
                };
                out.insert(q.id.clone(), split);
            }
        }
    }
    out
}
