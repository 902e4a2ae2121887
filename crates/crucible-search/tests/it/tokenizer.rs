//! The tokenizer: the cases of the issue, and properties over any text.

use crucible_search::tokenizer::tokens;
use proptest::prelude::*;

fn texts(s: &str) -> Vec<String> {
    tokens(s).into_iter().map(|t| t.text).collect()
}

#[test]
fn the_issue_cases_are_found_by_their_parts_and_whole() {
    let cases: [(&str, &[&str]); 6] = [
        ("register_user", &["register_user", "register", "user"]),
        ("registerUser", &["registeruser", "register", "user"]),
        (
            "src/auth/mod.rs",
            &["src/auth/mod.rs", "src", "auth", "mod", "rs"],
        ),
        ("foo.bar()", &["foo.bar", "foo", "bar"]),
        ("--no-verify", &["no-verify", "no", "verify"]),
        ("E0432", &["e0432"]),
    ];
    for (text, want) in cases {
        assert_eq!(texts(text), want, "{text}");
        // The same inside a sentence.
        let sentence = format!("Then `{text}` failed.");
        let got = texts(&sentence);
        assert!(
            got.windows(want.len()).any(|w| w == want),
            "{sentence}: {got:?}"
        );
    }
}

fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

proptest! {
    #[test]
    fn every_token_is_a_substring_of_the_lowercased_text(text in "\\PC{0,60}") {
        let lowered = lower(&text);
        for t in tokens(&text) {
            prop_assert!(lowered.contains(&t.text), "{:?} not in {:?}", t.text, lowered);
            prop_assert_eq!(lower(&text[t.offset_from..t.offset_to]), t.text);
        }
    }

    #[test]
    fn positions_never_go_down(text in "[a-zA-Z0-9_./:\\- ()]{0,60}") {
        let toks = tokens(&text);
        for w in toks.windows(2) {
            prop_assert!(w[0].position <= w[1].position);
            prop_assert!(w[0].offset_from <= w[1].offset_from);
        }
    }
}
