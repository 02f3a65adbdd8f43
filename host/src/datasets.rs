//! The local knowledge base's datasets for `canvasc dataset` (`add`, `list`, `rm`): the
//! datasets folder of a data directory, the `[embedding]` endpoint of the configuration, and
//! the tools crate's store (feature `kb`). A build without the feature says so.

use std::path::{Path, PathBuf};

/// One dataset as the command prints it.
#[derive(Clone, Debug)]
pub struct Summary {
    pub id: String,
    pub name: String,
    /// The embedding model, `""` when the dataset is full-text only.
    pub embd_id: String,
    pub documents: usize,
    pub chunks: usize,
}

/// Make dataset `name` from `paths` under `<data_dir>/datasets`, embedding its chunks with the
/// configuration's `[embedding]` endpoint when there is one. `progress` hears each step.
#[cfg(feature = "kb")]
pub fn add(
    data_dir: &Path,
    config: Option<&Path>,
    name: &str,
    paths: &[PathBuf],
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<Summary, String> {
    use canvasc_tools::config::ToolsConfig;
    use canvasc_tools::kb::{embed::Embedder, DatasetStore};
    let tools = crate::config::external_config(config, |text| {
        ToolsConfig::from_toml_str(text, &crate::config::process_env)
    })
    .map_err(|e| e.to_string())?;
    let embedder = tools
        .embedding()
        .cloned()
        .map(|c| Embedder::new(c, canvasc_engine::http::shared_client()));
    let store = DatasetStore::new(crate::config::datasets_dir(data_dir));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let meta = runtime.block_on(store.add(name, paths, embedder.as_ref(), progress))?;
    Ok(summary(&meta))
}

/// Every dataset under `<data_dir>/datasets`, by name.
#[cfg(feature = "kb")]
pub fn list(data_dir: &Path) -> Result<Vec<Summary>, String> {
    let store = canvasc_tools::kb::DatasetStore::new(crate::config::datasets_dir(data_dir));
    Ok(store.list()?.iter().map(summary).collect())
}

/// Remove the dataset named (or with the id) `name`.
#[cfg(feature = "kb")]
pub fn remove(data_dir: &Path, name: &str) -> Result<Summary, String> {
    let store = canvasc_tools::kb::DatasetStore::new(crate::config::datasets_dir(data_dir));
    Ok(summary(&store.remove(name)?))
}

#[cfg(feature = "kb")]
fn summary(meta: &canvasc_tools::kb::DatasetMeta) -> Summary {
    Summary {
        id: meta.id.clone(),
        name: meta.name.clone(),
        embd_id: meta.embd_id.clone(),
        documents: meta.documents.len(),
        chunks: meta.chunk_count,
    }
}

#[cfg(not(feature = "kb"))]
const NO_KB: &str = "this build of canvasc has no local knowledge base (the host's feature `kb`)";

#[cfg(not(feature = "kb"))]
pub fn add(
    _data_dir: &Path,
    _config: Option<&Path>,
    _name: &str,
    _paths: &[PathBuf],
    _progress: &mut (dyn FnMut(&str) + Send),
) -> Result<Summary, String> {
    Err(NO_KB.into())
}

#[cfg(not(feature = "kb"))]
pub fn list(_data_dir: &Path) -> Result<Vec<Summary>, String> {
    Err(NO_KB.into())
}

#[cfg(not(feature = "kb"))]
pub fn remove(_data_dir: &Path, _name: &str) -> Result<Summary, String> {
    Err(NO_KB.into())
}
