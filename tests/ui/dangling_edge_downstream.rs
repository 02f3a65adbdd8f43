//! `fixtures/broken/dangling-edge-downstream.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/dangling-edge-downstream.json");
}
