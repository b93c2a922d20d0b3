//! What the command line prints: readable tables and contents for people, JSON for programs
//! (`--json`); colours and the status line only on a terminal (and never with `NO_COLOR`).

use crate::protocol::{Content, Prompt, Resource, ResourceContents, ResourceTemplate, Tool};
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// Colours for one stream, or none.
#[derive(Clone, Copy)]
pub(crate) struct Style {
    color: bool,
}

impl Style {
    fn for_terminal(is_tty: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style { color: is_tty && !no_color && !dumb }
    }
    /// No colours.
    pub(crate) fn plain() -> Style {
        Style { color: false }
    }
    pub(crate) fn stdout() -> Style {
        Style::for_terminal(std::io::stdout().is_terminal())
    }
    pub(crate) fn stderr() -> Style {
        Style::for_terminal(std::io::stderr().is_terminal())
    }
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub(crate) fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    pub(crate) fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    pub(crate) fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }
    pub(crate) fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }
    pub(crate) fn cyan(&self, s: &str) -> String {
        self.paint("36", s)
    }
}

/// Writes to standard output; a reader that went away (`| head`) ends the program quietly.
pub(crate) fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
    }
}

/// Prints `value` as indented JSON.
pub(crate) fn json(value: &Value) {
    out(&format!("{}\n", serde_json::to_string_pretty(value).unwrap_or_default()));
}

/// A one-line status on standard error (a terminal only), replaced by the next.
pub(crate) fn status(text: &str) {
    if std::io::stderr().is_terminal() {
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K{}", Style::stderr().dim(text));
        let _ = e.flush();
    }
}

/// Clears the status line.
pub(crate) fn clear_status() {
    if std::io::stderr().is_terminal() {
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K");
        let _ = e.flush();
    }
}

/// The first line of a description, at most `max` characters.
fn first_line(s: Option<&str>, max: usize) -> String {
    let line = s.unwrap_or("").lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if line.chars().count() > max {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// A tool's parameters as a signature: `city: string, days?: integer`.
pub(crate) fn signature(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    props
        .iter()
        .map(|(name, p)| {
            let ty = match p.get("type") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|"),
                _ if p.get("enum").is_some() => "enum".into(),
                _ if p.get("anyOf").is_some() || p.get("oneOf").is_some() => "any of".into(),
                _ => "any".into(),
            };
            let opt = if required.contains(&name.as_str()) { "" } else { "?" };
            format!("{name}{opt}: {ty}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rows of two columns, the first padded to the widest (up to a limit).
fn rows(style: Style, rows: &[(String, String)]) -> String {
    let width = rows.iter().map(|(a, _)| a.chars().count()).max().unwrap_or(0).min(48);
    let mut s = String::new();
    for (a, b) in rows {
        let pad = width.saturating_sub(a.chars().count());
        if b.is_empty() {
            s.push_str(&format!("  {}\n", style.bold(a)));
        } else {
            s.push_str(&format!("  {}{}  {}\n", style.bold(a), " ".repeat(pad), b));
        }
    }
    s
}

/// One section of `hypermcp list`: its title with the count, then the rows, or why there are none.
pub(crate) fn section(style: Style, title: &str, offered: bool, items: &[(String, String)]) -> String {
    let head = style.cyan(&format!("{title} ({})", items.len()));
    if !offered {
        return format!("{}\n  {}\n", style.cyan(title), style.dim("(not offered by this server)"));
    }
    if items.is_empty() {
        return format!("{head}\n  {}\n", style.dim("(none)"));
    }
    format!("{head}\n{}", rows(style, items))
}

pub(crate) fn tool_rows(tools: &[Tool]) -> Vec<(String, String)> {
    tools
        .iter()
        .map(|t| (format!("{}({})", t.name, signature(&t.input_schema)), first_line(t.description.as_deref(), 100)))
        .collect()
}

pub(crate) fn resource_rows(resources: &[Resource]) -> Vec<(String, String)> {
    resources
        .iter()
        .map(|r| {
            let mut d = first_line(r.description.as_deref().or(r.title.as_deref()), 80);
            if d.is_empty() {
                d = r.name.clone();
            }
            if let Some(m) = &r.mime_type {
                d = format!("{d} [{m}]");
            }
            (r.uri.clone(), d)
        })
        .collect()
}

pub(crate) fn template_rows(templates: &[ResourceTemplate]) -> Vec<(String, String)> {
    templates
        .iter()
        .map(|t| {
            let d = first_line(t.description.as_deref().or(t.title.as_deref()), 80);
            (t.uri_template.clone(), if d.is_empty() { t.name.clone() } else { d })
        })
        .collect()
}

pub(crate) fn prompt_rows(prompts: &[Prompt]) -> Vec<(String, String)> {
    prompts
        .iter()
        .map(|p| {
            let args = p
                .arguments
                .iter()
                .flatten()
                .map(|a| if a.required == Some(true) { a.name.clone() } else { format!("{}?", a.name) })
                .collect::<Vec<_>>()
                .join(", ");
            (format!("{}({args})", p.name), first_line(p.description.as_deref(), 100))
        })
        .collect()
}

/// Content blocks as text: text as it is; everything else as one line saying what it is.
pub(crate) fn contents(style: Style, content: &[Content]) -> String {
    let mut s = String::new();
    for c in content {
        let line = match c {
            Content::Text { text, .. } => text.clone(),
            Content::Image { data, mime_type, .. } => {
                style.dim(&format!("[image {mime_type}, {} bytes]", decoded_len(data)))
            }
            Content::Audio { data, mime_type, .. } => {
                style.dim(&format!("[audio {mime_type}, {} bytes]", decoded_len(data)))
            }
            Content::ResourceLink(r) => style.dim(&format!("[link {} ({})]", r.uri, r.name)),
            Content::Resource { resource, .. } => resource_contents(style, resource),
            Content::ToolUse(m) | Content::ToolResult(m) => serde_json::to_string(m).unwrap_or_default(),
        };
        s.push_str(&line);
        if !line.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}

/// One resource's contents: its text, or what its blob is.
pub(crate) fn resource_contents(style: Style, r: &ResourceContents) -> String {
    match r {
        ResourceContents::Text { text, .. } => text.clone(),
        ResourceContents::Blob { uri, mime_type, blob, .. } => style.dim(&format!(
            "[{uri}: {} bytes of {}; --out FILE writes them]",
            decoded_len(blob),
            mime_type.as_deref().unwrap_or("binary data")
        )),
    }
}

fn decoded_len(b64: &str) -> usize {
    let n = b64.trim_end_matches('=').len();
    n * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signatures_and_rows() {
        let s = json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "mode": {"enum": ["a"]}}, "required": ["city"]});
        assert_eq!(signature(&s), "city: string, days?: integer, mode?: enum");
        assert_eq!(signature(&json!({"type": "object"})), "");
        let style = Style { color: false };
        let text =
            section(style, "Tools", true, &[("a(x: string)".into(), "does a".into()), ("bb()".into(), String::new())]);
        assert_eq!(text, "Tools (2)\n  a(x: string)  does a\n  bb()\n");
        assert!(section(style, "Prompts", false, &[]).contains("not offered"));
        assert_eq!(first_line(Some("\n  First line.\nSecond"), 100), "First line.");
        assert_eq!(first_line(Some("abcdef"), 4), "abc…");
        assert_eq!(decoded_len("aGVsbG8="), 5);
    }
}
