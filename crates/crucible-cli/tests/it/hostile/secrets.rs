//! Item 4, 5 and 6 of the trust issue: no planted secret leaves through any
//! export path, a title's key never becomes an id, and an agent backend's
//! key is never echoed.
//!
//! Secrets are planted as agents really print them (JSON tool arguments,
//! shell history, `env` dumps, `.env` files, curl headers, YAML, summaries
//! cut at 100 characters, titles, decisions, errors, `[!user]` callouts) and
//! built at run time from pseudo-random bodies, so no scanner flags this
//! file and no two of them share a substring.

use std::path::Path;

use crucible_core::{SUMMARY_LIMIT, cut};

use crate::kiln::TestKiln;

/// `len` token characters, mixed case and digits, different for each seed.
fn body(seed: u64, len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Keep a digit and both cases in every 8 characters.
            let c = match i % 8 {
                0 => b'2' + (x % 8) as u8,
                1 => b'A' + (x % 26) as u8,
                2 => b'a' + (x % 26) as u8,
                _ => ALPHABET[(x % ALPHABET.len() as u64) as usize],
            };
            char::from(c)
        })
        .collect()
}

fn hex(seed: u64, len: usize) -> String {
    let mut x = seed.wrapping_mul(0xA24B_AED4_963E_E407) | 1;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = if i % 4 == 0 { x % 10 } else { x % 16 };
            char::from_digit(d as u32, 16).unwrap()
        })
        .collect()
}

/// One planted secret: what must not survive (a prefix and the first 12
/// characters after it, or the whole secret when it has no prefix).
struct Planted {
    kind: &'static str,
    needle: String,
}

