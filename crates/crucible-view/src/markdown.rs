//! A session's prose (markdown, as a person or an agent wrote it) into
//! HTML that can do nothing but show text.
//!
//! The markdown is read by pulldown-cmark and written back element by
//! element here, rather than by its HTML writer, so that every case is
//! ours to decide: raw HTML in the prose is shown as text, links keep only
//! safe targets ([`crate::escape::safe_href`]), and images are shown as
//! links (a page of a session never loads anything from the network).
//! `[[session-id]]` wiki links, as Obsidian writes them, go to the page of
//! that session when it is in the directory.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::escape::{push, safe_href};

/// Where a `[[session-id]]` link leads.
pub type Resolve<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Appends `markdown` as HTML. Headings are pushed down by `shift` levels
/// (a `# Title` inside a phase is not the page's title), to at most `h6`.
pub fn push_markdown(out: &mut String, markdown: &str, shift: u8, resolve: Resolve<'_>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut writer = Writer {
        out,
        shift,
        resolve,
        in_table_head: false,
        image_depth: 0,
        text: String::new(),
    };
    for event in Parser::new_ext(markdown, options) {
        writer.event(event);
    }
    writer.flush_text();
}

struct Writer<'o, 'r> {
    out: &'o mut String,
    shift: u8,
    resolve: Resolve<'r>,
    in_table_head: bool,
    /// Inside an image's alt text: only its text is written.
    image_depth: usize,
    /// Text not written yet: the parser splits text at every `[` (a link
    /// may start there), so a `[[wiki link]]` arrives in pieces.
    text: String,
}

fn level(l: HeadingLevel, shift: u8) -> u8 {
    let n = match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    };
    (n + shift).min(6)
}

