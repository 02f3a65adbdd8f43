//! The actions the model may ask for, named as browser-use names them (`navigate`, `click`,
//! `input`, `upload_file`, `select_dropdown_option`, `scroll`, `go_back`, `send_keys`, `wait`,
//! `done`, and the older `go_to_url`/`click_element_by_index`/`input_text`), and how each is
//! carried out on the page. Every URL the model names passes the SSRF guard before Chromium is
//! asked to load it; whatever the page itself loads passes the guard proxy.

use super::dom::{self, Snapshot};
use canvasc_engine::ssrf::{self, Guard};
use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::Page;
use serde_json::{Map, Value as Json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One action of a model's step.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Navigate {
        url: String,
    },
    Click {
        index: u64,
    },
    Input {
        index: u64,
        text: String,
        clear: bool,
    },
    UploadFile {
        index: u64,
        path: String,
    },
    SelectOption {
        index: u64,
        text: String,
    },
    Scroll {
        down: bool,
        pages: f64,
    },
    GoBack,
    SendKeys {
        keys: String,
    },
    Wait {
        seconds: f64,
    },
    Done {
        text: String,
        success: bool,
    },
}

/// The model's answer for one step: what it is after, and the actions in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    pub next_goal: String,
    pub memory: String,
    pub actions: Vec<Action>,
}

/// Reads a step from the model's text: a JSON object (repaired as RAGFlow repairs model JSON,
/// fences and all) with an `action` list of one-key objects.
pub fn parse_step(text: &str) -> Result<Step, String> {
    let v = canvasc_engine::llm::json_repair::loads(text);
    let Some(obj) = v.as_object() else {
        return Err("the answer is not a JSON object with an `action` list".into());
    };
    let s = |k: &str| obj.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    let list = match obj.get("action").or_else(|| obj.get("actions")) {
        Some(Json::Array(a)) => a.clone(),
        Some(one @ Json::Object(_)) => vec![one.clone()],
        _ => return Err("the answer has no `action` list".into()),
    };
    let actions = list
        .iter()
        .map(parse_action)
        .collect::<Result<Vec<_>, _>>()?;
    if actions.is_empty() {
        return Err("the `action` list is empty".into());
    }
    Ok(Step {
        next_goal: s("next_goal"),
        memory: s("memory"),
        actions,
    })
}

fn parse_action(v: &Json) -> Result<Action, String> {
    let Some((name, args)) = v.as_object().and_then(|o| o.iter().next()) else {
        return Err(format!(
            "an action must be an object like {{\"click\": {{\"index\": 1}}}}, not {v}"
        ));
    };
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    let text = |k: &str| match args.get(k) {
        Some(Json::String(s)) => Some(s.clone()),
        Some(Json::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let index = || {
        args.get("index")
            .and_then(|i| {
                i.as_u64()
                    .or_else(|| i.as_str().and_then(|s| s.trim().parse().ok()))
            })
            .ok_or_else(|| format!("`{name}` needs an element `index`"))
    };
    let needs = |k: &str| text(k).ok_or_else(|| format!("`{name}` needs `{k}`"));
    Ok(match name.as_str() {
        "navigate" | "go_to_url" | "open_url" => Action::Navigate { url: needs("url")? },
        "click" | "click_element" | "click_element_by_index" => Action::Click { index: index()? },
        "input" | "input_text" | "type" => Action::Input {
            index: index()?,
            text: needs("text")?,
            clear: args.get("clear").is_none_or(|c| c.as_bool() != Some(false)),
        },
        "upload_file" | "upload_file_to_element" => Action::UploadFile {
            index: index()?,
            path: needs("path")?,
        },
        "select_dropdown_option" | "select_option" => Action::SelectOption {
            index: index()?,
            text: needs("text")?,
        },
        "scroll" => Action::Scroll {
            down: args.get("down").is_none_or(|d| d.as_bool() != Some(false)),
            pages: args.get("pages").and_then(Json::as_f64).unwrap_or(1.0),
        },
        "go_back" => Action::GoBack,
        "send_keys" => Action::SendKeys {
            keys: needs("keys")?,
        },
        "wait" => Action::Wait {
            seconds: args.get("seconds").and_then(Json::as_f64).unwrap_or(3.0),
        },
        "done" => Action::Done {
            text: text("text").unwrap_or_default(),
            success: args
                .get("success")
                .is_none_or(|d| d.as_bool() != Some(false)),
        },
        other => return Err(format!("unknown action `{other}`")),
    })
}

/// What an action did, for the agent's history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub memory: String,
    pub error: Option<String>,
    /// `done`'s text (the run's final result).
    pub done: Option<String>,
}

impl Outcome {
    fn ok(memory: impl Into<String>) -> Outcome {
        Outcome {
            memory: memory.into(),
            ..Outcome::default()
        }
    }
    fn failed(error: impl Into<String>) -> Outcome {
        Outcome {
            error: Some(error.into()),
            ..Outcome::default()
        }
    }
}

/// What actions run against.
pub struct Env<'a> {
    pub page: &'a Page,
    pub snapshot: &'a Snapshot,
    pub guard: &'a Guard,
    /// Files the model may upload (`available_file_paths`).
    pub uploads: &'a [PathBuf],
}