/// The session file and what it plants.
// One session file written out in full, so that a reader sees where each
// secret sits: data, not steps to name.
#[allow(clippy::too_many_lines)]
fn session_with_secrets() -> (String, Vec<Planted>) {
    let planted = std::cell::RefCell::new(Vec::new());
    let plant = |kind: &'static str, prefix: &str, secret: String| -> String {
        let rest = &secret[prefix.len()..];
        let needle = format!("{prefix}{}", &rest[..rest.len().min(12)]);
        planted.borrow_mut().push(Planted { kind, needle });
        secret
    };
    // A secret whose telling part is not at its start.
    let needle_is =
        |needle: &str| needle.clone_into(&mut planted.borrow_mut().last_mut().unwrap().needle);
    let openai = plant(
        "openai .env",
        "sk-proj-",
        format!("sk-proj-{}", body(1, 48)),
    );
    let anthropic = plant(
        "anthropic env dump",
        "sk-ant-api03-",
        format!("sk-ant-api03-{}", body(2, 60)),
    );
    let stripe = plant(
        "stripe json",
        "sk_live_",
        format!("sk_live_{}", body(3, 32)),
    );
    let stripe_rk = plant(
        "stripe rk shell",
        "rk_live_",
        format!("rk_live_{}", body(4, 32)),
    );
    let stripe_test = plant(
        "stripe test yaml",
        "sk_test_",
        format!("sk_test_{}", body(5, 32)),
    );
    let ghp = plant("github url", "ghp_", format!("ghp_{}", body(6, 36)));
    let gho = plant("github oauth json", "gho_", format!("gho_{}", body(7, 36)));
    let ghs = plant("github decision", "ghs_", format!("ghs_{}", body(8, 36)));
    let ghpat = plant(
        "github pat export",
        "github_pat_",
        format!("github_pat_{}", body(9, 60)),
    );
    let glpat = plant("gitlab header", "glpat-", format!("glpat-{}", body(10, 20)));
    let hf = plant("huggingface user", "hf_", format!("hf_{}", body(11, 34)));
    let sendgrid = plant(
        "sendgrid",
        "SG.",
        format!("SG.{}.{}", body(12, 22), body(13, 43)),
    );
    let slack = plant(
        "slack bot",
        "xoxb-",
        format!("xoxb-{}-{}", hex(14, 12), body(14, 24)),
    );
    let slack_hook_path = format!("T{}/B{}/{}", hex(15, 8), hex(16, 8), body(15, 24));
    let slack_hook = plant(
        "slack webhook",
        "",
        format!("https://hooks.slack.com/services/{slack_hook_path}"),
    );
    needle_is(&slack_hook_path[..20]);
    let akia = plant("aws key id", "AKIA", "AKIAZ7Q4XW2MPL6RT3NB".to_owned());
    let aws_secret = plant(
        "aws secret",
        "",
        format!("{}/{}", body(17, 20), body(18, 19)),
    );
    let google = plant("google api key", "AIza", format!("AIza{}", body(19, 35)));
    let ya29 = plant("google oauth", "ya29.", format!("ya29.{}", body(20, 60)));
    let jwt = plant(
        "bare jwt",
        "eyJ",
        format!("eyJhbGciOiJSUzI1NiJ9.eyJ{}.{}", body(21, 40), body(22, 43)),
    );
    needle_is("eyJhbGciOiJSUzI1NiJ9");
    let basic = plant(
        "authorization basic",
        "",
        "YWRtaW46czNjcjN0UGFzc3dvcmQ=".to_owned(),
    );
    let bearer = plant("authorization bearer", "", body(23, 40));
    let x_api_key = plant("x-api-key header", "", body(24, 32));
    let myapp = plant("prefixed env name", "", body(25, 28));
    let db_password = plant("DB_PASSWORD", "", format!("Pw{}!", body(26, 14)));
    let redis = plant("redis empty user", "", format!("r3d{}", body(27, 14)));
    let postgres = plant("postgres url", "", format!("pG{}", body(28, 14)));
    let escaped = plant("json-escaped password", "", format!("eS{}", body(29, 16)));
    let pem_body = format!("MIIEow{}", body(30, 58));
    let pem = plant("pem with footer", "", pem_body);
    let pem_cut = plant(
        "pem cut by summary",
        "",
        format!("b3BlbnNzaC1rZXkt{}", body(31, 60)),
    );
    let cut_token = plant(
        "token cut at 60",
        "sk-proj-",
        format!("sk-proj-{}", body(32, 90)),
    );
    let mysql = plant("mysql -p", "", format!("My{}", body(33, 12)));
    let password_flag = plant("--password=", "", format!("Fl{}", body(34, 12)));
    let sshpass = plant("sshpass -p", "", format!("Ss{}", body(35, 12)));
    let npm = plant("npm token npmrc", "npm_", format!("npm_{}", body(36, 36)));
    let pypi = plant(
        "pypi token",
        "pypi-",
        format!("pypi-AgEIcHlwaS5vcmc{}", body(37, 50)),
    );
    needle_is(&pypi[..30]);
    let dop = plant("digitalocean", "dop_v1_", format!("dop_v1_{}", hex(38, 64)));
    let shpat = plant("shopify", "shpat_", format!("shpat_{}", hex(39, 32)));
    let twilio = plant("twilio", "SK", format!("SK{}", hex(40, 32)));
    let telegram_tail = body(41, 33);
    let telegram = plant(
        "telegram bot url",
        "",
        format!("123456789:AA{telegram_tail}"),
    );
    needle_is(&telegram_tail[..14]);
    let vault = plant("vault", "hvs.", format!("hvs.{}", body(42, 90)));
    let databricks = plant("databricks", "dapi", format!("dapi{}", hex(43, 32)));
    let cookie = plant("session cookie", "", hex(44, 32));
    let azure = plant("azure storage", "", format!("{}==", body(45, 86)));
    let linear = plant("linear", "lin_api_", format!("lin_api_{}", body(46, 40)));
    let postman = plant(
        "postman",
        "PMAK-",
        format!("PMAK-{}-{}", hex(47, 24), hex(48, 34)),
    );
    let curl_user = plant("curl -u", "", format!("Cu{}", body(49, 12)));
    let yaml_generic = plant("yaml api_key", "", body(50, 40));
    let json_password = plant("json password", "", format!("Js{}", body(51, 14)));
    let groq = plant("groq", "gsk_", format!("gsk_{}", body(52, 52)));
    let title_key = plant("title", "ghp_", format!("ghp_{}", body(53, 36)));
    let user_key = plant("user callout", "sk-", format!("sk-{}", body(54, 48)));
    let export_key = plant("export line", "", body(55, 40));
    let cred_file = plant("credentials file", "", body(56, 40));

    // Summaries cut at 100 characters, as the recorder cuts them.
    let cut_token_summary = cut(
        &format!("wrote the new config: sets OPENAI_KEYS={cut_token}"),
        SUMMARY_LIMIT,
    );
    // The token's first 60 characters (its prefix and 52 more) are kept.
    assert!(cut_token_summary.contains(&format!("{}…", &cut_token[..60])));
    let pem_cut_summary = cut(
        &format!("-----BEGIN OPENSSH PRIVATE KEY----- {pem_cut} -----END OPENSSH PRIVATE KEY-----"),
        SUMMARY_LIMIT,
    );
    assert!(!pem_cut_summary.contains("-----END"));

    let text = format!(
        r#"---
type: session
session_id: 2025-12-21-deploy-everything
started: 2025-12-21T10:00:00Z
status: completed
title: "Deploy everything with {title_key}"
---

# Deploy everything

## Configure @ops@1 #prod

Run `cargo test -p crucible-core` first, then open crates/crucible-core/src/store/allocate.rs and check that fn main() {{}} still compiles. The password field stays empty on purpose; token_count = 42 and max_tokens: 1024 live in src/secret_santa.rs.

**Tool calls:**
- `bash cat .env` → OPENAI_API_KEY={openai} DB_PASSWORD={db_password} MYAPP_SECRET_KEY={myapp}
- `bash env` → HOME=/home/ops ANTHROPIC_API_KEY={anthropic} PATH=/usr/bin
- `http {{"url": "https://api.stripe.com/v1/charges", "api_key": "{stripe}", "amount": 100}}` → {{"id": "ch_1", "token": "{gho}"}}
- `bash stripe --api-key {stripe_rk} charges list` → ok
- `bash git push https://{ghp}@github.com/acme/app.git main` → pushed
- `bash export GITHUB_TOKEN={ghpat}` → ok
- `bash curl -H "PRIVATE-TOKEN: {glpat}" https://gitlab.example.com/api/v4/projects` → 200
- `bash curl -H "Authorization: Basic {basic}" https://ci.example.com` → 200
- `bash curl -H 'Authorization: Bearer {bearer}' -H "x-api-key: {x_api_key}" https://api.example.com/v1` → ✗ 401 unauthorized
- `bash redis-cli -u redis://:{redis}@cache.internal:6379/0 ping` → PONG
- `bash psql postgres://app:{postgres}@db.internal:5432/app -c 'select 1'` → 1 row
- `write {{"path": "secrets.json", "content": "{{\"password\": \"{escaped}\", \"user\": \"app\"}}"}}` → written
- `bash cat deploy.key` → {pem_cut_summary}
- `bash ./configure` → {cut_token_summary}
- `bash mysql -u root -p{mysql} -h db.internal app` → ✗ ERROR 1045 access denied
- `bash pg_dump --password={password_flag} app` → ok
- `bash sshpass -p '{sshpass}' ssh deploy@host uptime` → up 3 days
- `bash cat ~/.npmrc` → //registry.npmjs.org/:_authToken={npm}
- `bash twine upload -u __token__ -p {pypi} dist/*` → uploaded
- `bash doctl auth init -t {dop}` → ok
- `bash curl -X POST {slack_hook} -d '{{"text":"hi"}}'` → ok
- `bash curl https://api.telegram.org/bot{telegram}/sendMessage` → ok
- `bash curl -u admin:{curl_user} https://jenkins.example.com/api/json` → 200
- `bash curl -H "Cookie: theme=dark; sessionid={cookie}" https://app.example.com` → 200
- `bash cat ~/.aws/credentials` → aws_access_key_id = {akia} aws_secret_access_key = {aws_secret}
- `http {{"password": "{json_password}", "user": "admin"}}` → ok

> [!decision]
> Rotate the GitHub App token {ghs} after the deploy; keep SendGrid key {sendgrid} for mail.

## Deploy @ops@1 #prod

**Tool calls:**
- `bash cat config.yaml` → api_key: {yaml_generic} stripe_key: {stripe_test} slack_token: {slack}
- `bash curl "https://maps.googleapis.com/maps/api/geocode/json?key={google}"` → 200
- `bash gcloud auth print-access-token` → {ya29}
- `bash kubectl logs api` → verified token {jwt} for user 42
- `bash vault login {vault}` → success
- `bash databricks configure --token {databricks}` → ok
- `bash curl -H "X-Shopify-Access-Token: {shpat}" https://shop.example.com/admin` → 200
- `bash twilio api --auth-token {twilio}` → ✗ denied
- `bash linear --api-key {linear} issues` → 3 issues
- `bash newman run c.json --env-var postman_key={postman}` → ok
- `bash groq chat --key={groq}` → ok
- `bash az storage blob list --connection-string "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={azure};EndpointSuffix=core.windows.net"` → 2 blobs
- `bash export DEPLOY_TOKEN={export_key}` → ok
- `bash cat ~/.config/app/credentials.yml` → credentials: {cred_file}

> [!error]
> The deploy key was rejected:
> -----BEGIN RSA PRIVATE KEY-----
> {pem}
> -----END RSA PRIVATE KEY-----
> Resolution: uploaded a fresh key and set HF token {hf} in the CI settings.

> [!user]
> "stop, use my key {user_key} instead" - switched keys.
"#
    );
    (text, planted.into_inner())
}

