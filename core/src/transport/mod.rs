//! tokio drivers: a session over any byte stream ([`driver`]), this process's stdin/stdout
//! ([`stdio`]), a spawned child process ([`child`]) and in-memory pairs ([`duplex`]); and
//! [`io_runtime`], the I/O thread host-language bindings run HTTP on.

pub mod child;
pub(crate) mod driver;
pub mod duplex;
pub mod stdio;

/// A runtime with one I/O thread (`hypermcp-io`), started on first use and shared by the
/// whole process: where bindings whose host loop cannot run tokio (Python, Node) run their
/// HTTP servers and clients. Rust programs use their own runtime instead.
pub fn io_runtime() -> &'static tokio::runtime::Runtime {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hypermcp-io")
            .enable_all()
            .build()
            .expect("cannot start the hypermcp I/O runtime")
    })
}
