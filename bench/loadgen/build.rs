//! Empty: the package's build dependency (syn with `visit-mut`) is there for feature
//! unification only (see Cargo.toml).
fn main() {}
