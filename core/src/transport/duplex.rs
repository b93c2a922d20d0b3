//! In-memory byte pipes connecting a client and a server in one process (for tests and for
//! apps that embed a server).

use tokio::io::DuplexStream;

/// Two connected ends: `(client_side, server_side)`. Each is readable and writable; split
/// them with `tokio::io::split`.
pub fn pair() -> (DuplexStream, DuplexStream) {
    tokio::io::duplex(256 * 1024)
}
