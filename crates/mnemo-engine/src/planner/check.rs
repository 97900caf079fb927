//! What the planner's patches must pass before anything is written, pure: each
//! fact is held by a user message (its content words appear there, CJK by character pairs), is
//! not a question the user asked about the world, is worth keeping, and is not already saved.
//! Every patch that fails is returned with its reason in words.

use std::collections::HashSet;

use mnemo_core::MemoryType;
use mnemo_store::{format, tokenize};

use super::Patch;
use crate::extract::fact_width;

/// Share of a fact's content words that must appear in the user message it comes from.
pub const MIN_SUPPORT: f64 = 0.5;

/// Words a paraphrase adds around the user's own ("The user prefers…"): not content.
const FRAME_WORDS: &[&str] = &[
    "user",
    "users",
    "person",
    "prefer",
    "prefers",
    "like",
    "likes",
    "want",
    "wants",
    "ask",
    "asks",
    "asked",
    "say",
    "says",
    "said",
    "mention",
    "mentioned",
    "mentions",
    "state",
    "states",
    "stated",
    "always",
    "never",
    "not",
    "don't",
    "doesn't",
    "is",
    "are",
    "am",
    "has",
    "have",
    "their",
    "them",
    "they",
    "name",
    "named",
    "called",
];

/// Words that make a question about the person rather than the world ("my", "I'm", 我, 私, 저…).
const FIRST_PERSON: &[&str] = &[
    "i", "i'm", "im", "i've", "i'd", "i'll", "me", "my", "mine", "myself", "we", "we're", "our",
    "ours", "us",
];
const FIRST_PERSON_CJK: &[&str] = &["我", "私", "僕", "俺", "わたし"];
/// Korean first-person words, matched at the start of a space-separated word ("언제" holds 제).
const FIRST_PERSON_KO: &[&str] = &[
    "저는", "저의", "제가", "저도", "나는", "내가", "나도", "우리",
];

/// A message of the conversation the planner read, numbered from 1 as the model saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// Whether the user wrote it.
    pub user: bool,
    /// Its text.
    pub text: String,
}

/// A patch that passed, with the message that holds it (1-based) and its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The patch.
    pub patch: Patch,
    /// Its type.
    pub memory_type: MemoryType,
    /// The user message whose words it holds.
    pub source: usize,
}

/// A patch that was dropped, and why, in words.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Dropped`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Dropped {
    pub fact: String,
    pub reason: String,
}

fn content_terms(text: &str) -> HashSet<String> {
    let frame: HashSet<&str> = FRAME_WORDS.iter().copied().collect();
    crate::recall::content_query(text)
        .split_whitespace()
        .filter(|t| !frame.contains(t))
        .filter(|t| t.chars().count() > 1 || t.chars().any(tokenize::is_cjk))
        .map(|t| tokenize::stem(t).unwrap_or_else(|| t.to_owned()))
        .collect()
}

/// The sentences of a message that say something about the person: statements, and questions
/// that speak in the first person ("I'm vegetarian, any idea for dinner?"); with `requests`
/// false, not requests to the assistant either ("Tell me when Hangul was made").
fn statements(text: &str, requests: bool) -> String {
    let mut out = String::new();
    let mut sentence = String::new();
    let flush = |s: &mut String, out: &mut String| {
        let t = s.trim();
        if !t.is_empty() {
            let question =
                t.ends_with('?') || t.ends_with('？') || t.ends_with("까") || t.ends_with('か');
            if (!question || first_person(t)) && (requests || !is_request(t)) {
                out.push_str(t);
                out.push('\n');
            }
        }
        s.clear();
    };
    for c in text.chars() {
        sentence.push(c);
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n') {
            flush(&mut sentence, &mut out);
        }
    }
    flush(&mut sentence, &mut out);
    out
}

fn first_person(sentence: &str) -> bool {
    let folded = tokenize::fold(sentence);
    let words: HashSet<&str> = folded
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    FIRST_PERSON.iter().any(|w| words.contains(w))
        || FIRST_PERSON_CJK.iter().any(|w| folded.contains(w))
        || folded
            .split_whitespace()
            .any(|w| w == "제" || w == "내" || FIRST_PERSON_KO.iter().any(|k| w.starts_with(k)))
}

