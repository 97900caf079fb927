//! Names for the topic files an import of facts writes. A file named after the tool it came
//! from ("user (JSON memories)", "user memories imported from a JSON memories") tells a person
//! nothing and is the same for every import; so a file is named after its topic when the source
//! gives one (mem0's category, claude-mem's project, a JSON `topic` / `category` / tag), else
//! after its facts — the words most of them share, or the first fact shortened — and its
//! description says how many facts, about what, from where and when. A name or description the
//! workspace already holds (an earlier import's) is never given again.

use std::collections::{HashMap, HashSet};

use mnemo_core::MemoryType;

use super::ImportFormat;
use super::plan::slug;
use mnemo_text::prose::shorten;
use mnemo_text::{kind, tokenize};

/// Topics that group nothing: mem0 files what it cannot place under `misc`.
const GENERIC: &[&str] = &[
    "misc",
    "miscellaneous",
    "other",
    "others",
    "general",
    "uncategorized",
    "uncategorised",
    "none",
    "null",
    "unknown",
    "default",
];

/// Words that say nothing of what facts are about, beyond recall's stop words
/// ([`mnemo_text::tokenize::STOP_WORDS`]): what facts are phrased with ("prefers", "uses", "facts").
/// Words of one or two letters never count.
const STOP_EXTRA: &[&str] = &[
    "across", "against", "always", "among", "aren", "around", "because", "between", "didn",
    "doesn", "during", "even", "every", "fact", "facts", "get", "gets", "got", "isn", "like",
    "likes", "lot", "made", "make", "makes", "many", "may", "might", "much", "must", "never",
    "new", "now", "often", "one", "onto", "ours", "out", "over", "own", "per", "prefers", "really",
    "since", "still", "through", "two", "under", "upon", "use", "used", "uses", "using", "usually",
    "via", "wants", "wasn", "well", "whose", "within", "without", "won", "yet", "yours",
];

/// Whether `word` (folded) says nothing of a topic.
fn is_stop(word: &str) -> bool {
    mnemo_text::tokenize::STOP_WORDS.contains(&word) || STOP_EXTRA.contains(&word)
}

/// Words a name or description lists, at most.
const WORDS: usize = 3;
/// The longest topic or shortened fact in a name (in characters).
const NAME_CHARS: usize = 60;
/// The longest description listing facts (in characters).
const DESCRIPTION_CHARS: usize = 200;

/// Whether a source's topic groups nothing (`misc`): such facts are named by their words.
#[must_use]
pub fn generic_topic(topic: &str) -> bool {
    let t = topic.trim().to_lowercase();
    t.is_empty() || GENERIC.contains(&t.as_str())
}

/// The source as a description says it: "imported from mem0".
fn source_name(format: ImportFormat) -> &'static str {
    match format {
        ImportFormat::Mem0 => "mem0",
        ImportFormat::ClaudeMem => "claude-mem",
        ImportFormat::Json => "a JSON file",
        other => other.label(),
    }
}

