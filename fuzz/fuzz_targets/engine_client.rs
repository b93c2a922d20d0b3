#![no_main]
// The body is hypermcp::fuzzing::engine_client: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/engine_client) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| hypermcp::fuzzing::engine_client(data));
