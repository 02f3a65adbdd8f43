//! `fixtures/broken/unknown-kind-bing-tool.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unknown-kind-bing-tool.json");
}
