//! LoCoMo's data as memories: the dialog turns and observations of a conversation, the evidence
//! ids of a question, and memory files written for a list of items (shared by the benches).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mnemo_core::MemoryType;
use mnemo_store::format::TopicFile;
use serde_json::Value;

/// One retrievable item: who said or is described, the text, and its dialog id.
pub struct Item {
    pub speaker: String,
    pub text: String,
    pub dia_id: String,
}

pub fn data_path() -> PathBuf {
    std::env::var_os("LOCOMO_PATH").map_or_else(
        || Path::new(&manifest_dir()).join("../../../shared/bench-data/locomo10.json"),
        PathBuf::from,
    )
}

pub fn turns(conv: &Value) -> Vec<Item> {
    let c = &conv["conversation"];
    let mut sessions: Vec<(u32, &Vec<Value>)> = c
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(k, v)| {
            let n = k.strip_prefix("session_")?.parse().ok()?;
            Some((n, v.as_array()?))
        })
        .collect();
    sessions.sort_by_key(|(n, _)| *n);
    let mut out = Vec::new();
    for (_, turns) in sessions {
        for t in turns {
            let mut text = t["text"].as_str().unwrap_or_default().to_owned();
            if let Some(c) = t["blip_caption"].as_str() {
                text.push_str(&format!(" [shares a photo: {c}]"));
            }
            out.push(Item {
                speaker: t["speaker"].as_str().unwrap_or("someone").to_owned(),
                text,
                dia_id: t["dia_id"].as_str().unwrap_or_default().to_owned(),
            });
        }
    }
    out
}

pub fn observations(conv: &Value) -> Vec<Item> {
    let mut keys: Vec<(u32, &Value)> = conv["observation"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(k, v)| {
            Some((
                k.strip_prefix("session_")?
                    .strip_suffix("_observation")?
                    .parse()
                    .ok()?,
                v,
            ))
        })
        .collect();
    keys.sort_by_key(|(n, _)| *n);
    let mut out = Vec::new();
    for (_, per_speaker) in keys {
        for (speaker, facts) in per_speaker.as_object().unwrap() {
            for f in facts.as_array().unwrap() {
                out.push(Item {
                    speaker: speaker.clone(),
                    text: f[0].as_str().unwrap_or_default().to_owned(),
                    dia_id: f[1].as_str().unwrap_or_default().to_owned(),
                });
            }
        }
    }
    out
}

/// Evidence ids of a question, normalised (`"D8:6; D9:17"` → two ids; malformed entries dropped).
pub fn evidence(q: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for e in q["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        for part in e.split([';', ' ', ',']) {
            let p = part.trim();
            let ok = p
                .strip_prefix('D')
                .and_then(|r| r.split_once(':'))
                .is_some_and(|(a, b)| {
                    !a.is_empty()
                        && a.chars().all(|c| c.is_ascii_digit())
                        && !b.is_empty()
                        && b.chars().all(|c| c.is_ascii_digit())
                });
            if ok {
                out.push(p.to_owned());
            }
        }
    }
    out
}

pub fn write_items(root: &Path, items: &[Item]) -> HashMap<String, String> {
    let mut path_to_dia = HashMap::new();
    std::fs::create_dir_all(root.join("d")).unwrap();
    for (i, it) in items.iter().enumerate() {
        let rel = format!("d/{i:05}.md");
        let one_line: String = it.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let desc: String = one_line.chars().take(300).collect();
        let file = TopicFile::new(
            &it.speaker,
            if desc.is_empty() { "(empty)" } else { &desc },
            MemoryType::User,
            &it.text,
        )
        .unwrap();
        std::fs::write(root.join(&rel), file.render()).unwrap();
        path_to_dia.insert(rel, it.dia_id.clone());
    }
    path_to_dia
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}

/// The smoke pass's conversation: its first `sessions` sessions (turns and observations) and only
/// the questions whose evidence lies in them — the whole bench's code path on a tenth of the
/// embedding work.
pub fn first_sessions(conv: &Value, sessions: u32) -> Value {
    let kept = |key: &str| {
        key.strip_prefix("session_")
            .and_then(|r| r.split('_').next())
            .and_then(|n| n.parse::<u32>().ok())
            .is_none_or(|n| n <= sessions)
    };
    let mut out = conv.clone();
    for field in ["conversation", "observation"] {
        if let Some(map) = out[field].as_object_mut() {
            map.retain(|k, _| kept(k));
        }
    }
    let in_kept = |id: &str| {
        id.strip_prefix('D')
            .and_then(|r| r.split_once(':'))
            .and_then(|(s, _)| s.parse::<u32>().ok())
            .is_some_and(|s| s <= sessions)
    };
    if let Some(qa) = out["qa"].as_array_mut() {
        qa.retain(|q| {
            let ev = evidence(q);
            !ev.is_empty() && ev.iter().all(|e| in_kept(e))
        });
    }
    out
}
