//! `run --state FILE`: the session state kept between turns, as RAGFlow persists it
//! (`str(canvas)`), plus a marker saying canvasc wrote it and in which format.
//!
//! The file is overwritten after every turn, so canvasc must never take someone else's file for
//! its own: a canvas passed by mistake would be replaced by session state. A file is canvasc's
//! state when it carries the marker. Files written before the marker existed carry none; they
//! are accepted when they have the shape only a saved session has (a `task_id`, a non-empty
//! `path`, `components` and `history`), which a canvas as the editor or a template stores it
//! does not. Anything else is refused, unread and untouched.

use canvasc_value::{Json, Map};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The top-level key that marks a canvasc state file; its value is `{"version": N}`.
pub const MARKER: &str = "canvasc_state";

/// The state format this canvasc writes (and the newest it reads).
pub const VERSION: u64 = 1;

/// The saved session in `path`, without the marker; `None` when there is no file yet (the
/// first turn).
pub fn read(path: &Path) -> Result<Option<Map<String, Json>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read the state file {}: {e}",
                path.display()
            ))
        }
    };
    let refuse = |why: &str| {
        format!(
            "{} is not a canvasc state file ({why}); refusing to use or overwrite it: pass \
             --state a new file name, or the file an earlier `canvasc run --state` wrote",
            path.display()
        )
    };
    let Ok(Json::Object(mut state)) = serde_json::from_str::<Json>(&text) else {
        return Err(refuse("it is not a JSON object"));
    };
    match state.shift_remove(MARKER) {
        Some(marker) => match marker.get("version").and_then(Json::as_u64) {
            Some(v) if v <= VERSION => Ok(Some(state)),
            Some(v) => Err(format!(
                "the state file {} has format version {v}, written by a newer canvasc; this one \
                 reads up to version {VERSION}",
                path.display()
            )),
            None => Err(refuse(&format!("its `{MARKER}` marker has no version"))),
        },
        None if is_saved_session(&state) => Ok(Some(state)),
        None => Err(refuse(&format!(
            "it has no `{MARKER}` marker and is no saved session"
        ))),
    }
}

/// Whether an unmarked object has the shape of a saved session (what canvasc wrote before the
/// marker, and RAGFlow's own `str(canvas)`).
fn is_saved_session(state: &Map<String, Json>) -> bool {
    state.get("components").is_some_and(Json::is_object)
        && state.get("history").is_some_and(Json::is_array)
        && state.get("task_id").is_some_and(Json::is_string)
        && state
            .get("path")
            .and_then(Json::as_array)
            .is_some_and(|p| !p.is_empty())
}

/// Write the session state with the marker first, atomically: a temporary file beside
/// `path`, then a rename, so an interrupted write never leaves half a state. A file that
/// appeared in the meantime and is not canvasc's state is refused, as on reading.
pub fn write(path: &Path, state: Json) -> Result<(), String> {
    read(path)?;
    let mut marked = Map::new();
    marked.insert(
        MARKER.into(),
        serde_json::json!({"version": VERSION, "written_by": concat!("canvasc ", env!("CARGO_PKG_VERSION"))}),
    );
    if let Json::Object(state) = state {
        marked.extend(state);
    }
    let text = serde_json::to_string_pretty(&Json::Object(marked))
        .map_err(|e| format!("cannot serialise the session state: {e}"))?;
    let temp = temp_path(path);
    let written = std::fs::File::create(&temp)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("cannot write the state file {}: {e}", path.display())
    })
}

/// `.<name>.<pid>.tmp` in the same directory (a rename does not cross file systems).
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "state".into());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}
