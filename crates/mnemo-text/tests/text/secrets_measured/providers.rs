//! The provider kinds of the measured corpus: every gitleaks rule family we know, each by its
//! published shape. Each kind makes `(text, secret)`: the text a person would paste and the part
//! of it that must not survive redaction. All of it is generated (no real secret anywhere).

use super::rng::{AN, B64, DIG, HEX, LOWAN, UP, UPHEX, URL, b64, b64url, wrap};
use super::shapes::{Make, keyed, same};

pub const KINDS: &[(&str, Make)] = &[
    // Cloud providers.
    ("aws_access_key_id", |g| {
        same(format!("{}{}", g.pick(&["AKIA", "ASIA"]), g.s(16, UP)))
    }),
    ("aws_secret_access_key", |g| {
        keyed(
            |s| format!("[default]\naws_secret_access_key = {s}"),
            g.s(40, B64),
        )
    }),
    ("gcp_oauth_client_secret", |g| {
        same(format!("GOCSPX-{}", g.s(28, URL)))
    }),
    ("google_oauth_access_token", |g| {
        same(format!("ya29.a0Af{}", g.s(140, URL)))
    }),
    ("google_api_key", |g| same(format!("AIza{}", g.s(35, URL)))),
    ("gcp_service_account_json", |g| {
        let body = wrap(&b64(&g.bytes(600)), 64, "\\n");
        (
            format!(
                "{{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"ci@acme.iam.gserviceaccount.com\"}}"
            ),
            body,
        )
    }),
    ("azure_client_secret", |g| {
        same(format!(
            "{}{}Q~{}",
            g.s(3, AN),
            g.s(1, DIG),
            g.s(
                34,
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-"
            )
        ))
    }),
    ("azure_sas_token", |g| {
        let sig = format!("{}%3D", g.s(43, AN).replace('A', "%2B"));
        keyed(
            |s| {
                format!(
                    "https://acmedata.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&spr=https&sig={s}"
                )
            },
            sig,
        )
    }),
    ("azure_storage_key", |g| {
        keyed(
            |s| {
                format!(
                    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net"
                )
            },
            format!("{}==", g.s(86, B64)),
        )
    }),
    ("alibaba_access_key", |g| {
        same(format!("LTAI{}", g.s(20, AN)))
    }),
    ("digitalocean_token", |g| {
        same(format!(
            "{}_v1_{}",
            g.pick(&["dop", "doo", "dor"]),
            g.s(64, HEX)
        ))
    }),
    ("heroku_api_key", |g| {
        same(format!("HRKU-AA{}", g.s(58, URL)))
    }),
    ("cloudflare_origin_ca_key", |g| {
        same(format!("v1.0-{}-{}", g.s(24, HEX), g.s(146, HEX)))
    }),
    ("flyio_token", |g| same(format!("fo1_{}", g.s(43, URL)))),
    ("openshift_token", |g| {
        same(format!("sha256~{}", g.s(43, URL)))
    }),
    // Chat, mail and payments.
    ("slack_bot_token", |g| {
        same(format!(
            "xoxb-{}-{}-{}",
            g.s(12, DIG),
            g.s(13, DIG),
            g.s(24, AN)
        ))
    }),
    ("slack_user_token", |g| {
        same(format!(
            "xoxp-{}-{}-{}-{}",
            g.s(11, DIG),
            g.s(11, DIG),
            g.s(13, DIG),
            g.s(32, HEX)
        ))
    }),
    ("slack_app_token", |g| {
        same(format!(
            "xapp-1-A{}-{}-{}",
            g.s(10, UP),
            g.s(13, DIG),
            g.s(64, HEX)
        ))
    }),
    ("slack_webhook", |g| {
        same(format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            g.s(8, UP),
            g.s(10, UP),
            g.s(24, AN)
        ))
    }),
    ("discord_bot_token", |g| {
        let id = format!("1{}", g.s(18, DIG));
        same(format!(
            "{}.{}.{}",
            b64url(id.as_bytes()),
            g.s(6, URL),
            g.s(38, URL)
        ))
    }),
    ("discord_webhook", |g| {
        same(format!(
            "https://discord.com/api/webhooks/{}/{}",
            g.s(18, DIG),
            g.s(68, URL)
        ))
    }),
    ("telegram_bot_token", |g| {
        same(format!("{}:AA{}", g.s(10, DIG), g.s(33, URL)))
    }),
    ("twilio_api_key", |g| same(format!("SK{}", g.s(32, HEX)))),
    ("sendgrid_api_key", |g| {
        same(format!("SG.{}.{}", g.s(22, URL), g.s(43, URL)))
    }),
    ("mailgun_api_key", |g| {
        same(format!("key-{}", g.s(32, LOWAN)))
    }),
    ("mailchimp_api_key", |g| {
        same(format!("{}-us{}", g.s(32, HEX), 1 + g.below(20)))
    }),
    ("sendinblue_api_key", |g| {
        same(format!("xkeysib-{}-{}", g.s(64, HEX), g.s(16, AN)))
    }),
    ("stripe_secret_key", |g| {
        same(format!("sk_{}_{}", g.pick(&["live", "test"]), g.s(99, AN)))
    }),
    ("stripe_restricted_key", |g| {
        same(format!("rk_live_{}", g.s(99, AN)))
    }),
    ("stripe_webhook_secret", |g| {
        same(format!("whsec_{}", g.s(32, AN)))
    }),
    ("square_access_token", |g| {
        same(format!("sq0atp-{}", g.s(22, URL)))
    }),
    ("square_oauth_secret", |g| {
        same(format!("sq0csp-{}", g.s(43, URL)))
    }),
    ("facebook_access_token", |g| {
        same(format!("EAACEdEose0cBA{}", g.s(150, AN)))
    }),
    ("firebase_fcm_server_key", |g| {
        same(format!("AAAA{}:APA91b{}", g.s(7, URL), g.s(134, URL)))
    }),
    ("flutterwave_secret_key", |g| {
        same(format!("FLWSECK_TEST-{}-X", g.s(32, HEX)))
    }),
    ("shopify_token", |g| same(format!("shpat_{}", g.s(32, HEX)))),
    ("easypost_api_key", |g| same(format!("EZAK{}", g.s(54, AN)))),
    ("duffel_token", |g| {
        same(format!("duffel_live_{}", g.s(43, URL)))
    }),
    ("shippo_token", |g| {
        same(format!("shippo_live_{}", g.s(40, HEX)))
    }),
    ("twitter_bearer_token", |g| {
        same(format!(
            "AAAAAAAAAAAAAAAAAAAAA{}%3D{}",
            g.s(30, AN),
            g.s(50, AN)
        ))
    }),
    // Code hosting, CI and registries.
    ("github_pat", |g| same(format!("ghp_{}", g.s(36, AN)))),
    ("github_oauth_token", |g| {
        same(format!("gho_{}", g.s(36, AN)))
    }),
    ("github_app_token", |g| {
        same(format!(
            "{}_{}",
            g.pick(&["ghs", "ghu", "ghr"]),
            g.s(36, AN)
        ))
    }),
    ("github_fine_grained_pat", |g| {
        same(format!("github_pat_11{}_{}", g.s(20, UP), g.s(59, AN)))
    }),
    ("gitlab_pat", |g| same(format!("glpat-{}", g.s(20, URL)))),
    ("gitlab_runner_token", |g| {
        same(format!("glrt-{}", g.s(20, URL)))
    }),
    ("bitbucket_app_password", |g| {
        same(format!("ATBB{}", g.s(32, AN)))
    }),
    ("docker_hub_pat", |g| {
        same(format!("dckr_pat_{}", g.s(27, URL)))
    }),
    ("docker_config_auth", |g| {
        let user = g.pick(&["ci-bot", "deploy", "ana"]);
        let auth = b64(format!("{user}:{}", g.password()).as_bytes());
        keyed(
            |s| format!("{{\"auths\": {{\"registry.acme.io\": {{\"auth\": \"{s}\"}}}}}}"),
            auth,
        )
    }),
    ("npm_token", |g| same(format!("npm_{}", g.s(36, AN)))),
    ("npmrc_auth_token", |g| {
        keyed(
            |s| format!("//registry.npmjs.org/:_authToken={s}"),
            g.uuid(),
        )
    }),
    ("pypi_token", |g| {
        same(format!("pypi-AgEIcHlwaS5vcmc{}", g.s(70, URL)))
    }),
    ("rubygems_api_key", |g| {
        same(format!("rubygems_{}", g.s(48, HEX)))
    }),
    ("clojars_token", |g| {
        same(format!("CLOJARS_{}", g.s(60, LOWAN)))
    }),
    ("nuget_api_key", |g| same(format!("oy2{}", g.s(43, LOWAN)))),
    ("artifactory_api_key", |g| {
        same(format!("AKCp{}", g.s(69, AN)))
    }),
    ("circleci_token", |g| {
        same(format!("CCIPAT_{}_{}", g.s(22, AN), g.s(40, HEX)))
    }),
    ("buildkite_token", |g| {
        same(format!("bkua_{}", g.s(40, HEX)))
    }),
    ("sonarqube_token", |g| {
        same(format!(
            "{}_{}",
            g.pick(&["squ", "sqp", "sqa"]),
            g.s(40, HEX)
        ))
    }),
    ("pulumi_token", |g| same(format!("pul-{}", g.s(40, HEX)))),
    ("terraform_cloud_token", |g| {
        same(format!("{}.atlasv1.{}", g.s(14, AN), g.s(67, AN)))
    }),
    ("vault_token", |g| {
        same(format!("{}.{}", g.pick(&["hvs", "hvb"]), g.s(92, URL)))
    }),
    ("doppler_token", |g| same(format!("dp.pt.{}", g.s(43, AN)))),
    ("octopus_api_key", |g| same(format!("API-{}", g.s(26, UP)))),
    ("harness_pat", |g| {
        same(format!(
            "pat.{}.{}.{}",
            g.s(22, AN),
            g.s(24, HEX),
            g.s(20, AN)
        ))
    }),
    ("netlify_token", |g| same(format!("nfp_{}", g.s(36, AN)))),
    ("render_api_key", |g| same(format!("rnd_{}", g.s(32, AN)))),
    ("prefect_api_key", |g| same(format!("pnu_{}", g.s(36, AN)))),
    ("infracost_api_key", |g| {
        same(format!("ico-{}", g.s(32, AN)))
    }),
    // SaaS.
    ("atlassian_api_token", |g| {
        same(format!("ATATT3xFfGF0{}={}", g.s(180, URL), g.s(8, UPHEX)))
    }),
    ("okta_api_token", |g| {
        keyed(
            |s| format!("curl -H \"Authorization: SSWS {s}\" https://acme.okta.com/api/v1/users"),
            format!("00{}", g.s(40, URL)),
        )
    }),
    ("linear_api_key", |g| {
        same(format!("lin_api_{}", g.s(40, AN)))
    }),
    ("databricks_token", |g| {
        same(format!("dapi{}", g.s(32, HEX)))
    }),
    ("newrelic_key", |g| same(format!("NRAK-{}", g.s(27, UP)))),
    ("grafana_token", |g| {
        same(format!("glsa_{}_{}", g.s(32, AN), g.s(8, HEX)))
    }),
    ("sentry_token", |g| same(format!("sntrys_{}", g.s(80, AN)))),
    ("dynatrace_token", |g| {
        same(format!("dt0c01.{}.{}", g.s(24, UP), g.s(64, UP)))
    }),
    ("dropbox_token", |g| same(format!("sl.{}", g.s(135, URL)))),
    ("mapbox_secret_token", |g| {
        same(format!(
            "sk.eyJ1IjoiYWNtZSIsImEiOiJ{}.{}",
            g.s(20, AN),
            g.s(22, URL)
        ))
    }),
    ("postman_api_key", |g| {
        same(format!("PMAK-{}-{}", g.s(24, HEX), g.s(34, HEX)))
    }),
    ("planetscale_token", |g| {
        same(format!(
            "{}{}",
            g.pick(&["pscale_tkn_", "pscale_pw_"]),
            g.s(43, URL)
        ))
    }),
    ("supabase_token", |g| same(format!("sbp_{}", g.s(40, HEX)))),
    ("tailscale_key", |g| {
        same(format!("tskey-auth-k{}CNTRL-{}", g.s(10, AN), g.s(33, AN)))
    }),
    ("airtable_pat", |g| {
        same(format!("pat{}.{}", g.s(14, AN), g.s(64, HEX)))
    }),
    ("notion_token", |g| {
        same(format!("{}{}", g.pick(&["ntn_", "secret_"]), g.s(43, AN)))
    }),
    ("figma_token", |g| same(format!("figd_{}", g.s(40, URL)))),
    ("typeform_token", |g| same(format!("tfp_{}", g.s(59, AN)))),
    ("readme_api_key", |g| {
        same(format!("rdme_{}", g.s(70, LOWAN)))
    }),
    ("onepassword_service_token", |g| {
        same(format!("ops_eyJ{}", g.s(200, URL)))
    }),
    ("adobe_client_secret", |g| {
        same(format!("p8e-{}", g.s(32, AN)))
    }),
    // AI providers.
    ("openai_project_key", |g| {
        let mut b = g.s(150, AN);
        for _ in 0..3 {
            let at = 10 + g.below(130);
            b.replace_range(at..=at, g.pick(&["-", "_"]));
        }
        same(format!("sk-proj-{b}"))
    }),
    ("openai_legacy_key", |g| {
        same(format!("sk-{}T3BlbkFJ{}", g.s(20, AN), g.s(20, AN)))
    }),
    ("openai_service_key", |g| {
        same(format!(
            "sk-{}-{}",
            g.pick(&["svcacct", "admin"]),
            g.s(64, AN)
        ))
    }),
    ("openrouter_key", |g| {
        same(format!("sk-or-v1-{}", g.s(64, HEX)))
    }),
    ("anthropic_api_key", |g| {
        same(format!(
            "sk-ant-{}-{}AA",
            g.pick(&["api03", "admin01"]),
            g.s(93, URL)
        ))
    }),
    ("huggingface_token", |g| {
        same(format!("hf_{}", g.s(34, AN.get(..52).unwrap())))
    }),
    ("groq_api_key", |g| same(format!("gsk_{}", g.s(52, AN)))),
    ("replicate_token", |g| same(format!("r8_{}", g.s(37, AN)))),
    ("perplexity_key", |g| same(format!("pplx-{}", g.s(48, AN)))),
    ("xai_key", |g| same(format!("xai-{}", g.s(80, AN)))),
    ("langsmith_key", |g| {
        same(format!(
            "lsv2_{}_{}_{}",
            g.pick(&["pt", "sk"]),
            g.s(32, HEX),
            g.s(10, HEX)
        ))
    }),
    ("pinecone_key", |g| {
        same(format!("pcsk_{}_{}", g.s(5, AN), g.s(60, AN)))
    }),
    // Tokens by structure.
    ("jwt", |g| {
        let payload = format!(
            "{{\"sub\":\"{}\",\"iat\":{}}}",
            g.uuid(),
            1_700_000_000 + g.below(90_000_000)
        );
        same(format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{}.{}",
            b64url(payload.as_bytes()),
            g.s(43, URL)
        ))
    }),
    ("age_secret_key", |g| {
        same(format!("AGE-SECRET-KEY-1{}", g.s(58, UP)))
    }),
];
