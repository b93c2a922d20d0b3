//! The I/O runtime of a process whose host loop cannot run tokio.

/// A runtime with one I/O thread (`hypermcp-io`), started on first use and shared by the
/// whole process: where the HTTP servers and clients of a host loop (Python, Node) run.
/// Rust programs use their own runtime instead.
pub(crate) fn io_runtime() -> &'static tokio::runtime::Runtime {
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
