//! `fixtures/broken/structural-jin10-as-agent-tool.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-jin10-as-agent-tool.json");
}
