//! Whether a value found after a name or a prefix is a secret. These tests
//! keep false positives low: `token_count = 42`, `max_tokens: 1024`,
//! `password: String`, `API_KEY = os.environ["API_KEY"]` and
//! `password: $DB_PASS` are code, not secrets.

/// What a key-like name says its value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameKind {
    Password,
    Secret,
}

/// Whether `name` (`MYAPP_SECRET_KEY`, `apiKey`, `--db-password`,
/// `PGPASSWORD`) names a secret. Only the last word of a name decides for
/// `key`, `token`, `auth` and `credentials`, so `key_id`, `token_count`,
/// `tokens` and `author` do not.
pub(crate) fn name_kind(name: &str) -> Option<NameKind> {
    let lower = name.to_ascii_lowercase();
    let words = words(name);
    let last = words.last().map_or("", String::as_str);
    const NOT_PASS: [&str; 5] = ["bypass", "compass", "surpass", "overpass", "underpass"];
    if lower.contains("passw")
        || lower.contains("pwd")
        // A bare `secret` is as sure a name as `password`: its value may be
        // words ("correct horse battery staple").
        || last == "passphrase"
        || last == "secret"
        || (lower.ends_with("pass") && !NOT_PASS.iter().any(|w| lower.ends_with(w)))
    {
        return Some(NameKind::Password);
    }
    const NOT_SECRET_KEYS: [&str; 12] = [
        "public",
        "primary",
        "foreign",
        "sort",
        "partition",
        "cache",
        "hash",
        "idempotency",
        "dedup",
        "row",
        "map",
        "lookup",
    ];
    let key_like = match last {
        "key" => words.len() >= 2 && !NOT_SECRET_KEYS.contains(&words[words.len() - 2].as_str()),
        "token" | "auth" | "credential" | "credentials" | "creds" | "dsn" | "apikey"
        | "authtoken" | "authkey" | "accesskey" | "secretkey" | "privatekey" => true,
        _ => lower.contains("secret") || lower.ends_with("apikey") || lower.ends_with("token"),
    };
    key_like.then_some(NameKind::Secret)
}

/// The words of a name: split at `_`, `-`, `.` and lower-to-upper case
/// changes, lowercased.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.') {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Not a word: a digit, or both upper and lower case letters.
pub(crate) fn token_like(s: &str) -> bool {
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    digit || (upper && lower)
}

/// A value after a key-like name that looks like a secret: 8 characters or
/// more, not a placeholder or code, and not a word (a digit among letters,
/// mixed case that is not CamelCase, or long and varied).
pub(crate) fn looks_secret(value: &str, after: &str) -> bool {
    let v = value.trim();
    if v.len() < 8 || is_placeholder(v) || is_code(v, after) {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let alpha = v.bytes().any(|b| b.is_ascii_alphabetic());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    (digit && alpha)
        || (upper && lower && !is_camel_case(v))
        || (v.len() >= 20 && entropy(v) >= 3.5)
}

/// A value after a password-like name that is one: not a placeholder, a
/// type or a variable, and either has a digit, a capital or a symbol, or is
/// a lowercase word of 8 letters or more (`password: see below` is prose).
pub(crate) fn looks_password(value: &str, after: &str) -> bool {
    let v = value.trim();
    if v.len() < 4 || is_placeholder(v) || is_code(v, after) {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
        // `DB_PASSWORD: DB_PASSWORD_VAR`: a name.
        return false;
    }
    let plain_word = v.bytes().all(|b| b.is_ascii_lowercase());
    if plain_word {
        return v.len() >= 8 && !WORDS.contains(&v);
    }
    !is_camel_case(v) || v.len() >= 16
}

/// A password given where nothing else could be (`scheme://user:PASS@`,
/// `mysql -pPASS`, `sshpass -p PASS`): anything but a placeholder.
pub(crate) fn given_password(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty() && !v.starts_with('-') && !is_placeholder(v)
}

/// Words that are said of a secret rather than being one.
const WORDS: [&str; 24] = [
    "true",
    "false",
    "null",
    "none",
    "nil",
    "undefined",
    "string",
    "str",
    "bool",
    "required",
    "optional",
    "secret",
    "password",
    "token",
    "redacted",
    "hidden",
    "empty",
    "unset",
    "missing",
    "invalid",
    "incorrect",
    "expired",
    "example",
    "placeholder",
];

/// A stand-in, not a value: a variable (`$X`, `${X}`, `%X%`, `{{ x }}`,
/// `<your-key>`), stars, an earlier redaction, a word from [`WORDS`].
fn is_placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    v.starts_with(['$', '%', '{', '<', '&', '@', '#', '*'])
        || v.starts_with("[REDACTED")
        || v.chars()
            .all(|c| c == '*' || c == '.' || c == 'x' || c == 'X')
        || WORDS.contains(&lower.as_str())
        || lower.starts_with("your")
        || lower.contains("redacted")
}

/// Code rather than a value: a path, a call, a field or module path
/// (`os.environ`, `self.token`, `Config::key`).
fn is_code(v: &str, after: &str) -> bool {
    if v.starts_with(['/', '~']) || v.starts_with("./") || v.starts_with("../") {
        return true;
    }
    if after.starts_with('(') || after.starts_with("::") || v.contains("::") {
        return true;
    }
    let mut parts = v.split('.');
    let first = parts.next().unwrap_or("");
    v.contains('.')
        && !first.is_empty()
        && first.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        && v.split('.').all(|p| {
            p.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

/// `SecretSanta`, `getApiKey`, `String`: letters only, each capital followed
/// by lowercase letters.
fn is_camel_case(v: &str) -> bool {
    let b = v.as_bytes();
    b.iter().all(u8::is_ascii_alphabetic)
        && b.iter().enumerate().all(|(i, c)| {
            !c.is_ascii_uppercase() || b.get(i + 1).is_some_and(u8::is_ascii_lowercase)
        })
}

/// Shannon entropy of the bytes, in bits per byte.
fn entropy(v: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in v.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = v.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}