/// A URL as the model wrote it, with `https://` added when it has no scheme (browser-use does).
fn with_scheme(url: &str) -> String {
    let u = url.trim();
    if u.contains("://") || u.starts_with("about:") || u.starts_with("data:") {
        u.to_string()
    } else {
        format!("https://{u}")
    }
}

/// Carries out `action`.
pub async fn run(env: &Env<'_>, action: &Action) -> Outcome {
    match action {
        Action::Navigate { url } => navigate(env, url).await,
        Action::Click { index } => match element(env, *index).await {
            Ok(el) => match el.click().await {
                Ok(_) => {
                    settle(env.page).await;
                    Outcome::ok(format!("Clicked element {index}"))
                }
                Err(e) => Outcome::failed(format!("Element {index} could not be clicked: {e}")),
            },
            Err(o) => o,
        },
        Action::Input { index, text, clear } => match element(env, *index).await {
            Ok(el) => {
                let typed = async {
                    el.click().await?;
                    if *clear {
                        el.call_js_fn(
                            "function() { if ('value' in this) { this.value = ''; } else { this.textContent = ''; } this.dispatchEvent(new Event('input', {bubbles: true})); }",
                            false,
                        )
                        .await?;
                    }
                    el.type_str(text).await?;
                    Ok::<_, chromiumoxide::error::CdpError>(())
                };
                match typed.await {
                    Ok(()) => Outcome::ok(format!("Typed {text:?} into element {index}")),
                    Err(e) => Outcome::failed(format!("Could not type into element {index}: {e}")),
                }
            }
            Err(o) => o,
        },
        Action::UploadFile { index, path } => upload(env, *index, path).await,
        Action::SelectOption { index, text } => match element(env, *index).await {
            Ok(el) => {
                let js = format!(
                    "function() {{ const want = {}; for (const o of this.options || []) {{ if (o.text.trim() === want || o.value === want) {{ this.value = o.value; this.dispatchEvent(new Event('input', {{bubbles: true}})); this.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }} }} return false; }}",
                    Json::String(text.clone())
                );
                match el.call_js_fn(js, false).await {
                    Ok(r) if r.result.value == Some(Json::Bool(true)) => {
                        Outcome::ok(format!("Selected {text:?} in element {index}"))
                    }
                    Ok(_) => Outcome::failed(format!("Element {index} has no option {text:?}")),
                    Err(e) => Outcome::failed(format!("Could not select in element {index}: {e}")),
                }
            }
            Err(o) => o,
        },
        Action::Scroll { down, pages } => {
            let amount = if *down { *pages } else { -*pages };
            let js = format!("window.scrollBy(0, {} * window.innerHeight)", amount);
            match env.page.evaluate(js).await {
                Ok(_) => Outcome::ok(format!(
                    "Scrolled {} {} pages",
                    if *down { "down" } else { "up" },
                    pages
                )),
                Err(e) => Outcome::failed(format!("Could not scroll: {e}")),
            }
        }
        Action::GoBack => match env.page.evaluate("history.back()").await {
            Ok(_) => {
                settle(env.page).await;
                Outcome::ok("Went back")
            }
            Err(e) => Outcome::failed(format!("Could not go back: {e}")),
        },
        Action::SendKeys { keys } => {
            let focused = match env.page.find_element(":focus").await {
                Ok(el) => Ok(el),
                Err(_) => env.page.find_element("body").await,
            };
            match focused {
                Ok(el) => match el.press_key(keys).await {
                    Ok(_) => {
                        settle(env.page).await;
                        Outcome::ok(format!("Sent keys {keys}"))
                    }
                    Err(e) => Outcome::failed(format!("Could not send keys {keys}: {e}")),
                },
                Err(e) => Outcome::failed(format!("Could not send keys {keys}: {e}")),
            }
        }
        Action::Wait { seconds } => {
            let s = seconds.clamp(0.0, 10.0);
            tokio::time::sleep(Duration::from_secs_f64(s)).await;
            Outcome::ok(format!("Waited {s} seconds"))
        }
        Action::Done { text, .. } => Outcome {
            memory: "Task completed".into(),
            error: None,
            done: Some(text.clone()),
        },
    }
}

