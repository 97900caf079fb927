//! Ordinary code and config that name secrets without holding one: code reading them from the
//! environment, hashing or passing them on, config with placeholders, declarations, and
//! infrastructure and system files.

use crate::secrets_measured::rng::{DIG, Gen, HEX};

const ENV_NAMES: &[&str] = &[
    "API_KEY",
    "OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "DB_PASSWORD",
    "SECRET_KEY",
    "STRIPE_SECRET_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "SLACK_BOT_TOKEN",
    "REDIS_PASSWORD",
    "SMTP_PASS",
    "JWT_SECRET",
    "NPM_TOKEN",
    "PGPASSWORD",
    "ANTHROPIC_API_KEY",
    "HF_TOKEN",
    "TWILIO_AUTH_TOKEN",
    "SECRET_KEY_BASE",
    "REDIS_PASS",
    "CLIENT_SECRET",
    "ACCESS_TOKEN",
];
const VARS: &[&str] = &[
    "api_key",
    "token",
    "password",
    "secret",
    "db_password",
    "auth_token",
    "client_secret",
    "secret_key",
    "access_token",
    "pwd",
    "passwd",
    "refresh_token",
];
const CAMEL: &[&str] = &[
    "apiKey",
    "token",
    "password",
    "secret",
    "dbPassword",
    "authToken",
    "clientSecret",
    "accessToken",
    "refreshToken",
    "secretKey",
];

/// Code that reads a secret from somewhere, hashes it or passes it on: never the secret.
pub fn code(g: &mut Gen) -> String {
    let n = g.pick(ENV_NAMES);
    let v = g.pick(VARS);
    let c = g.pick(CAMEL);
    let kebab = n.to_ascii_lowercase().replace('_', "-");
    let lower = n.to_ascii_lowercase();
    match g.below(52) {
        0 => format!("{v} = os.environ[\"{n}\"]"),
        1 => format!("{v} = os.environ.get(\"{n}\")"),
        2 => format!("{v} = os.environ.get(\"{n}\", \"\")"),
        3 => format!("{v} = os.getenv(\"{n}\")"),
        4 => format!("{v} = os.getenv(\"{n}\", default=None)"),
        5 => format!("{v} = settings.{n}"),
        6 => format!("{v} = config[\"{v}\"]"),
        7 => format!("self.{v} = {v}"),
        8 => format!("{v}: str = Field(..., env=\"{n}\")"),
        9 => format!(
            "{v} = getpass.getpass(\"Enter the {}: \")",
            v.replace('_', " ")
        ),
        10 => format!("{v} = input(\"{v}: \")"),
        11 => format!("{v} = request.headers.get(\"Authorization\")"),
        12 => format!("{v} = keyring.get_password(\"mnemo\", user)"),
        13 => format!("client = OpenAI(api_key={v})"),
        14 => format!("if not {v}:\n    raise RuntimeError(\"{n} is not set\")"),
        15 => format!("{v} = secrets.token_urlsafe(32)"),
        16 => format!("{v} = hashlib.sha256({v}.encode()).hexdigest()"),
        17 => "password = bcrypt.hashpw(password.encode(), bcrypt.gensalt())".to_owned(),
        18 => format!("assert {v} is not None, \"set {n}\""),
        19 => format!("{v} = None  # loaded at startup"),
        20 => format!("const {c} = process.env.{n};"),
        21 => format!("const {c} = process.env.{n} ?? \"\";"),
        22 => format!("const {c} = process.env[\"{n}\"] || missing(\"{n}\");"),
        23 => format!("const {{ {n} }} = process.env;"),
        24 => format!("  {c}: process.env.{n},"),
        25 => format!("headers: {{ Authorization: `Bearer ${{{c}}}` }},"),
        26 => format!("const {c} = await getSecret(\"{kebab}\");"),
        27 => format!("const {c} = core.getInput(\"{kebab}\");"),
        28 => format!("  {c}: z.string().min(1),"),
        29 => format!("{c} := os.Getenv(\"{n}\")"),
        30 => format!("{c}, ok := os.LookupEnv(\"{n}\")"),
        31 => format!("cfg.{c} = viper.GetString(\"{v}\")"),
        32 => format!("let {v} = std::env::var(\"{n}\")?;"),
        33 => format!("let {v} = env::var(\"{n}\").expect(\"{n} must be set\");"),
        34 => format!("let {v}: SecretString = cfg.{v}.clone();"),
        35 => format!("{v} = ENV[\"{n}\"]"),
        36 => format!("{v} = ENV.fetch(\"{n}\")"),
        37 => format!("{v} = Rails.application.credentials.{v}"),
        38 => format!("${v} = getenv('{n}');"),
        39 => format!("'{v}' => env('{n}'),"),
        40 => format!("String {c} = System.getenv(\"{n}\");"),
        41 => format!("var {c} = Environment.GetEnvironmentVariable(\"{n}\");"),
        42 => format!("export {n}=\"${{{n}:?missing}}\""),
        43 => format!("{n}=$(cat /run/secrets/{lower})"),
        44 => format!("{n}=\"$(vault kv get -field={v} secret/app)\""),
        45 => format!("read -rsp \"{v}: \" {n}"),
        46 => format!("echo \"${n}\" | docker login -u ci --password-stdin"),
        47 => format!("curl -H \"Authorization: Bearer ${n}\" https://api.example.com/v1/me"),
        48 => format!("{v} = var.{v}"),
        49 => format!("{v} = data.aws_secretsmanager_secret_version.db.secret_string"),
        50 => format!("if {v} == confirm_{v}:"),
        _ => format!("{v} = jwt.encode(payload, signing_key, algorithm=\"HS256\")"),
    }
}

