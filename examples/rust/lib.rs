//! The Rust examples of hypermcp are this package's `[[example]]` targets
//! (`cargo run --example echo_server`, `weather_server`, `client`, `http_mount`, `extensions`,
//! `conformance_server`, `conformance_client`); this library is empty.