/// What one imported memory is called: claude-mem keeps observations, the others facts.
fn noun(format: ImportFormat, n: usize) -> &'static str {
    match (format, n) {
        (ImportFormat::ClaudeMem, 1) => "observation",
        (ImportFormat::ClaudeMem, _) => "observations",
        (_, 1) => "fact",
        _ => "facts",
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// `a`, `a and b`, `a, b and c`.
fn joined(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A topic as words: `professional_details` → `professional details`.
fn topic_words(raw: &str) -> String {
    shorten(&raw.replace('_', " "), NAME_CHARS)
}

/// The key a word is counted by: folded, stemmed (`plants` and `plant` are one word).
fn word_key(word: &str) -> String {
    let folded = tokenize::fold(word);
    tokenize::stem(&folded).unwrap_or(folded)
}

/// The words most of `facts` share (each counted once a fact), most shared first, ties in the
/// order they first appear; only words at least `min_facts` facts hold, none of `skip`'s. A
/// word is shown as written when it is a name or an acronym (`Lisbon`, `SQLite`), else in
/// lowercase.
#[must_use]
pub fn shared_words(facts: &[&str], skip: &str, min_facts: usize, n: usize) -> Vec<String> {
    struct Seen {
        facts: usize,
        first: usize,
        last_fact: usize,
        shown: String,
        as_written: bool,
    }
    let skipped: HashSet<String> = words_of(skip).map(|(w, _)| word_key(w)).collect();
    let mut seen: HashMap<String, Seen> = HashMap::new();
    let mut order = 0;
    for (i, fact) in facts.iter().enumerate() {
        for (word, sentence_start) in words_of(fact) {
            let folded = tokenize::fold(word);
            if folded.chars().count() < 3
                || folded.chars().all(|c| c.is_numeric())
                || is_stop(&folded)
            {
                continue;
            }
            let key = word_key(word);
            if skipped.contains(&key) {
                continue;
            }
            // A capital a sentence does not explain: a name, or an acronym.
            let as_written = word.chars().skip(1).any(char::is_uppercase)
                || (!sentence_start && word.chars().any(char::is_uppercase));
            order += 1;
            let s = seen.entry(key).or_insert_with(|| Seen {
                facts: 0,
                first: order,
                last_fact: usize::MAX,
                shown: folded.clone(),
                as_written: false,
            });
            if s.last_fact != i {
                s.last_fact = i;
                s.facts += 1;
            }
            if as_written && !s.as_written {
                s.as_written = true;
                word.clone_into(&mut s.shown);
            }
        }
    }
    let mut ranked: Vec<Seen> = seen
        .into_values()
        .filter(|s| s.facts >= min_facts.max(1))
        .collect();
    ranked.sort_by(|a, b| b.facts.cmp(&a.facts).then(a.first.cmp(&b.first)));
    ranked.into_iter().take(n).map(|s| s.shown).collect()
}

/// The words of a text (runs of letters and digits), each with whether it begins a sentence.
fn words_of(text: &str) -> impl Iterator<Item = (&str, bool)> {
    text.lines().flat_map(|line| {
        let mut out = Vec::new();
        let mut start = None;
        let mut sentence_start = true;
        for (i, c) in line
            .char_indices()
            .chain(std::iter::once((line.len(), ' ')))
        {
            if c.is_alphanumeric() {
                start.get_or_insert(i);
                continue;
            }
            if let Some(s) = start.take() {
                out.push((&line[s..i], sentence_start));
                sentence_start = false;
            }
            if matches!(c, '.' | '!' | '?' | ':' | ';' | '。') {
                sentence_start = true;
            }
        }
        out
    })
}

/// A planned file's name, description and path stem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileName {
    /// Its `name:`.
    pub name: String,
    /// Its `description:`.
    pub description: String,
    /// Its path without `.md` (the planner adds `-2`… when the path is taken).
    pub stem: String,
}

/// Names an import's files, never twice, nor as a file of the workspace is named.
pub struct Namer<'a> {
    format: ImportFormat,
    /// The import's day (`YYYY-MM-DD`).
    day: String,
    /// The workspace's names and descriptions, case-folded.
    names: &'a HashSet<String>,
    descriptions: &'a HashSet<String>,
    /// This import's, case-folded.
    planned_names: HashSet<String>,
    planned_descriptions: HashSet<String>,
}

impl<'a> Namer<'a> {
    /// A namer for one import into a workspace holding `names` and `descriptions` (folded).
    #[must_use]
    pub fn new(
        format: ImportFormat,
        day: String,
        names: &'a HashSet<String>,
        descriptions: &'a HashSet<String>,
    ) -> Self {
        Self {
            format,
            day,
            names,
            descriptions,
            planned_names: HashSet::new(),
            planned_descriptions: HashSet::new(),
        }
    }

    fn name_free(&self, name: &str) -> bool {
        let f = name.to_lowercase();
        !self.names.contains(&f) && !self.planned_names.contains(&f)
    }

    fn description_free(&self, d: &str) -> bool {
        let f = d.to_lowercase();
        !self.descriptions.contains(&f) && !self.planned_descriptions.contains(&f)
    }

