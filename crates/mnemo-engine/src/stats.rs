//! The status panel's figures: per workspace, the automatic-memory switches, last
//! extraction and dream, MEMORY.md's budget, memory health (stale, likely duplicates, invalid
//! files) and recent telemetry. The API's `stats`, `mnemo stats` and `/memory` all show these.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{DateTime, Duration, Utc};
use mnemo_core::Result;
use mnemo_store::settings::Switches;
use mnemo_store::{Vault, Workspace, doc, memory_md};
use serde::Serialize;

/// Memories unchanged this long and never recalled count as stale.
pub const STALE_DAYS: i64 = 90;
/// Telemetry events returned at most.
pub const TELEMETRY: usize = 200;

/// One telemetry event.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::TelemetryEvent`.
#[derive(Debug, Clone, Serialize)]
pub struct TelemetryEvent {
    pub at: String,
    pub kind: String,
    pub data: String,
}

/// The status panel's figures for one workspace.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::MemoryStats`.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryStats {
    pub workspace: String,
    pub auto_extract: bool,
    pub auto_dream: bool,
    pub last_extract_at: Option<String>,
    pub last_extract_status: Option<String>,
    pub last_dream_at: Option<String>,
    pub last_dream_status: Option<String>,
    pub last_dream_undone_by: Option<i64>,
    pub topics: u32,
    pub logs: u32,
    pub chats: u32,
    pub chat_records: bool,
    pub extraction: Option<crate::planner::choice::Choice>,
    pub memory_md_lines: u32,
    pub memory_md_max_lines: u32,
    pub memory_md_bytes: u32,
    pub memory_md_max_bytes: u32,
    pub invalid: Vec<String>,
    pub stale: Vec<String>,
    pub expensive: Vec<String>,
    pub archived: Vec<String>,
    pub duplicates: u32,
    pub duplicate_files: Vec<String>,
    pub same_name: Vec<Vec<String>>,
    pub same_subject: Vec<Vec<String>>,
    pub telemetry: Vec<TelemetryEvent>,
}

fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The status panel's figures for a workspace, from the index, meta.json, the files and the
/// telemetry.
pub fn compute(vault: &Vault, ws: &Workspace, switches: Switches) -> Result<MemoryStats> {
    let meta = vault.meta(ws)?.value;
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let records = vault.logs(&ws.id)?;
    let events: Vec<TelemetryEvent> = vault
        .events(None, 5_000)?
        .into_iter()
        .filter(|(_, _, w, _)| *w == ws.id)
        .take(TELEMETRY * 5)
        .map(|(at, kind, _, data)| TelemetryEvent {
            at,
            kind,
            data: data.to_string(),
        })
        .collect();
    let old = Utc::now() - Duration::days(STALE_DAYS);
    let usage = vault.usage(&ws.id, None)?;
    let recalled: HashSet<String> = usage
        .iter()
        .filter(|u| {
            u.recalls > 0
                && u.last_recalled
                    .as_deref()
                    .and_then(parse_time)
                    .is_some_and(|t| t >= old)
        })
        .map(|u| u.path.clone())
        .collect();
    let mut costly: Vec<&mnemo_store::journal::MemoryUsage> =
        usage.iter().filter(|u| u.tokens > 0).collect();
    costly.sort_by(|a, b| b.tokens.cmp(&a.tokens).then(a.path.cmp(&b.path)));
    let live: HashSet<&str> = docs.iter().map(|d| d.path.as_str()).collect();
    let expensive: Vec<String> = costly
        .into_iter()
        .filter(|u| live.contains(u.path.as_str()))
        .take(5)
        .map(|u| u.path.clone())
        .collect();
    let topics: Vec<_> = docs
        .iter()
        .filter(|d| d.kind == doc::DocKind::Topic)
        .collect();
    let stale = topics
        .iter()
        .filter(|d| d.valid && !d.archived && !d.pinned)
        .filter(|d| parse_time(&d.mtime).is_some_and(|t| t < old))
        .filter(|d| !recalled.contains(&d.path))
        .map(|d| d.path.clone())
        .collect();
    let archived = topics
        .iter()
        .filter(|d| d.archived)
        .map(|d| d.path.clone())
        .collect();
    let plan = crate::dream::plan_mechanical(ws);
    let index =
        std::fs::read_to_string(ws.memory_root.join(memory_md::FILE_NAME)).unwrap_or_default();
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(MemoryStats {
        auto_extract: switches.auto_extract,
        auto_dream: switches.auto_dream,
        last_extract_at: meta.last_extract_at,
        last_extract_status: meta.last_extract_status,
        last_dream_at: meta.last_dream_at,
        last_dream_undone_by: last_dream_undone_by(vault, ws, meta.last_dream_status.as_deref()),
        last_dream_status: meta.last_dream_status,
        topics: to_u32(topics.len()),
        // The index's list holds topic files only: logs and records are counted from theirs.
        logs: to_u32(
            records
                .iter()
                .filter(|d| d.kind == doc::DocKind::Log)
                .count(),
        ),
        chats: to_u32(
            records
                .iter()
                .filter(|d| d.kind == doc::DocKind::Chat)
                .count(),
        ),
        chat_records: switches.chat_records,
        extraction: None,
        memory_md_lines: to_u32(index.lines().count()),
        memory_md_max_lines: to_u32(memory_md::MAX_LINES),
        memory_md_bytes: to_u32(index.len()),
        memory_md_max_bytes: to_u32(memory_md::MAX_BYTES),
        invalid: topics
            .iter()
            .filter(|d| !d.valid)
            .map(|d| d.path.clone())
            .collect(),
        stale,
        expensive,
        archived,
        duplicates: plan.entries_merged,
        duplicate_files: plan
            .changes
            .iter()
            .filter(|c| c.entries_after < c.entries_before)
            .map(|c| c.path.clone())
            .collect(),
        same_name: same_name(&topics),
        same_subject: same_subject(&topics),
        telemetry: events.into_iter().take(TELEMETRY).collect(),
        workspace: ws.id.clone(),
    })
}

/// Valid topics whose names fold to the same words, grouped (each group and the list sorted).
fn same_name(topics: &[&mnemo_store::index::DocSummary]) -> Vec<Vec<String>> {
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in topics.iter().filter(|d| d.valid) {
        let key = d
            .name
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        if !key.is_empty() {
            by.entry(key).or_default().push(d.path.clone());
        }
    }
    let mut groups: Vec<Vec<String>> = by
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|mut g| {
            g.sort();
            g
        })
        .collect();
    groups.sort();
    groups
}

/// Pairs [`same_subject`] reports at most.
pub const MAX_SAME_SUBJECT: usize = 20;

