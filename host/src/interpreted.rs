//! The interpreter programs a server keeps between turns, one per canvas fingerprint.
//!
//! Building a program (lowering, flow analysis, the checker, binding every component) costs as
//! much as a short run of the canvas, and every turn of every session of a version asks for the
//! same one: it is built once per fingerprint, from the canvas reset as RAGFlow resets it, which
//! is what the fingerprint names (a session's run-time values are not part of the program,
//! exactly as a compiled program built from the released DSL serves every session of it).

use crate::lru::Lru;
use canvasc_engine::interp::Interpreter;
use canvasc_frontend::reset::reset_document;
use canvasc_frontend::{analyze_loaded, Loaded};
use std::sync::Arc;

/// Programs kept; the least recently used goes first. A program costs about what its canvas's
/// DSL does, so this bounds the cache at a few hundred canvases.
const KEPT: usize = 256;

/// Interpreter programs by fingerprint, least recently used first.
pub struct Interpreted {
    programs: Lru<Interpreter>,
}

impl Default for Interpreted {
    fn default() -> Self {
        Interpreted {
            programs: Lru::new(KEPT),
        }
    }
}

impl Interpreted {
    /// The program for the canvas `loaded` whose fingerprint is `fingerprint`, built from it
    /// reset when no turn asked for it before.
    pub fn program(&self, fingerprint: &str, loaded: &Loaded) -> Arc<Interpreter> {
        if let Some(program) = self.programs.get(fingerprint) {
            return program;
        }
        let mut canvas = loaded.clone();
        reset_document(&mut canvas.document);
        let program = Arc::new(Interpreter::from_analysis(&analyze_loaded(canvas)));
        self.programs.put(fingerprint, Arc::clone(&program));
        program
    }
}

#[cfg(test)]
mod tests {
    use super::Interpreted;
    use canvasc_engine::Program;
    use canvasc_frontend::fingerprint::fingerprint;
    use canvasc_frontend::load_value;
    use serde_json::json;

    /// A session's saved DSL: its run-time values sit in the components' params.
    fn session(answer: &str) -> canvasc_frontend::Loaded {
        load_value(json!({
            "components": {
                "begin": {"obj": {"component_name": "Begin", "params": {
                    "inputs": {"name": {"type": "line", "name": "Name", "optional": false, "value": answer}},
                    "outputs": {"name": {"type": "string", "value": answer}}}},
                    "downstream": ["Message:Say"], "upstream": []},
                "Message:Say": {"obj": {"component_name": "Message", "params": {
                    "content": ["hi {begin@name}"],
                    "outputs": {"content": {"type": "string", "value": answer}}}},
                    "downstream": [], "upstream": ["begin"]}
            },
            "path": ["begin", "Message:Say"], "history": [["user", answer]], "retrieval": [],
            "globals": {"sys.query": answer, "sys.user_id": "", "sys.conversation_turns": 1,
                "sys.files": [], "sys.history": []}
        }))
        .expect("a canvas")
    }

    #[test]
    fn a_program_carries_no_sessions_values_and_is_shared_by_the_fingerprint() {
        let (first, second) = (session("secret of one tenant"), session("another"));
        let fp = fingerprint(&first.document);
        assert_eq!(fp, fingerprint(&second.document));
        let mut reset = first.document.clone();
        canvasc_frontend::reset::reset_document(&mut reset);
        assert_eq!(
            fingerprint(&reset),
            fp,
            "the reset canvas is the one the fingerprint names"
        );
        let programs = Interpreted::default();
        let program = programs.program(&fp, &first);
        let params = format!("{:?}", program.meta().nodes);
        assert!(!params.contains("secret"), "{params}");
        assert!(std::sync::Arc::ptr_eq(
            &program,
            &programs.program(&fp, &second)
        ));
    }
}
