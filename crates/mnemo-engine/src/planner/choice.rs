//! Which way a model writes memories: `extraction = auto | tools | planner`.
//! `auto` trusts the tool agent only to a model that has proven tool use on a probe (one short
//! round trip, [`super::probe`], made by [`decide`] before the model's first job); every other
//! model gets the planner. A proven model's agent run that writes nothing is followed by the
//! planner on the same messages, and when the planner then writes a fact the model is switched
//! to the planner for good. What was learned lives in `$MNEMO_HOME/model-paths.json` (owned by
//! `mnemo_store::state`), keyed by base URL + model. The decision is pure ([`choose`]);
//! [`learned`] and [`learn`] read and write the file.

use std::path::Path;

use mnemo_llm::{CancellationToken, Client, Extraction};
use mnemo_store::state::{self, LearnedPath, ModelPaths};
use serde::{Deserialize, Serialize};

/// The two ways of writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Road {
    /// The tool-calling memory agent.
    Tools,
    /// One side query held to a JSON schema; Mnemo writes the files.
    Planner,
}

impl Road {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Planner => "planner",
        }
    }
}

/// The way a model gets, and why, in words.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Choice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub road: Road,
    pub then_planner: bool,
    pub why: String,
}

/// Decide from the setting and what was learned for this model (`None`: nothing yet).
#[must_use]
pub fn choose(setting: Extraction, learned: Option<&LearnedPath>) -> Choice {
    match setting {
        Extraction::Tools => Choice {
            road: Road::Tools,
            then_planner: false,
            why: "extraction is set to the tool agent".to_owned(),
        },
        Extraction::Planner => Choice {
            road: Road::Planner,
            then_planner: false,
            why: "extraction is set to the planner".to_owned(),
        },
        Extraction::Auto => match learned {
            Some(l) if l.path == "planner" => Choice {
                road: Road::Planner,
                then_planner: false,
                why: format!("learned on {}: {}", day(&l.at), l.why),
            },
            Some(l) if l.path == "tools" => Choice {
                road: Road::Tools,
                then_planner: true,
                why: format!("learned on {}: {}", day(&l.at), l.why),
            },
            _ => Choice {
                road: Road::Planner,
                then_planner: false,
                why: "this model has not proven tool use yet: the planner until a probe shows it can call tools"
                    .to_owned(),
            },
        },
    }
}

fn day(at: &str) -> &str {
    at.get(..10).unwrap_or(at)
}

/// The key of a model: base URL (no trailing slash) and model name; the model that comes with
/// Mnemo is `local` and its name (its server's port changes from start to start).
#[must_use]
pub fn key(client: &Client) -> String {
    let s = client.settings();
    if s.local == Some(true) {
        return format!("local {}", s.model.trim());
    }
    format!(
        "{} {}",
        s.base_url.trim().trim_end_matches('/'),
        s.model.trim()
    )
}

/// What was learned for the client's model.
#[must_use]
pub fn learned(home: &Path, client: &Client) -> Option<LearnedPath> {
    let paths: ModelPaths = state::load(&home.join(state::MODEL_PATHS_FILE)).ok()?.value;
    paths.models.get(&key(client)).cloned()
}

/// The choice for the client's model now.
#[must_use]
pub fn current(home: &Path, client: &Client) -> Choice {
    choose(client.settings().extraction, learned(home, client).as_ref())
}

/// The choice for the client's model, probing it first under `auto` when nothing is learned
/// for it yet (the verdict is kept; a probe that fails to get an answer is not, and the planner
/// is chosen for this job).
pub async fn decide(home: &Path, client: &Client, cancel: &CancellationToken) -> Choice {
    let settings = client.settings();
    if settings.extraction != Extraction::Auto || !settings.is_configured() {
        return current(home, client);
    }
    if let Some(l) = learned(home, client) {
        return choose(Extraction::Auto, Some(&l));
    }
    match super::probe::probe(client, cancel).await {
        Ok(v) => {
            let road = if v.uses_tools {
                Road::Tools
            } else {
                Road::Planner
            };
            learn(home, client, road, &v.why);
        }
        Err(e) => tracing::info!("tool-use probe got no answer ({e}); the planner for now"),
    }
    current(home, client)
}

/// Record what a run showed (only under `auto`; a failure to save is logged, never fatal).
pub fn learn(home: &Path, client: &Client, road: Road, why: &str) {
    if client.settings().extraction != Extraction::Auto {
        return;
    }
    let path = home.join(state::MODEL_PATHS_FILE);
    let Ok(mut paths) = state::load::<ModelPaths>(&path).map(|l| l.value) else {
        return;
    };
    let k = key(client);
    if paths
        .models
        .get(&k)
        .is_some_and(|l| l.path == road.as_str())
    {
        return;
    }
    tracing::info!("extraction for {k}: {} from now on ({why})", road.as_str());
    paths.models.insert(
        k,
        LearnedPath {
            path: road.as_str().to_owned(),
            why: why.to_owned(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        },
    );
    if let Err(e) = state::save(&path, &paths) {
        tracing::warn!("could not save {}: {e}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learned_as(path: &str) -> LearnedPath {
        LearnedPath {
            path: path.to_owned(),
            why: "the tool agent wrote nothing where the planner found 2 facts".to_owned(),
            at: "2026-11-27T10:00:00Z".to_owned(),
        }
    }

    #[test]
    fn the_setting_wins_and_auto_follows_what_was_learned() {
        let planner = learned_as("planner");
        assert_eq!(choose(Extraction::Tools, Some(&planner)).road, Road::Tools);
        assert_eq!(choose(Extraction::Planner, None).road, Road::Planner);
        let fresh = choose(Extraction::Auto, None);
        assert_eq!((fresh.road, fresh.then_planner), (Road::Planner, false));
        let learned = choose(Extraction::Auto, Some(&planner));
        assert_eq!((learned.road, learned.then_planner), (Road::Planner, false));
        assert!(
            learned
                .why
                .starts_with("learned on 2026-11-27: the tool agent wrote nothing"),
            "{}",
            learned.why
        );
        assert_eq!(
            choose(Extraction::Auto, Some(&learned_as("tools"))).road,
            Road::Tools
        );
    }
}
