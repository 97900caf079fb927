//! `mnemo sync`: sync now, the status, the remote and author, automatic sync, resolving
//! conflicts. A client of the API like every other command.

use mnemo_api::Api;
use mnemo_api::reexports::{FileCounts, RemoteSync};
use mnemo_core::Result;

use crate::cli::{RemoteAction, SyncAction};
use crate::out::{emit, term, term_text};

pub fn run(
    api: &Api,
    workspace: Option<&str>,
    action: Option<SyncAction>,
    json: bool,
) -> Result<()> {
    match action {
        None => {
            let r = api.sync_now(workspace.map(str::to_owned))?;
            emit(json, &r, |r| report(r, true))
        }
        Some(SyncAction::Status) => {
            let r = api.sync_status()?;
            emit(json, &r, |r| report(r, false))
        }
        Some(SyncAction::Remote { action: None }) => {
            let s = api.sync_settings()?;
            emit(json, &s, |s| match &s.remote {
                Some(r) => println!("{}", term(r)),
                None => println!("no sync remote: `mnemo sync remote set URL` sets one"),
            })
        }
        Some(SyncAction::Remote { action: Some(a) }) => {
            let mut s = api.sync_settings()?;
            s.remote = match a {
                RemoteAction::Set { url } => Some(url),
                RemoteAction::Unset => None,
            };
            let s = api.set_sync_settings(s)?;
            emit(json, &s, |s| match &s.remote {
                Some(r) => println!("sync remote set to {}; `mnemo sync` syncs now", term(r)),
                None => println!("sync is off; nothing was deleted here or on the remote"),
            })
        }
        Some(SyncAction::Share { url }) => {
            let ws = workspace.ok_or_else(|| {
                mnemo_core::Error::usage(
                    "say which workspace to share: `mnemo --workspace ID sync share URL`",
                )
            })?;
            let mut s = api.sync_settings()?;
            s.shared.insert(ws.to_owned(), url);
            let s = api.set_sync_settings(s)?;
            emit(json, &s, |s| {
                println!(
                    "{} is shared through {}; `mnemo sync` sends it there, and teammates who share it \
                     get your changes",
                    term(ws),
                    term(s.shared.get(ws).map_or("", String::as_str))
                );
            })
        }
        Some(SyncAction::Unshare) => {
            let ws = workspace.ok_or_else(|| {
                mnemo_core::Error::usage("say which workspace: `mnemo --workspace ID sync unshare`")
            })?;
            let mut s = api.sync_settings()?;
            if s.shared.remove(ws).is_none() {
                return Err(mnemo_core::Error::not_found(format!(
                    "{} is not shared",
                    term(ws)
                )));
            }
            let s = api.set_sync_settings(s)?;
            emit(json, &s, |_| {
                println!("{} syncs with this home's remote again", term(ws));
            })
        }
        Some(SyncAction::Author { author }) => {
            let mut s = api.sync_settings()?;
            s.author = Some(author);
            let s = api.set_sync_settings(s)?;
            emit(json, &s, |s| {
                println!(
                    "sync commits are by {}",
                    term(s.author.as_deref().unwrap_or(""))
                );
            })
        }
        Some(SyncAction::Auto { state }) => {
            let mut s = api.sync_settings()?;
            s.auto = state == "on";
            let s = api.set_sync_settings(s)?;
            emit(json, &s, |s| {
                println!(
                    "automatic sync {} (it runs in the app or `mnemo serve`)",
                    if s.auto { "on" } else { "off" }
                );
            })
        }
        Some(SyncAction::Sessions { state }) => {
            let mut s = api.sync_settings()?;
            s.sessions = state == "on";
            let s = api.set_sync_settings(s)?;
            emit(json, &s, |s| {
                println!(
                    "{}",
                    if s.sessions {
                        "chat sessions sync too (whole conversations, to every machine on the remote)"
                    } else {
                        "chat sessions stay on this machine"
                    }
                );
            })
        }
        Some(SyncAction::ResetLocal) => {
            api.sync_reset_local()?;
            emit(json, &serde_json::json!({ "reset": true }), |_| {
                println!(
                    "this home's sync history is dropped; every memory file is kept. `mnemo sync` \
                     now merges them with the remote's (nothing is deleted)"
                );
            })
        }
        Some(SyncAction::Resolve { id, keep, keep_all }) => {
            let keep = if keep_all {
                None
            } else {
                match keep {
                    Some(0) | None => {
                        return Err(mnemo_core::Error::usage(
                            "--keep counts from 1 (the first version listed)",
                        ));
                    }
                    Some(k) => Some(k - 1),
                }
            };
            let c = api.sync_resolve(id, keep)?;
            emit(json, &c, |c| {
                let what = keep.and_then(|k| c.choices.get(k as usize)).map_or_else(
                    || "every version kept".to_owned(),
                    |ch| {
                        // A choice's label is a phrase ("ana's version", "delete it, as ben
                        // did"): said as what was chosen.
                        if ch.texts.is_empty() {
                            format!("chose to {}", term(&ch.label))
                        } else {
                            format!("kept {}", term(&ch.label))
                        }
                    },
                );
                println!(
                    "resolved the conflict in {}: {what}; the next sync takes it to your other machines",
                    term(&c.path)
                );
            })
        }
    }
}

