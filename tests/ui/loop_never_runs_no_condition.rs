//! `fixtures/broken/loop-never-runs-no-condition.json`: its checker warnings are rustc warnings (denied here to pin them).
#![deny(deprecated)]

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/loop-never-runs-no-condition.json");
}
