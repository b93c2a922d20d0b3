#![no_main]
// The body is hypermcp::fuzzing::engine_server: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/engine_server) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| hypermcp::fuzzing::engine_server(data));
