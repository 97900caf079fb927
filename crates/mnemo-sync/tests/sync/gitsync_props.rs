//! Sync under random edits and races: random edit scripts on two homes with syncs in
//! between converge, and lose no entry nobody removed; syncs racing local edits and each other
//! (two processes' vaults on one home) never lose either.

use std::collections::BTreeSet;

use mnemo_sync::VaultSync;
use proptest::prelude::*;

use super::gitsync::{Side, bare};
use super::topic;

#[derive(Debug, Clone)]
enum Op {
    Add { file: usize },
    Edit { file: usize, entry: usize },
    Delete { file: usize, entry: usize },
    Sync,
}

fn op() -> impl Strategy<Value = (bool, Op)> {
    let f = 0..3usize;
    let e = 0..4usize;
    (
        any::<bool>(),
        prop_oneof![
            3 => f.clone().prop_map(|file| Op::Add { file }),
            2 => (f.clone(), e.clone()).prop_map(|(file, entry)| Op::Edit { file, entry }),
            1 => (f, e).prop_map(|(file, entry)| Op::Delete { file, entry }),
            2 => Just(Op::Sync),
        ],
    )
}

pub fn entries_of(text: &str) -> Vec<String> {
    let body = text.splitn(3, "---\n").nth(2).unwrap_or("");
    body.split("\n\n")
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .collect()
}

fn write_entries(side: &Side, file: usize, entries: &[String]) {
    let name = format!("F{file}");
    side.write(
        &format!("f{file}.md"),
        &topic(&name, "facts", "user", &entries.join("\n\n")),
    );
}

fn all_entries(side: &Side) -> BTreeSet<String> {
    side.files().values().flat_map(|t| entries_of(t)).collect()
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .map_or(24, |c: u32| (c / 10).max(24))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_edits_on_two_homes_converge_and_lose_nothing(script in proptest::collection::vec(op(), 1..24)) {
        let t = tempfile::tempdir().unwrap();
        let r = bare(t.path());
        let sides = [Side::new(t.path(), "ana", &r), Side::new(t.path(), "ben", &r)];
        let mut live: BTreeSet<String> = BTreeSet::new();
        let mut n = 0;
        for (on_b, op) in script {
            let side = &sides[usize::from(on_b)];
            let mut fresh = || { n += 1; format!("Fact {n} from {}.", if on_b { "ben" } else { "ana" }) };
            match op {
                Op::Sync => { side.sync(); }
                Op::Add { file } => {
                    let mut es = side.read(&format!("f{file}.md")).map(|t| entries_of(&t)).unwrap_or_default();
                    let e = fresh();
                    live.insert(e.clone());
                    es.push(e);
                    write_entries(side, file, &es);
                }
                Op::Edit { file, entry } => {
                    let Some(text) = side.read(&format!("f{file}.md")) else { continue };
                    let mut es = entries_of(&text);
                    if es.is_empty() { continue; }
                    let i = entry % es.len();
                    live.remove(&es[i]);
                    let e = fresh();
                    live.insert(e.clone());
                    es[i] = e;
                    write_entries(side, file, &es);
                }
                Op::Delete { file, entry } => {
                    let Some(text) = side.read(&format!("f{file}.md")) else { continue };
                    let mut es = entries_of(&text);
                    if es.is_empty() { continue; }
                    let i = entry % es.len();
                    live.remove(&es.remove(i));
                    write_entries(side, file, &es);
                }
            }
        }
        for s in [0, 1, 0, 1] {
            sides[s].sync();
        }
        prop_assert_eq!(sides[0].files(), sides[1].files());
        let have = all_entries(&sides[0]);
        let lost: Vec<&String> = live.iter().filter(|e| !have.contains(*e)).collect();
        prop_assert!(lost.is_empty(), "lost: {:?}", lost);
    }
}

#[test]
fn syncs_racing_local_edits_and_each_other_lose_nothing() {
    let t = tempfile::tempdir().unwrap();
    let r = bare(t.path());
    let a = Side::new(t.path(), "ana", &r);
    let b = Side::new(t.path(), "ben", &r);
    a.sync();
    // A second vault on A's home: the app and the CLI at once.
    let a2 = mnemo_store::Vault::open(mnemo_store::Home {
        root: a.dir.join("home"),
        claude_dir: a.dir.join("claude"),
        qwen_dir: a.dir.join("qwen"),
    })
    .unwrap();
    let rounds = 30;
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..rounds {
                a.write(
                    &format!("a{i}.md"),
                    &topic(&format!("A{i}"), "a", "user", &format!("Edit {i} on A.")),
                );
                append(&a, &format!("Shared fact {i} from A."));
                std::thread::sleep(std::time::Duration::from_millis(3));
            }
        });
        s.spawn(|| {
            for i in 0..rounds {
                b.write(
                    &format!("b{i}.md"),
                    &topic(&format!("B{i}"), "b", "user", &format!("Edit {i} on B.")),
                );
                append(&b, &format!("Shared fact {i} from B."));
                let _ = b.vault.sync_remote(None, None);
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
        s.spawn(|| {
            for _ in 0..rounds / 3 {
                a.vault.sync_remote(None, None).unwrap();
            }
        });
        s.spawn(|| {
            for _ in 0..rounds / 3 {
                a2.sync_remote(None, None).unwrap();
            }
        });
    });
    for side in [&a, &b, &a, &b] {
        side.sync();
    }
    assert_eq!(a.files(), b.files());
    assert_eq!(
        a.files().len(),
        2 * rounds + 1,
        "every file of both homes, on both"
    );
    let shared = entries_of(&a.read("shared.md").unwrap());
    for i in 0..rounds {
        for who in ["A", "B"] {
            let e = format!("Shared fact {i} from {who}.");
            assert!(shared.contains(&e), "{e} lost: {shared:?}");
        }
    }
}

/// Append an entry the way Mnemo's own writers do: read and write under the write lock.
fn append(side: &Side, entry: &str) {
    let ws = side.vault.workspace("personal").unwrap();
    side.vault
        .mutate(
            &ws,
            "shared.md",
            mnemo_core::ChangeSource::User,
            None,
            |cur, _| {
                let mut es = cur
                    .map(|b| entries_of(&String::from_utf8_lossy(b)))
                    .unwrap_or_default();
                es.push(entry.to_owned());
                Ok(Some(
                    topic("Shared", "shared", "user", &es.join("\n\n")).into_bytes(),
                ))
            },
        )
        .unwrap();
}
