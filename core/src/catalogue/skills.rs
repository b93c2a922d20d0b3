//! Skills (`io.modelcontextprotocol/skills`, SEP-2640): a catalogue of skill directories, each
//! a `SKILL.md` (YAML frontmatter, then markdown) and the files beside it, served as
//! `skill://<path>/...` resources. Built from files already read (no I/O here): each skill's
//! entry (`{uri, frontmatter, resources: [{uri, digest, size}]}`), the pages of `skills/list`,
//! `skills/get`, the files for `resources/read` and the directories for
//! `resources/directory/read`. The checks a client makes of what it fetches (size, digest,
//! frontmatter) are here too, so that both ends agree on them.

use serde_json::{Map, Number, Value};
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The extension's identifier.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The URI scheme of skill files.
pub const SKILL_SCHEME: &str = "skill://";
/// The entry file of a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// Most files one skill may hold (the specification's limit).
pub const MAX_FILES_PER_SKILL: usize = 512;
/// Most bytes one skill may hold (the specification's limit).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;
/// Largest frontmatter accepted, in bytes.
const MAX_FRONTMATTER: usize = 64 * 1024;

/// Checks a skill name (the Agent Skills rule): 1 to 64 characters, lowercase letters, digits
/// and hyphens, no hyphen first, last or twice in a row.
pub fn check_skill_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "skill name {name:?}: use 1-64 lowercase letters, digits and hyphens, without a hyphen first, last or twice in a row"
        ))
    }
}

/// The YAML frontmatter of a `SKILL.md` (between a first line `---` and the next `---` line)
/// as JSON. Anchors and aliases are refused; keys must be text.
pub fn parse_frontmatter(text: &str) -> Result<Map<String, Value>, String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md must start with a YAML frontmatter block (a first line \"---\")")?;
    let mut end = None;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            end = Some(offset);
            break;
        }
        offset += line.len();
    }
    let yaml = &rest[..end.ok_or("SKILL.md's frontmatter block has no closing \"---\" line")?];
    if yaml.len() > MAX_FRONTMATTER {
        return Err(format!("SKILL.md's frontmatter is larger than {MAX_FRONTMATTER} bytes"));
    }
    // Anchors and aliases are refused before anything is built: the loader expands aliases,
    // so a few hundred bytes of them could make gigabytes ("billion laughs").
    struct Anchors(bool);
    impl yaml_rust2::parser::EventReceiver for Anchors {
        fn on_event(&mut self, ev: yaml_rust2::Event) {
            use yaml_rust2::Event as E;
            if matches!(ev, E::Alias(_) | E::Scalar(_, _, 1.., _) | E::SequenceStart(1.., _) | E::MappingStart(1.., _))
            {
                self.0 = true;
            }
        }
    }
    let mut anchors = Anchors(false);
    yaml_rust2::parser::Parser::new_from_str(yaml)
        .load(&mut anchors, false)
        .map_err(|e| format!("SKILL.md's frontmatter: {e}"))?;
    if anchors.0 {
        return Err("frontmatter anchors and aliases are not accepted".into());
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml).map_err(|e| format!("SKILL.md's frontmatter: {e}"))?;
    match docs.into_iter().next() {
        Some(y @ yaml_rust2::Yaml::Hash(_)) => match to_json(y)? {
            Value::Object(m) => Ok(m),
            _ => unreachable!("a YAML mapping becomes a JSON object"),
        },
        _ => Err("SKILL.md's frontmatter must be a YAML mapping (name: ..., description: ...)".into()),
    }
}

fn to_json(y: yaml_rust2::Yaml) -> Result<Value, String> {
    use yaml_rust2::Yaml;
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(n) => Value::Number(n.into()),
        Yaml::Real(text) => match text.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Value::Number(n),
            None => Value::String(text),
        },
        Yaml::String(s) => Value::String(s),
        Yaml::Array(items) => Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s,
                    Yaml::Integer(n) => n.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    other => return Err(format!("frontmatter keys must be text, not {other:?}")),
                };
                m.insert(key, to_json(v)?);
            }
            Value::Object(m)
        }
        Yaml::Alias(_) => return Err("frontmatter anchors and aliases are not accepted".into()),
        Yaml::BadValue => return Err("the frontmatter holds a value that is not YAML".into()),
    })
}

