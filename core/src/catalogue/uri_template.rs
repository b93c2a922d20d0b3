//! RFC 6570 URI templates (levels 1 to 4): expansion, and matching a concrete URI back to
//! the variables that produce it (what `resources/read` needs to route a templated read).

use std::collections::HashMap;
use std::fmt;

/// A parsed URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expr { op: Op, vars: Vec<VarSpec> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct VarSpec {
    name: String,
    explode: bool,
    prefix: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    fn from_char(c: char) -> Option<Op> {
        Some(match c {
            '+' => Op::Reserved,
            '#' => Op::Fragment,
            '.' => Op::Label,
            '/' => Op::Path,
            ';' => Op::PathParam,
            '?' => Op::Query,
            '&' => Op::QueryCont,
            _ => return None,
        })
    }
    fn first(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query => "?",
            Op::QueryCont => "&",
        }
    }
    fn sep(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ",",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query | Op::QueryCont => "&",
        }
    }
    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryCont)
    }
    fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}

/// A malformed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError(pub String);

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid URI template: {}", self.0)
    }
}

impl std::error::Error for TemplateError {}

/// A variable's value for expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateValue {
    /// A string.
    String(String),
    /// A list of strings.
    List(Vec<String>),
}

impl UriTemplate {
    /// Parses a template.
    pub fn parse(source: &str) -> Result<UriTemplate, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = source;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest.find('}').ok_or_else(|| TemplateError(format!("unclosed '{{' in {source:?}")))?;
                    let body = &rest[1..end];
                    let mut chars = body.chars();
                    let (op, list) = match chars.next().and_then(Op::from_char) {
                        Some(op) => (op, &body[1..]),
                        None => (Op::Simple, body),
                    };
                    let mut vars = Vec::new();
                    for spec in list.split(',') {
                        let (name, explode, prefix) = if let Some(n) = spec.strip_suffix('*') {
                            (n, true, None)
                        } else if let Some((n, len)) = spec.split_once(':') {
                            let len = len.parse().map_err(|_| TemplateError(format!("bad prefix in {spec:?}")))?;
                            (n, false, Some(len))
                        } else {
                            (spec, false, None)
                        };
                        if name.is_empty()
                            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%')
                        {
                            return Err(TemplateError(format!("bad variable name {name:?} in {source:?}")));
                        }
                        vars.push(VarSpec { name: name.to_string(), explode, prefix });
                    }
                    parts.push(Part::Expr { op, vars });
                    rest = &rest[end + 1..];
                }
                Some(i) => {
                    parts.push(Part::Literal(rest[..i].to_string()));
                    rest = &rest[i..];
                }
                None => {
                    if rest.contains('}') {
                        return Err(TemplateError(format!("stray '}}' in {source:?}")));
                    }
                    parts.push(Part::Literal(rest.to_string()));
                    rest = "";
                }
            }
        }
        Ok(UriTemplate { source: source.to_string(), parts })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names of its variables, in order.
    pub fn variables(&self) -> Vec<&str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expr { vars, .. } => vars.iter().map(|v| v.name.as_str()).collect(),
                Part::Literal(_) => Vec::new(),
            })
            .collect()
    }

    /// Whether the template has no variables (a plain URI).
    pub fn is_literal(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Literal(_)))
    }

    /// Expands the template with `values` (missing variables are skipped, per RFC 6570).
    pub fn expand(&self, values: &HashMap<String, TemplateValue>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Expr { op, vars } => {
                    let mut first = true;
                    for var in vars {
                        let Some(value) = values.get(&var.name) else { continue };
                        out.push_str(if first { op.first() } else { op.sep() });
                        first = false;
                        match value {
                            TemplateValue::String(s) => {
                                let s: String = match var.prefix {
                                    Some(n) => s.chars().take(n).collect(),
                                    None => s.clone(),
                                };
                                if op.named() {
                                    out.push_str(&var.name);
                                    if s.is_empty() && *op == Op::PathParam {
                                        continue;
                                    }
                                    out.push('=');
                                }
                                encode_into(&mut out, &s, op.allow_reserved());
                            }
                            TemplateValue::List(items) => {
                                let sep = if var.explode { op.sep() } else { "," };
                                if op.named() && !var.explode {
                                    out.push_str(&var.name);
                                    out.push('=');
                                }
                                for (i, item) in items.iter().enumerate() {
                                    if i > 0 {
                                        out.push_str(sep);
                                    }
                                    if op.named() && var.explode {
                                        out.push_str(&var.name);
                                        out.push('=');
                                    }
                                    encode_into(&mut out, item, op.allow_reserved());
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Matches `uri` against the template; on success returns each variable's decoded value
    /// (exploded and comma lists are returned joined by `,`).
    pub fn match_uri(&self, uri: &str) -> Option<HashMap<String, String>> {
        match_parts(&self.parts, uri, &mut Search::default())
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~".contains(c)
}

fn is_reserved(c: char) -> bool {
    ":/?#[]@!$&'()*+,;=".contains(c)
}

fn encode_into(out: &mut String, s: &str, allow_reserved: bool) {
    for c in s.chars() {
        if is_unreserved(c) || (allow_reserved && (is_reserved(c) || c == '%')) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
}

pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            // Two hex digits, read as bytes: what follows `%` may be any UTF-8 (a slice of the
            // str there could cut a character; found by fuzzing).
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Characters an expression's value may span when matching.
fn value_char_ok(op: Op, c: char) -> bool {
    match op {
        Op::Reserved | Op::Fragment => c != '?' || op == Op::Fragment,
        Op::Simple => c != '/' && c != '?' && c != '#' && c != '&',
        Op::Label => c != '/' && c != '?' && c != '#',
        Op::Path => c != '?' && c != '#',
        Op::PathParam => c != '/' && c != '?' && c != '#',
        Op::Query | Op::QueryCont => c != '#',
    }
}

/// Most steps a match may take (states tried and candidate ends looked at) before it gives
/// up with no match. Templates with expressions side by side (`{a}{b}`) make the search
/// combinatorial in the URI's length: without memory of the states tried and this bound, a
/// crafted URI kept a match busy for seconds (found by fuzzing). Far above what any real
/// template and URI need (a 64 KiB URI against `{+path}/{name}` takes about 130,000).
const MAX_STEPS: usize = 250_000;

/// What a match remembers: the outcome of each (parts left, URI bytes left) state, and the
/// steps taken.
#[derive(Default)]
struct Search {
    memo: HashMap<(usize, usize), Option<HashMap<String, String>>>,
    steps: usize,
}

impl Search {
    /// Counts `n` steps; false once past the bound.
    fn step(&mut self, n: usize) -> bool {
        self.steps += n;
        self.steps <= MAX_STEPS
    }
}

/// The variables `parts` assign when they match all of `uri` (the values of later parts win
/// over earlier ones of the same name), or `None`. A state's outcome does not depend on the
/// parts before it, so each is worked out once.
fn match_parts(parts: &[Part], uri: &str, search: &mut Search) -> Option<HashMap<String, String>> {
    let key = (parts.len(), uri.len());
    if let Some(known) = search.memo.get(&key) {
        return known.clone();
    }
    if !search.step(1) {
        return None;
    }
    let found = match_here(parts, uri, search);
    search.memo.insert(key, found.clone());
    found
}

fn match_here(parts: &[Part], uri: &str, search: &mut Search) -> Option<HashMap<String, String>> {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty().then(HashMap::new);
    };
    match first {
        Part::Literal(l) => match_parts(rest, uri.strip_prefix(l.as_str())?, search),
        Part::Expr { op, vars: specs } => {
            if matches!(op, Op::Query | Op::QueryCont) {
                return match_query(*op, specs, rest, uri, search);
            }
            // Expressions other than query ones may expand to nothing when undefined.
            let prefix = op.first();
            let candidates: Vec<usize> = {
                let body = uri.strip_prefix(prefix);
                let mut v = Vec::new();
                if let Some(body) = body {
                    for (i, c) in body.char_indices() {
                        if !value_char_ok(*op, c) {
                            break;
                        }
                        v.push(i + c.len_utf8());
                    }
                }
                v
            };
            if !search.step(candidates.len()) {
                return None;
            }
            // Longest first (greedy), then shorter, so `{a}.{b}` style templates resolve. What
            // follows is matched first: a candidate it cannot follow costs no decoding.
            for &end in candidates.iter().rev() {
                let Some(later) = match_parts(rest, &uri[prefix.len() + end..], search) else { continue };
                let mut vars = HashMap::new();
                if assign(*op, specs, &uri[prefix.len()..prefix.len() + end], &mut vars) {
                    vars.extend(later);
                    return Some(vars);
                }
            }
            // The expression may also be empty (all variables undefined).
            match_parts(rest, uri, search)
        }
    }
}

fn assign(op: Op, specs: &[VarSpec], body: &str, vars: &mut HashMap<String, String>) -> bool {
    if body.is_empty() {
        return false;
    }
    let sep = op.sep();
    if specs.len() == 1 {
        let spec = &specs[0];
        let value =
            if spec.explode && sep != "," { body.split(sep).collect::<Vec<_>>().join(",") } else { body.to_string() };
        let value = if op.named() {
            match value.strip_prefix(&format!("{}=", spec.name)) {
                Some(v) => v.to_string(),
                None if value == spec.name => String::new(),
                None => return false,
            }
        } else {
            value
        };
        vars.insert(spec.name.clone(), percent_decode(&value));
        return true;
    }
    let pieces: Vec<&str> = body.split(sep).collect();
    if pieces.len() > specs.len() {
        return false;
    }
    for (spec, piece) in specs.iter().zip(pieces) {
        let piece = if op.named() {
            match piece.split_once('=') {
                Some((n, v)) if n == spec.name => v,
                _ => return false,
            }
        } else {
            piece
        };
        vars.insert(spec.name.clone(), percent_decode(piece));
    }
    true
}

fn match_query(
    op: Op,
    specs: &[VarSpec],
    rest: &[Part],
    uri: &str,
    search: &mut Search,
) -> Option<HashMap<String, String>> {
    let lead = op.first();
    let Some(body) = uri.strip_prefix(lead) else {
        // No query at all: all its variables are undefined.
        return match_parts(rest, uri, search);
    };
    let end = body.find('#').unwrap_or(body.len());
    let (query, after) = body.split_at(end);
    let later = match_parts(rest, after, search)?;
    let mut vars: HashMap<String, String> = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if let Some(spec) = specs.iter().find(|s| s.name == k) {
            let v = percent_decode(v);
            vars.entry(spec.name.clone())
                .and_modify(|old| {
                    old.push(',');
                    old.push_str(&v);
                })
                .or_insert(v);
        }
    }
    vars.extend(later);
    Some(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        let mut v: Vec<_> = UriTemplate::parse(t).unwrap().match_uri(uri)?.into_iter().collect();
        v.sort();
        Some(v)
    }

    /// Found by the uri_template fuzz target: `%` before a multi-byte character panicked
    /// (a str sliced inside the character), a crash any client could cause with
    /// `resources/read`.
    #[test]
    fn percent_before_a_multibyte_character() {
        let t = UriTemplate::parse("x://{a,b}/{?q,r}").unwrap();
        let _ = t.match_uri("x://%\u{FFFD}\u{0}5'f");
        assert_eq!(percent_decode("%\u{e9}x%41%4a%4"), "%\u{e9}xAJ%4");
        assert_eq!(m("file:///{+path}", "file:///%C3%A9%\u{e9}"), kv(&[("path", "\u{e9}%\u{e9}")]));
    }

    /// Found by the uri_template fuzz target: expressions side by side made the search
    /// combinatorial in the URI's length (a 78-byte URI kept it busy past ten seconds); the
    /// states tried are remembered and the work bounded.
    #[test]
    fn expressions_side_by_side_stay_cheap() {
        let t = UriTemplate::parse("{k}{a,b}{/a}{ak._}{a,k,b}/").unwrap();
        let uri = format!("x{}g", "\0".repeat(4000));
        assert_eq!(t.match_uri(&uri), None);
        let t = UriTemplate::parse("x://{a}{b}{c}{d}{e}{f}/end").unwrap();
        assert_eq!(t.match_uri(&format!("x://{}", "y".repeat(5000))), None);
        assert_eq!(m("x://{a}{b}/end", "x://yy/end"), kv(&[("a", "yy")]));
        // A long URI against a usual template still matches (within the bound).
        let long = format!("file:///{}/name", "d/".repeat(32 * 1024));
        let vars = UriTemplate::parse("file:///{+path}/{name}").unwrap().match_uri(&long).unwrap();
        assert_eq!((vars["path"].len(), vars["name"].as_str()), (64 * 1024, "name"));
    }

    fn kv(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        let mut v: Vec<_> = pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        v.sort();
        Some(v)
    }

    #[test]
    fn matches_simple_and_operators() {
        assert_eq!(m("weather://{city}/now", "weather://Paris/now"), kv(&[("city", "Paris")]));
        assert_eq!(m("weather://{city}/now", "weather://Pa/ris/now"), None);
        assert_eq!(m("weather://{city}/now", "weather://Paris/later"), None);
        assert_eq!(m("file:///{+path}", "file:///a/b/c.txt"), kv(&[("path", "a/b/c.txt")]));
        assert_eq!(m("test://template/{id}/data", "test://template/123/data"), kv(&[("id", "123")]));
        assert_eq!(m("users://{id}", "users://hello%20world"), kv(&[("id", "hello world")]));
        assert_eq!(m("a://{x}{/y}", "a://one/two"), kv(&[("x", "one"), ("y", "two")]));
        assert_eq!(m("search://q{?q,lang}", "search://q?lang=en&q=rust"), kv(&[("lang", "en"), ("q", "rust")]));
        assert_eq!(m("search://q{?q,lang}", "search://q"), kv(&[]));
        assert_eq!(m("x://{a},{b}", "x://1,2"), kv(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("x://{a,b}", "x://1,2"), kv(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("x://{name}.{ext}", "x://report.pdf"), kv(&[("ext", "pdf"), ("name", "report")]));
        assert_eq!(m("x://fixed", "x://fixed"), kv(&[]));
    }

    #[test]
    fn expands() {
        let t = UriTemplate::parse("x://{a}{/p*}{?q,r}").unwrap();
        let mut v = HashMap::new();
        v.insert("a".to_string(), TemplateValue::String("a b".into()));
        v.insert("p".to_string(), TemplateValue::List(vec!["1".into(), "2".into()]));
        v.insert("q".to_string(), TemplateValue::String("z".into()));
        assert_eq!(t.expand(&v), "x://a%20b/1/2?q=z");
        assert_eq!(t.variables(), vec!["a", "p", "q", "r"]);
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://{}").is_err());
    }
}
