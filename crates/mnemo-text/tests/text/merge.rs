//! Properties of the entry-level three-way merge: random edit scripts on two sides of
//! one base; nothing either side added or edited is lost, deletions hold where the other side did
//! not touch the entry, and the merge is the same set of entries whichever side is "ours".

use std::collections::HashSet;

use mnemo_text::merge::{Conflict, merge_entries};
use proptest::prelude::*;

/// What a side does to one base entry, and whether it adds an entry after it.
#[derive(Debug, Clone, Copy)]
enum Op {
    Keep,
    Delete,
    Edit,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![4 => Just(Op::Keep), 1 => Just(Op::Delete), 1 => Just(Op::Edit)]
}

/// Apply a script: (op, add-after) per base entry, plus an optional entry at the start.
fn apply(base: &[String], side: &str, script: &[(Op, bool)], add_first: bool) -> Vec<String> {
    let mut out = Vec::new();
    if add_first {
        out.push(format!("new {side} first"));
    }
    for (i, (e, (op, add))) in base.iter().zip(script).enumerate() {
        match op {
            Op::Keep => out.push(e.clone()),
            Op::Delete => {}
            Op::Edit => out.push(format!("{e} edited by {side}")),
        }
        if *add {
            out.push(format!("new {side} after {i}"));
        }
    }
    out
}

fn set(v: &[String]) -> HashSet<String> {
    v.iter().cloned().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn nothing_added_or_edited_is_lost_and_deletions_hold(
        n in 0usize..12,
        ours in prop::collection::vec((op(), any::<bool>()), 12),
        theirs in prop::collection::vec((op(), any::<bool>()), 12),
        o_first in any::<bool>(),
        t_first in any::<bool>(),
    ) {
        let base: Vec<String> = (0..n).map(|i| format!("fact {i}")).collect();
        let o = apply(&base, "ours", &ours, o_first);
        let t = apply(&base, "theirs", &theirs, t_first);
        let (m, conflicts) = merge_entries(&base, &o, &t);
        let got = set(&m);
        prop_assert_eq!(got.len(), m.len(), "no entry twice: {:?}", m);
        for e in o.iter().chain(&t) {
            if !base.contains(e) {
                prop_assert!(got.contains(e), "lost {e}: {m:?}");
            }
        }
        for (i, e) in base.iter().enumerate() {
            let (ko, kt) = (matches!(ours[i].0, Op::Keep), matches!(theirs[i].0, Op::Keep));
            if ko && kt {
                prop_assert!(got.contains(e), "kept by both, lost: {e}");
            } else {
                prop_assert!(!got.contains(e), "changed or deleted on a side, still here: {e}");
            }
        }
        // Order: what both kept stays in base order.
        let kept: Vec<&String> = m.iter().filter(|e| base.contains(e)).collect();
        let mut sorted = kept.clone();
        sorted.sort_by_key(|e| base.iter().position(|b| b == *e));
        prop_assert_eq!(kept, sorted);
        // The same entries whichever side is ours.
        let (m2, c2) = merge_entries(&base, &t, &o);
        prop_assert_eq!(&set(&m2), &got);
        prop_assert_eq!(c2.len(), conflicts.len());
        // A conflict only where both sides changed or deleted the same entry (a deletion plus
        // an addition reads as an edit: entries have no identity beyond their text).
        let both_changed = base
            .iter()
            .enumerate()
            .any(|(i, _)| !matches!(ours[i].0, Op::Keep) && !matches!(theirs[i].0, Op::Keep));
        if !both_changed {
            prop_assert!(conflicts.is_empty(), "{conflicts:?}");
        }
        for c in &conflicts {
            if let Conflict::Edited { ours, theirs, .. } = c {
                prop_assert!(ours.iter().chain(theirs).all(|e| got.contains(e)));
            }
        }
    }

    #[test]
    fn one_side_unchanged_gives_the_other(
        n in 0usize..12,
        script in prop::collection::vec((op(), any::<bool>()), 12),
        first in any::<bool>(),
    ) {
        let base: Vec<String> = (0..n).map(|i| format!("fact {i}")).collect();
        let side = apply(&base, "x", &script, first);
        let (m, c) = merge_entries(&base, &side, &base);
        prop_assert_eq!(&m, &side);
        prop_assert!(c.is_empty());
        let (m, c) = merge_entries(&base, &base, &side);
        prop_assert_eq!(&m, &side);
        prop_assert!(c.is_empty());
    }
}
