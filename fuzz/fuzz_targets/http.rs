#![no_main]
// The body is hypermcp::fuzzing::http: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/http) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| drop(hypermcp::fuzzing::http(data)));