/// Share of `fact`'s content terms found in `text` (0 when the fact has none).
fn support(fact: &HashSet<String>, text: &str) -> f64 {
    if fact.is_empty() {
        return 0.0;
    }
    let have = content_terms(text);
    let hit = fact
        .iter()
        .filter(|t| have.contains(*t) || have.iter().any(|h| same_word(t, h)))
        .count();
    #[allow(clippy::cast_precision_loss)]
    let share = hit as f64 / fact.len() as f64;
    share
}

/// Two stems of one English word ("allerg" / "allergi"): a shared start of five letters or more.
fn same_word(a: &str, b: &str) -> bool {
    let ascii = |s: &str| s.len() >= 5 && s.bytes().all(|c| c.is_ascii_alphabetic());
    ascii(a) && ascii(b) && a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count() >= 5
}

/// The key facts are compared by: [`format::summary_key`] without closing punctuation.
#[must_use]
pub fn fact_key(fact: &str) -> String {
    format::summary_key(fact)
        .trim_end_matches(['.', '!', '。', '！', ' '])
        .to_owned()
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}

/// Check each patch against the conversation (`said`, numbered from 1) and the summaries
/// already saved in the workspace (`existing`, as [`fact_key`]s). Returns what may be
/// written, in order, and what was dropped with its reason.
#[must_use]
pub fn check(
    patches: &[Patch],
    said: &[Said],
    existing: &HashSet<String>,
) -> (Vec<Kept>, Vec<Dropped>) {
    let mut kept: Vec<Kept> = Vec::new();
    let mut dropped = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for p in patches {
        let fact = one_line(&p.fact);
        let drop = |reason: String| Dropped {
            fact: cut(&fact, 200),
            reason,
        };
        let Ok(memory_type) = p.r#type.trim().parse::<MemoryType>() else {
            dropped.push(drop(format!(
                "its type `{}` is not user, feedback, project or reference",
                cut(&p.r#type, 40)
            )));
            continue;
        };
        // A fact the model copied with the user's question or request attached keeps its
        // statements (a feedback fact keeps its requests: they say how to work).
        let fact = without_questions(&fact, memory_type != MemoryType::Feedback);
        if looks_like_code(&fact) {
            dropped.push(drop(
                "it is a line of code, not a fact about the user".to_owned(),
            ));
            continue;
        }
        if only_past(&fact) {
            dropped.push(drop(
                "it only says what used to be true; what is true now is what stays".to_owned(),
            ));
            continue;
        }
        if !worth_keeping(&fact) {
            dropped.push(drop(
                "too short, a question, small talk, or about the moment rather than something to remember".to_owned(),
            ));
            continue;
        }
        if memory_type == MemoryType::Feedback && is_one_time_request(&fact) {
            dropped.push(drop(
                "it is a one-time request, not a standing wish for how to answer".to_owned(),
            ));
            continue;
        }
        if memory_type != MemoryType::Feedback && is_request(&fact) {
            dropped.push(drop(
                "it is something the user asked for, not a fact about them".to_owned(),
            ));
            continue;
        }
        let terms = content_terms(&fact);
        if terms.is_empty() {
            dropped.push(drop("it holds no words of substance".to_owned()));
            continue;
        }
        // The message it cites first, then any other user message (small models miscount).
        let cited = usize::try_from(p.source)
            .ok()
            .filter(|n| (1..=said.len()).contains(n));
        let mut order: Vec<usize> = cited.into_iter().collect();
        order.extend((1..=said.len()).filter(|n| Some(*n) != cited));
        let mut asked_only = false;
        let mut source = None;
        for n in order {
            let m = &said[n - 1];
            if !m.user {
                continue;
            }
            // How to work may be said as a request ("keep answers short"); a fact may not.
            let feedback = memory_type == MemoryType::Feedback;
            if support(&terms, &statements(&m.text, feedback)) >= MIN_SUPPORT {
                source = Some(n);
                break;
            }
            if support(&terms, &m.text) >= MIN_SUPPORT {
                asked_only = true;
            }
        }
        let Some(source) = source else {
            dropped.push(drop(if asked_only {
                "it comes from a question the user asked, not from something they said about themselves".to_owned()
            } else if cited.is_some_and(|n| !said[n - 1].user) {
                "it is not in anything the user wrote (the message it cites is the assistant's)".to_owned()
            } else {
                "the user did not say it: its words are not in their messages".to_owned()
            }));
            continue;
        };
        let key = fact_key(&fact);
        if existing.contains(&key) {
            dropped.push(drop("it is already saved".to_owned()));
            continue;
        }
        if !seen.insert(key) {
            dropped.push(drop("the same fact came twice".to_owned()));
            continue;
        }
        kept.push(Kept {
            patch: Patch { fact, ..p.clone() },
            memory_type,
            source,
        });
    }
    (kept, dropped)
}

