//! `fixtures/broken/structural-switch-unsupported-operator.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-switch-unsupported-operator.json");
}
