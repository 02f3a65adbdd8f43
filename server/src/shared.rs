//! The state every handler shares, apart from the router (`app.rs`) that hands it out, so that
//! handlers and extractors do not import the module that imports them.

use std::sync::Arc;

use crate::store::Store;

/// What every handler shares.
pub(crate) struct App {
    pub store: Store,
    pub max_body_bytes: usize,
    pub model_providers: Vec<String>,
}

pub(crate) type Shared = Arc<App>;
