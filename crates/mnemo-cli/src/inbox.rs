//! `mnemo inbox`, `mnemo review`, `mnemo stats --memories`: review proposals and usage per
//! memory, through the API.

use mnemo_api::Api;
use mnemo_api::reexports::{AcceptChoice, ProposalStatus};
use mnemo_core::{Error, ErrorCode, Result};

use crate::cli::InboxAction;
use crate::out::{emit, term, term_list};

const PERSONAL: &str = "personal";

/// With `-w W`, a proposal of another workspace is refused: the id was meant for `W`.
fn in_workspace(api: &Api, id: i64, workspace: Option<&str>) -> Result<()> {
    let Some(w) = workspace else { return Ok(()) };
    let p = api.proposal(id)?;
    if p.summary.workspace != w {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!(
                "proposal {id} is not in workspace {w} (it is in {}): give -w {} or leave -w out",
                term(&p.summary.workspace),
                term(&p.summary.workspace)
            ),
        ));
    }
    Ok(())
}

pub fn run(
    api: &Api,
    workspace: Option<&str>,
    action: Option<InboxAction>,
    json: bool,
) -> Result<()> {
    let ws = workspace.unwrap_or(PERSONAL).to_owned();
    match action.unwrap_or(InboxAction::List {
        status: "pending".into(),
        offset: 0,
        limit: 50,
    }) {
        InboxAction::List {
            status,
            offset,
            limit,
        } => {
            let status = match status.as_str() {
                "all" => None,
                s => Some(mnemo_api::parse_status(s)?),
            };
            let page = api.inbox(ws.clone(), status, Some(offset), Some(limit))?;
            emit(json, &page, |p| {
                if p.items.is_empty() {
                    println!("no proposals here ({} pending in {})", p.pending, term(&ws));
                    return;
                }
                for s in &p.items {
                    println!(
                        "{:>5}  {:<9} {:<8} {}  {} ({} {})",
                        s.id,
                        s.status.as_str(),
                        term(&s.kind),
                        mnemo_api::local_time(Some(&s.at)),
                        term_list(&s.paths),
                        s.changes,
                        if s.changes == 1 { "change" } else { "changes" }
                    );
                }
                println!(
                    "{} of {} shown, {} pending — `mnemo inbox show ID` for the diff",
                    p.items.len(),
                    p.total,
                    p.pending
                );
            })
        }
        InboxAction::Show { id } => {
            in_workspace(api, id, workspace)?;
            let p = api.proposal(id)?;
            emit(json, &p, |p| {
                let s = &p.summary;
                println!(
                    "proposal {} — {} by {} ({}), {}",
                    s.id,
                    term(&s.label),
                    s.source.as_str(),
                    s.status.as_str(),
                    mnemo_api::local_time(Some(&s.at))
                );
                // What a proposal holds is a model's or a client's words.
                if let Some(m) = &s.origin.message {
                    println!("  from: \"{}\"", term(m));
                }
                if let Some(n) = &s.note {
                    println!("  {}", term(n));
                }
                for f in &p.files {
                    println!("\n{} ({})", term(&f.path), f.op.as_str());
                    for e in &f.entries {
                        println!("  [{}] {:?}", term(&e.id), e.op);
                        for l in e.before.as_deref().unwrap_or("").lines() {
                            println!("    - {}", term(l));
                        }
                        for l in e.after.as_deref().unwrap_or("").lines() {
                            println!("    + {}", term(l));
                        }
                    }
                }
                if s.status == ProposalStatus::Pending {
                    println!(
                        "\naccept: mnemo inbox accept {id} [--entry ID …]   reject: mnemo inbox reject {id} [--dont-learn]"
                    );
                }
            })
        }
        InboxAction::Accept { id, entries } => {
            in_workspace(api, id, workspace)?;
            let choice = AcceptChoice {
                entries: (!entries.is_empty()).then_some(entries),
                edits: Vec::new(),
            };
            let done = api.inbox_accept(id, Some(choice))?;
            emit(json, &done, |d| {
                println!(
                    "accepted proposal {id}: wrote {}{}",
                    term_list(&d.paths),
                    d.proposal
                        .note
                        .as_deref()
                        .map(|n| format!(" ({})", term(n)))
                        .unwrap_or_default()
                );
                println!("undo it with `mnemo undo --group {}`", d.group);
            })
        }
        InboxAction::Reject { id, dont_learn } => {
            in_workspace(api, id, workspace)?;
            let s = api.inbox_reject(id, Some(dont_learn))?;
            emit(json, &s, |s| {
                println!(
                    "rejected proposal {id}{}",
                    s.note
                        .as_deref()
                        .map(|n| format!(": {}", term(n)))
                        .unwrap_or_default()
                );
            })
        }
    }
}

pub fn review(api: &Api, workspace: Option<&str>, state: Option<&str>, json: bool) -> Result<()> {
    let ws = workspace.unwrap_or(PERSONAL).to_owned();
    let mode = match state {
        Some(s) => api.set_review_mode(ws.clone(), s == "on")?,
        None => api.review_mode(ws.clone())?,
    };
    emit(json, &mode, |m| {
        println!(
            "review mode is {} for {}{}",
            if m.on { "on" } else { "off" },
            term(&ws),
            if m.on {
                ": extraction, dream, remember and MCP writes wait in `mnemo inbox`"
            } else {
                ""
            }
        );
    })
}

pub fn usage(api: &Api, workspace: Option<&str>, json: bool) -> Result<()> {
    let ws = workspace.unwrap_or(PERSONAL).to_owned();
    let mut list = api.memory_usage(ws, None)?;
    list.sort_by(|a, b| {
        b.recalls
            .cmp(&a.recalls)
            .then(b.tokens.cmp(&a.tokens))
            .then(a.path.cmp(&b.path))
    });
    emit(json, &list, |list| {
        println!(
            "{:>8} {:>9} {:>8}  {:<17} memory",
            "recalls", "tokens", "sessions", "last recalled"
        );
        for u in list {
            println!(
                "{:>8} {:>9} {:>8}  {:<17} {}",
                u.recalls,
                u.tokens,
                u.sessions,
                u.last_recalled
                    .as_deref()
                    .map_or_else(|| "never".to_owned(), |t| mnemo_api::local_time(Some(t))),
                term(&u.path)
            );
        }
    })
}
