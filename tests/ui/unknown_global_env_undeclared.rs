//! `fixtures/broken/unknown-global-env-undeclared.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unknown-global-env-undeclared.json");
}