impl Writer<'_, '_> {
    fn event(&mut self, event: Event<'_>) {
        if let Event::Text(t) = &event {
            self.text.push_str(t);
            return;
        }
        self.flush_text();
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(_) => {}
            Event::Code(t) => {
                self.out.push_str("<code>");
                push(self.out, &t);
                self.out.push_str("</code>");
            }
            // Raw HTML is the session's text like any other: shown, never run.
            Event::Html(t)
            | Event::InlineHtml(t)
            | Event::InlineMath(t)
            | Event::DisplayMath(t) => {
                push(self.out, &t);
            }
            Event::FootnoteReference(t) => {
                self.out.push_str("<sup>");
                push(self.out, &t);
                self.out.push_str("</sup>");
            }
            Event::SoftBreak => self.out.push('\n'),
            Event::HardBreak => self.out.push_str("<br>"),
            Event::Rule => self.out.push_str("<hr>"),
            Event::TaskListMarker(done) => self.out.push_str(if done {
                "<input type=\"checkbox\" disabled checked> "
            } else {
                "<input type=\"checkbox\" disabled> "
            }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        if self.image_depth > 0 {
            if matches!(tag, Tag::Image { .. }) {
                self.image_depth += 1;
            }
            return;
        }
        match tag {
            Tag::Paragraph => self.out.push_str("<p>"),
            Tag::Heading { level: l, .. } => {
                self.out.push_str(&format!("<h{}>", level(l, self.shift)));
            }
            Tag::BlockQuote(_) => self.out.push_str("<blockquote>"),
            Tag::CodeBlock(kind) => {
                self.out.push_str("<pre><code");
                if let CodeBlockKind::Fenced(lang) = kind {
                    let lang = lang.split_whitespace().next().unwrap_or("");
                    if !lang.is_empty() {
                        self.out.push_str(" data-lang=\"");
                        push(self.out, lang);
                        self.out.push('"');
                    }
                }
                self.out.push('>');
            }
            Tag::List(Some(start)) if start != 1 => {
                self.out.push_str(&format!("<ol start=\"{start}\">"));
            }
            Tag::List(Some(_)) => self.out.push_str("<ol>"),
            Tag::List(None) => self.out.push_str("<ul>"),
            Tag::Item => self.out.push_str("<li>"),
            Tag::FootnoteDefinition(name) => {
                self.out.push_str("<div class=\"footnote\"><sup>");
                push(self.out, &name);
                self.out.push_str("</sup> ");
            }
            Tag::Table(_) => self.out.push_str("<table>"),
            Tag::TableHead => {
                self.in_table_head = true;
                self.out.push_str("<thead><tr>");
            }
            Tag::TableRow => self.out.push_str("<tr>"),
            Tag::TableCell => self
                .out
                .push_str(if self.in_table_head { "<th>" } else { "<td>" }),
            Tag::Emphasis => self.out.push_str("<em>"),
            Tag::Strong => self.out.push_str("<strong>"),
            Tag::Strikethrough => self.out.push_str("<del>"),
            Tag::Link {
                dest_url, title, ..
            } => {
                self.out.push_str("<a href=\"");
                push(self.out, safe_href(&dest_url));
                self.out.push('"');
                if !title.is_empty() {
                    self.out.push_str(" title=\"");
                    push(self.out, &title);
                    self.out.push('"');
                }
                self.out.push_str(" rel=\"noopener noreferrer\">");
            }
            // Shown as a link to the image, never loaded by the page.
            Tag::Image { dest_url, .. } => {
                self.out.push_str("<a class=\"image\" href=\"");
                push(self.out, safe_href(&dest_url));
                self.out.push_str("\" rel=\"noopener noreferrer\">image: ");
                self.image_depth = 1;
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        if self.image_depth > 0 {
            if matches!(tag, TagEnd::Image) {
                self.image_depth -= 1;
                if self.image_depth == 0 {
                    self.out.push_str("</a>");
                }
            }
            return;
        }
        let close = match tag {
            TagEnd::Paragraph => "</p>\n".to_owned(),
            TagEnd::Heading(l) => format!("</h{}>\n", level(l, self.shift)),
            TagEnd::BlockQuote(_) => "</blockquote>\n".to_owned(),
            TagEnd::CodeBlock => "</code></pre>\n".to_owned(),
            TagEnd::List(true) => "</ol>\n".to_owned(),
            TagEnd::List(false) => "</ul>\n".to_owned(),
            TagEnd::Item => "</li>\n".to_owned(),
            TagEnd::FootnoteDefinition => "</div>\n".to_owned(),
            TagEnd::Table => "</tbody></table>\n".to_owned(),
            TagEnd::TableHead => {
                self.in_table_head = false;
                "</tr></thead><tbody>\n".to_owned()
            }
            TagEnd::TableRow => "</tr>\n".to_owned(),
            TagEnd::TableCell if self.in_table_head => "</th>".to_owned(),
            TagEnd::TableCell => "</td>".to_owned(),
            TagEnd::Emphasis => "</em>".to_owned(),
            TagEnd::Strong => "</strong>".to_owned(),
            TagEnd::Strikethrough => "</del>".to_owned(),
            TagEnd::Link => "</a>".to_owned(),
            _ => String::new(),
        };
        self.out.push_str(&close);
    }

    /// The text gathered so far, with `[[session-id]]` and
    /// `[[session-id|label]]` as links (not inside an image's alt text).
    fn flush_text(&mut self) {
        let text = std::mem::take(&mut self.text);
        if self.image_depth > 0 {
            push(self.out, &text);
        } else {
            push_with_wikilinks(self.out, &text, self.resolve);
        }
    }
}

/// Appends `text` escaped, its `[[target]]` / `[[target|label]]` links as
/// links to the target's page, or marked as not in the directory.
pub fn push_with_wikilinks(out: &mut String, text: &str, resolve: Resolve<'_>) {
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let Some(len) = rest[open + 2..].find("]]") else {
            break;
        };
        let inner = &rest[open + 2..open + 2 + len];
        if inner.is_empty() || inner.contains(['[', ']', '\n']) {
            push(out, &rest[..open + 2]);
            rest = &rest[open + 2..];
            continue;
        }
        push(out, &rest[..open]);
        let (target, label) = inner.split_once('|').unwrap_or((inner, inner));
        push_session_link(out, target.trim(), label.trim(), resolve);
        rest = &rest[open + 2 + len + 2..];
    }
    push(out, rest);
}

/// A link to the page of session `target`, labelled `label`; a session
/// not in the directory is text marked so, never a broken link.
pub fn push_session_link(out: &mut String, target: &str, label: &str, resolve: Resolve<'_>) {
    if let Some(href) = resolve(target) {
        out.push_str("<a class=\"session-link\" href=\"");
        push(out, safe_href(&href));
        out.push_str("\">");
        push(out, label);
        out.push_str("</a>");
    } else {
        out.push_str("<span class=\"session-link missing\" title=\"not in this directory\">");
        push(out, label);
        out.push_str(" <small>(not in this directory)</small></span>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(md: &str) -> String {
        let mut out = String::new();
        push_markdown(&mut out, md, 1, &|id| {
            (id == "here").then(|| format!("{id}.html"))
        });
        out
    }

    #[test]
    fn raw_html_and_script_links_are_text() {
        let out = html(
            "Hi <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1)) ![y](https://evil/t.png)",
        );
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(out.contains("<a href=\"#\""), "{out}");
        assert!(out.contains("image: y</a>"), "{out}");
    }

    #[test]
    fn prose_keeps_its_shape() {
        let out = html(
            "# Notes\n\n- [x] done\n- [ ] todo\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(out.contains("<h2>Notes</h2>"), "{out}");
        assert!(out.contains("checked"), "{out}");
        assert!(
            out.contains("<pre><code data-lang=\"rust\">fn main() {}"),
            "{out}"
        );
        assert!(
            out.contains("<th>a</th>") && out.contains("<td>2</td>"),
            "{out}"
        );
    }

    #[test]
    fn wiki_links_lead_to_pages_or_say_they_cannot() {
        let out = html("see [[here]] and [[gone|the old one]] and [[]]");
        assert!(
            out.contains("<a class=\"session-link\" href=\"here.html\">here</a>"),
            "{out}"
        );
        assert!(
            out.contains("the old one <small>(not in this directory)</small>"),
            "{out}"
        );
        assert!(out.contains("[[]]"), "{out}");
    }
}
