use super::*;

/// Planted secrets are built from pieces so that no scanner flags this file.
fn key(prefix: &str, body: &str) -> String {
    format!("{prefix}{body}")
}

const BODY40: &str = "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5kL7";

fn red(text: &str) -> String {
    Redactor::shared().redact(text).into_owned()
}

#[track_caller]
fn gone(text: &str, secret: &str, kind: &str) {
    let out = red(text);
    assert!(!out.contains(secret), "{secret} survived in {out:?}");
    assert!(
        out.contains(&format!("[REDACTED:{kind}]")),
        "no [REDACTED:{kind}] in {out:?}"
    );
}

#[track_caller]
fn kept(text: &str) {
    assert_eq!(red(text), text, "changed");
}

#[test]
fn service_tokens_whole_and_cut_after_eight_characters() {
    let cases = [
        ("sk-ant-api03-", "anthropic-key"),
        ("sk-proj-", "openai-key"),
        ("sk-", "openai-key"),
        ("sk_live_", "stripe-key"),
        ("sk_test_", "stripe-key"),
        ("rk_live_", "stripe-key"),
        ("ghp_", "github-token"),
        ("gho_", "github-token"),
        ("ghs_", "github-token"),
        ("github_pat_", "github-token"),
        ("glpat-", "gitlab-token"),
        ("hf_", "huggingface-token"),
        ("SG.", "sendgrid-key"),
        ("xoxb-", "slack-token"),
        ("xoxp-", "slack-token"),
        ("AIza", "google-api-key"),
        ("ya29.", "google-oauth-token"),
        ("npm_", "npm-token"),
        ("pypi-", "pypi-token"),
        ("shpat_", "shopify-token"),
        ("PMAK-", "postman-key"),
        ("gsk_", "groq-key"),
        ("r8_", "replicate-token"),
        ("hvs.", "vault-token"),
        ("lin_api_", "linear-key"),
        ("NRAK-", "newrelic-key"),
    ];
    for (prefix, kind) in cases {
        let whole = key(prefix, BODY40);
        gone(&format!("using {whole} now"), &whole, kind);
        // Cut by a summary: the prefix and 8 characters are enough.
        let cut = key(prefix, &BODY40[..8]);
        gone(&format!("args: {{\"k\": \"{cut}…"), &cut, kind);
    }
    for (secret, kind) in [
        ("AKIAIOSFODNN7EXAMPL3", "aws-access-key"),
        ("AKIAABCDEFGHIJKLMNOP", "aws-access-key"),
        ("ASIA2B3C4D5E6F7G8H9J", "aws-access-key"),
        (
            "dop_v1_0123456789abcdef0123456789abcdef",
            "digitalocean-token",
        ),
        ("dapi0123456789abcdef0123456789abcdef", "databricks-token"),
        (
            "bot123456789:AAHk3mP9xQ2rT5vW8yZ1bC4dF7gJ0kL3nP",
            "telegram-token",
        ),
    ] {
        gone(
            &format!("x {secret} y"),
            secret.trim_start_matches("bot"),
            kind,
        );
    }
}