    /// Name one file of `facts` (each fact's text without its `Source:` line) of type `t`, on
    /// `topic` (as the source wrote it) when there is one.
    pub fn name(&mut self, t: MemoryType, topic: Option<&str>, facts: &[&str]) -> FileName {
        let n = facts.len();
        let topic = topic.map(topic_words).filter(|s| !s.is_empty());
        let words = shared_words(facts, topic.as_deref().unwrap_or_default(), 2, WORDS);
        let first = shorten(
            facts
                .first()
                .and_then(|f| f.lines().next())
                .unwrap_or_default(),
            NAME_CHARS,
        );
        let (src, day, what) = (source_name(self.format), &self.day, noun(self.format, n));
        let mut tries: Vec<String> = Vec::new();
        let description = match (&topic, words.is_empty()) {
            (Some(topic), true) => {
                tries.push(capitalized(topic));
                tries.push(format!("{}: {}", capitalized(topic), shorten(&first, 40)));
                format!("{n} {what} about {topic}, imported from {src} on {day}")
            }
            (Some(topic), false) => {
                tries.push(capitalized(topic));
                tries.push(format!("{}: {}", capitalized(topic), joined(&words)));
                format!(
                    "{n} {what} about {topic} ({}), imported from {src} on {day}",
                    words.join(", ")
                )
            }
            (None, false) => {
                tries.push(capitalized(&joined(&words)));
                format!(
                    "{n} {what} about {}, imported from {src} on {day}",
                    joined(&words)
                )
            }
            (None, true) if n == 1 => {
                tries.push(capitalized(&first));
                format!("A {what} imported from {src} on {day}: {first}")
            }
            (None, true) => {
                // Nothing shared to name them by: the first, and what the others say.
                tries.push(format!("{}, and {} more", capitalized(&first), n - 1));
                let all: Vec<&str> = facts.iter().filter_map(|f| f.lines().next()).collect();
                shorten(
                    &format!(
                        "{n} {what} imported from {src} on {day}: {}",
                        all.join("; ")
                    ),
                    DESCRIPTION_CHARS,
                )
            }
        };
        let base = tries[0].clone();
        let name = tries
            .into_iter()
            .chain((2..).map(|k| format!("{base} ({k})")))
            .find(|c| !c.is_empty() && self.name_free(c))
            .unwrap_or(base);
        let description = std::iter::once(description.clone())
            .chain((2..).map(|k| format!("{description} (part {k})")))
            .find(|d| self.description_free(d))
            .unwrap_or(description);
        self.planned_names.insert(name.to_lowercase());
        self.planned_descriptions.insert(description.to_lowercase());
        let mut stem = slug(&name);
        if stem.is_empty() || kind::doc_kind(&format!("{stem}.md")) != Some(kind::DocKind::Topic) {
            stem = format!("{}-{t}", self.format.slug());
        }
        FileName {
            name,
            description,
            stem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_words_count_each_fact_once_and_keep_names_as_written() {
        let facts = [
            "Took the night train from Lisbon to Madrid",
            "Night trains are cheaper than flights",
            "Stayed in Lisbon for a week",
        ];
        assert_eq!(
            shared_words(&facts, "", 2, 3),
            vec!["night", "train", "Lisbon"]
        );
        assert_eq!(
            shared_words(&facts, "trains", 2, 3),
            vec!["night", "Lisbon"]
        );
        assert!(shared_words(&["Works at Acme"], "", 2, 3).is_empty());
    }

    #[test]
    fn shorten_cuts_at_a_word() {
        assert_eq!(shorten("Prefers  dark\nroast", 60), "Prefers dark roast");
        assert_eq!(
            shorten("Prefers dark roast coffee every single morning", 20),
            "Prefers dark roast…"
        );
    }

    #[test]
    fn a_name_or_description_taken_is_never_given_again() {
        let names: HashSet<String> = ["travel".to_owned()].into();
        let descriptions = HashSet::new();
        let mut n = Namer::new(
            ImportFormat::Mem0,
            "2026-03-04".into(),
            &names,
            &descriptions,
        );
        let facts = ["Took the night train to Porto", "Night buses are slow"];
        let a = n.name(MemoryType::User, Some("travel"), &facts);
        assert_eq!(
            (a.name.as_str(), a.description.as_str(), a.stem.as_str()),
            (
                "Travel: night",
                "2 facts about travel (night), imported from mem0 on 2026-03-04",
                "travel-night"
            )
        );
        let b = n.name(MemoryType::User, Some("travel"), &facts);
        assert_eq!(b.name, "Travel (2)");
        assert_eq!(
            b.description,
            "2 facts about travel (night), imported from mem0 on 2026-03-04 (part 2)"
        );
        let c = n.name(MemoryType::User, Some("memory"), &["Keeps a diary"]);
        assert_eq!((c.name.as_str(), c.stem.as_str()), ("Memory", "mem0-user"));
    }
}
