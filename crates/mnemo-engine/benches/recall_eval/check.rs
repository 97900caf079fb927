//! The rules the eval's data keeps (README.md, "Rules"), checked: every problem is collected and
//! the check fails listing them all.

use std::collections::{BTreeMap, HashMap, HashSet};

use mnemo_core::MemoryType;
use mnemo_store::tokenize::{STOP_WORDS, fold, is_cjk, query_terms, stem};

use super::{Home, Kind, LANGS, Memory, Query, Split, data, home, queries, recipe_split};

/// Function words of four letters or more that are not in the index's English list, in English,
/// Portuguese and German, and the words for "user" every memory may hold.
const MORE_STOP_WORDS: &[&str] = &[
    // English
    "mine",
    "yours",
    "ours",
    "whose",
    "onto",
    "upon",
    "over",
    "under",
    "like",
    "every",
    // Portuguese
    "para",
    "como",
    "mais",
    "está",
    "esta",
    "este",
    "isso",
    "qual",
    "quais",
    "onde",
    "quando",
    "pelo",
    "pela",
    "todos",
    "todas",
    "minha",
    "minhas",
    "meus",
    "sobre",
    "depois",
    "antes",
    "ainda",
    "porque",
    "também",
    "muito",
    "dela",
    "dele",
    "essa",
    "esse",
    "aqui",
    "seus",
    "suas",
    "tenho",
    "utilizador",
    "umas",
    // German
    "mein",
    "meine",
    "meinen",
    "meinem",
    "meiner",
    "dein",
    "deine",
    "eine",
    "einen",
    "einem",
    "einer",
    "nicht",
    "auch",
    "wann",
    "welche",
    "welcher",
    "welches",
    "wird",
    "wurde",
    "werden",
    "sind",
    "habe",
    "haben",
    "kann",
    "soll",
    "muss",
    "noch",
    "schon",
    "dass",
    "oder",
    "aber",
    "über",
    "nach",
    "durch",
    "ohne",
    "sich",
    "dort",
    "hier",
    "immer",
    "diese",
    "dieser",
    "dieses",
    "wenn",
    "weil",
    "denn",
    "sein",
    "seine",
    "ihre",
    "alle",
    "viel",
    "mehr",
    "bitte",
    "nutzer",
];

/// The content terms of a text as the lexical index reads it (NFKC-folded, lowercase): words of
/// four letters or more that are not function words, and CJK bigrams.
#[must_use]
pub fn content_terms(text: &str) -> Vec<String> {
    query_terms(text)
        .into_iter()
        .filter(|t| {
            let n = t.chars().count();
            if t.chars().all(is_cjk) {
                n == 2
            } else {
                n >= 4
                    && !STOP_WORDS.contains(&t.as_str())
                    && !MORE_STOP_WORDS.contains(&t.as_str())
            }
        })
        .collect()
}

/// Whether two content terms are the same word: equal, the same English stem, or one the other's
/// beginning ("peanut" / "peanuts", "hilf" / "hilfe").
fn same(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if a.chars().all(is_cjk) || b.chars().all(is_cjk) {
        return false;
    }
    let (sa, sb) = (
        stem(a).unwrap_or_else(|| a.to_owned()),
        stem(b).unwrap_or_else(|| b.to_owned()),
    );
    sa == sb || a.starts_with(b) || b.starts_with(a)
}

/// The content terms of `query` that `text` holds too.
#[must_use]
pub fn shared(query: &str, text: &str) -> Vec<String> {
    let theirs = content_terms(text);
    content_terms(query)
        .into_iter()
        .filter(|q| theirs.iter().any(|t| same(q, t)))
        .collect()
}

fn whole(m: &Memory) -> String {
    format!("{}\n{}\n{}", m.name, m.description, m.body)
}

fn head(m: &Memory) -> String {
    format!("{}\n{}", m.name, m.description)
}

