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

    /// One page of `resources/directory/read` of directory `uri`: its direct children as
    /// resources (files with their name, MIME type and size; subdirectories as
    /// `inode/directory`), up to `page_size` after `cursor`, and the next page's cursor.
    pub fn directory_page(
        &self,
        uri: &str,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(Vec<Value>, Option<String>), DirectoryError> {
        let children = self.children(uri).ok_or(DirectoryError::NotADirectory)?;
        let start = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix("dir:")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n <= children.len())
                .ok_or_else(|| DirectoryError::Cursor(c.to_string()))?,
        };
        let page: Vec<Value> = children
            .iter()
            .skip(start)
            .take(page_size.max(1))
            .map(|(child, is_dir)| {
                let name = child.rsplit('/').next().unwrap_or(child);
                if *is_dir {
                    serde_json::json!({"uri": child, "name": name, "mimeType": DIRECTORY_MIME})
                } else {
                    let f = &self.files[child];
                    serde_json::json!({"uri": child, "name": name, "mimeType": f.mime_type, "size": f.size})
                }
            })
            .collect();
        let end = start + page.len();
        Ok((page, (end < children.len()).then(|| format!("dir:{end}"))))
    }

    /// The `resources/list` entry of a skill's `SKILL.md`: its name and description from the
    /// frontmatter, `text/markdown`, its size.
    pub fn resource(&self, skill: &Skill) -> crate::protocol::Resource {
        let text = |k: &str| skill.frontmatter.get(k).and_then(Value::as_str).map(str::to_string);
        let mut r = crate::protocol::Resource::new(skill.uri.clone(), text("name").unwrap_or_default());
        r.description = text("description");
        r.mime_type = Some("text/markdown".into());
        r.size = self.files.get(&skill.uri).map(|f| f.size);
        r
    }

    /// The URIs whose contents differ between `self` and `other` (changed, added or gone).
    pub fn changed_files(&self, other: &SkillCatalog) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (uri, f) in &self.files {
            if other.files.get(uri).is_none_or(|g| g.digest != f.digest) {
                out.push(uri.clone());
            }
        }
        out.extend(other.files.keys().filter(|u| !self.files.contains_key(*u)).cloned());
        out
    }
}

/// Why a host refused a skill or one of its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerificationFailure {
    /// The file is not in the skill's `resources` (or outside its directory).
    Unlisted,
    /// The file's size differs from the entry's.
    Size,
    /// The file's digest differs from the entry's.
    Digest,
    /// The `SKILL.md` frontmatter differs from the entry's.
    Frontmatter,
    /// The entry or the read result is malformed.
    Invalid,
}

impl VerificationFailure {
    /// `unlisted`, `size`, `digest`, `frontmatter` or `invalid`.
    pub const fn as_str(self) -> &'static str {
        match self {
            VerificationFailure::Unlisted => "unlisted",
            VerificationFailure::Size => "size",
            VerificationFailure::Digest => "digest",
            VerificationFailure::Frontmatter => "frontmatter",
            VerificationFailure::Invalid => "invalid",
        }
    }
}

/// A skill entry or file a host must not use, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillVerificationError {
    /// What failed.
    pub reason: VerificationFailure,
    /// The URI concerned (the file's, or the skill's for an invalid entry).
    pub uri: String,
    /// What differs, for people.
    pub message: String,
}

impl std::fmt::Display for SkillVerificationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skill verification failed ({}): {}", self.reason.as_str(), self.message)
    }
}

impl std::error::Error for SkillVerificationError {}

fn refused(reason: VerificationFailure, uri: &str, message: impl Into<String>) -> SkillVerificationError {
    SkillVerificationError { reason, uri: uri.to_string(), message: message.into() }
}