/// Valid topics of one type whose names' content words overlap as one subject (a subset, or at
/// least half of all their words shared) but do not fold to the same name (those are in
/// [`same_name`]). Only names sharing a word are compared. Pairs sorted, each sorted.
fn same_subject(topics: &[&mnemo_store::index::DocSummary]) -> Vec<Vec<String>> {
    let fold = |n: &str| {
        n.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let docs: Vec<(&mnemo_store::index::DocSummary, BTreeSet<String>)> = topics
        .iter()
        .filter(|d| d.valid)
        .map(|d| {
            let words = crate::recall::content_query(&d.name)
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            (*d, words)
        })
        .filter(|(_, w): &(_, BTreeSet<String>)| !w.is_empty())
        .collect();
    let mut by_word: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, (_, words)) in docs.iter().enumerate() {
        for w in words {
            by_word.entry(w.as_str()).or_default().push(i);
        }
    }
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    for ids in by_word.values() {
        for (k, &a) in ids.iter().enumerate() {
            for &b in &ids[k + 1..] {
                pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    let mut out: Vec<Vec<String>> = pairs
        .into_iter()
        .filter_map(|(a, b)| {
            let ((da, wa), (db, wb)) = (&docs[a], &docs[b]);
            if da.memory_type != db.memory_type || fold(&da.name) == fold(&db.name) {
                return None;
            }
            let shared = wa.intersection(wb).count();
            let union = wa.union(wb).count();
            let one_subject = wa.is_subset(wb) || wb.is_subset(wa) || 2 * shared >= union;
            one_subject.then(|| {
                let mut pair = vec![da.path.clone(), db.path.clone()];
                pair.sort();
                pair
            })
        })
        .collect();
    out.sort();
    out.truncate(MAX_SAME_SUBJECT);
    out
}

/// Whether the last dream's changes were undone since. Only a dream that updated files has a
/// change group, so the newest dream group is the last dream's only when it ended `updated`.
fn last_dream_undone_by(vault: &Vault, ws: &Workspace, status: Option<&str>) -> Option<i64> {
    if status != Some("updated") {
        return None;
    }
    let group = vault.last_group(&ws.id, "dream").ok().flatten()?;
    vault.group_undone_by(group).ok().flatten()
}

#[cfg(test)]
mod tests {
    use mnemo_core::MemoryType;
    use mnemo_store::doc::DocKind;
    use mnemo_store::index::DocSummary;

    fn typed(path: &str, name: &str, t: MemoryType) -> DocSummary {
        DocSummary {
            memory_type: Some(t),
            ..doc(path, name, true)
        }
    }

    #[test]
    fn memories_about_one_subject_are_paired_whatever_their_names_say_around_it() {
        use MemoryType::{Project, User};
        let docs = [
            typed("pet.md", "Pet", User),
            typed("users-pet.md", "The user's pet", User),
            typed("pet-2.md", "pet", User),
            typed("deploy-day.md", "Deploy day", Project),
            typed("deploy-day-rules.md", "Deploy day rules", Project),
            typed(
                "deploy-keys.md",
                "Deploy keys and secrets rotation",
                Project,
            ),
            typed("pet-food.md", "Pet", Project),
            typed("coffee.md", "咖啡", User),
            typed("coffee-2.md", "喝咖啡", User),
            doc("broken.md", "Pet", false),
        ];
        let refs: Vec<&DocSummary> = docs.iter().collect();
        assert_eq!(
            super::same_subject(&refs),
            vec![
                // 咖啡 is within 喝咖啡.
                vec!["coffee-2.md".to_owned(), "coffee.md".to_owned()],
                // "deploy day" is within "deploy day rules".
                vec!["deploy-day-rules.md".to_owned(), "deploy-day.md".to_owned()],
                vec!["pet-2.md".to_owned(), "users-pet.md".to_owned()],
                vec!["pet.md".to_owned(), "users-pet.md".to_owned()],
            ],
            "not: pet.md with pet-2.md (same name: listed there), a project memory with a user one, \
             two names sharing one word of many, an invalid file"
        );
    }

    fn doc(path: &str, name: &str, valid: bool) -> DocSummary {
        DocSummary {
            workspace: "w".into(),
            path: path.into(),
            kind: DocKind::Topic,
            memory_type: None,
            name: name.into(),
            description: String::new(),
            mtime: String::new(),
            valid,
            problem: None,
            secret: None,
            pinned: false,
            archived: false,
        }
    }

    #[test]
    fn memories_sharing_a_name_are_grouped_case_and_spacing_aside() {
        let docs = [
            doc("pet.md", "Pet", true),
            doc("user/pet-2.md", "  pet ", true),
            doc("tea.md", "Tea", true),
            doc("broken.md", "Tea", false),
            doc("a.md", "Deploy  day", true),
            doc("b.md", "deploy day", true),
        ];
        let refs: Vec<&DocSummary> = docs.iter().collect();
        assert_eq!(
            super::same_name(&refs),
            vec![
                vec!["a.md".to_owned(), "b.md".to_owned()],
                vec!["pet.md".to_owned(), "user/pet-2.md".to_owned()],
            ]
        );
    }
}
