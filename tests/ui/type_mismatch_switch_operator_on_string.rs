//! `fixtures/broken/type-mismatch-switch-operator-on-string.json`: its checker warnings are rustc warnings (denied here to pin them).
#![deny(deprecated)]

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/type-mismatch-switch-operator-on-string.json");
}