/// Words that make a fact about the moment. Fewer than extraction's filter: a correction says
/// "now" ("the beta is now on March 17") and still holds.
const MOMENT: &[&str] = &[
    "today",
    "tonight",
    "right now",
    "at the moment",
    "this session",
    "temporary",
    "temporarily",
];

/// The same in Chinese, Japanese and Korean (matched anywhere: no spaces between words).
const MOMENT_CJK: &[&str] = &["今天", "今晚", "现在", "今日", "今夜", "오늘", "지금"];

/// Thanks and greetings: what is left of a fact without them must still say something.
const SMALL_TALK: &[&str] = &[
    "thanks",
    "thank you",
    "thank",
    "hello",
    "goodbye",
    "that's all",
    "that is all",
    "ありがとう",
    "助かりました",
    "助かった",
    "こんにちは",
    "고마워요",
    "고마워",
    "감사합니다",
    "감사",
    "안녕",
    "여기까지",
    "谢谢",
    "你好",
    "再见",
    "就这些",
    "nice to meet you",
    "perfect",
    "that fixed it",
    "that worked",
    "got it",
    "no more questions",
    "no other questions",
    "はじめまして",
    "よろしくお願いします",
    "明白了",
    "没有别的问题了",
    "没有问题了",
    "처음 뵙겠습니다",
    "반가워요",
];

/// What says a fact is past ("I used to live in Beijing", "대학원생이라고 했었는데")…
const PAST: &[&str] = &[
    "used to",
    "earlier i told you",
    "i told you before",
    "previously",
    "formerly",
    "out of date",
    "no longer",
    "not anymore",
    "我之前",
    "我以前",
    "之前我",
    "以前我",
    "我曾经",
    "我原来",
    "以前は",
    "昔は",
    "していましたが",
    "でしたが",
    "했었는데",
    "였는데",
    "이었는데",
    "전에는",
    "예전에",
];
/// …and what says it also holds what is true now ("…, now I live in Hangzhou").
const NOW: &[&str] = &[
    "now",
    "currently",
    "these days",
    "moved",
    "switched",
    "joined",
    "现在",
    "目前",
    "如今",
    "搬到",
    "今は",
    "現在",
    "이제",
    "지금",
    "요즘",
];

/// Whether a fact only says what used to be true: a correction's old half, which the new fact
/// replaces (saved, it would be recalled as if it still held).
fn only_past(fact: &str) -> bool {
    let f = tokenize::fold(fact);
    PAST.iter().any(|w| f.contains(w)) && !NOW.iter().any(|w| f.contains(w))
}

/// Question words, and the words that follow one in a question ("how should I …").
const ASKING: &[&str] = &["how", "what", "which", "where", "when", "why", "who"];
const ASKING_AUX: &[&str] = &[
    "should", "can", "could", "would", "do", "does", "did", "is", "are", "will", "shall", "might",
];

/// Whether a fact is worded as a question though its `?` was left off ("How should I taper",
/// "Should I …").
fn question_form(fact: &str) -> bool {
    let f = tokenize::fold(fact);
    let mut words = f
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty());
    let (Some(first), Some(second)) = (words.next(), words.next()) else {
        return false;
    };
    (ASKING.contains(&first) && ASKING_AUX.contains(&second))
        || (ASKING_AUX.contains(&first) && ["i", "we", "you", "there", "it"].contains(&second))
}

