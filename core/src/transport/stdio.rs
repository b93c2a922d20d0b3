//! This process's stdin and stdout as async streams.
//!
//! When they are pipes or sockets (the normal case for a server spawned by a client) they
//! are driven directly by tokio's reactor in non-blocking mode: no thread hop per read or
//! write. Otherwise (a terminal, a file) tokio's blocking stdio is used.

use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::pin::Pin;
use tokio::io::{AsyncRead, AsyncWrite};

/// A boxed reader.
pub type BoxReader = Pin<Box<dyn AsyncRead + Send>>;
/// A boxed writer.
pub type BoxWriter = Pin<Box<dyn AsyncWrite + Send>>;

fn kind(fd: &OwnedFd) -> Option<std::fs::FileType> {
    let file = std::fs::File::from(fd.try_clone().ok()?);
    file.metadata().ok().map(|m| m.file_type())
}

fn reader() -> BoxReader {
    if let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() {
        match kind(&fd) {
            Some(t) if t.is_fifo() => {
                if let Ok(pipe) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
                    return Box::pin(pipe);
                }
            }
            Some(t) if t.is_socket() => {
                let sock = std::os::unix::net::UnixStream::from(fd);
                if sock.set_nonblocking(true).is_ok() {
                    if let Ok(s) = tokio::net::UnixStream::from_std(sock) {
                        return Box::pin(s);
                    }
                }
            }
            _ => {}
        }
    }
    Box::pin(tokio::io::stdin())
}

fn writer() -> BoxWriter {
    if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
        if kind(&fd).is_some_and(|t| t.is_fifo()) {
            if let Ok(pipe) = tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
                return Box::pin(pipe);
            }
        }
    }
    Box::pin(tokio::io::stdout())
}

/// stdin and stdout as async streams (see the module docs).
pub fn stdio_streams() -> (BoxReader, BoxWriter) {
    (reader(), writer())
}
