//! Server files: which interpreter runs `server.py`, `server.mjs` or `server.ts`, and with
//! which runner (the Python package's `hypermcp._runner`, the npm package's
//! `bindings-node/js/runner.mjs`). The runner loads the file, finds its server (the one
//! named by `FILE:OBJECT`, else the only one) and runs it on the transport the environment
//! names (`HYPERMCP_TRANSPORT`, `HYPERMCP_HOST`, `HYPERMCP_PORT`).

use super::{Failure, Host, Outcome};
use std::path::{Path, PathBuf};

/// The languages of server files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    JavaScript,
    TypeScript,
}

impl Language {
    /// The language of a file, by its extension.
    pub(crate) fn of(path: &str) -> Option<Language> {
        let ext = Path::new(path).extension()?.to_str()?;
        match ext {
            "py" => Some(Language::Python),
            "js" | "mjs" | "cjs" => Some(Language::JavaScript),
            "ts" | "mts" | "cts" => Some(Language::TypeScript),
            _ => None,
        }
    }
}

/// A server file to run: `FILE` or `FILE:OBJECT`.
#[derive(Clone, Debug)]
pub(crate) struct ServerFile {
    pub(crate) path: PathBuf,
    pub(crate) object: Option<String>,
    pub(crate) language: Language,
}

impl ServerFile {
    /// `word` as a server file, if it names one (by its extension). A file that does not
    /// exist is an error, not a command.
    pub(crate) fn parse(word: &str) -> Outcome<Option<ServerFile>> {
        if word.chars().any(char::is_whitespace) {
            return Ok(None);
        }
        let (file, object) = match word.rsplit_once(':') {
            Some((f, o)) if Language::of(f).is_some() && is_identifier(o) => (f, Some(o.to_string())),
            _ => (word, None),
        };
        let Some(language) = Language::of(file) else { return Ok(None) };
        let path = PathBuf::from(file);
        if !path.is_file() {
            return Err(Failure::usage(format!("no such server file: {file}")));
        }
        let path = path.canonicalize().map_err(|e| Failure::usage(format!("{file}: {e}")))?;
        Ok(Some(ServerFile { path, object, language }))
    }

    /// The command that runs this file's server, and the environment it needs.
    pub(crate) async fn command(&self, host: &Host) -> Outcome<(PathBuf, Vec<String>)> {
        let file = self.path.to_string_lossy().into_owned();
        let mut args = Vec::new();
        let program = match self.language {
            Language::Python => {
                args.extend(["-m".to_string(), "hypermcp._runner".to_string()]);
                python(host, &self.path)
            }
            Language::JavaScript | Language::TypeScript => {
                let node = node(host);
                if self.language == Language::TypeScript {
                    let version = node_version(&node).await?;
                    if version < (22, 6) {
                        return Err(Failure::failed(format!(
                            "{file} is TypeScript, which Node runs from 22.6 on (type stripping); {} is {}.{}: \
                             use Node 22.6 or later (HYPERMCP_NODE=/path/to/node), or compile the file to JavaScript",
                            node.display(),
                            version.0,
                            version.1
                        )));
                    }
                    if version < (23, 6) {
                        args.push("--experimental-strip-types".into());
                    }
                    args.push("--no-warnings".into());
                }
                args.push(node_runner(host, &self.path)?.to_string_lossy().into_owned());
                node
            }
        };
        args.push(file);
        if let Some(o) = &self.object {
            args.push(o.clone());
        }
        Ok((program, args))
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The Python that runs `file`: `HYPERMCP_PYTHON`, the Python package's own interpreter, the
/// active virtual environment's, a `.venv` beside the file or above it, else `python3`.
fn python(host: &Host, file: &Path) -> PathBuf {
    if let Some(p) = std::env::var_os("HYPERMCP_PYTHON") {
        return PathBuf::from(p);
    }
    if let Some(p) = &host.python {
        return p.clone();
    }
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        let p = PathBuf::from(v).join("bin").join("python");
        if p.is_file() {
            return p;
        }
    }
    for dir in file.ancestors().skip(1) {
        let p = dir.join(".venv").join("bin").join("python");
        if p.is_file() {
            return p;
        }
    }
    PathBuf::from("python3")
}

/// The Node that runs JavaScript files: `HYPERMCP_NODE`, the npm package's own, else `node`.
fn node(host: &Host) -> PathBuf {
    if let Some(p) = std::env::var_os("HYPERMCP_NODE") {
        return PathBuf::from(p);
    }
    host.node.clone().unwrap_or_else(|| PathBuf::from("node"))
}

async fn node_version(node: &Path) -> Outcome<(u32, u32)> {
    let out = tokio::process::Command::new(node).arg("--version").output().await.map_err(|e| {
        Failure::failed(format!("cannot run {}: {e} (set HYPERMCP_NODE to a Node executable)", node.display()))
    })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.trim().trim_start_matches('v').split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    Ok((parts.next().unwrap_or(0), parts.next().unwrap_or(0)))
}

/// The npm package's runner: the calling package's, else the `hypermcp` package the file's
/// project installed (or the repository it sits in).
fn node_runner(host: &Host, file: &Path) -> Outcome<PathBuf> {
    let rel = Path::new("bindings-node").join("js").join("runner.mjs");
    for dir in file.ancestors().skip(1) {
        let installed = dir.join("node_modules").join("hypermcp").join(&rel);
        if installed.is_file() {
            return Ok(installed);
        }
        // A checkout of hypermcp itself (its examples import the package by its name).
        let manifest = dir.join("package.json");
        if manifest.is_file() && dir.join(&rel).is_file() {
            let named = std::fs::read_to_string(&manifest)
                .ok()
                .and_then(|m| serde_json::from_str::<serde_json::Value>(&m).ok())
                .is_some_and(|m| m["name"] == "hypermcp");
            if named {
                return Ok(dir.join(&rel));
            }
        }
    }
    if let Some(r) = &host.node_runner {
        return Ok(r.clone());
    }
    Err(Failure::failed(format!(
        "{} is a JavaScript server, but its project has no hypermcp package: `npm install hypermcp` in {}",
        file.display(),
        file.parent().map(|d| d.display().to_string()).unwrap_or_default()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_files_by_extension() {
        let dir = std::env::temp_dir().join(format!("hypermcp-cli-runner-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let py = dir.join("server.py");
        std::fs::write(&py, "").unwrap();
        let word = py.to_string_lossy().into_owned();
        let f = ServerFile::parse(&word).unwrap().unwrap();
        assert_eq!((f.language, f.object.as_deref()), (Language::Python, None));
        let f = ServerFile::parse(&format!("{word}:app")).unwrap().unwrap();
        assert_eq!(f.object.as_deref(), Some("app"));
        assert!(ServerFile::parse("uvx some-server").unwrap().is_none());
        assert!(ServerFile::parse("some-server").unwrap().is_none());
        let e = ServerFile::parse(&dir.join("missing.mjs").to_string_lossy()).unwrap_err();
        assert!(e.message.contains("no such server file"), "{}", e.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