/// At least [`MIN_FACT_WIDTH`](crate::extract::MIN_FACT_WIDTH) (see [`fact_width`]) beside any greeting or thanks, not a question,
/// not about the moment.
fn worth_keeping(fact: &str) -> bool {
    let mut rest = tokenize::fold(fact);
    for w in SMALL_TALK {
        rest = rest.replace(w, "");
    }
    if fact_width(&rest) < crate::extract::MIN_FACT_WIDTH
        || fact.ends_with('?')
        || fact.ends_with('？')
        || question_form(fact)
    {
        return false;
    }
    let lower = format!(" {} ", fact.to_lowercase());
    let words: String = lower
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let words = format!(" {words} ");
    !MOMENT.iter().any(|m| words.contains(&format!(" {m} ")))
        && !MOMENT_CJK.iter().any(|m| fact.contains(m))
}

/// Whether a "fact" is a line of code the model copied: it ends as a code line does (`:`,
/// `;`, `{`), holds braces or code operators, or is dense with code punctuation. Prose that names code (`use \`unknown\`; never \`any\``) passes.
fn looks_like_code(fact: &str) -> bool {
    let t = fact.trim();
    if t.ends_with([':', ';', '{']) || t.contains(['{', '}']) {
        return true;
    }
    if ["=>", "==", "+=", "!=", "::", "->"]
        .iter()
        .any(|op| t.contains(op))
    {
        return true;
    }
    let chars: Vec<char> = t.chars().collect();
    let solid = chars.iter().filter(|c| !c.is_whitespace()).count();
    let punct = chars.iter().filter(|c| "()[]<>=;".contains(**c)).count();
    solid > 0 && punct * 100 >= solid * 12
}

/// Openings and endings of a request to the assistant ("Tell me a joke", "帮我翻译", "教えて").
const REQUEST_STARTS: &[&str] = &[
    "can you",
    "could you",
    "would you",
    "will you",
    "can i",
    "should i",
    "how do i",
    "how can i",
    "tell me",
    "give me",
    "show me",
    "help me",
    "explain",
    "translate",
    "suggest",
    "recommend",
    "write me",
    "quiz me",
    "let me know",
    "请",
    "帮我",
    "给我",
    "告诉我",
    "把",
];
const REQUEST_MARKS: &[&str] = &[
    "翻译",
    "教えて",
    "言って",
    "ちょうだい",
    "줄래",
    "해 줘",
    "해줘",
    "알려줘",
    "알려 줘",
    "추천해",
];

/// Whether a fact is a request to the assistant rather than something about the user.
fn is_request(fact: &str) -> bool {
    asks(&tokenize::fold(fact), REQUEST_STARTS)
}

/// Whether folded text opens with one of `starts` (as whole words) or holds a request mark.
fn asks(folded: &str, starts: &[&str]) -> bool {
    let f = folded.trim_start_matches(|c: char| !c.is_alphanumeric());
    starts.iter().any(|w| {
        f.strip_prefix(w).is_some_and(|rest| {
            rest.is_empty() || !rest.starts_with(|c: char| c.is_ascii_alphanumeric())
        })
    }) || REQUEST_MARKS.iter().any(|m| f.contains(m))
}

