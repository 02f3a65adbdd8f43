//! `fixtures/broken/structural-param-llm-temperature-and-empty-message.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-param-llm-temperature-and-empty-message.json");
}
