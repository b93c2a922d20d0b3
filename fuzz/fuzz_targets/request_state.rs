#![no_main]
// The body is hypermcp::fuzzing::request_state: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/request_state) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| hypermcp::fuzzing::request_state(data));
