//! The canvas a new session starts from: the agent's draft DSL, or its newest released
//! version's, checked as RAGFlow builds it and reset as RAGFlow resets it.
//!
//! Every new session of a version starts from the same canvas, so the check (loading the whole
//! canvas and constructing its components) and the reset run once per agent and DSL, not once
//! per session: the prepared canvas is kept by the DSL's content.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::buildable::Unbuildable;
use crate::byte_lru::ByteLru;
use crate::envelope::ApiError;
use crate::store::{content_id, StartingCanvas};

/// Bytes of DSL the prepared canvases may hold; the least recently used goes first.
const KEPT_BYTES: usize = 64 << 20;

/// Prepared canvases by agent and DSL content.
pub(crate) struct StartingCanvases(ByteLru<Arc<Prepared>>);

impl Default for StartingCanvases {
    fn default() -> Self {
        StartingCanvases(ByteLru::new(KEPT_BYTES))
    }
}

struct Prepared {
    canvas: StartingCanvas,
    /// Why RAGFlow cannot build the DSL, if it cannot.
    unbuildable: Option<Unbuildable>,
    /// What a webhook request needs of the DSL, read with the rest.
    webhook: WebhookFacts,
}

/// What a webhook request reads of an agent's stored DSL, kept with its prepared canvas so a
/// request parses nothing.
#[derive(Clone)]
pub(crate) struct WebhookFacts {
    /// The stored DSL is a JSON object (RAGFlow's `Invalid DSL format.` otherwise).
    pub is_object: bool,
    /// The Webhook-mode Begin's params, or the `KeyError` RAGFlow's lookup raises.
    pub config: Result<Option<Map<String, Value>>, String>,
    /// The stored DSL holds no run state (it is its own reset), so a run may start from the
    /// prepared canvas instead of reading the stored DSL's state.
    pub stateless: bool,
}

/// A webhook's canvas: the facts of its DSL, and the prepared canvas or why RAGFlow cannot
/// build it (`str(e)`).
pub(crate) struct WebhookCanvas {
    pub facts: WebhookFacts,
    pub canvas: Result<StartingCanvas, String>,
}

impl StartingCanvases {
    /// A new session's canvas from `text`, the agent's DSL as stored (parsed only the first
    /// time). With `refuse_unbuildable`, a DSL RAGFlow cannot build is refused as RAGFlow's API
    /// refuses it (`buildable.rs`).
    pub(crate) async fn starting_canvas(
        &self,
        agent_id: &str,
        text: &str,
        refuse_unbuildable: bool,
    ) -> Result<StartingCanvas, ApiError> {
        let prepared = self.prepared(agent_id, text).await?;
        match (&prepared.unbuildable, refuse_unbuildable) {
            (Some(why), true) => Err(ApiError::exception(why.repr.clone())),
            _ => Ok(prepared.canvas.clone()),
        }
    }

    /// The canvas a webhook runs from `text`, the agent's DSL as stored.
    pub(crate) async fn webhook_canvas(
        &self,
        agent_id: &str,
        text: &str,
    ) -> Result<WebhookCanvas, ApiError> {
        let prepared = self.prepared(agent_id, text).await?;
        Ok(WebhookCanvas {
            facts: prepared.webhook.clone(),
            canvas: match &prepared.unbuildable {
                Some(why) => Err(why.message.clone()),
                None => Ok(prepared.canvas.clone()),
            },
        })
    }

    async fn prepared(&self, agent_id: &str, text: &str) -> Result<Arc<Prepared>, ApiError> {
        let key = content_id(agent_id, text);
        if let Some(prepared) = self.0.get(&key) {
            return Ok(prepared);
        }
        let stored = crate::store::parsed(text);
        let unbuildable = crate::buildable::unbuildable(&stored).await?;
        // Said once per agent and DSL (the prepared canvas is kept): every run of it fails
        // with RAGFlow's words, which do not say where.
        if let Some(why) = &unbuildable {
            eprintln!(
                "canvasc serve: agent {agent_id}: RAGFlow cannot build this canvas, so its runs fail with {}: {}",
                why.repr, why.finding
            );
        }
        let mut dsl = stored.clone();
        canvasc_frontend::reset::reset(&mut dsl);
        let webhook = WebhookFacts {
            is_object: stored.is_object(),
            config: crate::webhook::begin::webhook_params(&stored).map(|c| c.cloned()),
            stateless: stored == dsl,
        };
        let prepared = Arc::new(Prepared {
            canvas: StartingCanvas::new(agent_id, dsl),
            unbuildable,
            webhook,
        });
        self.0.put(&key, Arc::clone(&prepared), text.len());
        Ok(prepared)
    }
}
