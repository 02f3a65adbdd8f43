//! The canvases a server's sessions run, prepared once per canvas id: loaded into the one
//! DSL form the engine reads, fingerprinted, and their interpreter program found.
//!
//! Why: every turn of every session of a version runs the same canvas, and loading and
//! fingerprinting it cost as much as a short run of a 20-component chain. The server names
//! each canvas by its content (`TurnCanvas::id`), so what is built from it never goes stale.

use crate::interpreted::Interpreted;
use crate::lru::Lru;
use canvasc_engine::interp::Interpreter;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::load_value;
use canvasc_server::turn::TurnCanvas;
use canvasc_value::{Json, Map};
use std::sync::Arc;

/// Canvases kept; the least recently used goes first. Each holds its DSL once (its program is
/// shared by fingerprint), so this bounds the memory at a few hundred canvases.
const KEPT: usize = 256;

/// A canvas ready for turns.
pub struct Prepared {
    /// The canvas in the engine's form (whatever form the agent stored).
    pub dsl: Arc<Map<String, Json>>,
    pub fingerprint: String,
    /// Its interpreter program (the meta every back-end shares, and what drafts run).
    pub interpreter: Arc<Interpreter>,
}

/// Prepared canvases by id, least recently used first.
pub struct SessionCanvases {
    kept: Lru<Prepared>,
}

impl Default for SessionCanvases {
    fn default() -> Self {
        SessionCanvases {
            kept: Lru::new(KEPT),
        }
    }
}

impl SessionCanvases {
    /// `canvas` prepared: kept by its id, or built (and kept, unless it has no id).
    pub fn prepared(
        &self,
        canvas: &TurnCanvas,
        programs: &Interpreted,
    ) -> Result<Arc<Prepared>, String> {
        if let Some(prepared) = self.kept.get(&canvas.id) {
            return Ok(prepared);
        }
        let loaded =
            load_value((*canvas.dsl).clone()).map_err(|e| format!("the session's canvas: {e}"))?;
        let fingerprint = fingerprint(&loaded.document);
        let interpreter = programs.program(&fingerprint, &loaded);
        let prepared = Arc::new(Prepared {
            dsl: Arc::new(loaded.document.dsl),
            fingerprint,
            interpreter,
        });
        if !canvas.id.is_empty() {
            self.kept.put(&canvas.id, Arc::clone(&prepared));
        }
        Ok(prepared)
    }
}
