//! `fixtures/broken/unknown-global-sys-user.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unknown-global-sys-user.json");
}