#[test]
fn tokens_right_after_a_json_escape_are_found() {
    let t = key("ghp_", BODY40);
    gone(
        &format!(r#"{{\"out\": \"line\n{t}\"}}"#),
        &t,
        "github-token",
    );
}

#[test]
fn jwt_whole_and_cut() {
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    gone(&format!("token {jwt}"), jwt, "jwt");
    gone("curl … eyJhbGciOiJIUzI1Ni", "eyJhbGciOiJIUzI1Ni", "jwt");
}

#[test]
fn private_keys_with_and_without_footer() {
    let pem =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq\nQ2x9\n-----END RSA PRIVATE KEY-----";
    assert_eq!(red(&format!("a\n{pem}\nb")), "a\n[REDACTED:private-key]\nb");
    // Cut by a summary: to the end of the body.
    assert_eq!(
        red("key: -----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA…"),
        "key: [REDACTED:private-key]…"
    );
    assert_eq!(
        red("{\"k\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN\", \"n\": 1}"),
        "{\"k\": \"[REDACTED:private-key]\", \"n\": 1}"
    );
}

#[test]
fn key_like_names_in_env_shell_yaml_and_json() {
    let v = "Zx81kQ2mLp94TrW0";
    for (text, kind) in [
        (format!("MYAPP_SECRET_KEY={v}"), "secret"),
        (format!("export STRIPE_WEBHOOK_TOKEN=\"{v}\""), "secret"),
        (format!("DB_PASSWORD={v}"), "secret"),
        (format!("PGPASSWORD='{v}' psql"), "secret"),
        (format!("  api_key: {v}"), "secret"),
        (format!("{{\"password\": \"{v}\"}}"), "secret"),
        (format!(r#"{{\"password\": \"{v}\"}}"#), "secret"),
        (format!("{{\"clientSecret\":\"{v}\"}}"), "secret"),
        (format!("credentials = {v}"), "secret"),
        (format!("aws_secret_access_key = {v}/K7MDENG"), "secret"),
        (format!("$settings['db_passwd'] => '{v}'"), "secret"),
    ] {
        gone(&text, v, kind);
    }
    // The name and the quotes stay, so JSON stays JSON.
    assert_eq!(
        red(&format!("{{\"password\": \"{v}\"}}")),
        "{\"password\": \"[REDACTED:secret]\"}"
    );
    assert_eq!(
        red("db password=hunter2 ok"),
        "db password=[REDACTED:secret] ok"
    );
    assert_eq!(
        red("use secret=\"correct horse battery staple\" now"),
        "use secret=\"[REDACTED:secret]\" now"
    );
}

#[test]
fn command_line_passwords() {
    gone(
        "mysql -u root -pS3cretPw! -h db",
        "S3cretPw!",
        "password-flag",
    );
    gone("psql --password=S3cretPw!", "S3cretPw!", "password-flag");
    gone(
        "tool --password S3cretPw! --verbose",
        "S3cretPw!",
        "password-flag",
    );
    gone(
        "sshpass -p 'S3cret Pw' ssh host",
        "S3cret Pw",
        "password-flag",
    );
    gone(
        "curl -u admin:S3cretPw! https://x",
        "S3cretPw!",
        "password-flag",
    );
    gone(
        "deploy --api-key Zx81kQ2mLp94TrW0",
        "Zx81kQ2mLp94TrW0",
        "secret-flag",
    );
}

#[test]
fn urls_with_a_password_even_without_user() {
    gone("redis://:pass@cache:6379/0", ":pass@", "url-password");
    assert_eq!(
        red("psql postgres://app:pa55word@db:5432/app"),
        "psql postgres://app:[REDACTED:url-password]@db:5432/app"
    );
    gone("https://user:Zx81kQ2m@host/v1", "Zx81kQ2m", "url-password");
    kept("see https://example.com/a:b@c");
    kept("postgres://app:${DB_PASS}@db/app");
}

#[test]
fn authorization_headers_and_cookies() {
    gone(
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        "dXNlcjpwYXNzd29yZA==",
        "authorization",
    );
    gone(
        "curl -H 'Authorization: Bearer abcDEF123456ghij' x",
        "abcDEF123456ghij",
        "authorization",
    );
    gone(
        "Authorization: token Zx81kQ2mLp94TrW0",
        "Zx81kQ2mLp94TrW0",
        "authorization",
    );
    gone(
        "-H \"x-api-key: Zx81kQ2mLp94TrW0\"",
        "Zx81kQ2mLp94TrW0",
        "api-key-header",
    );
    gone(
        "api-key: Zx81kQ2mLp94TrW0",
        "Zx81kQ2mLp94TrW0",
        "api-key-header",
    );
    gone(
        "Cookie: theme=dark; sessionid=9f8e7d6c5b4a39281706f5e4",
        "9f8e7d6c5b4a39281706f5e4",
        "session-cookie",
    );
    assert!(red("Cookie: theme=dark; sessionid=9f8e7d6c5b4a39281706f5e4").contains("theme=dark"));
}

#[test]
fn code_and_prose_survive() {
    for text in [
        "fn main() {}",
        "cargo test -p crucible-core",
        "crates/crucible-core/src/store/allocate.rs",
        "Fill in the password field, then press enter.",
        "token_count = 42",
        "max_tokens: 1024",
        "src/secret_santa.rs",
        "let password: String = read();",
        "password: Option<String>,",
        "API_KEY = os.environ[\"API_KEY\"]",
        "export OPENAI_API_KEY=$OPENAI_API_KEY",
        "token = get_token(user)",
        "tokenizer: bert-base-uncased",
        "pip install hf_transfer scikit-learn",
        "the key is in ~/.ssh/id_ed25519, see SSH_KEY=/home/me/.ssh/id_ed25519",
        "Authorization: required for every call",
        "password: see below",
        "secret_santa = SecretSanta::new()",
        "the task-manager and sk-learn docs",
        "ASIAPACIFIC region",
        "author: Jane Doe",
        "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5",
        "key_id = 1234567890ab",
        "--max-tokens 4096 --token-file ./t",
    ] {
        kept(text);
    }
}

#[test]
fn redaction_is_idempotent_and_borrows_clean_text() {
    let once = red("MYAPP_SECRET_KEY=Zx81kQ2mLp94TrW0 and sk-proj-Zx81kQ2mLp94TrW0");
    assert_eq!(red(&once), once);
    assert!(matches!(
        Redactor::shared().redact("nothing secret here"),
        Cow::Borrowed(_)
    ));
    let mut s = "ghp_Zx81kQ2mLp94TrW0".to_owned();
    Redactor::shared().redact_in_place(&mut s);
    assert_eq!(s, "[REDACTED:github-token]");
}

#[test]
fn every_pattern_compiles_and_each_match_holds_a_keyword() {
    for r in crate::rules::RULES {
        assert!(Regex::new(r.pattern).is_ok(), "{}", r.kind);
        assert!(!r.keywords.is_empty(), "{}", r.kind);
    }
}

#[test]
fn netrc_php_defines_and_doubly_escaped_json() {
    gone(
        "machine api.github.com login bob password Nr7fQz9xLp2w",
        "Nr7fQz9xLp2w",
        "netrc-password",
    );
    gone(
        "machine example.com\n  login bob\n  password Nr7fQz9xLp2w\n",
        "Nr7fQz9xLp2w",
        "netrc-password",
    );
    gone(
        "define('DB_PASSWORD', 'Ph4rQ8zLm2xV');",
        "Ph4rQ8zLm2xV",
        "secret",
    );
    gone(
        r#"{\"cfg\": \"{\\\"password\\\": \\\"dJ8kQ2mZx7Lp\\\"}\"}"#,
        "dJ8kQ2mZx7Lp",
        "secret",
    );
    gone(
        "docker login -u me -p D0ckerPw1 registry.example.com",
        "D0ckerPw1",
        "password-flag",
    );
    gone(
        "docker login --password=D0ckerPw1 registry",
        "D0ckerPw1",
        "password-flag",
    );
    kept("docker run -p 8080:80 nginx");
    kept("the machine learning password field is empty");
    kept("define('APP_NAME', 'cru');");
}
