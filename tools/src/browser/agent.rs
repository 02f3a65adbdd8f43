//! The browser agent's loop (browser-use's `Agent.run(max_steps)`): each step the model reads
//! the task, what it did so far and the page as it is now, and answers with actions in JSON
//! (schema in the prompt, no forced structured output or tool choice, as RAGFlow configures
//! browser-use for OpenAI-compatible models); the actions run, and the loop ends at `done`, at
//! `max_steps`, or after three answers in a row that cannot be read. The final result is
//! `done`'s text (`history.final_result()`), `None` when the agent never finished.

use super::actions::{self, Action, Env};
use super::chromium::{self, Running};
use super::dom::{self, Snapshot};
use super::guard_proxy::GuardProxy;
use canvasc_engine::llm::{ChatMessage, ChatProvider, ChatRequest};
use canvasc_engine::ssrf::Guard;
use canvasc_value::{Json, Map};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// browser-use's `max_failures`: unreadable answers in a row before the agent gives up.
const MAX_FAILURES: usize = 3;

/// How long a download may take to finish after the step that started it.
const DOWNLOAD_WAIT: Duration = Duration::from_secs(30);

/// The instructions the model gets (the action schema in the prompt).
pub const SYSTEM_PROMPT: &str = r#"You are a browser automation agent. You operate a web browser to accomplish the task in <user_request>.

Each step you receive:
- <agent_history>: the steps taken so far and their results;
- <browser_state>: the current URL, the page title, the interactive elements, each as [index]<tag attributes>text</tag>, and the page's visible text;
- <file_system>: the files you may upload and the files downloaded so far.

Answer with one JSON object and nothing else:
{"thinking": "your reasoning", "evaluation_previous_goal": "did the last step succeed", "memory": "what to remember", "next_goal": "what this step does", "action": [ ...one or more actions... ]}

Actions (each an object with one key):
- {"navigate": {"url": "https://…"}}: open a URL in the current tab
- {"click": {"index": 3}}: click element 3
- {"input": {"index": 2, "text": "…", "clear": true}}: type into element 2
- {"select_dropdown_option": {"index": 4, "text": "…"}}: choose an option of a <select>
- {"upload_file": {"index": 5, "path": "…"}}: put an available file into a file input
- {"scroll": {"down": true, "pages": 1}}: scroll the page
- {"go_back": {}}: go back in history
- {"send_keys": {"keys": "Enter"}}: press keys in the focused element
- {"wait": {"seconds": 3}}: wait
- {"done": {"text": "the final answer for the user", "success": true}}: finish the task

Actions run in order; after one that loads a new page the rest of the list is skipped, because element indices change. Use only indices shown in the current <browser_state>. Finish with done once the task is complete, or when it cannot be completed."#;

/// What one run of the agent needs.
pub struct Agent<'a> {
    pub component: &'a str,
    pub llm: &'a dyn ChatProvider,
    pub llm_id: &'a str,
    pub gen_conf: Map<String, Json>,
    pub max_retries: Option<u32>,
    pub task: &'a str,
    pub max_steps: usize,
    pub uploads: &'a [PathBuf],
    pub guard: &'a Guard,
    pub proxy: &'a GuardProxy,
    pub running: &'a Running,
    pub download_dir: &'a Path,
    pub is_canceled: &'a (dyn Fn() -> bool + Send + Sync),
}

