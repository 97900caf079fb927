//! A planted GitHub token — in a chat that gets compacted (and echoed by the model's
//! summary), in a remember request, in a file name and in a chat title — is refused or redacted
//! everywhere: no file under the home, no request to the model, no event holds it.

use std::time::Duration;

use mnemo_api::{ChatEvent, ModelSettings, NewMemory};
use mnemo_core::{ErrorCode, MemoryType};
use mnemo_testkit::{FakeModel, Kind, Reply};

use crate::common::{api, blocking, settings};

const TOKEN: &str = "ghp_Zq8Xw2Lm4Nv6Bc1Tr9Yh3Kp5Js7Df0Ga2We4";

fn files_holding(dir: &std::path::Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read(&p)
                .unwrap_or_default()
                .windows(needle.len())
                .any(|w| w == needle)
            {
                found.push(p.display().to_string());
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_token_is_refused_or_redacted_everywhere() {
    let (d, api) = api();
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = ModelSettings {
        context_window: 4_096,
        ..settings(&fake)
    };
    blocking(move || a.set_model_settings(s)).await.unwrap();
    let chat_events = api.subscribe_chat();
    let task_events = api.subscribe_tasks();

    // Remember: refused at intake, naming the rule, before any model sees it.
    let e = api
        .remember(None, format!("My GitHub token is {TOKEN}"), None, None)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent);
    assert!(
        e.message.contains("github_token") && !e.message.contains(TOKEN),
        "{}",
        e.message
    );
    // A file name: refused.
    let e = api
        .create(
            "personal".into(),
            NewMemory {
                path: Some(format!("{TOKEN}.md")),
                name: "Deploy".into(),
                description: "How we deploy".into(),
                memory_type: MemoryType::Project,
                body: "Tag, then ship.".into(),
            },
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent);
    // A chat title: redacted.
    let session = api
        .chat_create("personal".into(), Some(format!("token {TOKEN}")))
        .unwrap();
    assert_eq!(session.title, "token [redacted: github_token]");

    // A chat holding the token, long enough to be compacted; the model's summary even "echoes"
    // a token (a model may have seen one elsewhere).
    fake.push_for(
        Kind::Plain,
        Reply::text(format!("SUMMARY: they shared {TOKEN} earlier.")),
    );
    for i in 0..5 {
        fake.push_for(Kind::Stream, Reply::text(format!("Noted {i}.")));
        let text = format!(
            "turn {i}: my token is {TOKEN}. {}",
            "we compared flights, hotels and trains for the trip in detail. ".repeat(45)
        );
        let (a, sid) = (api.clone(), session.id.clone());
        blocking(move || a.chat_send("personal".into(), sid, text))
            .await
            .unwrap();
        loop {
            let ev = chat_events.recv_timeout(Duration::from_secs(30)).unwrap();
            assert!(!format!("{ev:?}").contains(TOKEN), "{ev:?}");
            if matches!(ev, ChatEvent::Extracted { .. }) {
                break;
            }
        }
    }
    let transcript = api
        .chat_transcript("personal".into(), session.id.clone())
        .unwrap();
    assert!(!transcript.compactions.is_empty(), "the chat was compacted");
    assert!(!serde_json::to_string(&transcript).unwrap().contains(TOKEN));
    // The model never saw it.
    assert!(
        !serde_json::to_string(&fake.requests())
            .unwrap()
            .contains(TOKEN)
    );
    // No task row or task event.
    for t in api.tasks(None, None, None, None).unwrap() {
        assert!(!serde_json::to_string(&t).unwrap().contains(TOKEN), "{t:?}");
    }
    while let Ok(t) = task_events.try_recv() {
        assert!(!format!("{t:?}").contains(TOKEN));
    }
    // No file anywhere under the home: sessions, daily logs, index, journal, tasks.
    let holding = files_holding(&d.path().join("home"), TOKEN.as_bytes());
    assert!(holding.is_empty(), "{holding:?}");
}

/// A secret in the model's reply (a model may repeat one it saw elsewhere, or invent
/// one) is redacted as the reply streams — no piece of it is ever shown — and before it is saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_in_the_models_reply_is_redacted_as_it_streams_and_when_saved() {
    let (d, api) = api();
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = settings(&fake);
    blocking(move || a.set_model_settings(s)).await.unwrap();
    let chat_events = api.subscribe_chat();
    let session = api.chat_create("personal".into(), None).unwrap();
    fake.push_for(
        Kind::Stream,
        Reply::text(format!(
            "Your token is {TOKEN} and the password for the db is Zq8-mN3-pL0vX2w.\nKeep them safe."
        )),
    );
    let (a, sid) = (api.clone(), session.id.clone());
    let result = blocking(move || a.chat_send("personal".into(), sid, "what is my token?".into()))
        .await
        .unwrap();
    let mut streamed = String::new();
    // The reply's deltas were all sent before `chat_send` returned.
    while let Ok(ev) = chat_events.try_recv() {
        if let ChatEvent::Delta { text, .. } = &ev {
            streamed.push_str(text);
            // Not even the start of it: the token's first characters were never shown.
            assert!(!streamed.contains("ghp_"), "{streamed}");
            assert!(!streamed.contains("Zq8-"), "{streamed}");
        }
    }
    assert!(
        streamed.contains("Your token is [redacted: github_token]"),
        "{streamed}"
    );
    assert!(
        streamed.ends_with("Keep them safe."),
        "the whole reply streamed: {streamed}"
    );
    let saved = serde_json::to_string(&result).unwrap();
    assert!(!saved.contains(TOKEN) && !saved.contains("Zq8-"), "{saved}");
    let transcript = api
        .chat_transcript("personal".into(), session.id.clone())
        .unwrap();
    let t = serde_json::to_string(&transcript).unwrap();
    assert!(!t.contains(TOKEN) && !t.contains("Zq8-mN3"), "{t}");
    let holding = files_holding(&d.path().join("home"), TOKEN.as_bytes());
    assert!(holding.is_empty(), "{holding:?}");
}

