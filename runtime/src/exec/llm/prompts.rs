//! The instruction texts the LLM and Agent components add to prompts: citation rules, the
//! structured-output instructions, the multi-turn question rewrite and the citation pass.
//!
//! canvasc ships its own wording for each. A deployment that wants RAGFlow's exact prompts (and
//! tests against RAGFlow's engine) hands in RAGFlow's own texts (`rag/prompts/*.md` of a RAGFlow
//! checkout; the host reads them), so canvasc need not redistribute them. Texts are Jinja
//! templates rendered as RAGFlow renders them (file text stripped; `trim_blocks`,
//! `lstrip_blocks`, no autoescape).

use minijinja::Environment;

const CITATION: &str = r#"# Citations
When you use facts from the knowledge blocks above, cite them.
- Put the citation right after the sentence it supports, as [ID:n], where n is the ID shown on the block.
- Cite at most four blocks per sentence, each as its own [ID:n].
- Cite only blocks you actually used; never invent an ID.
- Do not cite in code blocks, tables or headings.
Example: "RAGFlow parses PDF, Word and Excel files [ID:45]. Its agents can call tools [ID:46][ID:78]."
"#;

const CITATION_PLUS: &str = r#"You add citations to an answer that is already written.
Keep the answer text exactly as it is, and insert [ID:n] markers after the sentences that the sources below support.

## Citation rules
{{ example }}

## Sources
{{ sources }}

Output the answer with its citations and nothing else."#;

const STRUCTURED_OUTPUT: &str = r#"Answer with JSON only: one value that follows the JSON schema below.
- No text before or after the JSON, no markdown fences.
- Use strings for yes/no values and numbers for every numeric value.
- Fill every required property.

The JSON schema:
    {{ schema }}"#;

const FULL_QUESTION: &str = r#"## Role
You rewrite the user's latest message as one complete, self-contained question.

## Rules
- Resolve pronouns and references using the conversation.
- Turn relative dates into absolute ones: today is {{ today }}, yesterday was {{ yesterday }}, tomorrow is {{ tomorrow }}.
- If the latest message is already complete, return it unchanged.
- Output only the question.
{% if language %}
- Write it in {{ language }}.
{% else %}
- Write it in the language of the user's latest message.
{% endif %}

## Conversation
{{ conversation }}"#;

/// The four templates: canvasc's own, or RAGFlow's when the host hands them in.
#[derive(Clone, Debug, PartialEq)]
pub struct Prompts {
    citation: String,
    citation_plus: String,
    structured_output: String,
    full_question: String,
}

impl Default for Prompts {
    fn default() -> Self {
        Prompts::with(|_| None)
    }
}

impl Prompts {
    /// The texts `text(name)` gives (`name` as RAGFlow's `rag/prompts/{name}.md`), canvasc's
    /// own for each it does not.
    pub fn with(text: impl Fn(&str) -> Option<String>) -> Prompts {
        let read = |name: &str, own: &str| -> String {
            text(name)
                .map(|t| t.trim().to_string())
                .unwrap_or_else(|| own.trim().to_string())
        };
        Prompts {
            citation: read("citation_prompt", CITATION),
            citation_plus: read("citation_plus", CITATION_PLUS),
            structured_output: read("structured_output_prompt", STRUCTURED_OUTPUT),
            full_question: read("full_question_prompt", FULL_QUESTION),
        }
    }

    /// `citation_prompt(user_defined)`: the user's `citation_guidelines` section or the default,
    /// then the reminder that the example IDs are illustrative.
    pub fn citation_prompt(&self, user_defined: Option<&str>) -> String {
        let tpl = user_defined.unwrap_or(&self.citation);
        render(tpl, minijinja::context! {})
            + "\n\nIMPORTANT: The example IDs above (45, 46, 78, etc.) are illustrative only. Use the actual chunk IDs from the provided knowledge blocks."
    }

    /// `citation_plus(sources)`.
    pub fn citation_plus(&self, sources: &str) -> String {
        render(
            &self.citation_plus,
            minijinja::context! { example => self.citation_prompt(None), sources => sources },
        )
    }

    /// `structured_output_prompt(schema)`.
    pub fn structured_output_prompt(&self, schema: &str) -> String {
        render(
            &self.structured_output,
            minijinja::context! { schema => schema },
        )
    }

    /// The system prompt of `full_question` for a conversation of `USER: …` / `ASSISTANT: …` lines.
    pub fn full_question_prompt(&self, conversation: &str) -> String {
        let today = chrono::Local::now().date_naive();
        let day = chrono::Days::new(1);
        render(
            &self.full_question,
            minijinja::context! {
                today => today.to_string(),
                yesterday => today.checked_sub_days(day).map(|d| d.to_string()),
                tomorrow => today.checked_add_days(day).map(|d| d.to_string()),
                conversation => conversation,
                language => minijinja::Value::from(()),
            },
        )
    }
}

/// Render as `PROMPT_JINJA_ENV.from_string(t).render(vars)`; a template that does not render
/// (a user's broken `<CITATION_GUIDELINES>`) is used as plain text.
fn render(template: &str, vars: minijinja::Value) -> String {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.render_str(template, vars)
        .unwrap_or_else(|_| template.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_render_with_their_variables() {
        let p = Prompts::default();
        let s = p.structured_output_prompt("{\"type\": \"object\"}");
        assert!(s.contains("{\"type\": \"object\"}"), "{s}");
        let c = p.citation_prompt(Some("Cite {{ 1 + 1 }} times."));
        assert!(
            c.starts_with("Cite 2 times.\n\nIMPORTANT: The example IDs"),
            "{c}"
        );
        let q = p.full_question_prompt("USER: hi");
        assert!(q.contains("USER: hi") && !q.contains("{{"), "{q}");
    }

    #[test]
    fn texts_handed_in_replace_canvasc_s_own_stripped() {
        let p = Prompts::with(|name| {
            (name == "structured_output_prompt").then(|| "\n  Schema: {{ schema }}\n".into())
        });
        assert_eq!(p.structured_output_prompt("{}"), "Schema: {}");
        assert_eq!(
            p.citation_prompt(None),
            Prompts::default().citation_prompt(None)
        );
    }
}