fn report(r: &RemoteSync, ran: bool) {
    match &r.remote {
        Some(remote) => println!(
            "remote {}{}",
            term(remote),
            if r.auto { " (automatic sync on)" } else { "" }
        ),
        None if r.workspaces.iter().any(|w| w.shared) => {
            println!("no remote of this home's own; shared workspaces sync with their teams");
        }
        None => {
            println!("sync is not set up: `mnemo sync remote set URL` (any git URL or a folder)");
            return;
        }
    }
    if let Some(run) = &r.last_run
        && let Some(e) = &run.error
    {
        println!(
            "last sync {} failed: {}",
            mnemo_api::local_time(Some(&run.at)),
            term_text(&e.message)
        );
    }
    if !ran && r.ahead > 0 {
        println!(
            "{} sync commit(s) here are not on the remote yet: `mnemo sync` sends them",
            r.ahead
        );
    }
    if !ran && r.behind > 0 {
        println!(
            "{} commit(s) on the remote are not merged here yet: `mnemo sync` takes them",
            r.behind
        );
    }
    for w in &r.workspaces {
        let Some(key) = &w.key else {
            if !ran {
                println!(
                    "{}  not synced: {}",
                    term(&w.workspace),
                    term(w.not_synced.as_deref().unwrap_or(""))
                );
            }
            continue;
        };
        let mut line = format!(
            "{}  as {}{}  last synced {}",
            term(&w.workspace),
            term(key),
            if w.shared {
                format!(
                    " (shared with a team through {})",
                    term(w.remote.as_deref().unwrap_or(""))
                )
            } else {
                String::new()
            },
            mnemo_api::local_time(w.last_synced.as_deref())
        );
        if ran {
            line.push_str(&format!(
                ": sent {}, received {}",
                counts(&w.sent),
                counts(&w.received)
            ));
            if let Some(g) = w.group {
                line.push_str(&format!(
                    " (`mnemo undo --group {g}` takes back what was received)"
                ));
            }
        } else {
            line.push_str(&format!(
                ", {} change(s) to send, {} to receive",
                w.pending, w.incoming
            ));
        }
        println!("{line}");
        if !w.shares_with.is_empty() {
            let others: Vec<String> = w.shares_with.iter().map(|o| term(o)).collect();
            println!(
                "  shares one memory with {}: checkouts of one project, their files merged as one \
                 set (deleting a file in one deletes it in all)",
                others.join(", ")
            );
        }
        if ran && w.sent.removed >= FEW_DELETIONS {
            println!(
                "  warning: this sync deleted {} memories on the remote, so every machine that \
                 syncs deletes them at its next sync. Not meant? Bring them back here \
                 (`mnemo history` lists the deletions, `mnemo undo ID` restores each) and sync \
                 again before the other machines do",
                w.sent.removed
            );
        }
        if ran && w.received.removed >= FEW_DELETIONS {
            let undo = w
                .group
                .map_or_else(String::new, |g| format!(" `mnemo undo --group {g}`"));
            println!(
                "  warning: this sync deleted {} memories here because the remote no longer holds \
                 them. Not meant?{undo} brings them back, and the next sync restores them on every \
                 machine",
                w.received.removed
            );
        }
        for c in &w.conflicts {
            println!(
                "  conflict {}  in {} ({}):",
                c.id,
                term(&c.path),
                term(&c.kind.replace('_', " "))
            );
            for (i, ch) in c.choices.iter().enumerate() {
                let text = if ch.texts.is_empty() {
                    "(deleted)".to_owned()
                } else {
                    ch.texts.join(" / ")
                };
                println!("    {}. {}: {}", i + 1, term(&ch.label), term(&text));
            }
            println!(
                "    choose with `mnemo sync resolve {} --keep N` (or --keep-all)",
                c.id
            );
        }
        for f in &w.flagged {
            println!("  flagged {}: {}", term(&f.path), term(&f.why));
        }
    }
    for k in &r.elsewhere {
        println!(
            "on the remote, not here: {} ({} file(s)): {}",
            term(&k.key),
            k.files,
            term(&k.why)
        );
    }
}

/// From this many deletions on, a sync's report warns.
const FEW_DELETIONS: u32 = 3;

/// "+2 −1 ~3", or "nothing".
fn counts(c: &FileCounts) -> String {
    if c.is_empty() {
        return "nothing".to_owned();
    }
    let mut parts = Vec::new();
    for (n, sign) in [(c.added, '+'), (c.removed, '−'), (c.changed, '~')] {
        if n > 0 {
            parts.push(format!("{sign}{n}"));
        }
    }
    parts.join(" ")
}