/// Config that names a secret without holding one.
pub fn config(g: &mut Gen) -> String {
    let n = g.pick(ENV_NAMES);
    let v = g.pick(VARS);
    let c = g.pick(CAMEL);
    let kebab = n.to_ascii_lowercase().replace('_', "-");
    match g.below(40) {
        0 => format!("{n}="),
        1 => format!("{n}=changeme"),
        2 => format!("{n}=<your-{kebab}>"),
        3 => format!("{n}=your-{kebab}-here"),
        4 => format!("{n}=xxxxxxxxxxxxxxxx"),
        5 => format!("{n}=..."),
        6 => format!("{n}=${{{n}}}"),
        7 => format!("# {n}= (ask in #infra)"),
        8 => format!("  {n}: ${{{{ secrets.{n} }}}}"),
        9 => format!("  {v}: ${{{n}}}"),
        10 => format!(
            "- name: {n}\n  valueFrom:\n    secretKeyRef:\n      name: app-secrets\n      key: {kebab}"
        ),
        11 => format!("{v}: \"{{{{ vault_{v} }}}}\""),
        12 => format!("{v}: \"{{{{ .Values.{c} }}}}\""),
        13 => format!("{v}: $__file{{/run/secrets/{kebab}}}"),
        14 => format!("{n}=replace-me"),
        15 => format!("{n}=TODO"),
        16 => "PWD=/srv/app".to_owned(),
        17 => format!("OLDPWD=/home/{}/src", g.pick(&["ana", "ben", "deploy"])),
        18 => "secret: keep-it-simple".to_owned(),
        19 => format!("secretName: {}-tls", g.pick(&["web", "api", "grafana"])),
        20 => "tokenizer: bert-base-uncased".to_owned(),
        21 => "token_type: bearer".to_owned(),
        22 => format!("max_tokens: {}", 256 << g.below(6)),
        23 => format!("password_min_length: {}", 8 + g.below(8)),
        24 => "password: required".to_owned(),
        25 => "passwordless: true".to_owned(),
        26 => "auth: oauth2".to_owned(),
        27 => {
            "PASSWORD_HASHERS = [\"django.contrib.auth.hashers.Argon2PasswordHasher\"]".to_owned()
        }
        28 => format!("TOKEN_TTL={}", 60 * (1 + g.below(120))),
        29 => "API_KEY_HEADER=X-Api-Key".to_owned(),
        30 => "JWT_ALGORITHM=HS256".to_owned(),
        31 => format!(
            "secret_name = \"prod/{}/db\"",
            g.pick(&["web", "billing", "search"])
        ),
        32 => "token_endpoint: https://oauth2.googleapis.com/token".to_owned(),
        33 => format!("{v}: !vault |"),
        34 => format!("  {c}: string;"),
        35 => format!("\"{v}\": {{\"type\": \"string\", \"minLength\": 12}}"),
        36 => format!("{n}=  # set in the CI settings, not here"),
        37 => "SECRET_KEY_FALLBACKS = []".to_owned(),
        38 => format!(
            "CACHE_KEY_PREFIX=mnemo-{}",
            g.pick(&["dev", "prod", "test"])
        ),
        _ => format!("{v}=${{{{ secrets.{n} }}}}"),
    }
}

