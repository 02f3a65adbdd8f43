//! `run --llm-script FILE`: the scripted model (`scripted-llm.md`), as a script of its own or
//! in the reference oracle's `--script` file (`fixtures/scripts/*.json`), which holds the
//! script under `llm` beside canned data for the tools the oracle stubs. One file then drives
//! both engines. A key neither form has is refused with its name and line: a misspelt key
//! would otherwise change the answers without a word.

use crate::source_map::SourceMap;
use canvasc_engine::llm::script::{Script, ScriptError};
use canvasc_value::Json;
use std::path::Path;

/// The oracle's fixture keys beside `llm` (its README, §4): data for tools it stubs.
const ORACLE_FIXTURES: &[&str] = &[
    "retrieval",
    "tavily",
    "sql",
    "yahoo",
    "wikipedia",
    "duckduckgo",
    "google",
    "files",
];

/// Read and parse the script in `path`; errors name the file and the line.
pub fn load(path: &Path) -> Result<Script, String> {
    let text = super::read_file(path)?;
    let name = path.display();
    let json: Json = serde_json::from_str(&text)
        .map_err(|e| format!("the LLM script {name} is not JSON: {e}"))?;
    let located = |e: ScriptError, prefix: &str| {
        let pointer = format!("{prefix}{}", e.pointer);
        match line_of(&text, &pointer) {
            Some(line) => format!("{name}:{line}: {}", e.message),
            None => format!("{name}: {e}"),
        }
    };
    let wrapper = match &json {
        Json::Object(m) if m.contains_key("llm") => m,
        _ => return Script::parse(&json).map_err(|e| located(e, "")),
    };
    for key in wrapper.keys().filter(|k| *k != "llm") {
        if !ORACLE_FIXTURES.contains(&key.as_str()) {
            let e = ScriptError {
                pointer: format!("/{}", key.replace('~', "~0").replace('/', "~1")),
                message: format!(
                    "unknown key `{key}`: a script file wrapped as the reference oracle's has \
                     `llm` and the tool fixtures {}",
                    ORACLE_FIXTURES.join(", ")
                ),
            };
            return Err(located(e, ""));
        }
        errln!(
            "note: {name}: `{key}` is tool data for the reference oracle; canvasc does not use it"
        );
    }
    Script::parse(&json["llm"]).map_err(|e| located(e, "/llm"))
}

/// The 1-based line of the value (or key) at `pointer`.
fn line_of(text: &str, pointer: &str) -> Option<usize> {
    let (start, _) = SourceMap::new(text).locate(pointer, None)?;
    Some(text.get(..start)?.matches('\n').count() + 1)
}
