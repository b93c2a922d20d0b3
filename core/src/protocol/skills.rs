//! The skills extension's results (`io.modelcontextprotocol/skills`): skill entries with their
//! files' digests and sizes, `skills/list` pages, `skills/get` and
//! `resources/directory/read`.

use super::resources::Resource;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A file of a skill, with the digest and size of its content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// Its resource URI.
    pub uri: String,
    /// `sha256:<64 lowercase hex>` of its raw bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// A skill's files: the complete list, or `"dynamic"` (generated content, no digests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// Every file, `SKILL.md` included.
    Files(Vec<SkillResource>),
    /// The string `"dynamic"`.
    Dynamic(DynamicMarker),
}

/// The string `"dynamic"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DynamicMarker {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// One skill as `skills/list` and `skills/get` describe it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its `SKILL.md` frontmatter as JSON (`name` and `description` at least).
    pub frontmatter: Map<String, Value>,
    /// Its files.
    pub resources: SkillResources,
}

impl SkillEntry {
    /// `frontmatter.name`.
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// `frontmatter.description`.
    pub fn description(&self) -> &str {
        self.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default()
    }

    /// The URI of the skill's directory (its `uri` without `/SKILL.md`).
    pub fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(&self.uri)
    }
}

/// A page of `skills/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The skills of this page.
    pub skills: Vec<SkillEntry>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The result of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The skill.
    pub skill: SkillEntry,
}

/// A page of `resources/directory/read`: the directory's direct children (subdirectories
/// with `mimeType` `inode/directory`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDirectoryResult {
    /// The children of this page.
    pub resources: Vec<Resource>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}
