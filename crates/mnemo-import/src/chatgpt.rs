//! ChatGPT's `conversations.json`: each conversation's `mapping` tree read as the branch the
//! person last saw, keeping only what the user and the assistant said to each other.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::conversations::{Conversation, text_of};

/// One conversation of the export (`index` names it when it has no id).
pub(super) fn conversation(v: &Value, index: usize) -> Conversation {
    let id = ["conversation_id", "id"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map_or_else(|| format!("#{}", index + 1), str::to_owned);
    let title = v
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let empty = Map::new();
    let mapping = v
        .get("mapping")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let current = v.get("current_node").and_then(Value::as_str);
    let turns = branch(mapping, current)
        .into_iter()
        .filter_map(|n| turn(n.get("message")?))
        .collect();
    Conversation { id, title, turns }
}

/// The nodes from the root to the one the person last saw (`current_node`), oldest first.
/// A node's parent is its `parent` link, else the node listing it among its `children`: some
/// exports keep only the latter. Without a `current_node` the newest branch is taken (from the
/// root, the last child each time); with no links at all, every node by `create_time`.
fn branch<'a>(mapping: &'a Map<String, Value>, current: Option<&str>) -> Vec<&'a Value> {
    let parents = parents(mapping);
    let leaf = current
        .filter(|c| mapping.contains_key(*c))
        .or_else(|| newest_leaf(mapping, &parents));
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut node = leaf.filter(|_| !parents.is_empty());
    while let Some((key, n)) = node.and_then(|k| mapping.get_key_value(k)) {
        if !seen.insert(key.as_str()) {
            break; // a cycle: stop rather than loop
        }
        chain.push(n);
        node = parents.get(key.as_str()).copied();
    }
    if chain.is_empty() {
        chain = mapping.values().collect();
        let time = |n: &Value| n["message"]["create_time"].as_f64().unwrap_or(0.0);
        chain.sort_by(|a, b| time(a).total_cmp(&time(b)));
        return chain;
    }
    chain.reverse();
    chain
}

/// Each node's parent, by id: its own `parent` link, else the node whose `children` name it.
fn parents(mapping: &Map<String, Value>) -> HashMap<&str, &str> {
    let mut out = HashMap::new();
    for (key, n) in mapping {
        if let Some(p) = n.get("parent").and_then(Value::as_str) {
            out.insert(key.as_str(), p);
        }
        for child in n["children"].as_array().into_iter().flatten() {
            if let Some(c) = child.as_str() {
                out.entry(c).or_insert(key.as_str());
            }
        }
    }
    out
}

/// The end of the newest branch: from the root (a node that is nobody's child and has
/// children), the last child each time — the latest reply or edit.
fn newest_leaf<'a>(
    mapping: &'a Map<String, Value>,
    parents: &HashMap<&str, &str>,
) -> Option<&'a str> {
    let last_child = |k: &str| {
        mapping.get(k)?["children"]
            .as_array()?
            .iter()
            .rev()
            .find_map(|c| c.as_str().and_then(|c| mapping.get_key_value(c)))
            .map(|(k, _)| k.as_str())
    };
    let mut node = mapping
        .keys()
        .map(String::as_str)
        .find(|k| !parents.contains_key(k) && last_child(k).is_some())?;
    let mut seen = HashSet::from([node]);
    while let Some(next) = last_child(node) {
        if !seen.insert(next) {
            break;
        }
        node = next;
    }
    Some(node)
}

/// A message as a turn, if it is one the user or the assistant said in the conversation — not
/// system or tool messages, reasoning (`thoughts`, `reasoning_recap`), calls to a tool (a
/// `recipient` other than `all`: the browser, python, image generation, memory), nor what
/// ChatGPT keeps out of sight (custom instructions, its own context). Only `text` and
/// `multimodal_text` content is read (older exports name no type: read too).
fn turn(m: &Value) -> Option<(bool, String)> {
    let user = match m["author"]["role"].as_str()? {
        "user" => true,
        "assistant" => false,
        _ => return None,
    };
    if m["recipient"].as_str().is_some_and(|r| r != "all")
        || m["metadata"]["is_visually_hidden_from_conversation"].as_bool() == Some(true)
    {
        return None;
    }
    let content = &m["content"];
    if !matches!(
        content["content_type"].as_str(),
        None | Some("text" | "multimodal_text")
    ) {
        return None;
    }
    let text: Vec<String> = content["parts"]
        .as_array()?
        .iter()
        .filter_map(part_text)
        .collect();
    (!text.is_empty()).then(|| (user, text.join("\n")))
}