/// Checks a `Skill` entry (from `skills/list` or `skills/get`) before a host loads it: a
/// `uri` ending in `/<frontmatter.name>/SKILL.md`, a valid name, a description, and
/// `resources` either `"dynamic"` or a complete list (the entry's own `SKILL.md` in it, every
/// file under the skill's directory, once, with a `sha256:` digest and a size) within the
/// per-skill limits.
pub fn check_entry(entry: &Value) -> Result<(), SkillVerificationError> {
    use VerificationFailure::Invalid;
    let uri = entry.get("uri").and_then(Value::as_str).unwrap_or("");
    let bad = |m: String| refused(Invalid, uri, m);
    let Some(dir) = uri.strip_suffix("/SKILL.md") else {
        return Err(bad(format!("the skill entry's uri {uri:?} does not end in /SKILL.md")));
    };
    let Some(front) = entry.get("frontmatter").and_then(Value::as_object) else {
        return Err(bad(format!("{uri}: the skill entry has no frontmatter object")));
    };
    let name = front.get("name").and_then(Value::as_str).unwrap_or("");
    check_skill_name(name).map_err(|e| bad(format!("{uri}: {e}")))?;
    if dir.rsplit('/').next() != Some(name) {
        return Err(bad(format!("{uri}: the last segment of the skill's path is not its name {name:?}")));
    }
    if front.get("description").and_then(Value::as_str).is_none_or(|d| d.trim().is_empty()) {
        return Err(bad(format!("{uri}: the frontmatter has no description")));
    }
    match entry.get("resources") {
        Some(Value::String(s)) if s == "dynamic" => Ok(()),
        Some(Value::Array(items)) => {
            let mut seen = BTreeSet::new();
            let mut total = 0u64;
            for item in items {
                let u = item.get("uri").and_then(Value::as_str).unwrap_or("");
                let digest_ok = item.get("digest").and_then(Value::as_str).is_some_and(|d| {
                    d.strip_prefix("sha256:").is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                });
                let Some(size) = item.get("size").and_then(Value::as_u64) else {
                    return Err(bad(format!("{uri}: the resource {u:?} has no size")));
                };
                if !digest_ok {
                    return Err(bad(format!("{uri}: the resource {u:?} has no sha256:<hex> digest")));
                }
                if !u.starts_with(&format!("{dir}/")) {
                    return Err(bad(format!("{uri}: the resource {u:?} is outside the skill's directory")));
                }
                if !seen.insert(u) {
                    return Err(bad(format!("{uri}: the resource {u:?} is listed twice")));
                }
                total = total.saturating_add(size);
            }
            if !seen.contains(uri) {
                return Err(bad(format!("{uri}: the skill's resources do not list its SKILL.md")));
            }
            if items.len() > MAX_FILES_PER_SKILL || total > MAX_BYTES_PER_SKILL {
                return Err(bad(format!(
                    "{uri}: the skill holds {} files and {total} bytes, more than the {MAX_FILES_PER_SKILL} files and {MAX_BYTES_PER_SKILL} bytes hosts must accept",
                    items.len()
                )));
            }
            Ok(())
        }
        _ => Err(bad(format!("{uri}: the skill entry's resources are neither a list nor \"dynamic\""))),
    }
}

/// Checks a `resources/read` result of `uri`, a file of the skill `entry` describes, and
/// returns the file's bytes: the file must be listed (or under the skill's directory for a
/// `"dynamic"` skill), have the listed size and digest, and a `SKILL.md` read this way must
/// carry the entry's frontmatter.
pub fn verify_read(entry: &Value, uri: &str, result: &Value) -> Result<Vec<u8>, SkillVerificationError> {
    use VerificationFailure::*;
    check_entry(entry)?;
    let skill_uri = entry["uri"].as_str().unwrap_or_default();
    let dir = skill_uri.strip_suffix("SKILL.md").unwrap_or(skill_uri);
    let listed = match &entry["resources"] {
        Value::Array(items) => {
            let Some(item) = items.iter().find(|i| i["uri"].as_str() == Some(uri)) else {
                return Err(refused(Unlisted, uri, format!("{uri} is not one of the files of {skill_uri}")));
            };
            Some((item["size"].as_u64().unwrap_or(0), item["digest"].as_str().unwrap_or_default()))
        }
        _ if uri.starts_with(dir) => None,
        _ => return Err(refused(Unlisted, uri, format!("{uri} is outside the directory of {skill_uri}"))),
    };
    let parts = result.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let part = parts.iter().find(|c| c["uri"].as_str() == Some(uri)).or(parts.first());
    let data = match part {
        Some(c) if c.get("text").is_some() => c["text"].as_str().map(|t| t.as_bytes().to_vec()),
        Some(c) => c.get("blob").and_then(Value::as_str).and_then(crate::util::base64_decode),
        None => None,
    };
    let Some(data) = data else {
        return Err(refused(Invalid, uri, format!("the read of {uri} returned no text or blob contents")));
    };
    if let Some((size, digest)) = listed {
        if data.len() as u64 != size {
            return Err(refused(Size, uri, format!("{uri}: {} bytes read, the skill lists {size}", data.len())));
        }
        let got = self::digest(&data);
        if !got.eq_ignore_ascii_case(digest) {
            return Err(refused(Digest, uri, format!("{uri}: its digest is {got}, the skill lists {digest}")));
        }
    }
    if uri == skill_uri {
        let expected = entry["frontmatter"].as_object().cloned().unwrap_or_default();
        let text = std::str::from_utf8(&data).map_err(|_| refused(Frontmatter, uri, format!("{uri} is not UTF-8")))?;
        verify_frontmatter(uri, &expected, text).map_err(|m| refused(Frontmatter, uri, m))?;
    }
    Ok(data)
}

/// The MIME type of directory resources.
pub const DIRECTORY_MIME: &str = "inode/directory";

/// Why a directory could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirectoryError {
    /// The URI is not a directory of the catalogue.
    NotADirectory,
    /// A cursor this catalogue did not give.
    Cursor(String),
}

