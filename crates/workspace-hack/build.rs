//! Empty: this crate has a build script only so that its `[build-dependencies]` take part in
//! feature unification for the host (see Cargo.toml).
fn main() {}