/// The ordinary code and prose planted beside the secrets.
const ORDINARY: &[&str] = &[
    "cargo test -p crucible-core",
    "crates/crucible-core/src/store/allocate.rs",
    "fn main() {}",
    "The password field stays empty on purpose",
    "token_count = 42",
    "max_tokens: 1024",
    "src/secret_santa.rs",
];

/// Every output of every export path, redacted and not: `(label, text)`.
fn outputs(kiln: &TestKiln, id: &str, redact: bool) -> Vec<(String, String)> {
    let mut runs: Vec<Vec<String>> = Vec::new();
    for schema in ["sft", "dpo", "sharegpt"] {
        runs.push(vec![
            "session".into(),
            "learn".into(),
            "--export".into(),
            "jsonl".into(),
            "--schema".into(),
            schema.into(),
        ]);
    }
    for export in ["markdown", "puzzle"] {
        runs.push(vec![
            "session".into(),
            "learn".into(),
            "--export".into(),
            export.into(),
        ]);
    }
    for format in ["markdown", "json", "mermaid"] {
        runs.push(vec![
            "session".into(),
            "codify".into(),
            id.into(),
            "--format".into(),
            format.into(),
        ]);
    }
    for to in ["connectonion", "codeloops", "openai-messages"] {
        runs.push(vec![
            "session".into(),
            "export".into(),
            id.into(),
            "--to".into(),
            to.into(),
        ]);
    }
    let mut out = Vec::new();
    for mut args in runs {
        let verb = args[1].clone();
        match (verb.as_str(), redact) {
            ("export", true) => args.push("--redact".into()),
            ("learn" | "codify", false) => args.push("--no-redact".into()),
            _ => {}
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = kiln.run(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        out.push((args.join(" "), format!("{}\n{}", run.stdout, run.stderr)));
    }
    // agent-dir writes a folder: read every file of it.
    let dir = kiln
        .root
        .path()
        .join(if redact { "agent-red" } else { "agent-raw" });
    let mut args = vec!["session", "export", id, "--to", "agent-dir", "--output"];
    let dir_arg = dir.display().to_string();
    args.push(&dir_arg);
    if redact {
        args.push("--redact");
    }
    let run = kiln.run(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files = String::new();
    read_tree(&dir, &mut files);
    assert!(!files.is_empty(), "agent-dir wrote nothing");
    out.push((args.join(" "), files));
    out
}

fn read_tree(dir: &Path, into: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_tree(&path, into);
        } else {
            into.push_str(&std::fs::read_to_string(&path).unwrap());
            into.push('\n');
        }
    }
}

#[test]
fn no_planted_secret_survives_any_export_path_and_ordinary_text_does() {
    let (text, planted) = session_with_secrets();
    assert!(planted.len() >= 40, "{} kinds planted", planted.len());
    let kiln = TestKiln::empty();
    kiln.write("2025-12-21-deploy-everything.md", &text);
    let id = "2025-12-21-deploy-everything";
    let check = kiln.run(&["session", "validate", id]);
    assert_eq!(
        check.code, 0,
        "the planted session is valid: {}",
        check.stderr
    );

    let raw = outputs(&kiln, id, false);
    let redacted = outputs(&kiln, id, true);

    // Unredacted, every planted secret reaches some output: the test can fail.
    let all_raw: String = raw.iter().map(|(_, t)| t.as_str()).collect();
    for p in &planted {
        assert!(
            all_raw.contains(&p.needle),
            "{} ({}) reaches no output even unredacted",
            p.kind,
            p.needle
        );
    }
    let mut leaks = Vec::new();
    for (label, out) in &redacted {
        for p in &planted {
            if out.contains(&p.needle) {
                leaks.push(format!("{label}: {} ({})", p.kind, p.needle));
            }
        }
    }
    assert!(leaks.is_empty(), "secrets survived:\n{}", leaks.join("\n"));
    // Ordinary code and prose that an output carries survives redaction.
    for ((label, raw_out), (_, red_out)) in raw.iter().zip(&redacted) {
        for o in ORDINARY {
            if raw_out.contains(o) {
                assert!(red_out.contains(o), "{label} lost {o:?}");
            }
        }
    }
    let carried = ORDINARY
        .iter()
        .filter(|o| redacted.iter().any(|(_, t)| t.contains(*o)))
        .count();
    assert_eq!(
        carried,
        ORDINARY.len(),
        "every ordinary line reaches some output"
    );
}

#[test]
fn a_title_holding_a_key_never_becomes_an_id_or_a_file_name() {
    let kiln = TestKiln::empty();
    let key = format!("ghp_{}", body(60, 36));
    let out = kiln.run(&[
        "session",
        "start",
        "--title",
        &format!("push with {key} please"),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Ids are lowercase: look for the key in any case.
    let needle = key[..16].to_lowercase();
    assert!(
        !out.stdout.to_lowercase().contains(&needle),
        "{}",
        out.stdout
    );
    assert!(
        !out.stderr.to_lowercase().contains(&needle),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("push-with-redacted"), "{}", out.stdout);
    for entry in std::fs::read_dir(kiln.sessions()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.to_lowercase().contains(&needle), "{name}");
    }
    let list = kiln.run(&["session", "list"]);
    assert!(
        !list.stdout.to_lowercase().contains(&needle),
        "{}",
        list.stdout
    );
}

const PAUSED: &str = "2025-12-10-fix-flaky-test";

/// Serves one HTTP answer with `status` and `body` on 127.0.0.1; returns
/// `host:port`.
fn serve_one_error(status: u16, body: String) -> (String, std::thread::JoinHandle<String>) {
    let (url, handle) = crate::kiln::serve_one(status, body);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();
    (addr, handle)
}

fn configure(kiln: &TestKiln, base_url: &str, api_key_env: &str) {
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        format!(
            "[agent]\nbackend = \"openai\"\nbase_url = \"{base_url}\"\nmodel = \"stub-model\"\n\
             api_key_env = \"{api_key_env}\"\ntimeout = \"20s\"\n"
        ),
    )
    .unwrap();
}

fn session_text(kiln: &TestKiln) -> String {
    std::fs::read_to_string(kiln.sessions().join(format!("{PAUSED}.md"))).unwrap()
}

#[test]
fn an_error_body_echoing_the_key_reaches_neither_stderr_nor_the_session() {
    let kiln = TestKiln::with_fixtures();
    let before = session_text(&kiln);
    let key = format!("sk-proj-{}", body(61, 48));
    let (addr, server) = serve_one_error(
        401,
        format!(
            r#"{{"error":{{"message":"Incorrect API key provided: {key}. You can find your API key at https://platform.example.com","type":"invalid_request_error"}}}}"#
        ),
    );
    configure(&kiln, &format!("http://{addr}/v1"), "CRU_TEST_KEY");
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "resume", PAUSED, "--once"])
            .env("CRU_TEST_KEY", &key),
    );
    server.join().unwrap();
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("Incorrect API key provided"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(&key[..16]), "{}", out.stderr);
    assert!(!out.stdout.contains(&key[..16]), "{}", out.stdout);
    // A backend that fails before answering changes nothing (the trust
    // issue's item 11): so nothing of the key can be in the session either.
    let text = session_text(&kiln);
    assert_eq!(text, before);
    assert!(!text.contains(&key[..16]), "{text}");
}

