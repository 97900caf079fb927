//! The model's context window as the server knows it. Settings give a window (default 32,768),
//! but a server may run a smaller one (llama.cpp `-c 8192`): [`Client::context_window`] asks
//! the server where it says — llama.cpp `GET /props`, Ollama `POST /api/show` — once per
//! server + model profile ([`crate::ModelProfile`]), and an overflow error naming the size
//! ("exceeds the available context size (8192 tokens)", "maximum context length is 8192 tokens")
//! teaches it for later calls.
//! The window used is the smaller of the settings' and the server's.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{CancellationToken, Client};

/// The window an overflow message names, if it names one: llama.cpp's "exceeds the available
/// context size (8192 tokens)", OpenAI's "maximum context length is 8192 tokens", vLLM's
/// "maximum context length is 8192".
#[must_use]
pub fn window_in_error(message: &str) -> Option<u32> {
    let lower = message.to_lowercase();
    for marker in ["context size", "context length", "context window", "n_ctx"] {
        let Some(at) = lower.find(marker) else {
            continue;
        };
        let rest = &lower[at + marker.len()..];
        let digits: String = rest
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect();
        // The number must come soon after the marker ("… size (8192 tokens)").
        let gap = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(usize::MAX);
        if gap <= 24
            && let Ok(n) = digits.parse::<u32>()
        {
            return Some(n);
        }
    }
    None
}

/// The window a server's self-description gives: llama.cpp `/props`
/// (`default_generation_settings.n_ctx`, or `n_ctx`), Ollama `/api/show` (`model_info`'s
/// `*.context_length`, or a `num_ctx` parameter, which wins).
#[must_use]
pub fn window_in_props(v: &Value) -> Option<u32> {
    let num = |x: &Value| x.as_u64().and_then(|n| u32::try_from(n).ok());
    if let Some(n) = num(&v["default_generation_settings"]["n_ctx"]).or_else(|| num(&v["n_ctx"])) {
        return Some(n);
    }
    if let Some(p) = v["parameters"].as_str()
        && let Some(n) = p.lines().find_map(|l| {
            let mut it = l.split_whitespace();
            (it.next() == Some("num_ctx")).then(|| it.next()?.parse::<u32>().ok())?
        })
    {
        return Some(n);
    }
    v["model_info"].as_object().and_then(|m| {
        m.iter()
            .find(|(k, _)| k.ends_with(".context_length"))
            .and_then(|(_, x)| num(x))
    })
}

/// The server's root (`http://h:p/v1` → `http://h:p`).
fn root(base_url: &str) -> &str {
    let b = base_url.trim_end_matches('/');
    b.strip_suffix("/v1").unwrap_or(b)
}

impl Client {
    /// The context window to plan with: the settings' window, lowered to the server's own when
    /// the server says it is smaller (asked once per process and base URL, 3 s at most; an
    /// overflow error naming the size also teaches it).
    pub async fn context_window(&self, cancel: &CancellationToken) -> u32 {
        let configured = self.settings().context_window.max(1024);
        let base = self.settings().base_url.clone();
        if base.trim().is_empty() {
            return configured;
        }
        let profile = self.profile(&self.settings().model);
        let server = match profile.window() {
            Some(known) => known,
            None => {
                let asked = tokio::select! {
                    () = cancel.cancelled() => None,
                    r = tokio::time::timeout(Duration::from_secs(3), self.ask_window()) => r.ok().flatten(),
                };
                profile.asked_window(asked)
            }
        };
        server.map_or(configured, |s| s.min(configured))
    }

    /// The context window the settings give, lowered to what is already known of the server,
    /// without asking it.
    #[must_use]
    pub fn known_context_window(&self) -> u32 {
        let configured = self.settings().context_window.max(1024);
        self.profile(&self.settings().model)
            .window()
            .flatten()
            .map_or(configured, |s| s.min(configured))
    }

    async fn ask_window(&self) -> Option<u32> {
        let root = root(&self.settings().base_url).to_owned();
        if let Some(v) = self.get_json(&format!("{root}/props")).await
            && let Some(n) = window_in_props(&v)
        {
            return Some(n);
        }
        let body = json!({"model": self.settings().model, "name": self.settings().model});
        let v = self.post_json(&format!("{root}/api/show"), &body).await?;
        window_in_props(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_messages_name_the_window() {
        assert_eq!(
            window_in_error(
                "request (8276 tokens) exceeds the available context size (8192 tokens), try increasing it"
            ),
            Some(8192)
        );
        assert_eq!(
            window_in_error(
                "This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens."
            ),
            Some(4096)
        );
        assert_eq!(window_in_error("context window exceeded"), None);
        assert_eq!(window_in_error("CUDA out of memory"), None);
    }

    #[test]
    fn servers_describe_their_window() {
        assert_eq!(
            window_in_props(&json!({"default_generation_settings": {"n_ctx": 8192}})),
            Some(8192)
        );
        assert_eq!(window_in_props(&json!({"n_ctx": 2048})), Some(2048));
        assert_eq!(
            window_in_props(
                &json!({"model_info": {"llama.context_length": 131072}, "parameters": "stop \"x\"\nnum_ctx 4096"})
            ),
            Some(4096)
        );
        assert_eq!(
            window_in_props(&json!({"model_info": {"qwen2.context_length": 32768}})),
            Some(32768)
        );
        assert_eq!(window_in_props(&json!({"other": 1})), None);
        assert_eq!(root("http://h:1/v1/"), "http://h:1");
    }

    #[test]
    fn a_learned_window_lowers_the_configured_one() {
        let settings = crate::LlmSettings {
            base_url: "http://learned.test/v1".into(),
            model: "m".into(),
            ..crate::LlmSettings::default()
        };
        let c = Client::new(settings.clone()).unwrap();
        assert_eq!(c.known_context_window(), 32_768);
        c.profiles()
            .of("http://learned.test/v1/", "m")
            .learn_window(8192);
        assert_eq!(c.known_context_window(), 8192);
        // A client sharing the registry knows it; one made alone does not.
        let shared = Client::with_profiles(settings.clone(), c.profiles().clone()).unwrap();
        assert_eq!(shared.known_context_window(), 8192);
        assert_eq!(
            Client::new(settings).unwrap().known_context_window(),
            32_768
        );
    }
}
