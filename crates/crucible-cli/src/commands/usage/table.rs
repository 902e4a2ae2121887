//! How a usage view prints: ccusage's JSON, or a table for people.

use std::io::Write;

use crucible_core::Tokens;
use crucible_usage::Cost;
use crucible_usage::report::{BlocksReport, PeriodReport, SessionReport, Totals, Usage};
use jiff::tz::TimeZone;

use crate::render::table::{Align, Table};
use crate::render::{print_json, thousands};

const HEAD: [&str; 8] = [
    "",
    "models",
    "input",
    "output",
    "cache create",
    "cache read",
    "total",
    "cost (USD)",
];

pub struct Render<'a> {
    pub json: bool,
    pub breakdown: bool,
    pub time_zone: &'a TimeZone,
}

/// `$12.34`, and what had no price: never shown as $0.
pub fn cost_cell(cost: Cost) -> String {
    match cost.unpriced_tokens {
        0 => format!("${:.2}", cost.usd()),
        n if cost.is_zero() => format!("unpriced ({} tokens)", thousands(n)),
        n => format!("${:.2} + unpriced ({} tokens)", cost.usd(), thousands(n)),
    }
}

fn token_cells(t: Tokens, untyped: u64) -> [String; 5] {
    [
        thousands(t.input),
        thousands(t.output),
        thousands(t.cache_creation),
        thousands(t.cache_read),
        thousands(t.total().saturating_add(untyped)),
    ]
}

fn row(label: String, usage: &Usage) -> Vec<String> {
    let models: Vec<&str> = usage.models_used().collect();
    let mut cells = vec![label, models.join(", ")];
    cells.extend(token_cells(usage.tokens, usage.untyped));
    cells.push(cost_cell(usage.cost));
    cells
}

fn totals_row(t: &Totals) -> Vec<String> {
    let mut cells = vec!["total".to_owned(), String::new()];
    cells.extend(token_cells(t.tokens, t.untyped));
    cells.push(cost_cell(t.cost));
    cells
}

impl Render<'_> {
    fn table(first: &str) -> Table {
        let mut head = HEAD;
        head[0] = first;
        (2..head.len())
            .fold(Table::new(&head), |t, i| t.align(i, Align::Right))
            .bold_last_row()
    }

    fn push(&self, table: &mut Table, label: String, usage: &Usage) {
        table.push(row(label, usage));
        if self.breakdown {
            for m in usage.breakdowns() {
                let mut cells = vec![format!("  └ {}", m.model), String::new()];
                cells.extend(token_cells(m.tokens, m.untyped));
                cells.push(cost_cell(m.cost));
                table.push(cells);
            }
        }
    }

    fn print(table: &Table) -> anyhow::Result<()> {
        let mut out = anstream::stdout().lock();
        table.write(&mut out)?;
        out.flush()?;
        Ok(())
    }

    pub fn period(&self, report: &PeriodReport) -> anyhow::Result<()> {
        if self.json {
            return print_json(report);
        }
        let mut table = Self::table(report.period.old_key());
        for r in &report.rows {
            self.push(&mut table, r.label.clone(), &r.usage);
        }
        table.push(totals_row(&report.totals));
        Self::print(&table)
    }

    pub fn session(&self, report: &SessionReport) -> anyhow::Result<()> {
        if self.json {
            return print_json(report);
        }
        let mut table = Self::table("session");
        for r in &report.rows {
            self.push(&mut table, r.session_id.clone(), &r.usage);
        }
        table.push(totals_row(&report.totals));
        Self::print(&table)
    }

    pub fn blocks(&self, report: &BlocksReport) -> anyhow::Result<()> {
        if self.json {
            return print_json(report);
        }
        let mut table = Self::table("block start");
        for b in &report.blocks {
            let start = jiff::Timestamp::from_millisecond(b.start_ms)
                .map(|t| {
                    t.to_zoned(self.time_zone.clone())
                        .strftime("%Y-%m-%d %H:%M")
                        .to_string()
                })
                .unwrap_or_default();
            let label = match (b.is_gap, b.is_active) {
                (true, _) => format!("{start} (gap)"),
                (_, true) => format!("{start} (active)"),
                _ => start,
            };
            self.push(&mut table, label, &b.usage);
            if let (Some(rate), Some(p)) = (&b.burn_rate, &b.projection) {
                table.push(vec![
                    format!(
                        "  {:.0} tokens/min, projected {} tokens, ${:.2} in {} min",
                        rate.tokens_per_minute,
                        thousands(p.total_tokens),
                        p.total_cost,
                        p.remaining_minutes
                    ),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]);
            }
        }
        table.push(totals_row(&report.totals));
        Self::print(&table)
    }
}