/// Declarations, infrastructure code and system files that name secrets.
pub fn declarations(g: &mut Gen) -> String {
    let v = g.pick(VARS);
    let c = g.pick(CAMEL);
    let n = g.pick(ENV_NAMES);
    match g.below(40) {
        0 => format!("    pub {v}: Option<SecretString>,"),
        1 => format!("    {v}: Vec<u8>,"),
        2 => format!("    {v}: Arc<Mutex<Token>>,"),
        3 => format!("    {c}?: string;"),
        4 => format!("    {v}: Optional[str] = None"),
        5 => format!("    {v}: &'static str,"),
        6 => format!("  {c}: string | null;"),
        7 => format!("    private String {c} = \"\";"),
        8 => format!("    val {c}: String = \"\""),
        9 => format!(
            "    {} string `json:\"{v}\"`",
            c[..1].to_uppercase() + &c[1..]
        ),
        10 => format!("    {v} VARCHAR(255) NOT NULL,"),
        11 => format!("if ({c}.length < 12) return false;"),
        12 => format!("if {v} == hashed:"),
        13 => format!("return {c} === confirm{};", c[..1].to_uppercase() + &c[1..]),
        14 => format!("let {v} = hash_password(&input)?;"),
        15 => format!("{v}=$(openssl rand -base64 {})", 16 << g.below(3)),
        16 => format!("{n}=$(pwgen {} 1)", 16 + g.below(16)),
        17 => "token=$(gh auth token)".to_owned(),
        18 => format!("  {v} = random_password.db.result"),
        19 => "MasterUserPassword: !GetAtt DBSecret.Password".to_owned(),
        20 => "MasterUserPassword: '{{resolve:secretsmanager:MySecret:SecretString:password}}'"
            .to_owned(),
        21 => format!("  {v}: {{{{ .Values.{c} | quote }}}}"),
        22 => "password_encryption = scram-sha-256".to_owned(),
        23 => "passwd:         files systemd".to_owned(),
        24 => format!(
            "{}:x:{}:{}:,,,:/home/{}:/bin/bash",
            g.pick(&["ana", "ben", "deploy"]),
            1000 + g.below(50),
            1000 + g.below(50),
            g.pick(&["ana", "ben", "deploy"])
        ),
        25 => format!(
            "docker run -e POSTGRES_PASSWORD=postgres -p 5432:5432 postgres:{}",
            12 + g.below(6)
        ),
        26 => "docker run -e MYSQL_ROOT_PASSWORD=my-secret-pw -d mysql:8".to_owned(),
        27 => format!("  {v}: ${{DB_PASSWORD:-postgres}}"),
        28 => "\"auth.password.placeholder\": \"Enter your password\",".to_owned(),
        29 => "<input type=\"password\" name=\"password\" autocomplete=\"current-password\">"
            .to_owned(),
        30 => format!("MAX_TOKENS={}", 512 << g.below(5)),
        31 => format!("max_new_tokens: {}", 64 << g.below(5)),
        32 => "machine api.github.com login ana password $GITHUB_TOKEN".to_owned(),
        33 => "curl -u \"ana:$TOKEN\" https://ci.acme.io/api".to_owned(),
        34 => "curl -u ana: https://ci.acme.io/api (prompts for the password)".to_owned(),
        35 => "curl -u admin:admin http://localhost:8080/api".to_owned(),
        36 => "ssh://git@github.com:22/acme/site.git".to_owned(),
        37 => format!(
            "fe80:0:0:0:{}:{}:{}:{}",
            g.s(3, HEX),
            g.s(4, HEX),
            g.s(4, HEX),
            g.s(4, HEX)
        ),
        38 => format!(
            "{}:{}:{}.{}",
            g.below(24),
            10 + g.below(50),
            10 + g.below(50),
            g.s(3, DIG)
        ),
        _ => format!(
            "password: see the 1Password item \"{} prod\"",
            g.pick(&["DB", "Redis", "SMTP"])
        ),
    }
}