/// `sha256:<hex>` of `data`, as skill entries give digests.
pub fn digest(data: &[u8]) -> String {
    let d = sha2::Sha256::digest(data);
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Checks a fetched file against its entry in a skill's `resources` (size, then digest).
pub fn verify_file(uri: &str, expected_size: u64, expected_digest: &str, data: &[u8]) -> Result<(), String> {
    if data.len() as u64 != expected_size {
        return Err(format!("{uri}: {} bytes fetched, the skill lists {expected_size}", data.len()));
    }
    let got = digest(data);
    if !got.eq_ignore_ascii_case(expected_digest) {
        return Err(format!("{uri}: its digest is {got}, the skill lists {expected_digest}"));
    }
    Ok(())
}

/// Checks a fetched `SKILL.md`'s frontmatter against the skill entry's, field by field.
pub fn verify_frontmatter(uri: &str, expected: &Map<String, Value>, text: &str) -> Result<(), String> {
    let got = parse_frontmatter(text).map_err(|e| format!("{uri}: {e}"))?;
    for key in expected.keys().chain(got.keys()).collect::<BTreeSet<_>>() {
        if expected.get(key) != got.get(key) {
            return Err(format!("{uri}: its frontmatter's {key:?} differs from the skill entry's"));
        }
    }
    Ok(())
}

/// A file of a skill.
#[derive(Clone, Debug)]
pub struct SkillFile {
    /// Its `skill://` URI.
    pub uri: String,
    /// Its contents.
    pub data: Arc<[u8]>,
    /// `sha256:<hex>`.
    pub digest: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its MIME type (from its extension).
    pub mime_type: &'static str,
}

/// A skill: its directory, frontmatter and files (its own and those of skills nested in it).
#[derive(Clone, Debug)]
pub struct Skill {
    /// Its path (`acme/billing/refunds`): the URI's authority and path.
    pub path: String,
    /// `skill://<path>/SKILL.md`.
    pub uri: String,
    /// The frontmatter of its `SKILL.md`, as JSON.
    pub frontmatter: Map<String, Value>,
    /// The URIs of its files, sorted.
    pub files: Vec<String>,
}

/// Skills served from memory (see the module's documentation).
#[derive(Clone, Debug, Default)]
pub struct SkillCatalog {
    /// By `SKILL.md` URI.
    skills: BTreeMap<String, Skill>,
    files: BTreeMap<String, SkillFile>,
    /// Directory URIs (`skill://a/b`, no trailing slash).
    dirs: BTreeSet<String>,
}

/// The MIME type of a file, by its extension.
pub fn mime_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// A relative path checked: `/`-separated, no empty, `.` or `..` segment.
fn clean_path(path: &str) -> Result<String, String> {
    let p = path.replace('\\', "/");
    if p.is_empty() || p.starts_with('/') || p.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return Err(format!("skill file {path:?}: expected a relative path without empty, '.' or '..' parts"));
    }
    Ok(p)
}

