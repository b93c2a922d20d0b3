#![no_main]
// The body is hypermcp::fuzzing::sse: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/sse) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| hypermcp::fuzzing::sse(data));
