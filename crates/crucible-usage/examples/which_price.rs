use crucible_usage::pricing::PriceTable;
fn main() {
    let t = PriceTable::shipped();
    for m in std::env::args().skip(1) {
        let per_m = |x: f64| (x * 1e6 * 1e6).round() / 1e6;
        match (t.price_of(&m), t.priced_as(&m)) {
            (Some(p), k) => println!(
                "| `{m}` | `{}` | {} / {} / {} / {} | {} |",
                k.unwrap_or_default(),
                per_m(p.input),
                per_m(p.output),
                per_m(p.cache_write_price()),
                per_m(p.cache_read_price()),
                p.tiers
                    .iter()
                    .map(|t| format!(
                        "above {}k: {} / {} / {} / {}",
                        t.above / 1000,
                        t.input.map_or("-".into(), |x| per_m(x).to_string()),
                        t.output.map_or("-".into(), |x| per_m(x).to_string()),
                        t.cache_write.map_or("-".into(), |x| per_m(x).to_string()),
                        t.cache_read.map_or("-".into(), |x| per_m(x).to_string())
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            (None, _) => println!("| `{m}` | no price | | |"),
        }
    }
}