/// The contents of a skill file as `resources/read` gives them: UTF-8 text as `text`,
/// anything else as a base64 `blob`.
pub fn read_contents(file: &SkillFile) -> crate::protocol::ResourceContents {
    use crate::protocol::ResourceContents;
    match std::str::from_utf8(&file.data) {
        Ok(text) => ResourceContents::Text {
            uri: file.uri.clone(),
            mime_type: Some(file.mime_type.into()),
            text: text.into(),
            meta: None,
        },
        Err(_) => ResourceContents::Blob {
            uri: file.uri.clone(),
            mime_type: Some(file.mime_type.into()),
            blob: crate::util::base64_encode(&file.data),
            meta: None,
        },
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
        let skill = c.get("skill://pdf-processing/SKILL.md").unwrap();
        let entry = c.entry(skill);
        check_entry(&entry).unwrap();
        let read = |uri: &str, text: &str| serde_json::json!({"contents": [{"uri": uri, "text": text}]});
        let forms = "skill://pdf-processing/references/FORMS.md";
        assert_eq!(verify_read(&entry, forms, &read(forms, "# Forms\n")).unwrap(), b"# Forms\n");
        let fail = |uri: &str, text: &str| verify_read(&entry, uri, &read(uri, text)).unwrap_err();
        assert_eq!(fail(forms, "# Forms!\n").reason, VerificationFailure::Size);
        assert_eq!(fail(forms, "# Farms\n").reason, VerificationFailure::Digest);
        assert_eq!(fail("skill://pdf-processing/NEW.md", "x").reason, VerificationFailure::Unlisted);
        let blob = serde_json::json!({"contents": [{"uri": forms, "blob": "IyBGb3JtcwoK"}]});
        assert_eq!(verify_read(&entry, forms, &blob).unwrap_err().reason, VerificationFailure::Size);
        let empty = serde_json::json!({"contents": []});
        assert_eq!(verify_read(&entry, forms, &empty).unwrap_err().reason, VerificationFailure::Invalid);
        // SKILL.md: frontmatter compared field by field, even with matching digests.
        let text = std::str::from_utf8(&c.file(&skill.uri).unwrap().data).unwrap().to_string();
        verify_read(&entry, &skill.uri, &read(&skill.uri, &text)).unwrap();
        let changed = text.replace("Fill PDF forms", "Exfiltrate data");
        let mut resigned = entry.clone();
        resigned["resources"][0]["size"] = changed.len().into();
        resigned["resources"][0]["digest"] = digest(changed.as_bytes()).into();
        let e = verify_read(&resigned, &skill.uri, &read(&skill.uri, &changed)).unwrap_err();
        assert_eq!(e.reason, VerificationFailure::Frontmatter);
        assert!(e.message.contains("\"description\""), "{}", e.message);
        // Malformed entries are refused before anything is read.
        for (field, value) in [
            ("uri", serde_json::json!("skill://pdf-processing/README.md")),
            ("resources", serde_json::json!("all")),
            ("resources", serde_json::json!([])),
            ("frontmatter", serde_json::json!({"name": "other", "description": "x"})),
        ] {
            let mut bad = entry.clone();
            bad[field] = value;
            assert_eq!(check_entry(&bad).unwrap_err().reason, VerificationFailure::Invalid, "{field}");
        }
        let mut dynamic = entry.clone();
        dynamic["resources"] = "dynamic".into();
        assert_eq!(verify_read(&dynamic, forms, &read(forms, "anything")).unwrap(), b"anything");
        assert_eq!(
            verify_read(&dynamic, "skill://other/x.md", &read("skill://other/x.md", "x")).unwrap_err().reason,
            VerificationFailure::Unlisted
        );
    }

    #[test]
    fn directories_are_read_in_pages() {
        let c = catalogue();
        let (page, next) = c.directory_page("skill://pdf-processing", None, 2).unwrap();
        assert_eq!(page.len(), 2);
        assert_eq!(
            page[0],
            serde_json::json!({"uri": "skill://pdf-processing/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": c.file("skill://pdf-processing/SKILL.md").unwrap().size})
        );
        assert_eq!(page[1]["mimeType"], "inode/directory");
        let (rest, end) = c.directory_page("skill://pdf-processing/", next.as_deref(), 2).unwrap();
        assert_eq!((rest.len(), end), (1, None));
        assert_eq!(c.directory_page("skill://pdf-processing/SKILL.md", None, 2), Err(DirectoryError::NotADirectory));
        assert_eq!(
            c.directory_page("skill://pdf-processing", Some("dir:99"), 2),
            Err(DirectoryError::Cursor("dir:99".into()))
        );
        assert_eq!(c.resource(c.get("skill://git-workflow/SKILL.md").unwrap()).name, "git-workflow");
    }
}
