use std::time::Instant;
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let mut files = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(std::fs::read(&p).unwrap());
        }
        if files.len() >= 20000 {
            break;
        }
    }
    let total: usize = files.iter().map(|f| f.len()).sum();
    for round in 0..5 {
        let t = Instant::now();
        let mut n = 0;
        for f in &files {
            if crucible_parser::fast_summary(f).is_some() {
                n += 1;
            }
        }
        let d1 = t.elapsed();
        let t = Instant::now();
        let mut out = String::new();
        let mut rows = 0;
        for f in &files {
            let s = crucible_parser::fast_summary(f).unwrap();
            rows += crucible_index::record::PhaseRecord::write_summary_rows(
                "2025-07-14-synthetic-090509.md",
                &s,
                &mut out,
            );
            if out.len() > 1 << 20 {
                out.clear();
            }
        }
        let d2 = t.elapsed() - d1;
        if round > 0 {
            println!(
                "summary {n} files {:.0} MB/s {:?} | summary+phase rows extra {:?} ({rows})",
                total as f64 / d1.as_secs_f64() / 1e6,
                d1,
                d2
            );
        }
    }
}