/// Openings of a request for one thing now ("Tell me a joke about databases").
const ONE_TIME_STARTS: &[&str] = &[
    "tell me",
    "give me",
    "show me",
    "help me",
    "explain",
    "translate",
    "suggest",
    "recommend",
    "write me",
    "quiz me",
    "帮我",
    "给我",
    "告诉我",
];
/// Words that make a request stand for later answers ("always", "from now on", "以后", "항상"),
/// or set one way against another ("in Vim notation, not VS Code ones").
const STANDING: &[&str] = &[
    "always",
    "never",
    "from now on",
    "whenever",
    "every time",
    "each time",
    "in future",
    "in the future",
    "going forward",
    "anymore",
    "any more",
    "don't",
    "do not",
    "stop ",
    "keep ",
    "when you",
    "总是",
    "一直",
    "以后",
    "每次",
    "永远",
    "不要",
    "别",
    "いつも",
    "今後",
    "これから",
    "毎回",
    "しないで",
    "항상",
    "앞으로",
    "매번",
    "늘 ",
    "하지 마",
    "not ",
    "instead",
    "rather than",
    "for any",
    "for all",
    "every",
    "all my",
    "而不是",
    "不用",
    "じゃなくて",
    "ではなく",
    "말고",
    "대신",
];

/// Whether a feedback "fact" asks for one thing now rather than saying how to answer from now
/// on: it opens or ends as a request and holds no word that makes it stand.
fn is_one_time_request(fact: &str) -> bool {
    let f = tokenize::fold(fact);
    asks(&f, ONE_TIME_STARTS) && !STANDING.iter().any(|w| f.contains(w))
}

/// The fact without its question sentences ("Adopted a puppy named Biscuit! How often should
/// she eat?" → the first sentence) and, with `requests`, its requests to the assistant; all of
/// it when every sentence asks.
fn without_questions(fact: &str, requests: bool) -> String {
    let mut kept = Vec::new();
    let mut sentence = String::new();
    let close = |s: &mut String, asked: bool, kept: &mut Vec<String>| {
        let t = s.trim();
        let request = requests && is_request(t);
        if !t.is_empty() && !asked && !request {
            kept.push(t.to_owned());
        }
        s.clear();
    };
    for c in fact.chars() {
        sentence.push(c);
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？') {
            close(&mut sentence, matches!(c, '?' | '？'), &mut kept);
        }
    }
    close(&mut sentence, false, &mut kept);
    let out = kept.join(" ");
    if out.trim().is_empty() {
        fact.to_owned()
    } else {
        out
    }
}