/// Sentences in a body: ends (. ! ? and their CJK forms) before a space, a capital or the end,
/// not counting abbreviations (Dr., Mr., Dra., Sr.) or a German ordinal ("30. September", not
/// "13:00.").
fn sentences(body: &str) -> usize {
    let chars: Vec<char> = body.chars().collect();
    let mut n = 0;
    for (i, c) in chars.iter().enumerate() {
        if matches!(c, '。' | '！' | '？') {
            n += 1;
            continue;
        }
        if !matches!(c, '.' | '!' | '?') || chars.get(i + 1).is_some_and(|d| !d.is_whitespace()) {
            continue;
        }
        let start = chars[..i]
            .iter()
            .rposition(|d| !d.is_alphanumeric())
            .map_or(0, |p| p + 1);
        let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
        let abbreviation = ["dr", "dra", "mr", "sr"].contains(&word.as_str());
        let ordinal = *c == '.'
            && i + 1 < chars.len()
            && (start == 0 || chars[start - 1].is_whitespace())
            && !word.is_empty()
            && word.chars().all(|d| d.is_ascii_digit());
        n += usize::from(!abbreviation && !ordinal);
    }
    n + usize::from(!chars.last().is_some_and(|c| ".!?。！？".contains(*c)))
}

fn check_memories(problems: &mut Vec<String>) {
    let d = data();
    let mut ids = HashSet::new();
    for m in &d.memories {
        let at = &m.id;
        if !ids.insert(m.id.as_str()) {
            problems.push(format!("{at}: id used twice"));
        }
        if m.memory_type.parse::<MemoryType>().is_err()
            || !["user", "feedback", "project", "reference"].contains(&m.memory_type.as_str())
        {
            problems.push(format!("{at}: type {:?}", m.memory_type));
        }
        if !LANGS.contains(&m.lang.as_str()) {
            problems.push(format!("{at}: language {:?}", m.lang));
        }
        if m.name.trim().is_empty() || m.description.trim().is_empty() {
            problems.push(format!("{at}: empty name or description"));
        }
        let s = sentences(&m.body);
        if !(1..=4).contains(&s) {
            problems.push(format!("{at}: body of {s} sentences"));
        }
    }
    for r in &d.records {
        let at = &r.id;
        if !ids.insert(r.id.as_str()) {
            problems.push(format!("{at}: id used twice"));
        }
        let roles_alternate = r
            .turns
            .iter()
            .enumerate()
            .all(|(i, t)| t.role == if i % 2 == 0 { "user" } else { "assistant" });
        if !roles_alternate || !(2..=8).contains(&r.turns.len()) {
            problems.push(format!("{at}: 2 to 8 turns, user first, alternating"));
        }
        if !LANGS.contains(&r.lang.as_str()) || r.date.len() != 10 || r.session.is_empty() {
            problems.push(format!("{at}: language, date or session"));
        }
    }
    // The homes nest, hold what they should, and are mostly English in several languages.
    let sizes = [("h5", 5), ("h25", 25), ("h60", 60)];
    let mut before: Option<Home> = None;
    for (id, size) in sizes {
        let h = home(id);
        if h.memories.len() != size || !(6..=10).contains(&h.records.len()) {
            problems.push(format!(
                "{id}: {} memories, {} records",
                h.memories.len(),
                h.records.len()
            ));
        }
        let en = h.memories.iter().filter(|m| m.lang == "en").count();
        let langs: HashSet<&str> = h.memories.iter().map(|m| m.lang.as_str()).collect();
        if en * 2 <= size || langs.len() < 3.min(size) {
            problems.push(format!(
                "{id}: {en} English memories, {} languages",
                langs.len()
            ));
        }
        if let Some(b) = &before {
            let inner = b.memories.iter().all(|m| h.memories.contains(m))
                && b.records.iter().all(|r| h.records.contains(r));
            if !inner {
                problems.push(format!("{id} does not hold {}", b.id));
            }
        }
        before = Some(h);
    }
    let all: HashSet<&str> = (LANGS.iter().copied()).collect();
    let h60 = home("h60");
    let h60_langs: HashSet<&str> = h60.memories.iter().map(|m| m.lang.as_str()).collect();
    if h60_langs != all {
        problems.push("h60 lacks a language".into());
    }
}

