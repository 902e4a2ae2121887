//! A workflow as one page (`cru workflow show --format html`): its steps
//! as a graph drawn in inline SVG (no script, nothing fetched), then each
//! step with its agent, channel, what it reads and makes, its conditions
//! and its prose.
//!
//! The layout is layered, top to bottom: a step's layer is the longest
//! chain of edges leading to it (a graph with a cycle is laid out in
//! document order), steps of a layer side by side in document order. Data
//! edges are solid and named by what flows along them; condition edges are
//! dashed and named by their condition; an edge going back up (a cycle) is
//! drawn around the side.

use std::fmt::Write as _;

use crucible_core::workflow::{EdgeKind, Workflow, WorkflowGraph};

use crate::escape::{escaped, push};
use crate::markdown::push_markdown;

const BOX_W: usize = 200;
const BOX_H: usize = 46;
const GAP_X: usize = 40;
const GAP_Y: usize = 64;
const MARGIN: usize = 20;
/// Room on the left for edges that skip a layer, and their names.
const LEFT: usize = 110;

/// The whole page; `home`, the address of a page to go back to (a site's
/// list of workflows).
pub fn workflow_page(
    w: &Workflow,
    g: &WorkflowGraph,
    problems: &[String],
    home: Option<&str>,
) -> String {
    let title = w.title.as_deref().unwrap_or("Workflow");
    let mut out = String::with_capacity(8 * 1024);
    crate::page::head(&mut out, crate::page::NO_SCRIPT, title, STYLE);
    out.push_str("<header>\n");
    if let Some(home) = home {
        out.push_str("<nav class=\"home\"><a href=\"");
        push(&mut out, crate::escape::safe_href(home));
        out.push_str("\">← all workflows</a></nav>\n");
    }
    out.push_str("<h1>");
    push(&mut out, title);
    let _ = write!(
        out,
        "</h1>\n<p class=\"meta\">{} steps · {} edges</p>\n</header>\n<main>\n",
        w.steps.len(),
        g.edges.len()
    );
    if !problems.is_empty() {
        // What `cru workflow validate` says of it, first: a page that looks
        // whole must not hide that the workflow is not.
        out.push_str("<aside class=\"problems\"><p>This workflow has problems:</p>\n<ul>\n");
        for p in problems {
            out.push_str("<li>");
            push(&mut out, p);
            out.push_str("</li>\n");
        }
        out.push_str("</ul></aside>\n");
    }
    if !w.intro.trim().is_empty() {
        push_markdown(&mut out, &w.intro, 1, &|_| None);
    }
    // At its own size, scrolled sideways when wider than the page: scaled
    // to fit, a graph of many parallel steps was a strip of unreadable text.
    out.push_str("<div class=\"graph\">\n");
    out.push_str(&graph_svg(w, g));
    out.push_str("</div>\n");
    steps(&mut out, w);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

const STYLE: &str = "
div.graph { overflow-x: auto; margin: 1rem 0; }
aside.problems { border-left: 3px solid rgb(var(--error, 207 34 46)); padding: .3rem .8rem; margin: 1rem 0; }
svg.graph { display: block; }
svg.graph rect { fill: var(--code-bg); stroke: rgb(var(--decision)); stroke-width: 1.5; rx: 6; }
svg.graph text { fill: var(--fg); font: 13px -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; }
svg.graph text.sub { fill: var(--muted); font-size: 11px; }
svg.graph text.label { fill: var(--muted); font-size: 11px; }
svg.graph path { fill: none; stroke: var(--muted); stroke-width: 1.4; }
svg.graph path.condition { stroke-dasharray: 5 4; }
svg.graph marker path { fill: var(--muted); stroke: none; }
";

/// Each step's layer and place in it.
fn layout(w: &Workflow, g: &WorkflowGraph) -> Vec<(usize, usize)> {
    let n = w.steps.len();
    let mut layer = vec![0usize; n];
    if let Some(order) = &g.order {
        for &s in order {
            for e in g.edges.iter().filter(|e| e.from == s && e.to < n) {
                layer[e.to] = layer[e.to].max(layer[s] + 1);
            }
        }
    } else {
        for (i, l) in layer.iter_mut().enumerate() {
            *l = i;
        }
    }
    let mut filled = std::collections::HashMap::new();
    layer
        .into_iter()
        .map(|l| {
            let slot = filled.entry(l).or_insert(0usize);
            let place = *slot;
            *slot += 1;
            (l, place)
        })
        .collect()
}

fn centre(place: (usize, usize)) -> (usize, usize) {
    (
        LEFT + place.1 * (BOX_W + GAP_X) + BOX_W / 2,
        MARGIN + place.0 * (BOX_H + GAP_Y) + BOX_H / 2,
    )
}

/// Text cut to `max` characters with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

/// The steps and their edges as an SVG drawing.
pub fn graph_svg(w: &Workflow, g: &WorkflowGraph) -> String {
    let places = layout(w, g);
    let layers = places.iter().map(|p| p.0 + 1).max().unwrap_or(0);
    let width = places.iter().map(|p| p.1 + 1).max().unwrap_or(0);
    let (w_px, h_px) = (
        LEFT + MARGIN + width * (BOX_W + GAP_X) + 60,
        2 * MARGIN + layers * (BOX_H + GAP_Y),
    );
    let mut svg = format!(
        "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w_px} {h_px}\" width=\"{w_px}\" height=\"{h_px}\" role=\"img\" aria-label=\"steps of the workflow\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>\n"
    );
    // Edges between the same two steps drawn once, their names joined.
    let mut joined: Vec<((usize, usize, bool), Vec<String>)> = Vec::new();
    for e in &g.edges {
        let (label, condition) = match &e.kind {
            EdgeKind::Data { name } => (name.clone(), false),
            EdgeKind::Condition { condition, .. } => (
                condition.clone().unwrap_or_else(|| "otherwise".to_owned()),
                true,
            ),
        };
        let key = (e.from, e.to, condition);
        match joined.iter_mut().find(|(k, _)| *k == key) {
            Some((_, labels)) => labels.push(label),
            None => joined.push((key, vec![label])),
        }
    }
    for ((from, to, condition), labels) in &joined {
        let (Some(&from), Some(&to)) = (places.get(*from), places.get(*to)) else {
            continue;
        };
        edge(
            &mut svg,
            centre(from),
            centre(to),
            &labels.join(", "),
            *condition,
        );
    }
    for (i, s) in w.steps.iter().enumerate() {
        let (cx, cy) = centre(places[i]);
        let (x, y) = (cx - BOX_W / 2, cy - BOX_H / 2);
        let sub: Vec<String> = s
            .agent
            .iter()
            .map(|a| format!("@{a}"))
            .chain(s.channel.iter().map(|c| format!("#{c}")))
            .collect();
        let _ = writeln!(
            svg,
            "<g><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" height=\"{BOX_H}\"/><text x=\"{}\" y=\"{}\">{}</text><text class=\"sub\" x=\"{}\" y=\"{}\">{}</text></g>",
            escaped(&s.name),
            x + 10,
            y + 19,
            escaped(&cut(&s.name, 26)),
            x + 10,
            y + 36,
            escaped(&cut(&sub.join(" "), 30)),
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn edge(svg: &mut String, from: (usize, usize), to: (usize, usize), label: &str, condition: bool) {
    let class = if condition { "condition" } else { "data" };
    let (x1, y1) = (from.0, from.1 + BOX_H / 2);
    let (x2, y2) = (to.0, to.1 - BOX_H / 2);
    let (d, lx, ly, anchor) = if to.1 == from.1 + BOX_H + GAP_Y || (to.1 > from.1 && to.0 != from.0)
    {
        let my = usize::midpoint(y1, y2);
        (
            format!("M{x1},{y1} C{x1},{my} {x2},{my} {x2},{y2}"),
            usize::midpoint(x1, x2) + 6,
            my,
            "start",
        )
    } else if to.1 > from.1 {
        // Down past other steps of the same column: around the left side.
        let side = from.0.min(to.0) - BOX_W / 2 - 30;
        (
            format!(
                "M{},{} C{side},{} {side},{} {},{}",
                from.0 - BOX_W / 2,
                from.1,
                from.1,
                to.1,
                to.0 - BOX_W / 2,
                to.1
            ),
            side - 4,
            usize::midpoint(from.1, to.1),
            "end",
        )
    } else {
        // Back up (a cycle) or across: around the right side.
        let side = from.0.max(to.0) + BOX_W / 2 + 30;
        (
            format!(
                "M{},{} C{side},{} {side},{} {},{}",
                from.0 + BOX_W / 2,
                from.1,
                from.1,
                to.1,
                to.0 + BOX_W / 2,
                to.1
            ),
            side + 4,
            usize::midpoint(from.1, to.1),
            "start",
        )
    };
    let _ = writeln!(
        svg,
        "<path class=\"{class}\" d=\"{d}\" marker-end=\"url(#arrow)\"/><text class=\"label\" x=\"{lx}\" y=\"{ly}\" text-anchor=\"{anchor}\">{}</text>",
        escaped(&cut(label, 28))
    );
}

fn steps(out: &mut String, w: &Workflow) {
    for (i, s) in w.steps.iter().enumerate() {
        let _ = write!(out, "<section class=\"phase\" id=\"step-{}\">\n<h2>", i + 1);
        let _ = write!(
            out,
            "<a class=\"anchor\" href=\"#step-{0}\">{0}.</a> ",
            i + 1
        );
        push(out, &s.name);
        if let Some(a) = &s.agent {
            out.push_str(" <span class=\"agent\">@");
            push(out, a);
            out.push_str("</span>");
        }
        if let Some(c) = &s.channel {
            out.push_str(" <span class=\"channel\">#");
            push(out, c);
            out.push_str("</span>");
        }
        out.push_str("</h2>\n");
        let names = |ports: Vec<&crucible_core::workflow::Port>| {
            ports
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (ins, outs) = (names(s.inputs()), names(s.outputs()));
        if !ins.is_empty() || !outs.is_empty() {
            out.push_str("<p class=\"meta\">");
            push(
                out,
                &format!("reads {}", if ins.is_empty() { "nothing" } else { &ins }),
            );
            push(
                out,
                &format!(
                    " · makes {}",
                    if outs.is_empty() { "nothing" } else { &outs }
                ),
            );
            out.push_str("</p>\n");
        }
        for c in &s.conditions {
            out.push_str("<p class=\"meta\">");
            push(
                out,
                &format!(
                    "{} → {}",
                    c.condition
                        .as_deref()
                        .map_or("otherwise".to_owned(), |c| format!("if {c}")),
                    c.target
                ),
            );
            out.push_str("</p>\n");
        }
        if !s.prose.trim().is_empty() {
            push_markdown(out, &s.prose, 2, &|_| None);
        }
        out.push_str("</section>\n");
    }
}