#[test]
fn names_and_paths_with_control_characters_or_bidi_overrides_are_refused() {
    let (_d, api) = api();
    for (path, name) in [
        (None, "Deploy\u{202E}gnp.exe"),
        (None, "Line\nbreak"),
        (Some("a\nb.md".to_owned()), "Fine"),
    ] {
        let e = api
            .create(
                "personal".into(),
                NewMemory {
                    path,
                    name: name.into(),
                    description: "d".into(),
                    memory_type: MemoryType::Project,
                    body: "b".into(),
                },
            )
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPath, "{name:?}: {e:?}");
    }
    assert!(api.list(None, None).unwrap().is_empty());
}

/// Files other programs write: an outside editor puts a token in a memory. The file
/// stays as it is on disk (it is the person's), but nothing Mnemo stores or hands out holds the
/// token: the index keeps its text redacted and none of its bytes, the journal keeps hashes only,
/// a read, a recall and a search give it redacted, and undoing the change that removed it says
/// plainly that Mnemo has no copy.
#[test]
fn a_secret_another_program_wrote_stays_out_of_every_store() {
    let (d, api) = api();
    let root = api
        .workspaces()
        .unwrap()
        .into_iter()
        .find(|w| w.workspace.id == "personal")
        .unwrap()
        .workspace
        .memory_root;
    std::fs::create_dir_all(&root).unwrap();
    let file = root.join("deploy.md");
    let clean = "---\nname: Deploy\ndescription: How the staging deploy works\ntype: project\n---\n\nDeploy staging from the release branch.\n";
    std::fs::write(&file, clean).unwrap();
    api.list(None, None).unwrap();
    // The outside editor adds the token, then a later edit takes it out again.
    let holding = format!(
        "---\nname: Deploy\ndescription: How the staging deploy works\ntype: project\n---\n\nDeploy staging from the release branch with token {TOKEN}.\n"
    );
    std::fs::write(&file, &holding).unwrap();
    let listed = api.list(None, None).unwrap();
    let doc = listed.iter().find(|m| m.path == "deploy.md").unwrap();
    assert_eq!(doc.secret.as_deref(), Some("github_token (line 7)"));
    assert!(doc.valid, "still a memory, recalled redacted");

    let detail = api.get("personal".into(), "deploy.md".into()).unwrap();
    let content = detail.content.clone().unwrap();
    assert!(
        content.contains("with token [redacted: github_token]."),
        "{content}"
    );
    assert!(!serde_json::to_string(&detail).unwrap().contains(TOKEN));
    assert!(
        api.search(None, TOKEN.into(), None, Some(true))
            .unwrap()
            .is_empty()
    );
    let hits = api
        .search(None, "staging release".into(), None, Some(true))
        .unwrap();
    assert_eq!(hits.len(), 1, "the rest of the file is still found");
    let recall = api
        .recall("personal".into(), "staging deploy".into(), None, Some(true))
        .unwrap();
    assert!(
        recall.prompt.contains("[redacted: github_token]"),
        "{}",
        recall.prompt
    );
    assert!(!serde_json::to_string(&recall).unwrap().contains(TOKEN));

    std::fs::write(&file, clean).unwrap();
    api.list(None, None).unwrap();
    let history = api
        .history(Some("personal".into()), Some("deploy.md".into()), None)
        .unwrap();
    let removal = &history[0];
    let diff = api.diff(removal.id).unwrap();
    assert!(!diff.undoable);
    assert_eq!(diff.before, None);
    assert_eq!(diff.after.as_deref(), Some(clean));
    let why = diff.withheld.unwrap();
    assert!(
        why.contains("github_token") && !why.contains(TOKEN),
        "{why}"
    );
    let e = api.undo(removal.id).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent);
    assert!(
        e.message.contains("never keeps secrets") && !e.message.contains(TOKEN),
        "{}",
        e.message
    );
    // The change that added it cannot be shown either, and no store under the home holds it.
    let added = api.diff(history[1].id).unwrap();
    assert_eq!(added.after, None);
    assert!(added.withheld.unwrap().contains("after"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        clean,
        "undo wrote nothing"
    );
    let holding_files = files_holding(&d.path().join("home"), TOKEN.as_bytes());
    assert!(holding_files.is_empty(), "{holding_files:?}");
}

/// A file whose name holds a secret is no document: not indexed, not journaled, not listed.
#[test]
fn a_file_named_after_a_secret_is_left_out() {
    let (d, api) = api();
    let root = api.workspaces().unwrap()[0].workspace.memory_root.clone();
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join(format!("{TOKEN}.md")),
        "---\nname: Keys\ndescription: k\ntype: reference\n---\n\nx\n",
    )
    .unwrap();
    assert!(api.list(None, None).unwrap().is_empty());
    // Its name is in no index, journal or MEMORY.md (the file's own text does not hold it).
    let holding = files_holding(&d.path().join("home"), TOKEN.as_bytes());
    assert!(holding.is_empty(), "{holding:?}");
    assert!(
        root.join(format!("{TOKEN}.md")).exists(),
        "the file itself is left alone"
    );
}
