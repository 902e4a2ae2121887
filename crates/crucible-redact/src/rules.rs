//! What a secret looks like: one pattern per kind. The secret is the group
//! `s` (or the first of `s1`, `s2`, ... that took part), else the whole
//! match; what is around it (a name, a header, a scheme) is kept.
//!
//! Token shapes follow the services gitleaks' default configuration knows,
//! loosened in one way on purpose: a known prefix followed by 8 or more
//! token characters is enough, so that a key cut by a 100-character summary
//! is taken out as surely as a whole one.

use crate::value;

/// What a match must also satisfy before it is replaced.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Check {
    /// The pattern is specific enough.
    Always,
    /// Not a word: a digit, or both upper and lower case letters. Keeps
    /// `hf_transfer` and `sk-learn-extras` while a real key's first 8
    /// characters nearly always qualify.
    TokenLike,
    /// The value after a key-like name looks like a secret (see
    /// [`value::looks_secret`]).
    Secret,
    /// The value after a password-like name is not a placeholder (see
    /// [`value::looks_password`]).
    Password,
    /// A password where nothing else could be (see
    /// [`value::given_password`]).
    Given,
    /// The value after a name holds a secret if the name is key-like or
    /// password-like (see [`value::name_kind`]).
    NamedValue,
}

impl Check {
    /// Whether `secret` (followed in the text by `after`) is one; `name`
    /// is the match's `name` group, if it has one.
    pub(crate) fn accepts(self, name: Option<&str>, secret: &str, after: &str) -> bool {
        match self {
            Self::Always => true,
            Self::TokenLike => value::token_like(secret),
            Self::Secret => value::looks_secret(secret, after),
            Self::Password => value::looks_password(secret, after),
            Self::Given => value::given_password(secret),
            Self::NamedValue => match name.and_then(value::name_kind) {
                Some(value::NameKind::Password) => value::looks_password(secret, after),
                Some(value::NameKind::Secret) => value::looks_secret(secret, after),
                None => false,
            },
        }
    }
}

#[derive(Debug)]
pub(crate) struct RuleSpec {
    pub(crate) kind: &'static str,
    /// Words one of which every match holds (compared in ASCII case
    /// insensitively): text without any of them is not run through the
    /// pattern at all.
    pub(crate) keywords: &'static [&'static str],
    pub(crate) pattern: &'static str,
    pub(crate) check: Check,
}

/// Where a token may start: the text's start, a character that is not a
/// letter or digit, or a JSON escape (`\n`, `\t`, `\r`), since JSON text
/// holds `\nghp_...` with no boundary before the prefix.
macro_rules! token {
    ($kind:literal, $keywords:expr, $body:literal) => {
        RuleSpec {
            kind: $kind,
            keywords: $keywords,
            pattern: concat!(r"(?:^|[^A-Za-z0-9]|\\[nrt])(?P<s>", $body, ")"),
            check: Check::TokenLike,
        }
    };
}