impl SkillCatalog {
    /// A catalogue of the files given (path relative to the skills root, contents). Every
    /// directory holding a `SKILL.md` is a skill (nested ones too): its last path segment must
    /// be the frontmatter's `name` (which follows [`check_skill_name`]), its `description` must
    /// not be empty, and it holds at most [`MAX_FILES_PER_SKILL`] files and
    /// [`MAX_BYTES_PER_SKILL`] bytes. A file outside every skill is refused.
    pub fn from_files(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Result<SkillCatalog, String> {
        let mut by_path = BTreeMap::new();
        for (path, data) in files {
            let p = clean_path(&path)?;
            if by_path.insert(p.clone(), data).is_some() {
                return Err(format!("skill file {p:?} is given twice"));
            }
        }
        let skill_dirs: Vec<String> = by_path
            .keys()
            .filter_map(|p| match p.rsplit_once('/') {
                Some((dir, SKILL_FILE)) => Some(Ok(dir.to_string())),
                None if p == SKILL_FILE => Some(Err("a SKILL.md at the root of the skills directory has no name: put each skill in a directory named after it".to_string())),
                _ => None,
            })
            .collect::<Result<_, _>>()?;
        let mut c = SkillCatalog::default();
        for (path, data) in &by_path {
            if !skill_dirs.iter().any(|d| path.starts_with(&format!("{d}/"))) {
                return Err(format!("skill file {path:?} is not in a skill's directory (one holding a SKILL.md)"));
            }
            let uri = format!("{SKILL_SCHEME}{path}");
            let mut dir = path.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                c.dirs.insert(format!("{SKILL_SCHEME}{parent}"));
                dir = parent;
            }
            c.files.insert(
                uri.clone(),
                SkillFile {
                    uri,
                    data: data.clone().into(),
                    digest: digest(data),
                    size: data.len() as u64,
                    mime_type: mime_type(path),
                },
            );
        }
        for dir in skill_dirs {
            let name = dir.rsplit('/').next().unwrap_or(&dir);
            let entry = &by_path[&format!("{dir}/{SKILL_FILE}")];
            let text = std::str::from_utf8(entry).map_err(|_| format!("{dir}/{SKILL_FILE} is not UTF-8 text"))?;
            let frontmatter = parse_frontmatter(text).map_err(|e| format!("{dir}/{SKILL_FILE}: {e}"))?;
            match frontmatter.get("name").and_then(Value::as_str) {
                Some(n) if n == name => check_skill_name(n).map_err(|e| format!("{dir}/{SKILL_FILE}: {e}"))?,
                Some(n) => {
                    return Err(format!(
                        "{dir}/{SKILL_FILE}: the frontmatter names the skill {n:?}, but its directory is {name:?} (they must be the same)"
                    ))
                }
                None => return Err(format!("{dir}/{SKILL_FILE}: the frontmatter has no name")),
            }
            if frontmatter.get("description").and_then(Value::as_str).is_none_or(|d| d.trim().is_empty()) {
                return Err(format!("{dir}/{SKILL_FILE}: the frontmatter has no description"));
            }
            let prefix = format!("{SKILL_SCHEME}{dir}/");
            let files: Vec<String> = c.files.keys().filter(|u| u.starts_with(&prefix)).cloned().collect();
            let bytes: u64 = files.iter().map(|u| c.files[u].size).sum();
            if files.len() > MAX_FILES_PER_SKILL || bytes > MAX_BYTES_PER_SKILL {
                return Err(format!(
                    "skill {dir:?} holds {} files and {bytes} bytes: at most {MAX_FILES_PER_SKILL} files and {MAX_BYTES_PER_SKILL} bytes",
                    files.len()
                ));
            }
            let uri = format!("{SKILL_SCHEME}{dir}/{SKILL_FILE}");
            c.skills.insert(uri.clone(), Skill { path: dir.clone(), uri, frontmatter, files });
        }
        Ok(c)
    }

