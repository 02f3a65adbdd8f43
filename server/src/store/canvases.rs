//! Canvases a session starts from, stored once per agent and content.
//!
//! Why: RAGFlow keeps a private copy of the canvas in every session, and a session's row grew
//! with the canvas, not with what its runs did (a 2.9 KB canvas made 9.8 KB sessions; a 4 MiB
//! one, 4 MiB sessions). Here the canvas a session starts from (its agent's DSL, run state
//! reset) is a row of its own, shared by every session of that agent that starts from the same
//! content, and a session stores what its runs changed (`session_state.rs`). In memory, the
//! canvases in use are parsed once and shared by every turn that reads them.

use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Backend, Store, StoreError};
use crate::byte_lru::ByteLru;

/// Bytes of canvas text (as stored) the memory keeps; the least recently used goes first.
const KEPT_BYTES: usize = 64 << 20;

/// A canvas a new session starts from: its DSL and its id (content and agent).
#[derive(Clone, Debug)]
pub struct StartingCanvas {
    pub id: String,
    pub agent_id: String,
    pub dsl: Arc<Value>,
    /// The DSL as stored.
    text: Arc<str>,
}

impl StartingCanvas {
    /// `dsl` (already reset) as a canvas of `agent_id`. The id names the agent too, so a
    /// canvas row belongs to one agent and goes with it, whoever else has the same DSL.
    pub fn new(agent_id: &str, dsl: Value) -> StartingCanvas {
        let text: Arc<str> = dsl.to_string().into();
        StartingCanvas {
            id: content_id(agent_id, &text),
            agent_id: agent_id.to_string(),
            dsl: Arc::new(dsl),
            text,
        }
    }
}

/// The id of `text` (a DSL) as `agent_id`'s: hex SHA-256 of both.
pub(crate) fn content_id(agent_id: &str, text: &str) -> String {
    let mut digest = Sha256::new();
    digest.update(agent_id.as_bytes());
    digest.update(b"\n");
    digest.update(text.as_bytes());
    digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The parsed canvases in memory, by id.
pub(crate) struct CanvasCache(ByteLru<Arc<Value>>);

impl Default for CanvasCache {
    fn default() -> Self {
        CanvasCache(ByteLru::new(KEPT_BYTES))
    }
}

impl Store {
    /// The canvas `id`: from memory, else from the database (and then kept).
    pub(crate) async fn canvas(&self, id: &str) -> Result<Arc<Value>, StoreError> {
        if let Some(dsl) = self.canvases.0.get(id) {
            return Ok(dsl);
        }
        let q = self.sql("SELECT dsl FROM canvases WHERE id = ?");
        let row = sqlx::query(&q)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::missing(&format!("canvas {id}")))?;
        let text = super::text(&row, "dsl")?;
        let dsl: Value = serde_json::from_str(&text)
            .map_err(|e| StoreError::public(format!("storage: canvas {id} is not JSON: {e}")))?;
        let dsl = Arc::new(dsl);
        self.canvases.0.put(id, Arc::clone(&dsl), text.len());
        Ok(dsl)
    }

    /// Stores `canvas` unless it is stored already, in the transaction `conn` is in.
    pub(super) async fn put_canvas_in(
        &self,
        conn: &mut sqlx::AnyConnection,
        canvas: &StartingCanvas,
        now: i64,
    ) -> Result<(), StoreError> {
        let insert = match self.backend {
            Backend::Sqlite => {
                "INSERT OR IGNORE INTO canvases (id, agent_id, dsl, create_time) VALUES (?, ?, ?, ?)"
            }
            Backend::Postgres => {
                "INSERT INTO canvases (id, agent_id, dsl, create_time) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (id) DO NOTHING"
            }
            Backend::MySql => {
                "INSERT IGNORE INTO canvases (id, agent_id, dsl, create_time) VALUES (?, ?, ?, ?)"
            }
        };
        let q = self.sql(insert);
        sqlx::query(&q)
            .bind(&canvas.id)
            .bind(&canvas.agent_id)
            .bind(canvas.text.as_ref())
            .bind(now)
            .execute(conn)
            .await?;
        self.canvases
            .0
            .put(&canvas.id, Arc::clone(&canvas.dsl), canvas.text.len());
        Ok(())
    }
}
