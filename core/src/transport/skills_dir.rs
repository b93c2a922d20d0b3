//! Reads a directory of skills from disk into a
//! [`SkillCatalog`] (the I/O half of serving skills;
//! the catalogue itself is sans-IO).

use crate::catalogue::skills::{SkillCatalog, MAX_BYTES_PER_SKILL, SKILL_FILE};
use std::path::{Path, PathBuf};

/// Most files read from one skills directory.
const MAX_FILES: usize = 100_000;

/// Reads every skill under `root`: each directory holding a `SKILL.md` (nested ones too) with
/// the files beside and below it. Names starting with `.` (`.git`, `.DS_Store`) are skipped,
/// as are files outside every skill (a `README.md` at the root). A symbolic link is followed
/// only when it stays inside `root`. Fails with a message naming the file and the rule it
/// breaks (see [`SkillCatalog::from_files`]).
pub fn read_skills_dir(root: impl AsRef<Path>) -> Result<SkillCatalog, String> {
    let root = root.as_ref();
    let canonical = std::fs::canonicalize(root).map_err(|e| format!("skills directory {}: {e}", root.display()))?;
    if !canonical.is_dir() {
        return Err(format!("skills directory {}: not a directory", root.display()));
    }
    let mut paths: Vec<(String, PathBuf)> = Vec::new();
    let mut stack = vec![(String::new(), canonical.clone())];
    while let Some((rel, dir)) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let real = std::fs::canonicalize(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            if !real.starts_with(&canonical) {
                return Err(format!("{}: a link out of the skills directory", path.display()));
            }
            let rel = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            if real.is_dir() {
                if real == dir || dir.starts_with(&real) {
                    return Err(format!("{}: a link back into its own directory", path.display()));
                }
                stack.push((rel, real));
            } else if real.is_file() {
                paths.push((rel, real));
                if paths.len() > MAX_FILES {
                    return Err(format!("skills directory {}: more than {MAX_FILES} files", root.display()));
                }
            }
        }
    }
    let skill_dirs: Vec<String> = paths
        .iter()
        .filter_map(|(rel, _)| rel.strip_suffix(SKILL_FILE).map(|d| d.to_string()))
        .filter(|d| d.is_empty() || d.ends_with('/'))
        .collect();
    let mut files = Vec::new();
    for (rel, path) in paths {
        if !skill_dirs.iter().any(|d| rel.starts_with(d.as_str())) {
            continue;
        }
        let len = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?.len();
        if len > MAX_BYTES_PER_SKILL {
            return Err(format!("{}: {len} bytes, more than a skill may hold ({MAX_BYTES_PER_SKILL})", path.display()));
        }
        let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((rel, data));
    }
    SkillCatalog::from_files(files)
}
