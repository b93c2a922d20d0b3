#![no_main]
// The body is hypermcp::fuzzing::uri_template: core/tests/suite/fuzz_replay.rs replays this target's corpus
// (fuzz/corpus/uri_template) through the same function on stable Rust.
libfuzzer_sys::fuzz_target!(|data: &[u8]| hypermcp::fuzzing::uri_template(data));