#[test]
fn a_base_url_with_credentials_is_never_printed_or_stored() {
    let kiln = TestKiln::with_fixtures();
    let password = format!("Bp{}", body(62, 20));
    let (addr, server) = serve_one_error(500, r#"{"error":"overloaded"}"#.into());
    configure(
        &kiln,
        &format!("http://admin:{password}@{addr}/v1"),
        "CRU_TEST_KEY",
    );
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "resume", PAUSED, "--once"])
            .env("CRU_TEST_KEY", "k-not-a-pattern"),
    );
    server.join().unwrap();
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains(&addr),
        "the URL is named: {}",
        out.stderr
    );
    assert!(!out.stderr.contains(&password), "{}", out.stderr);
    assert!(!out.stdout.contains(&password), "{}", out.stdout);
    assert!(!session_text(&kiln).contains(&password));
}

#[test]
fn api_key_env_set_to_a_key_is_refused_without_echoing_it() {
    let kiln = TestKiln::with_fixtures();
    let before = session_text(&kiln);
    for key in [
        format!("sk-proj-{}", body(63, 48)),
        format!("ghp_{}", body(64, 36)),
        hex(65, 40),
    ] {
        configure(&kiln, "http://127.0.0.1:9/v1", &key);
        let out = kiln.run(&["session", "resume", PAUSED, "--once"]);
        assert_ne!(out.code, 0);
        assert!(out.stderr.contains("api_key_env"), "{}", out.stderr);
        assert!(!out.stderr.contains(&key[..12]), "{}", out.stderr);
        assert!(!out.stdout.contains(&key[..12]), "{}", out.stdout);
        assert_eq!(session_text(&kiln), before, "nothing is recorded");
    }
}

#[test]
fn an_agent_command_holding_a_key_is_never_shown_with_it() {
    let kiln = TestKiln::with_fixtures();
    let key = format!("sk-proj-{}", body(63, 40));
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        format!("[agent]\ncommand = \"OPENAI_API_KEY={key} false\"\n"),
    )
    .unwrap();
    let before = session_text(&kiln);
    let out = kiln.run(&["session", "resume", PAUSED, "--once"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("agent command"), "{}", out.stderr);
    assert!(!out.stderr.contains(&key[..16]), "{}", out.stderr);
    assert!(!out.stdout.contains(&key[..16]), "{}", out.stdout);
    assert_eq!(session_text(&kiln), before);
    let out = kiln.run(&["session", "codify", PAUSED, "--refine"]);
    assert!(!out.stderr.contains(&key[..16]), "{}", out.stderr);
    assert!(!out.stdout.contains(&key[..16]), "{}", out.stdout);
}
