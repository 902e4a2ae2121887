use super::is_valid_name;

#[test]
fn names_that_read_back_as_themselves() {
    for ok in [
        "src/a.rs",
        "x",
        "src/a.rs@v2",
        "über/日本.rs",
        "https://x.io/a",
    ] {
        assert!(is_valid_name(ok), "{ok}");
    }
    for bad in ["src/→/x.rs", "a->b", "a::b", "a b", "a,b", "-a", "`a`", ""] {
        assert!(!is_valid_name(bad), "{bad}");
    }
}
