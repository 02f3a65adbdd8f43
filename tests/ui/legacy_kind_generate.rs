//! `fixtures/broken/legacy-kind-generate.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/legacy-kind-generate.json");
}