fn check_query(q: &Query, h: &Home, problems: &mut Vec<String>) {
    let at = &q.id;
    let mems: HashMap<&str, &Memory> = h.memories.iter().map(|m| (m.id.as_str(), m)).collect();
    let recs: HashSet<&str> = h.records.iter().map(|r| r.id.as_str()).collect();
    if !LANGS.contains(&q.lang.as_str()) || q.query.trim().is_empty() {
        problems.push(format!("{at}: language {:?} or empty query", q.lang));
    }
    let expected: Vec<&Memory> = q
        .expected
        .iter()
        .filter_map(|e| mems.get(e.as_str()).copied())
        .collect();
    let answered = match q.kind {
        Kind::NoResult => q.expected.is_empty(),
        Kind::Record => {
            !q.expected.is_empty() && q.expected.iter().all(|e| recs.contains(e.as_str()))
        }
        _ => !q.expected.is_empty() && expected.len() == q.expected.len(),
    };
    if !answered {
        problems.push(format!(
            "{at}: expects {:?}: not empty for no_result, records of {} for record, its \
             memories otherwise",
            q.expected, h.id
        ));
    }
    let text = &q.query;
    let has_cjk = text.chars().any(is_cjk);
    let has_latin = fold(text).chars().any(|c| c.is_alphabetic() && !is_cjk(c));
    let mut fail = |why: &str| problems.push(format!("{at} ({}): {why}: {text}", q.kind.name()));
    match q.kind {
        Kind::Paraphrase | Kind::Indirect => {
            for m in &expected {
                let s = shared(text, &whole(m));
                if !s.is_empty() {
                    fail(&format!("shares {s:?} with {}", m.id));
                }
            }
        }
        Kind::Exact if !expected.iter().all(|m| !shared(text, &head(m)).is_empty()) => {
            fail("shares no word with the name or description");
        }
        Kind::BodyOnly
            if !expected.iter().all(|m| {
                shared(text, &head(m)).is_empty() && !shared(text, &m.body).is_empty()
            }) =>
        {
            fail("not words of the body alone");
        }
        Kind::Cjk
            if !(has_cjk
                && ["zh", "ja"].contains(&q.lang.as_str())
                && expected.iter().all(|m| !shared(text, &whole(m)).is_empty())) =>
        {
            fail("no CJK text shared with its memory");
        }
        Kind::Mixed
            if !(has_cjk
                && has_latin
                && expected.iter().all(|m| !shared(text, &whole(m)).is_empty())) =>
        {
            fail("not two scripts sharing a word with its memory");
        }
        Kind::Nfkc
            if fold(text) == text.to_lowercase()
                || !expected.iter().all(|m| !shared(text, &whole(m)).is_empty()) =>
        {
            fail("NFKC leaves it as it is, or it shares nothing once folded");
        }
        Kind::CrossLanguage if expected.iter().any(|m| m.lang == q.lang) => {
            fail("same language as its memory");
        }
        _ => {}
    }
}

fn check_queries(problems: &mut Vec<String>) {
    let d = data();
    let mut ids = HashSet::new();
    let mut texts = HashMap::new();
    for q in &d.queries {
        if !ids.insert(q.id.as_str()) {
            problems.push(format!("{}: id used twice", q.id));
        }
        if let Some(other) = texts.insert(fold(q.query.trim()), q.id.as_str()) {
            problems.push(format!("{}: same text as {other}", q.id));
        }
        if !["h5", "h25", "h60"].contains(&q.home.as_str()) {
            problems.push(format!("{}: home {}", q.id, q.home));
        }
    }
    for id in ["h5", "h25", "h60"] {
        let h = home(id);
        let qs = queries(id, None);
        for q in &qs {
            check_query(q, &h, problems);
        }
        let n = qs.len();
        let of = |k: &[Kind]| qs.iter().filter(|q| k.contains(&q.kind)).count();
        let none = of(&[Kind::NoResult]);
        let meaning = of(&[Kind::Paraphrase, Kind::Indirect]);
        if n < 60 || none * 4 < n || meaning * 4 < n {
            problems.push(format!(
                "{id}: {n} queries, {none} no-result, {meaning} paraphrase or indirect"
            ));
        }
        if Kind::ALL.iter().any(|k| of(&[*k]) < 3) {
            problems.push(format!("{id}: a kind has fewer than 3 queries"));
        }
        // No-result queries sharing a word with a memory of the home: at least a quarter.
        let sharing = qs
            .iter()
            .filter(|q| q.kind == Kind::NoResult)
            .filter(|q| {
                h.memories
                    .iter()
                    .any(|m| !shared(&q.query, &whole(m)).is_empty())
            })
            .count();
        if sharing * 4 < none {
            problems.push(format!(
                "{id}: only {sharing} no-result queries share a word"
            ));
        }
    }
    // The split is the recipe's, and balanced: each kind, and each kind in each language,
    // within one of half.
    let recipe = recipe_split(&d.queries);
    let differ: Vec<&str> = d
        .queries
        .iter()
        .filter(|q| recipe.get(&q.id) != Some(&q.split))
        .map(|q| q.id.as_str())
        .collect();
    if !differ.is_empty() {
        problems.push(format!("the recipe splits these otherwise: {differ:?}"));
    }
    let mut tally: BTreeMap<(&str, &str, &str), [usize; 2]> = BTreeMap::new();
    for q in &d.queries {
        let side = usize::from(q.split == Split::Heldout);
        tally.entry((&q.home, q.kind.name(), "")).or_default()[side] += 1;
        tally.entry((&q.home, q.kind.name(), &q.lang)).or_default()[side] += 1;
    }
    for ((h, k, l), [t, v]) in tally {
        if t.abs_diff(v) > 1 {
            problems.push(format!("{h} {k} {l}: {t} train, {v} held out"));
        }
    }
}