/// A fact on one line: whitespace runs (newlines too) become one space.
#[must_use]
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(ty: &str, fact: &str, source: i64) -> Patch {
        Patch {
            r#type: ty.to_owned(),
            topic: "t".to_owned(),
            fact: fact.to_owned(),
            why: None,
            how_to_apply: None,
            source,
        }
    }

    fn convo(lines: &[(bool, &str)]) -> Vec<Said> {
        lines
            .iter()
            .map(|(user, t)| Said {
                user: *user,
                text: (*t).to_owned(),
            })
            .collect()
    }

    /// `test` says yes to every one of `yes` and no to every one of `no`.
    fn sorts(test: fn(&str) -> bool, yes: &[&str], no: &[&str]) {
        for y in yes {
            assert!(test(y), "should be yes: {y}");
        }
        for n in no {
            assert!(!test(n), "should be no: {n}");
        }
    }

    #[test]
    fn one_time_requests_are_not_feedback_but_standing_wishes_are() {
        sorts(
            is_one_time_request,
            &[
                "Tell me a joke about databases",
                "Explain what a hash map is in simple terms",
                "帮我翻译这句话",
                "何か面白いダジャレを一つ言って",
            ],
            &[
                "Please keep answers short",
                "Explain things without jargon from now on",
                "Always answer in Spanish",
                "Give me shortcuts in Vim notation, never VS Code ones",
                "give me shortcuts in Vim notation, not VS Code ones",
                "回答请用中文，简短一点",
                "以后帮我把代码注释写成英文",
                "파이썬 코드 써 줄 때는 항상 타입 힌트를 넣고",
            ],
        );
    }

    #[test]
    fn past_only_facts_and_unmarked_questions_are_not_kept() {
        sorts(
            only_past,
            &[
                "Earlier I told you I'm vegan, but that's out of date",
                "我之前住在北京",
                "대학원생이라고 했었는데",
                "I used to work at a bank",
            ],
            &[
                "I used to live in Beijing, now I live in Hangzhou",
                "I moved to Munich last month",
                "以前住北京，现在搬到杭州了",
                "必须在11月20日之前上线",
                "名前はアナです",
                "I'm allergic to peanuts",
            ],
        );
        sorts(
            question_form,
            &[
                "How should I taper",
                "Should I stretch first",
                "what is a hash map",
            ],
            &[
                "How I work: mornings only",
                "I should stretch more",
                "When deploys run we watch Grafana",
            ],
        );
    }

    #[test]
    fn lines_of_code_are_not_facts() {
        sorts(
            looks_like_code,
            &[
                "def show(items):",
                "for i in items:",
                "print(show([1, 2, 3]))",
                "function total(a, b) { return",
                "console. log(total(1, 2));",
                "let x == y",
            ],
            &[
                "In TypeScript never suggest `any`; use `unknown` and narrow it",
                "bugs go in the Linear project MOB (not GitHub issues)",
                "I live in Toronto, but please always use metric units",
                "需求和缺陷统一记在 Jira 的 PAY 项目里",
                "if p99 goes above 800 ms we roll back",
                "four spaces, type hints, and f-strings rather than .format()",
            ],
        );
    }

    #[test]
    fn facts_the_user_said_pass_in_their_words_and_language() {
        let said = convo(&[
            (
                true,
                "Hi! I'm Ana, a data engineer in Lisbon. I'm allergic to peanuts, and please keep answers short.",
            ),
            (false, "Nice to meet you, Ana!"),
            (true, "我住在上海浦东，正在学习日语。"),
        ]);
        let (kept, dropped) = check(
            &[
                patch("user", "The user is allergic to peanuts", 1),
                patch("user", "Ana is a data engineer in Lisbon", 1),
                patch("feedback", "Keep answers short", 1),
                patch("user", "住在上海浦东", 3),
                patch("user", "正在学习日语", 2),
            ],
            &said,
            &HashSet::new(),
        );
        assert_eq!(dropped, vec![], "{dropped:?}");
        assert_eq!(kept.len(), 5);
        assert_eq!(
            kept[4].source, 3,
            "a miscounted source is re-pointed to the user message holding it"
        );
        assert_eq!(kept[2].memory_type, MemoryType::Feedback);
    }

    #[test]
    fn world_questions_inventions_and_assistant_words_are_dropped() {
        let said = convo(&[
            (true, "What is the capital of France?"),
            (
                false,
                "Paris. Also, hash maps are key-value data structures.",
            ),
            (true, "Thanks, that's all!"),
        ]);
        let (kept, dropped) = check(
            &[
                patch("reference", "The capital of France is Paris", 1),
                patch("user", "A hash map is a key-value data structure", 2),
                patch("user", "The user lives in Berlin and likes cycling", 1),
                patch("user", "The user says thanks", 3),
                patch("user", "short", 1),
                patch("mood", "The user is curious about France", 1),
            ],
            &said,
            &HashSet::new(),
        );
        assert!(kept.is_empty(), "{kept:?}");
        let reasons: Vec<&str> = dropped.iter().map(|d| d.reason.as_str()).collect();
        assert!(
            reasons[0].contains("question the user asked"),
            "{reasons:?}"
        );
        assert!(reasons[1].contains("assistant"), "{reasons:?}");
        assert!(reasons[2].contains("did not say it"), "{reasons:?}");
        assert!(
            reasons[3].contains("small talk") || reasons[3].contains("no words of substance"),
            "{reasons:?}"
        );
        assert!(reasons[4].contains("too short"), "{reasons:?}");
        let (kept, _) = check(
            &[
                patch("user", "对花生过敏", 1),
                patch("user", "你好！我叫李娜，在上海做产品经理。", 1),
                patch("user", "谢谢你", 1),
            ],
            &convo(&[(
                true,
                "你好！我叫李娜，在上海做产品经理。我对花生过敏。谢谢你",
            )]),
            &HashSet::new(),
        );
        assert_eq!(
            kept.len(),
            2,
            "short Chinese facts hold; thanks alone does not"
        );
        assert!(reasons[5].contains("type `mood`"), "{reasons:?}");
    }

    #[test]
    fn a_question_in_the_first_person_still_carries_the_fact() {
        let said = convo(&[
            (true, "I'm vegetarian — any quick dinner idea?"),
            (true, "저는 땅콩 알레르기가 있어요. 간식 추천해 줄래요?"),
        ]);
        let (kept, dropped) = check(
            &[
                patch("user", "User is vegetarian", 1),
                patch("user", "땅콩 알레르기가 있음", 2),
            ],
            &said,
            &HashSet::new(),
        );
        assert_eq!((kept.len(), dropped.len()), (2, 0), "{dropped:?}");
    }

    #[test]
    fn questions_are_cut_from_a_fact_and_corrections_may_say_now() {
        let said = convo(&[
            (
                true,
                "Adopted a beagle puppy named Biscuit last weekend! How many times a day should a 10-week-old eat?",
            ),
            (
                true,
                "Actually the Tidepool beta is now on March 17, not March 3.",
            ),
        ]);
        let (kept, dropped) = check(
            &[
                patch(
                    "user",
                    "Adopted a beagle puppy named Biscuit last weekend! How many times a day should a 10-week-old eat?",
                    1,
                ),
                patch("project", "The Tidepool beta is now on March 17.", 2),
                patch("user", "Is debugging the beta right now", 2),
            ],
            &said,
            &HashSet::new(),
        );
        assert_eq!(
            kept[0].patch.fact,
            "Adopted a beagle puppy named Biscuit last weekend!"
        );
        assert_eq!(kept.len(), 2, "{dropped:?}");
        assert!(dropped[0].reason.contains("about the moment"));
    }

    #[test]
    fn requests_to_the_assistant_are_not_facts_unless_they_say_how_to_work() {
        let said = convo(&[(
            true,
            "Tell me a joke about databases. 请把这句话翻译成英文。 何か面白いダジャレを一つ言って。 Please keep answers short.",
        )]);
        let (kept, dropped) = check(
            &[
                patch("user", "Tell me a joke about databases", 1),
                patch("user", "把这句话翻译成英文", 1),
                patch("user", "何か面白いダジャレを一つ言って。", 1),
                patch("feedback", "Please keep answers short", 1),
            ],
            &said,
            &HashSet::new(),
        );
        assert_eq!(kept.len(), 1, "{dropped:?}");
        assert_eq!(kept[0].memory_type, MemoryType::Feedback);
        assert!(
            dropped.iter().all(|d| d.reason.contains("asked for")),
            "{dropped:?}"
        );
        assert!(!is_request("Explains maths to students in Leeds") || is_request("Explain this"));
        assert!(!is_request("Suggestions go to the #ideas channel"));
    }

    #[test]
    fn korean_questions_and_thanks_are_not_facts() {
        let said = convo(&[
            (true, "훈민정음은 언제 반포됐어요?"),
            (true, "고마워요, 오늘은 여기까지 할게요!"),
            (true, "ありがとう、助かりました！"),
        ]);
        let (kept, dropped) = check(
            &[
                patch("reference", "훈민정음은 1446년에 반포됐어요.", 1),
                patch("feedback", "고마워요, 오늘은 여기까지 할게요!", 2),
                patch("feedback", "ありがとう、助かりました！", 3),
            ],
            &said,
            &HashSet::new(),
        );
        assert!(kept.is_empty(), "{kept:?}");
        assert!(dropped[0].reason.contains("question"), "{dropped:?}");
        assert!(first_person("저는 부산에 살아요") && !first_person("언제 반포됐어요?"));
    }

    #[test]
    fn duplicates_of_saved_or_of_each_other_are_dropped() {
        let said = convo(&[(true, "I edit code in Helix and always indent with tabs.")]);
        let existing: HashSet<String> = [fact_key("Edits code in Helix.")].into_iter().collect();
        let (kept, dropped) = check(
            &[
                patch("user", "Edits code in Helix", 1),
                patch("feedback", "Always indent with tabs", 1),
                patch("feedback", "always indent with tabs.", 1),
            ],
            &said,
            &existing,
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(dropped[0].reason, "it is already saved");
        assert_eq!(dropped[1].reason, "the same fact came twice");
    }
}
