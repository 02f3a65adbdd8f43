//! `fixtures/broken/structural-graph-switch-missing-case.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-graph-switch-missing-case.json");
}