    /// How many skills it holds.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skills, by `SKILL.md` URI.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.values()
    }

    /// The entry of a skill as `skills/list` and `skills/get` give it.
    pub fn entry(&self, skill: &Skill) -> Value {
        let resources: Vec<Value> = skill
            .files
            .iter()
            .map(|u| {
                let f = &self.files[u];
                serde_json::json!({"uri": f.uri, "digest": f.digest, "size": f.size})
            })
            .collect();
        serde_json::json!({"uri": skill.uri, "frontmatter": skill.frontmatter, "resources": resources})
    }

    /// One page of entries: up to `page_size` after `cursor` (the opaque cursor of the page
    /// before), and the cursor of the next page. `Err` for a cursor this catalogue did not give.
    pub fn list(&self, cursor: Option<&str>, page_size: usize) -> Result<(Vec<Value>, Option<String>), String> {
        let start = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix("skills:")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n <= self.skills.len())
                .ok_or_else(|| format!("invalid cursor {c:?}"))?,
        };
        let page: Vec<Value> = self.skills.values().skip(start).take(page_size.max(1)).map(|s| self.entry(s)).collect();
        let end = start + page.len();
        Ok((page, (end < self.skills.len()).then(|| format!("skills:{end}"))))
    }

    /// The skill whose `SKILL.md` is `uri`.
    pub fn get(&self, uri: &str) -> Option<&Skill> {
        self.skills.get(uri)
    }

    /// The file at `uri`.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files.get(uri)
    }

    /// The direct children of directory `uri` (a trailing `/` is ignored): each URI, and
    /// whether it is a directory. `None` when `uri` is not a directory of the catalogue.
    pub fn children(&self, uri: &str) -> Option<Vec<(String, bool)>> {
        let dir = uri.strip_suffix('/').unwrap_or(uri);
        if !self.dirs.contains(dir) {
            return None;
        }
        let prefix = format!("{dir}/");
        let direct = |u: &String| u.strip_prefix(&prefix).is_some_and(|rest| !rest.is_empty() && !rest.contains('/'));
        let mut out: Vec<(String, bool)> = self.dirs.iter().filter(|d| direct(d)).map(|d| (d.clone(), true)).collect();
        out.extend(self.files.keys().filter(|f| direct(f)).map(|f| (f.clone(), false)));
        out.sort();
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill_md(name: &str, description: &str) -> Vec<u8> {
        format!("---\nname: {name}\ndescription: {description}\nmetadata:\n  version: 2\n  tags: [a, b]\n---\n# {name}\n\nBody.\n")
            .into_bytes()
    }

    fn catalogue() -> SkillCatalog {
        SkillCatalog::from_files([
            ("pdf-processing/SKILL.md".to_string(), skill_md("pdf-processing", "Fill PDF forms")),
            ("pdf-processing/references/FORMS.md".to_string(), b"# Forms\n".to_vec()),
            ("pdf-processing/scripts/extract.py".to_string(), b"print('x')\n".to_vec()),
            ("git-workflow/SKILL.md".to_string(), skill_md("git-workflow", "Branch, commit, review")),
            ("acme/billing/refunds/SKILL.md".to_string(), skill_md("refunds", "Refund an order")),
            ("git-workflow/nested-tool/SKILL.md".to_string(), skill_md("nested-tool", "A nested skill")),
        ])
        .unwrap()
    }

    #[test]
    fn names_follow_the_agent_skills_rule() {
        for good in ["pdf", "pdf-processing", "a1", "x"] {
            check_skill_name(good).unwrap();
        }
        for bad in ["", "-pdf", "pdf-", "pdf--x", "PDF", "pdf_x", &"a".repeat(65)] {
            assert!(check_skill_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn frontmatter_is_yaml_rendered_as_json() {
        let m = parse_frontmatter(std::str::from_utf8(&skill_md("pdf", "\"Fill: forms\"")).unwrap()).unwrap();
        assert_eq!(
            Value::Object(m.clone()),
            serde_json::json!({"name": "pdf", "description": "Fill: forms",
            "metadata": {"version": 2, "tags": ["a", "b"]}})
        );
        assert!(
            parse_frontmatter("---\nname: pdf\ndescription: Fill: forms\n---\n").is_err(),
            "plain scalars hold no ': '"
        );
        assert!(parse_frontmatter("# no frontmatter\n").unwrap_err().contains("must start"));
        assert!(parse_frontmatter("---\nname: x\n").unwrap_err().contains("closing"));
        assert!(parse_frontmatter("---\n- a\n---\n").unwrap_err().contains("mapping"));
        assert!(parse_frontmatter("---\na: &x 1\nb: *x\n---\n").unwrap_err().contains("alias"));
        assert!(parse_frontmatter("---\r\nname: y\r\ndescription: d\r\n---\r\nbody").is_ok());
    }

    #[test]
    fn a_catalogue_lists_gets_reads_and_walks_directories() {
        let c = catalogue();
        assert_eq!(c.len(), 4);
        let (page, next) = c.list(None, 3).unwrap();
        let uris: Vec<&str> = page.iter().map(|e| e["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://git-workflow/SKILL.md",
                "skill://git-workflow/nested-tool/SKILL.md"
            ]
        );
        let (rest, end) = c.list(next.as_deref(), 3).unwrap();
        assert_eq!(rest[0]["uri"], "skill://pdf-processing/SKILL.md");
        assert_eq!(end, None);
        assert!(c.list(Some("bogus"), 3).is_err());
        // An entry lists every file with its digest and size; a parent lists its nested skill's.
        let pdf = c.entry(c.get("skill://pdf-processing/SKILL.md").unwrap());
        assert_eq!(pdf["frontmatter"]["description"], "Fill PDF forms");
        let res = pdf["resources"].as_array().unwrap();
        assert_eq!(res.len(), 3);
        let forms = res.iter().find(|r| r["uri"] == "skill://pdf-processing/references/FORMS.md").unwrap();
        assert_eq!(forms["size"], 8);
        assert_eq!(forms["digest"], digest(b"# Forms\n"));
        let git = c.entry(c.get("skill://git-workflow/SKILL.md").unwrap());
        assert_eq!(git["resources"].as_array().unwrap().len(), 2);
        // Files, and directories.
        let f = c.file("skill://pdf-processing/scripts/extract.py").unwrap();
        assert_eq!((f.mime_type, f.size), ("text/x-python", 11));
        assert_eq!(c.file("skill://pdf-processing/SKILL.md").unwrap().mime_type, "text/markdown");
        assert_eq!(
            c.children("skill://pdf-processing").unwrap(),
            vec![
                ("skill://pdf-processing/SKILL.md".to_string(), false),
                ("skill://pdf-processing/references".to_string(), true),
                ("skill://pdf-processing/scripts".to_string(), true),
            ]
        );
        assert_eq!(c.children("skill://acme/").unwrap(), vec![("skill://acme/billing".to_string(), true)]);
        assert!(c.children("skill://pdf-processing/SKILL.md").is_none());
        assert!(c.children("skill://nowhere").is_none());
    }

    #[test]
    fn bad_skills_are_refused_with_reasons() {
        let one = |path: &str, data: Vec<u8>| SkillCatalog::from_files([(path.to_string(), data)]).unwrap_err();
        assert!(one("pdf/SKILL.md", skill_md("other", "d")).contains("must be the same"));
        assert!(one("Bad_Name/SKILL.md", skill_md("Bad_Name", "d")).contains("lowercase"));
        assert!(one("pdf/SKILL.md", b"---\nname: pdf\n---\n".to_vec()).contains("no description"));
        assert!(one("SKILL.md", skill_md("x", "d")).contains("no name"));
        assert!(one("../pdf/SKILL.md", skill_md("pdf", "d")).contains("relative path"));
        assert!(one("loose.md", b"x".to_vec()).contains("not in a skill"));
        let many = (0..=MAX_FILES_PER_SKILL).map(|n| (format!("big/f{n}.txt"), vec![b'x']));
        let e = SkillCatalog::from_files(many.chain([("big/SKILL.md".to_string(), skill_md("big", "d"))])).unwrap_err();
        assert!(e.contains("at most 512 files"), "{e}");
    }

    #[test]
    fn clients_verify_what_they_fetch() {
        let c = catalogue();
        let f = c.file("skill://pdf-processing/references/FORMS.md").unwrap();
        verify_file(&f.uri, f.size, &f.digest, b"# Forms\n").unwrap();
        assert!(verify_file(&f.uri, f.size, &f.digest, b"# Forms!\n").unwrap_err().contains("bytes fetched"));
        assert!(verify_file(&f.uri, f.size, &f.digest, b"# Farms\n").unwrap_err().contains("digest"));
        let skill = c.get("skill://pdf-processing/SKILL.md").unwrap();
        let text = std::str::from_utf8(&c.file(&skill.uri).unwrap().data).unwrap().to_string();
        verify_frontmatter(&skill.uri, &skill.frontmatter, &text).unwrap();
        let changed = text.replace("Fill PDF forms", "Exfiltrate data");
        assert!(verify_frontmatter(&skill.uri, &skill.frontmatter, &changed).unwrap_err().contains("\"description\""));
    }
}