pub(crate) const RULES: &[RuleSpec] = &[
    // A private key with its footer, else as far as its base64 body goes
    // (a summary may have cut it before the footer).
    RuleSpec {
        kind: "private-key",
        pattern: r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[nrt])*)",
        keywords: &["private key"],
        check: Check::Always,
    },
    RuleSpec {
        kind: "private-key",
        pattern: r"PuTTY-User-Key-File-\d: [\s\S]*?Private-MAC: [0-9a-f]+",
        keywords: &["putty-user-key-file"],
        check: Check::Always,
    },
    token!("anthropic-key", &["sk-ant-"], r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    token!(
        "openai-key",
        &["sk-"],
        r"sk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{8,}"
    ),
    token!(
        "stripe-key",
        &["_live_", "_test_", "_prod_"],
        r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{8,}"
    ),
    token!("stripe-key", &["whsec_"], r"whsec_[A-Za-z0-9]{8,}"),
    token!(
        "github-token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"gh[pousr]_[A-Za-z0-9]{8,}"
    ),
    token!(
        "github-token",
        &["github_pat_"],
        r"github_pat_[A-Za-z0-9_]{8,}"
    ),
    token!(
        "gitlab-token",
        &[
            "glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glimt-", "glft-", "glsoat-",
            "glagent-", "glffct-"
        ],
        r"gl(?:pat|dt|ptt|rt|cbt|oas|imt|ft|soat|agent|ffct)-[A-Za-z0-9_\-]{8,}"
    ),
    token!(
        "gitlab-token",
        &["gr1348941"],
        r"GR1348941[A-Za-z0-9_\-]{8,}"
    ),
    token!(
        "huggingface-token",
        &["hf_", "api_org_"],
        r"(?:hf_|api_org_)[A-Za-z0-9]{8,}"
    ),
    token!(
        "sendgrid-key",
        &["sg."],
        r"SG\.[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]+)?"
    ),
    token!("slack-token", &["xox"], r"xox[abposre]-[A-Za-z0-9\-]{8,}"),
    token!("slack-token", &["xapp-"], r"xapp-\d-[A-Za-z0-9\-]{8,}"),
    RuleSpec {
        kind: "slack-webhook",
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_\-]{8,})",
        keywords: &["hooks.slack.com"],
        check: Check::Always,
    },
    RuleSpec {
        kind: "discord-webhook",
        pattern: r"discord(?:app)?\.com/api/webhooks/\d+/(?P<s>[A-Za-z0-9_\-]{8,})",
        keywords: &["discord"],
        check: Check::Always,
    },
    token!(
        "aws-access-key",
        &["akia", "asia", "abia", "acca", "a3t"],
        r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{8,}"
    ),
    // A whole AWS key id needs no digit to be one.
    RuleSpec {
        kind: "aws-access-key",
        pattern: r"(?:^|[^A-Za-z0-9]|\\[nrt])(?P<s>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?:$|[^A-Za-z0-9])",
        keywords: &["akia", "asia", "abia", "acca"],
        check: Check::Always,
    },
    token!("google-api-key", &["aiza"], r"AIza[A-Za-z0-9_\-]{8,}"),
    token!(
        "google-oauth-token",
        &["ya29."],
        r"ya29\.[A-Za-z0-9_\-]{8,}"
    ),
    token!(
        "google-oauth-secret",
        &["gocspx-"],
        r"GOCSPX-[A-Za-z0-9_\-]{8,}"
    ),
    token!(
        "jwt",
        &["eyj"],
        r"eyJ[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]*){0,2}"
    ),
    token!(
        "digitalocean-token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[opr]_v1_[a-f0-9]{8,}"
    ),
    token!(
        "shopify-token",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"shp(?:at|ca|pa|ss)_[A-Za-z0-9]{8,}"
    ),
    token!("npm-token", &["npm_"], r"npm_[A-Za-z0-9]{8,}"),
    token!("pypi-token", &["pypi-"], r"pypi-[A-Za-z0-9_\-]{8,}"),
    token!("databricks-token", &["dapi"], r"dapi[a-f0-9]{32}"),
    token!(
        "doppler-token",
        &["dp."],
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{8,}"
    ),
    token!("dynatrace-token", &["dt0c01."], r"dt0c01\.[A-Za-z0-9.]{8,}"),
    token!(
        "linear-key",
        &["lin_api_", "lin_oauth_"],
        r"lin_(?:api|oauth)_[A-Za-z0-9]{8,}"
    ),
    token!(
        "newrelic-key",
        &["nrak-", "nrii-", "nrjs-", "nrra-"],
        r"NR(?:AK|II|JS|RA)-[A-Za-z0-9]{8,}"
    ),
    token!("postman-key", &["pmak-"], r"PMAK-[A-Za-z0-9\-]{8,}"),
    token!(
        "planetscale-token",
        &["pscale_"],
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{8,}"
    ),
    token!("pulumi-token", &["pul-"], r"pul-[a-f0-9]{8,}"),
    token!("rubygems-key", &["rubygems_"], r"rubygems_[a-f0-9]{8,}"),
    token!("sendinblue-key", &["xkeysib-"], r"xkeysib-[a-f0-9]{8,}"),
    token!(
        "square-token",
        &["sq0atp", "sq0csp", "eaaa"],
        r"(?:sq0atp|sq0csp|EAAA)-?[A-Za-z0-9_\-]{8,}"
    ),
    // In URLs as `/bot<token>/`: any non-digit may come before it.
    RuleSpec {
        kind: "telegram-token",
        pattern: r"(?:^|[^0-9])(?P<s>\d{8,10}:AA[A-Za-z0-9_\-]{8,})",
        keywords: &[":aa"],
        check: Check::TokenLike,
    },
    token!("twilio-key", &["sk"], r"SK[0-9a-fA-F]{32}"),
    token!("mailgun-key", &["key-"], r"key-[a-f0-9]{32}"),
    token!("mailchimp-key", &["-us"], r"[a-f0-9]{32}-us\d{1,2}"),
    token!(
        "age-secret-key",
        &["age-secret-key-1"],
        r"AGE-SECRET-KEY-1[0-9A-Z]{8,}"
    ),
    token!(
        "grafana-token",
        &["glc_", "glsa_"],
        r"gl(?:c|sa)_[A-Za-z0-9+/=_]{8,}"
    ),
    token!(
        "vault-token",
        &["hvs.", "hvb."],
        r"hv[sb]\.[A-Za-z0-9_\-]{8,}"
    ),
    token!(
        "terraform-token",
        &[".atlasv1."],
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{8,}"
    ),
    token!(
        "1password-token",
        &["ops_eyj"],
        r"ops_eyJ[A-Za-z0-9+/]{8,}=*"
    ),
    token!(
        "flyio-token",
        &["fo1_", "fm1r_", "fm2_"],
        r"(?:fo1|fm1r|fm2)_[A-Za-z0-9_\-+/=]{8,}"
    ),
    token!(
        "azure-client-secret",
        &["q~"],
        r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{8,}"
    ),
    token!(
        "facebook-token",
        &["eaam", "eaac"],
        r"EAA[MC][A-Za-z0-9]{20,}"
    ),
    token!("heroku-key", &["hrku-"], r"HRKU-[A-Za-z0-9_\-]{8,}"),
    token!("groq-key", &["gsk_"], r"gsk_[A-Za-z0-9]{8,}"),
    token!("replicate-token", &["r8_"], r"r8_[A-Za-z0-9]{8,}"),
    token!("perplexity-key", &["pplx-"], r"pplx-[A-Za-z0-9]{8,}"),
    token!("xai-key", &["xai-"], r"xai-[A-Za-z0-9]{8,}"),
    token!("clojars-token", &["clojars_"], r"CLOJARS_[A-Za-z0-9]{8,}"),
    token!("adobe-secret", &["p8e-"], r"p8e-[A-Za-z0-9]{8,}"),
    token!("alibaba-key", &["ltai"], r"LTAI[A-Za-z0-9]{8,}"),
    token!("artifactory-key", &["akcp"], r"AKCp[A-Za-z0-9]{8,}"),
    RuleSpec {
        kind: "azure-storage-key",
        pattern: r"(?i)AccountKey=(?P<s>[A-Za-z0-9+/=]{20,})",
        keywords: &["accountkey="],
        check: Check::Always,
    },
    // `Authorization: Basic|Bearer|Token ...` as a header, in JSON (also
    // escaped), in curl's `-H`.
    RuleSpec {
        kind: "authorization",
        pattern: r#"(?i)(?-u:\b)(?:proxy-)?authorization\\?"?'?\s*[:=]\s*\\?"?'?\s*(?:(?:basic|bearer|token|digest|apikey|api-key|sso-key|key)\s+)?(?P<s>[A-Za-z0-9._~+/=:\-]{8,})"#,
        keywords: &["authorization"],
        check: Check::TokenLike,
    },
    RuleSpec {
        kind: "bearer-token",
        pattern: r"(?i)(?-u:\b)bearer\s+(?P<s>[A-Za-z0-9._~+/=\-]{8,})",
        keywords: &["bearer"],
        check: Check::TokenLike,
    },
    RuleSpec {
        kind: "api-key-header",
        pattern: r#"(?i)(?-u:\b)(?:x-[a-z0-9\-]*api-?key|api-?key|x-[a-z0-9\-]*-token|x-auth|private-token|ocp-apim-subscription-key)\\?"?'?\s*:\s*\\?"?'?(?P<s>[^\s"'\\,;]{8,})"#,
        keywords: &[
            "apikey",
            "api-key",
            "-token",
            "x-auth",
            "private-token",
            "ocp-apim-subscription-key",
        ],
        check: Check::Secret,
    },
    RuleSpec {
        kind: "session-cookie",
        pattern: r"(?i)(?:^|[;\s:])\s*[a-z0-9_.\-]*(?:sess|sessid|session|sessionid|session_id|sid|jwt|auth|token|remember_me)=(?P<s>[A-Za-z0-9%._~+/=\-]{16,})",
        keywords: &[
            "sess=",
            "sessid=",
            "session=",
            "sessionid=",
            "session_id=",
            "sid=",
            "jwt=",
            "auth=",
            "token=",
            "remember_me=",
        ],
        check: Check::TokenLike,
    },
    // `scheme://user:password@host`, the user possibly empty.
    RuleSpec {
        kind: "url-password",
        pattern: r#"(?i)(?-u:\b)[a-z][a-z0-9+.\-]*://[^/\s:@"'<>\\]*:(?P<s>[^@\s/"'<>\\]+)@"#,
        keywords: &["://"],
        check: Check::Given,
    },
    // Passwords on command lines.
    RuleSpec {
        kind: "password-flag",
        pattern: r#"(?i)(?:^|[\s"'])--?[a-z0-9\-]*(?:password|passwd|pass|passphrase)(?:=|\s+)(?:"(?P<s1>[^"\n]*)"|'(?P<s2>[^'\n]*)'|(?P<s3>[^\s"'\\]+))"#,
        keywords: &[
            "password=",
            "password ",
            "password\t",
            "passwd=",
            "passwd ",
            "passwd\t",
            "pass=",
            "pass ",
            "pass\t",
            "passphrase=",
            "passphrase ",
            "passphrase\t",
        ],
        check: Check::Password,
    },
    RuleSpec {
        kind: "secret-flag",
        pattern: r#"(?i)(?:^|[\s"'])--[a-z0-9\-]*(?:token|secret|api-?key|access-key|credentials?)(?:=|\s+)(?:"(?P<s1>[^"\n]*)"|'(?P<s2>[^'\n]*)'|(?P<s3>[^\s"'\\]+))"#,
        keywords: &[
            "token=",
            "token ",
            "token\t",
            "secret=",
            "secret ",
            "secret\t",
            "apikey=",
            "apikey ",
            "apikey\t",
            "api-key=",
            "api-key ",
            "api-key\t",
            "access-key=",
            "access-key ",
            "access-key\t",
            "credential=",
            "credential ",
            "credential\t",
            "credentials=",
            "credentials ",
            "credentials\t",
        ],
        check: Check::Secret,
    },
    RuleSpec {
        kind: "password-flag",
        pattern: r#"(?-u:\b)(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)(?-u:\b)[^\n|;&]*?\s-p(?P<s>[^\s"'\\]+)"#,
        keywords: &["mysql", "mariadb"],
        check: Check::Given,
    },
    RuleSpec {
        kind: "password-flag",
        pattern: r#"(?-u:\b)sshpass\s+-p\s*(?:"(?P<s1>[^"\n]*)"|'(?P<s2>[^'\n]*)'|(?P<s3>[^\s"'\\]+))"#,
        keywords: &["sshpass"],
        check: Check::Given,
    },
    RuleSpec {
        kind: "password-flag",
        pattern: r#"(?-u:\b)curl(?-u:\b)[^\n|;&]*?\s(?:-u|--user)(?:\s+|=)?['"]?[^\s:'"]*:(?P<s>[^\s'"@\\]+)"#,
        keywords: &["curl"],
        check: Check::Given,
    },
    RuleSpec {
        // `docker login -u me -p PASS registry` (and `--password PASS`).
        kind: "password-flag",
        pattern: r#"(?-u:\b)docker\s+login(?-u:\b)[^\n|;&]*?\s(?:-p|--password)(?:\s+|=)(?:"(?P<s1>[^"\n]*)"|'(?P<s2>[^'\n]*)'|(?P<s3>[^\s"'\\]+))"#,
        keywords: &["docker"],
        check: Check::Given,
    },
    RuleSpec {
        // `~/.netrc`: `machine HOST login USER password PASS`, on one line
        // or several (the login is required: prose says "machine" too).
        kind: "netrc-password",
        pattern: r"(?-u:\b)machine\s+[A-Za-z0-9.\-]+\s+login\s+\S+\s+password\s+(?P<s>\S+)",
        keywords: &["machine"],
        check: Check::Given,
    },
    RuleSpec {
        // PHP's `define('DB_PASSWORD', '...')` (and `define("API_KEY", "...")`).
        kind: "secret",
        pattern: r#"(?-u:\b)define\(\s*['"](?P<name>[A-Za-z0-9_]*(?i:key|secret|token|passw|pwd|pass)[A-Za-z0-9_]*)['"]\s*,\s*(?:"(?P<s2>[^"\n]*)"|'(?P<s3>[^'\n]*)')"#,
        keywords: &["define"],
        check: Check::NamedValue,
    },
    RuleSpec {
        kind: "secret",
        pattern: NAMED_VALUE,
        keywords: &[
            "key",
            "secret",
            "token",
            "pass",
            "pwd",
            "credential",
            "creds",
            "auth",
            "dsn",
        ],
        check: Check::NamedValue,
    },
];

/// A key-like name (`MYAPP_SECRET_KEY`, `"password"`, `\"apiKey\"`,
/// `db-passwd`), then `=`, `:`, `:=` or `=>`, then a value: JSON-escaped
/// quotes, quotes, or a bare word. Which names count is decided in code
/// ([`value::name_kind`]); the pattern only finds the shape.
pub(crate) const NAMED_VALUE: &str = r#"(?P<name>[A-Za-z0-9_.\-]*(?i:key|secret|token|passw|pwd|pass|credential|creds|auth|dsn)[A-Za-z0-9_.\-]*)(?:\\*["'])?\]?[ \t]*(?::=|=>|=|:)[ \t]*(?:!!str[ \t]+)?(?:\\+"(?P<s1>[^"\\]*)\\+"|"(?P<s2>(?:[^"\\\n]|\\.)*)"|'(?P<s3>[^'\n]*)'|(?P<s4>[^\s"'`,;\\(){}\[\]<>]+))"#;