/// A part's text: a string, or what was said in a voice message (`audio_transcription`);
/// images, audio and video (asset pointers) have none.
fn part_text(p: &Value) -> Option<String> {
    if p.is_string() {
        return text_of(p);
    }
    (p["content_type"] == "audio_transcription")
        .then(|| text_of(&p["text"]))
        .flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ImportFormat;
    use crate::testing::turns;

    /// Every conversation of a ChatGPT fixture, as the importer reads it.
    fn read(name: &str) -> Vec<Conversation> {
        crate::testing::read(name, ImportFormat::Chatgpt)
    }

    #[test]
    fn follows_the_branch_last_seen() {
        let v = json!({"id": "c1", "title": "Trip", "current_node": "c",
        "mapping": {
            "root": {"message": null, "parent": null},
            "a": {"parent": "root", "message": {"author": {"role": "user"}, "content": {"parts": ["I live in Lisbon"]}}},
            "b": {"parent": "a", "message": {"author": {"role": "assistant"}, "content": {"parts": ["Nice!"]}}},
            "x": {"parent": "a", "message": {"author": {"role": "assistant"}, "content": {"parts": ["abandoned branch"]}}},
            "c": {"parent": "b", "message": {"author": {"role": "system"}, "content": {"parts": ["sys"]}}}
        }});
        let c = conversation(&v, 0);
        assert_eq!(c.id, "c1");
        assert_eq!(
            c.turns,
            turns(&[(true, "I live in Lisbon"), (false, "Nice!")])
        );
    }

    #[test]
    fn nodes_linked_only_by_children_are_walked_from_the_root() {
        let all = read("chatgpt_children_only.json");
        assert_eq!(all.len(), 2);
        // `current_node` names the end of the branch seen: the regenerated answer is kept.
        assert_eq!(all[0].id, "6a1f0c2e-58b4-4d7a-9e31-0c7d2b9f4a11");
        assert_eq!(
            all[0].turns,
            turns(&[
                (
                    true,
                    "I'm moving to Porto in September and need a flat near Boavista. Where should I start?"
                ),
                (
                    false,
                    "Start with the Idealista and Imovirtual listings for Boavista and Foz, and book viewings for the first week you are there."
                ),
                (true, "My budget is 1,200 euros a month, furnished."),
                (
                    false,
                    "At 1,200 euros a furnished one-bedroom in Boavista is realistic; Foz will be tighter."
                ),
            ])
        );
        // No `current_node`: the last child each time (the latest regeneration).
        assert_eq!(
            all[1].turns,
            turns(&[
                (true, "Which houseplants survive a dark north-facing room?"),
                (
                    false,
                    "A ZZ plant, a snake plant or a cast-iron plant will all cope with low light."
                ),
                (true, "I have a cat, are any of those toxic?"),
                (
                    false,
                    "The cast-iron plant is safe for cats; the ZZ and snake plants are mildly toxic."
                ),
            ])
        );
    }

    #[test]
    fn voice_messages_are_read_from_their_transcription() {
        let all = read("chatgpt_voice.json");
        assert_eq!(all.len(), 1);
        assert_eq!(
            all[0].turns,
            turns(&[
                (true, "Remind me what I told you about my sister's wedding."),
                (
                    false,
                    "You said Marta is getting married on the 14th of June in Braga, and that you are giving a speech."
                ),
                (
                    true,
                    "Here is the venue. Can you tell what style of building it is?"
                ),
                (
                    false,
                    "It looks like a restored eighteenth-century quinta, with a granite facade and a tiled roof."
                ),
                (true, "Perfect, thanks."),
            ])
        );
    }

    #[test]
    fn reasoning_tools_and_hidden_messages_are_left_out() {
        let all = read("chatgpt_hidden_turns.json");
        assert_eq!(all.len(), 1);
        assert_eq!(
            all[0].turns,
            turns(&[
                (
                    true,
                    "What's the weather in Sintra this weekend? I'm planning a hike."
                ),
                (
                    false,
                    "Saturday looks dry with highs around 22 degrees; Sunday brings showers after noon, so Saturday is the better day."
                ),
                (true, "Good. Remember that I don't like steep climbs."),
                (
                    false,
                    "Noted. The Pena Park loop is a gentle option that avoids the steep path up to the Moorish Castle."
                ),
            ])
        );
    }

    #[test]
    fn a_file_holding_one_conversation_is_read_as_that_one() {
        let want = turns(&[
            (true, "Can you suggest a name for a grey rescue greyhound?"),
            (false, "How about Pebble, Ash or Flint?"),
            (true, "We went with Flint."),
        ]);
        for name in ["chatgpt_single.json", "chatgpt_single_line.json"] {
            let all = read(name);
            assert_eq!(all.len(), 1, "{name}");
            assert_eq!(all[0].id, "b7e2d9a4-1c3f-4e58-a0d6-93f1c7e5b2a8", "{name}");
            assert_eq!(all[0].title, "Naming the dog", "{name}");
            assert_eq!(all[0].turns, want, "{name}");
        }
    }
}
