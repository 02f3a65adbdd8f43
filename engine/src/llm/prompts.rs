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

const ANALYZE_TASK_SYSTEM: &str = r#"You analyse a task before an agent works on it.
Judge how complex it is (one step, several steps, several domains), what it depends on, and what could go wrong.
Then plan: the steps to take, in order, and what each step must produce.
Keep the analysis as short as the task allows; output only the analysis and the plan."#;

const ANALYZE_TASK_USER: &str = r#"**Task**: {{ task }}
**Context**: {{ context }}
**Agent instructions**: {{ agent_prompt }}
**Available tools and sub-agents**:
{{ tools_desc }}"#;

const NEXT_STEP: &str = r#"You plan the next step of a task with the tools below.
Choose the tools to call now; calls that do not depend on each other may go together.
Call `complete_task` when nothing more is needed or nothing more can be done.

# Task analysis
{{ task_analysis }}

# Tools (JSON Schema)
Answer with a JSON array of objects, each with exactly two keys: "name" (the tool) and "arguments" (an object that follows its schema).

{{ desc }}"#;

const REFLECT: &str = r#"**Context**:
 - The goal: {{ goal }}.
 - The tool calls so far:
{% for call in tool_calls %}
Tool call: `{{ call.name }}`
Results: {{ call.result }}
{% endfor %}

Reflect on the results: what has been achieved, what is missing or contradictory, and whether the goal is met.
Say what to do next, or that the task is complete."#;

/// The templates: canvasc's own, or RAGFlow's when the host hands them in.
#[derive(Clone, Debug, PartialEq)]
pub struct Prompts {
    citation: String,
    citation_plus: String,
    structured_output: String,
    full_question: String,
    analyze_task_system: String,
    analyze_task_user: String,
    next_step: String,
    reflect: String,
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
            analyze_task_system: read("analyze_task_system", ANALYZE_TASK_SYSTEM),
            analyze_task_user: read("analyze_task_user", ANALYZE_TASK_USER),
            next_step: read("next_step", NEXT_STEP),
            reflect: read("reflect", REFLECT),
        }
    }

    /// The agent editor's default prompts (`GET /agents/prompts`), unrendered, under RAGFlow's
    /// keys: the task analysis (system and user parts joined by a blank line), the plan step,
    /// the reflection and the citation guidelines.
    pub fn editor_defaults(&self) -> [(&'static str, String); 4] {
        [
            (
                "task_analysis",
                format!("{}\n\n{}", self.analyze_task_system, self.analyze_task_user),
            ),
            ("plan_generation", self.next_step.clone()),
            ("reflection", self.reflect.clone()),
            ("citation_guidelines", self.citation.clone()),
        ]
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

    #[test]
    fn editor_defaults_join_the_task_analysis_parts() {
        let p = Prompts::with(|name| match name {
            "analyze_task_system" => Some("System.\n".into()),
            "analyze_task_user" => Some("User {{ task }}".into()),
            _ => None,
        });
        let d = p.editor_defaults();
        assert_eq!(d[0], ("task_analysis", "System.\n\nUser {{ task }}".into()));
        assert_eq!(d[3].1, CITATION.trim());
        assert_eq!(
            d.map(|(k, _)| k),
            [
                "task_analysis",
                "plan_generation",
                "reflection",
                "citation_guidelines"
            ]
        );
    }
}