fn check_10k(problems: &mut Vec<String>) -> Home {
    let big = home("h10k");
    let again = home("h10k");
    if big.memories != again.memories {
        problems.push("h10k differs between two builds".into());
    }
    let h60 = home("h60");
    let ids: HashSet<&str> = big.memories.iter().map(|m| m.id.as_str()).collect();
    let names: HashSet<String> = big.memories.iter().map(|m| m.name.to_lowercase()).collect();
    if big.memories.len() != 10_000 || ids.len() != 10_000 || names.len() != 10_000 {
        problems.push(format!(
            "h10k: {} memories, {} ids, {} names",
            big.memories.len(),
            ids.len(),
            names.len()
        ));
    }
    if !h60.memories.iter().all(|m| big.memories.contains(m)) {
        problems.push("h10k lacks a memory of h60".into());
    }
    for m in big.memories.iter().filter(|m| m.id.starts_with('s')) {
        if m.memory_type.parse::<MemoryType>().is_err() || !LANGS.contains(&m.lang.as_str()) {
            problems.push(format!(
                "{}: type {} language {}",
                m.id, m.memory_type, m.lang
            ));
        }
        if m.name.contains(['{', '}']) || m.body.contains(['{', '}']) {
            problems.push(format!("{}: an unfilled slot", m.id));
        }
    }
    // No distractor holds every content term of a no-result query (two terms or more).
    let terms: Vec<Vec<String>> = big
        .memories
        .iter()
        .filter(|m| m.id.starts_with('s'))
        .map(|m| content_terms(&whole(m)))
        .collect();
    for q in queries("h10k", None)
        .iter()
        .filter(|q| q.kind == Kind::NoResult)
    {
        let want = content_terms(&q.query);
        if want.len() < 2 {
            continue;
        }
        let hits = terms
            .iter()
            .filter(|t| want.iter().all(|w| t.iter().any(|x| same(w, x))))
            .count();
        if hits > 0 {
            problems.push(format!("{}: {hits} distractors hold all of {want:?}", q.id));
        }
    }
    big
}

/// The rules catch what they are meant to: a check that passed everything would prove nothing.
fn rules_bite() {
    assert_eq!(
        shared("which nuts are peanuts", "Peanut allergy"),
        ["peanuts"]
    );
    assert_eq!(shared("can I drive", "no driving licence"), ["drive"]);
    assert_eq!(shared("driving lessons", "does not drive"), ["driving"]);
    assert_eq!(shared("ｐｅａｎｕｔ ｏｉｌ", "peanut butter"), ["peanut"]);
    assert_eq!(shared("Hilf mir bitte", "Hilfe bei E-Mails"), ["hilf"]);
    assert_eq!(
        shared("what is there to do", "what is there"),
        Vec::<String>::new()
    );
    assert_eq!(shared("吃素的人", "用户吃素"), ["吃素"]);
    assert_eq!(
        shared("我不碰荤腥", "不吃任何肉类和海鲜"),
        Vec::<String>::new()
    );
    assert_eq!(shared("ﾎﾟｯﾄﾞｷｬｽﾄ", "ポッドキャストを聞く").len(), 6);
    assert_eq!(
        sentences("Dr. Helga reads it. Due 30. September. From 9:00 to 13:00. Done"),
        4
    );
    assert_eq!(sentences("用户吃素。不吃肉。"), 2);
}

/// Check everything; return the 10,000-memory home built on the way.
///
/// # Panics
/// With the list of problems, when there is one.
#[must_use]
pub fn run() -> Home {
    rules_bite();
    let mut problems = Vec::new();
    check_memories(&mut problems);
    check_queries(&mut problems);
    let big = check_10k(&mut problems);
    assert!(
        problems.is_empty(),
        "recall eval data: {} problems:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
    big
}
