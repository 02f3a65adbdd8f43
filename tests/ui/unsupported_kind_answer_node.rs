//! `fixtures/broken/unsupported-kind-answer-node.json`: its checker warnings are rustc warnings (denied here to pin them).
#![deny(deprecated)]

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unsupported-kind-answer-node.json");
}
