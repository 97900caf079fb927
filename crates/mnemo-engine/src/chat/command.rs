//! The commands a chat answers itself, without a model: parsed once, here, from the message's
//! text. The turn acts on them, the API words their replies, and the UI offers [`CHAT_COMMANDS`]
//! (through the bindings) and draws the answer by the [`ChatCommand`] a turn result carries.

use serde::Serialize;

/// A chat command, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "name", rename_all = "camelCase")]
pub enum ChatCommand {
    /// `/memory`: what memory this chat uses and what happened to it lately.
    Memory,
    /// `/remember <fact>` (the fact; may be empty: the reply says what to type).
    Remember {
        /// What to remember.
        fact: String,
    },
    /// `/forget <query>` (may be empty; `--yes` first forgets at once).
    Forget {
        /// What to look for.
        query: String,
    },
    /// `/dream`: consolidate the workspace's memories now.
    Dream,
}

/// One command as the message box offers it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CommandHelp {
    /// What to type.
    pub name: &'static str,
    /// What follows it, if anything.
    pub takes: Option<&'static str>,
    /// What it does.
    pub what: &'static str,
}

/// Every chat command, as `/` offers them in the message box.
pub const CHAT_COMMANDS: [CommandHelp; 4] = [
    CommandHelp {
        name: "/memory",
        takes: None,
        what: "what this chat remembers and what memory did lately",
    },
    CommandHelp {
        name: "/remember",
        takes: Some("<fact>"),
        what: "save a fact to memory now",
    },
    CommandHelp {
        name: "/forget",
        takes: Some("<what>"),
        what: "find memories to forget (you confirm)",
    },
    CommandHelp {
        name: "/dream",
        takes: None,
        what: "consolidate this workspace's memories now",
    },
];

impl ChatCommand {
    /// The command `text` is, if it is one: a command's name alone, or followed by a space and
    /// its argument when it takes one (`/remembered` and `/memory please` are messages).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let (name, rest) = text
            .split_once(char::is_whitespace)
            .map_or((text, ""), |(n, r)| (n, r.trim()));
        match name {
            "/memory" if rest.is_empty() => Some(Self::Memory),
            "/dream" if rest.is_empty() => Some(Self::Dream),
            "/remember" => Some(Self::Remember {
                fact: rest.to_owned(),
            }),
            "/forget" => Some(Self::Forget {
                query: rest.to_owned(),
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_once_and_messages_stay_messages() {
        let remember = |f: &str| Some(ChatCommand::Remember { fact: f.into() });
        let forget = |q: &str| Some(ChatCommand::Forget { query: q.into() });
        for (text, want) in [
            (" /memory\n", Some(ChatCommand::Memory)),
            ("/dream", Some(ChatCommand::Dream)),
            ("/remember I drink tea", remember("I drink tea")),
            ("/remember\tspaced  out ", remember("spaced  out")),
            ("/remember", remember("")),
            ("/forget --yes tea", forget("--yes tea")),
            ("/forget", forget("")),
            ("/memory please", None),
            ("/dream on", None),
            ("/remembered that", None),
            ("/Memory", None),
            ("tell me about /memory", None),
            ("", None),
        ] {
            assert_eq!(ChatCommand::parse(text), want, "{text:?}");
        }
        // Every command offered parses as itself.
        for c in CHAT_COMMANDS {
            let parsed = ChatCommand::parse(c.name).expect(c.name);
            let name = serde_json::to_value(&parsed).unwrap()["name"].clone();
            assert_eq!(format!("/{}", name.as_str().unwrap()), c.name);
        }
    }
}
