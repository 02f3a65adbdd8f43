//! `fixtures/broken/unsupported-kind-answer-node.json`: its checker error is a compile error and its warning a rustc warning (denied here to pin it).
#![deny(deprecated)]

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unsupported-kind-answer-node.json");
}
