//! `fixtures/broken/structural-param-switch-without-else.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-param-switch-without-else.json");
}