/// `navigate`: the guard first, then Chromium.
async fn navigate(env: &Env<'_>, url: &str) -> Outcome {
    let url = with_scheme(url);
    if url != "about:blank" {
        if let Err(e) = ssrf::assert_url_is_safe(&url, env.guard).await {
            return Outcome::failed(format!(
                "Navigation to {url} was blocked by the SSRF guard: {e}"
            ));
        }
    }
    match env.page.goto(url.as_str()).await {
        Ok(_) => {
            settle(env.page).await;
            Outcome::ok(format!("Navigated to {url}"))
        }
        Err(e) => Outcome::failed(format!("Navigation to {url} failed: {e}")),
    }
}

/// Element `index` of the current snapshot.
async fn element(env: &Env<'_>, index: u64) -> Result<chromiumoxide::Element, Outcome> {
    if env.snapshot.element(index).is_none() {
        return Err(Outcome::failed(format!(
            "Element with index {index} does not exist on the page"
        )));
    }
    env.page
        .find_element(dom::selector(index))
        .await
        .map_err(|e| Outcome::failed(format!("Element {index} is gone from the page: {e}")))
}

/// `upload_file`: only a path the run made available (an upload source), by path or by name.
async fn upload(env: &Env<'_>, index: u64, path: &str) -> Outcome {
    let wanted = path.trim();
    let Some(file) = env.uploads.iter().find(|p| {
        p.to_string_lossy() == wanted
            || p.file_name().is_some_and(|n| n.to_string_lossy() == wanted)
    }) else {
        return Outcome::failed(format!(
            "File {wanted:?} is not one of the available file paths"
        ));
    };
    let el = match element(env, index).await {
        Ok(el) => el,
        Err(o) => return o,
    };
    let params = SetFileInputFilesParams::builder()
        .file(file.to_string_lossy().into_owned())
        .backend_node_id(el.backend_node_id)
        .build();
    let params = match params {
        Ok(p) => p,
        Err(e) => return Outcome::failed(format!("Could not upload to element {index}: {e}")),
    };
    match env.page.execute(params).await {
        Ok(_) => Outcome::ok(format!("Uploaded {} to element {index}", file.display())),
        Err(e) => Outcome::failed(format!("Could not upload to element {index}: {e}")),
    }
}

/// After an action that may load a page: a moment for it to start, then until the document is
/// complete (at most 10 s).
pub async fn settle(page: &Page) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let state = page
            .evaluate("document.readyState")
            .await
            .ok()
            .and_then(|r| r.into_value::<String>().ok());
        if state.as_deref() == Some("complete") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_as_models_write_them() {
        let step = parse_step(
            "```json\n{\"next_goal\": \"fill\", \"action\": [{\"input\": {\"index\": 2, \"text\": \"Ada\"}}, {\"click\": {\"index\": \"3\"}}, {\"go_to_url\": {\"url\": \"x.org\"}}, {\"done\": {\"text\": \"ok\"}}]}\n```",
        )
        .expect("step");
        assert_eq!(step.next_goal, "fill");
        assert_eq!(
            step.actions,
            vec![
                Action::Input {
                    index: 2,
                    text: "Ada".into(),
                    clear: true
                },
                Action::Click { index: 3 },
                Action::Navigate {
                    url: "x.org".into()
                },
                Action::Done {
                    text: "ok".into(),
                    success: true
                },
            ]
        );
        assert!(parse_step("no json here").is_err());
        assert!(parse_step("{\"action\": [{\"fly\": {}}]}").is_err());
        assert_eq!(with_scheme("x.org/a"), "https://x.org/a");
    }
}
