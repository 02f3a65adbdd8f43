//! `fixtures/broken/structural-param-categorize-empty-to.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-param-categorize-empty-to.json");
}
