//! The cheapest tier for callers that look for one frontmatter key (the
//! importer's re-import check looks for its provenance key in every stored
//! session): it answers "certainly absent" without parsing, and otherwise
//! "maybe", for the caller to parse and see.

/// `false` only when the frontmatter of `bytes` certainly has no key `key`
/// (at any depth); `true` when it may, and the caller must parse to know.
///
/// YAML can spell a key only with its own characters, or through escapes
/// inside a double-quoted key (`"\u0069mport"`, or a `\` line break), so a
/// frontmatter holding neither the key's bytes nor a backslash cannot hold
/// it. A file whose frontmatter cannot be found (not UTF-8, none, never
/// closed) answers `true`: the full reader decides what it is.
pub fn may_hold_key(bytes: &[u8], key: &str) -> bool {
    let Ok(text) = crate::source::decode(bytes) else {
        return true;
    };
    let Ok(split) = crate::frontmatter::split(&text) else {
        return true;
    };
    split.yaml.contains(key) || split.yaml.contains('\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "\n## Phase @a\n\nimport: in the body\n";

    fn doc(yaml: &str) -> String {
        format!("---\ntype: session\n{yaml}---\n{BODY}")
    }

    #[test]
    fn absent_only_when_the_frontmatter_cannot_spell_it() {
        assert!(!may_hold_key(doc("title: x\n").as_bytes(), "import"));
        for yaml in [
            "import:\n  path: a\n",
            "import :\n  path: a\n",
            "\"import\": {path: a}\n",
            "'import': {path: a}\n",
            "\"\\u0069mport\": {path: a}\n",
            "title: \"a\\\"b\"\n",
        ] {
            assert!(may_hold_key(doc(yaml).as_bytes(), "import"), "{yaml}");
        }
    }

    #[test]
    fn defers_when_the_frontmatter_cannot_be_found() {
        assert!(may_hold_key(b"# a note\n", "import"));
        assert!(may_hold_key(b"---\ntitle: x\n", "import"));
        assert!(may_hold_key(b"---\n\xff: x\n---\n", "import"));
    }

    #[test]
    fn reads_crlf_and_bom_like_the_parser() {
        let text = format!("\u{feff}{}", doc("title: x\n").replace('\n', "\r\n"));
        assert!(!may_hold_key(text.as_bytes(), "import"));
        let text = format!("\u{feff}{}", doc("import: {}\n").replace('\n', "\r\n"));
        assert!(may_hold_key(text.as_bytes(), "import"));
    }
}
