#![no_main]
// The body is hypermcp::fuzzing::jsonrpc: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/jsonrpc) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| hypermcp::fuzzing::jsonrpc(data));