impl Agent<'_> {
    /// Runs the loop; `Ok(final result)`, or the model's failure.
    pub async fn run(&self) -> Result<Option<String>, String> {
        let page = self
            .running
            .browser
            .new_page("about:blank")
            .await
            .map_err(|e| format!("Browser `{}`: Chromium opened no page: {e}", self.component))?;
        let mut history: Vec<String> = Vec::new();
        let mut failures = 0;
        for step in 1..=self.max_steps {
            if (self.is_canceled)() {
                return Err(canvasc_engine::CANCELED.to_string());
            }
            let mut snapshot = read_page(&page).await;
            // A page the guard proxy kept from loading shows Chromium's error page; the model
            // is told why.
            let target = current_entry_url(&page).await.unwrap_or_default();
            let blocked = [target.as_str(), snapshot.url.as_str()]
                .iter()
                .filter_map(|u| url::Url::parse(u).ok())
                .find_map(|u| {
                    let host = u.host_str()?.to_string();
                    self.proxy.refusal(&host).map(|r| format!("{host}: {r}"))
                });
            if let Some(why) = blocked {
                snapshot.text = format!(
                    "The page did not load: blocked by the SSRF guard: {why}\n{}",
                    snapshot.text
                );
            }
            let prompt = self.state_message(step, &history, &snapshot);
            let request = ChatRequest {
                llm_id: self.llm_id.to_string(),
                messages: vec![
                    ChatMessage::new("system", SYSTEM_PROMPT),
                    ChatMessage::new("user", prompt),
                ],
                gen_conf: self.gen_conf.clone(),
                max_retries: self.max_retries,
                ..ChatRequest::default()
            };
            let answer = self
                .llm
                .chat(request)
                .await
                .map_err(|e| format!("Browser `{}`: the model failed: {e}", self.component))?;
            let parsed = match actions::parse_step(&answer.content) {
                Ok(s) => s,
                Err(e) => {
                    failures += 1;
                    history.push(format!("Step {step}: your answer could not be read: {e}"));
                    if failures >= MAX_FAILURES {
                        return Ok(None);
                    }
                    continue;
                }
            };
            failures = 0;
            let mut lines = vec![format!("Step {step}: next goal: {}", parsed.next_goal)];
            if !parsed.memory.is_empty() {
                lines.push(format!("  memory: {}", parsed.memory));
            }
            let env = Env {
                page: &page,
                snapshot: &snapshot,
                guard: self.guard,
                uploads: self.uploads,
            };
            let total = parsed.actions.len();
            for (i, action) in parsed.actions.iter().enumerate() {
                let outcome = actions::run(&env, action).await;
                let label = action_label(action);
                match &outcome.error {
                    Some(e) => {
                        lines.push(format!("  action {}/{total} {label}: error: {e}", i + 1))
                    }
                    None => lines.push(format!(
                        "  action {}/{total} {label}: {}",
                        i + 1,
                        outcome.memory
                    )),
                }
                if let Some(text) = outcome.done {
                    self.running
                        .settle_downloads(self.download_dir, DOWNLOAD_WAIT)
                        .await;
                    return Ok(Some(text));
                }
                if outcome.error.is_some() {
                    break;
                }
                let now = page.url().await.ok().flatten().unwrap_or_default();
                if i + 1 < total && now != snapshot.url {
                    lines.push(format!(
                        "  the page changed to {now}: the remaining {} actions were skipped",
                        total - i - 1
                    ));
                    break;
                }
            }
            history.push(lines.join("\n"));
            self.running
                .settle_downloads(self.download_dir, DOWNLOAD_WAIT)
                .await;
        }
        Ok(None)
    }

    /// The step's user message.
    fn state_message(&self, step: usize, history: &[String], page: &Snapshot) -> String {
        let uploads = if self.uploads.is_empty() {
            "(none)".to_string()
        } else {
            self.uploads
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let downloads = chromium::downloaded_files(self.download_dir);
        let downloads = if downloads.is_empty() {
            "(none)".to_string()
        } else {
            downloads
                .iter()
                .map(|p| {
                    let size = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                    format!("{} ({size} bytes)", name.unwrap_or_default())
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let elements = page.element_lines();
        format!(
            "<agent_history>\n{}\n</agent_history>\n<user_request>\n{}\n</user_request>\n<browser_state>\nCurrent URL: {}\nPage title: {}\nInteractive elements:\n{}\nPage text:\n{}\n</browser_state>\n<file_system>\nAvailable file paths:\n{uploads}\nDownloaded files:\n{downloads}\n</file_system>\n<step_info>Step {step} of {}</step_info>",
            if history.is_empty() { "(no steps yet)".to_string() } else { history.join("\n") },
            self.task,
            page.url,
            page.title,
            if elements.is_empty() { "(none)".to_string() } else { elements },
            page.text,
            self.max_steps,
        )
    }
}

/// The URL of the current history entry: for Chromium's error page (`chrome-error://…`) it
/// is the URL that failed to load.
async fn current_entry_url(page: &chromiumoxide::Page) -> Option<String> {
    use chromiumoxide::cdp::browser_protocol::page::GetNavigationHistoryParams;
    let history = page
        .execute(GetNavigationHistoryParams::default())
        .await
        .ok()?;
    let index = usize::try_from(history.result.current_index).ok()?;
    history.result.entries.get(index).map(|e| e.url.clone())
}

/// The page as it is, retried while it is between documents (at most about 3 s).
async fn read_page(page: &chromiumoxide::Page) -> Snapshot {
    let mut last = String::new();
    for _ in 0..10 {
        match dom::snapshot(page).await {
            Ok(s) => return s,
            Err(e) => last = e,
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    Snapshot {
        text: format!("(the page could not be read: {last})"),
        ..Snapshot::default()
    }
}

fn action_label(a: &Action) -> String {
    match a {
        Action::Navigate { url } => format!("navigate {url}"),
        Action::Click { index } => format!("click [{index}]"),
        Action::Input { index, .. } => format!("input [{index}]"),
        Action::UploadFile { index, .. } => format!("upload_file [{index}]"),
        Action::SelectOption { index, .. } => format!("select_dropdown_option [{index}]"),
        Action::Scroll { .. } => "scroll".into(),
        Action::GoBack => "go_back".into(),
        Action::SendKeys { .. } => "send_keys".into(),
        Action::Wait { .. } => "wait".into(),
        Action::Done { .. } => "done".into(),
    }
}
