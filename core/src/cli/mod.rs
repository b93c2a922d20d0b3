//! `hypermcp`, one command line for every MCP server (feature `cli`).
//!
//! Implemented once here; the Python package (`hypermcp` console script, `python -m
//! hypermcp`), the npm package (`npx hypermcp`) and the Rust binary (`cargo install hypermcp`) each call [`main`] with what they know of their host: the interpreter
//! that runs server files of their language, and where their runner is.
//!
//! A TARGET is a URL (Streamable HTTP or the legacy HTTP+SSE transport), a server file
//! (`server.py`, `server.mjs`, `server.ts`..., optionally `FILE:OBJECT`) run with the right
//! interpreter, or a quoted command line (`"uvx some-server --flag"`, or the words after
//! `--`): any MCP server of any SDK is reached the same way.
//!
//! Exit codes: 0 done; 1 the server or the connection failed; 2 the command line is wrong
//! (an unknown command or option, bad JSON, a tool or prompt the server does not have); 3 the
//! tool answered with an error (`isError`); 130 interrupted.

mod args;
mod bench;
mod commands;
mod install;
mod runner;
mod show;
mod target;

use std::io::Write;
use std::path::PathBuf;

/// What the package calling [`main`] knows of its host.
#[derive(Clone, Debug, Default)]
pub struct Host {
    /// The name the command was invoked as, for usage texts (default `hypermcp`).
    pub program: Option<String>,
    /// The Python interpreter to run `.py` server files with (the Python package's own).
    pub python: Option<PathBuf>,
    /// The Node executable to run JavaScript and TypeScript server files with.
    pub node: Option<PathBuf>,
    /// The npm package's runner (`bindings-node/js/runner.mjs`), when called from it.
    pub node_runner: Option<PathBuf>,
}

/// Exit status: done.
pub const EXIT_OK: i32 = 0;
/// Exit status: the server or the connection failed.
pub const EXIT_FAILED: i32 = 1;
/// Exit status: the command line is wrong.
pub const EXIT_USAGE: i32 = 2;
/// Exit status: the tool answered with an error (`isError`).
pub const EXIT_TOOL_ERROR: i32 = 3;
/// Exit status: interrupted (Ctrl-C).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Why a command stopped: the exit status and what to tell the user.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: i32,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn usage(message: impl Into<String>) -> Failure {
        Failure { code: EXIT_USAGE, message: message.into() }
    }
    pub(crate) fn failed(message: impl Into<String>) -> Failure {
        Failure { code: EXIT_FAILED, message: message.into() }
    }
}

impl From<crate::Error> for Failure {
    fn from(e: crate::Error) -> Failure {
        Failure::failed(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::failed(e.to_string())
    }
}

pub(crate) type Outcome<T = ()> = Result<T, Failure>;

/// Runs the command line `args` (without the program name) and returns the exit status.
/// Blocks: it runs on a runtime of its own.
pub fn main(args: Vec<String>, host: Host) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hypermcp: cannot start: {e}");
            return EXIT_FAILED;
        }
    };
    let program = host.program.clone().unwrap_or_else(|| "hypermcp".into());
    // `run` and `dev` stop their server on Ctrl-C themselves; the others just end.
    let own_signals = matches!(args.first().map(String::as_str), Some("run" | "dev"));
    let code = runtime.block_on(async move {
        let outcome = if own_signals {
            commands::dispatch(args, &host).await
        } else {
            tokio::select! {
                r = commands::dispatch(args, &host) => r,
                _ = tokio::signal::ctrl_c() => {
                    show::clear_status();
                    Err(Failure { code: EXIT_INTERRUPTED, message: "interrupted".into() })
                }
            }
        };
        match outcome {
            Ok(()) => EXIT_OK,
            Err(f) => {
                if !f.message.is_empty() {
                    eprintln!("{}: {} {}", program, show::Style::stderr().red("error:"), f.message);
                }
                f.code
            }
        }
    });
    let _ = std::io::stdout().flush();
    // Spawned servers are shut down as their clients drop; don't wait on stragglers.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    code
}
