//! napi-rs link setup for the Node addon.
fn main() {
    napi_build::setup();
}
