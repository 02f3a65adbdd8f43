//! The integrity of turns (issue 39): a turn whose save fails answering as failed in every
//! framing, turns racing for one session each reading it only under its lease, and an answer
//! cut by a departing client saved as cancelled.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::Executor;

use crate::engine::{chat_dsl, SLOW_CHUNKS};
use crate::harness::{server, tenant, unique, Client};
use canvasc_server::coord::RunStatus;

const PATH: &str = "/agents/chat/completions";

/// Creates a draft agent on `dsl` (its turns run interpreted).
async fn agent_on(client: &Client, dsl: Value) -> String {
    let created = client
        .post("/agents", json!({"title": unique("integrity"), "dsl": dsl}))
        .await;
    created.expect(0)["id"]
        .as_str()
        .expect("an agent id")
        .to_string()
}

/// The JSON frames of an SSE body (`data:` with or without the space).
fn frames(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str(l.trim_start()).ok())
        .collect()
}

fn events<'a>(frames: &'a [Value], name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    frames.iter().filter(move |f| f["event"] == name)
}

/// A streaming turn being read.
struct Streaming {
    response: reqwest::Response,
    text: String,
}

impl Streaming {
    async fn start(client: &Client, body: Value) -> Streaming {
        let response = client
            .request(Method::POST, PATH)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("the server answers");
        Streaming {
            response,
            text: String::new(),
        }
    }

    /// Reads on until `seen` holds for the frames so far.
    async fn until(&mut self, seen: impl Fn(&[Value]) -> bool) {
        let waited = Instant::now();
        while !seen(&frames(&self.text)) {
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.response.chunk())
                .await
                .expect("a frame within 20 s")
                .expect("a chunk");
            let Some(chunk) = chunk else {
                panic!("the stream ended first: {}", self.text);
            };
            self.text.push_str(&String::from_utf8_lossy(&chunk));
            assert!(waited.elapsed() < Duration::from_secs(30), "{}", self.text);
        }
    }

    /// The session and run (`message_id`) of the stream's first frame.
    fn ids(&self) -> (String, String) {
        let frames = frames(&self.text);
        let first = frames.first().expect("a frame");
        let id = |k: &str| first[k].as_str().expect(k).to_string();
        (id("session_id"), id("message_id"))
    }

    async fn finish(self) -> String {
        let mut text = self.text;
        let mut rest = self.response.bytes_stream();
        while let Some(chunk) = rest.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
        }
        text
    }
}

async fn session_state(client: &Client, agent: &str, session: &str) -> Value {
    let answer = client
        .get(&format!("/agents/{agent}/sessions/{session}"))
        .await;
    answer.expect(0).clone()
}

async fn run_status(run_id: &str) -> (RunStatus, String) {
    let record = server()
        .coord
        .run(run_id)
        .await
        .expect("the coordinator answers")
        .expect("the run's record");
    (record.status, record.failure_reason)
}

/// A trigger that makes the database refuse the run logs of one agent: the turn's save fails
/// half-way (after the session's update, in the same transaction).
struct RefusedRunLogs {
    pool: sqlx::AnyPool,
    name: String,
    postgres: bool,
}

/// The text the refusing trigger raises.
const REFUSAL: &str = "the test refuses this run log";

impl RefusedRunLogs {
    async fn install(agent_id: &str) -> RefusedRunLogs {
        sqlx::any::install_default_drivers();
        let url = &server().database_url;
        let pool = sqlx::AnyPool::connect(url)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let name = format!("refuse_{agent_id}");
        let postgres = url.starts_with("postgres");
        let statements = if postgres {
            vec![
                format!(
                    "CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS \
                     $$ BEGIN RAISE EXCEPTION '{REFUSAL}'; END $$"
                ),
                format!(
                    "CREATE TRIGGER {name} BEFORE INSERT ON run_logs FOR EACH ROW \
                     WHEN (NEW.agent_id = '{agent_id}') EXECUTE FUNCTION {name}()"
                ),
            ]
        } else if url.starts_with("mysql") {
            vec![format!(
                "CREATE TRIGGER {name} BEFORE INSERT ON run_logs FOR EACH ROW BEGIN \
                 IF NEW.agent_id = '{agent_id}' THEN \
                 SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{REFUSAL}'; END IF; END"
            )]
        } else {
            vec![format!(
                "CREATE TRIGGER {name} BEFORE INSERT ON run_logs \
                 WHEN NEW.agent_id = '{agent_id}' BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END"
            )]
        };
        for statement in statements {
            pool.execute(statement.as_str())
                .await
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        RefusedRunLogs {
            pool,
            name,
            postgres,
        }
    }

    async fn remove(self) {
        let name = &self.name;
        let mut statements = vec![if self.postgres {
            format!("DROP TRIGGER {name} ON run_logs")
        } else {
            format!("DROP TRIGGER {name}")
        }];
        if self.postgres {
            statements.push(format!("DROP FUNCTION {name}()"));
        }
        for statement in statements {
            self.pool
                .execute(statement.as_str())
                .await
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        self.pool.close().await;
    }
}

#[tokio::test]
async fn a_turn_whose_save_fails_never_answers_as_a_success() {
    let t = tenant().await;
    let agent = agent_on(&t.api, chat_dsl()).await;
    let refusal = RefusedRunLogs::install(&agent).await;

    // Streamed: the run's events, then RAGFlow's error frame and the terminator.
    let body = Streaming::start(
        &t.api,
        json!({"agent_id": agent, "query": "Paris?", "stream": true}),
    )
    .await
    .finish()
    .await;
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    let streamed = frames(&body);
    let run_id = streamed[0]["message_id"].as_str().unwrap_or_default();
    let session = streamed[0]["session_id"].as_str().unwrap_or_default();
    assert_eq!(events(&streamed, "workflow_finished").count(), 1, "{body}");
    let last = streamed.last().expect("frames");
    assert_eq!(
        (&last["code"], &last["data"], &last["session_id"]),
        (&json!(500), &json!(false), &json!(session)),
        "{body}"
    );
    let message = last["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("could not be saved") && message.contains(REFUSAL),
        "{body}"
    );
    // The run's record says it failed, and why.
    let (status, reason) = run_status(run_id).await;
    assert_eq!(status, RunStatus::Failed, "{reason}");
    assert!(reason.contains(REFUSAL), "{reason}");
    // Nothing of the turn was written: the session is as it was created.
    let stored = session_state(&t.api, &agent, session).await;
    assert_eq!(stored["round"], 0, "{stored}");
    assert_eq!(stored["message"], json!([]), "{stored}");

    // Not streamed: RAGFlow's envelope for an exception, never the run's answer.
    let whole = t
        .api
        .post(PATH, json!({"agent_id": agent, "query": "Rome?"}))
        .await;
    assert_eq!((whole.status, whole.code()), (200, 100), "{}", whole.body);
    assert!(whole.message().contains(REFUSAL), "{}", whole.body);
    assert_eq!(whole.body["data"], Value::Null);

    // OpenAI-compatible, both ways: the `**ERROR**` answer RAGFlow gives for an exception.
    let oai = format!("/agents_openai/{agent}/chat/completions");
    let question = json!([{"role": "user", "content": "Oslo?"}]);
    let response = t
        .api
        .request(Method::POST, &oai)
        .header("Content-Type", "application/json")
        .body(json!({"messages": question, "stream": true}).to_string())
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("a body");
    let chunks = frames(&response);
    let closing = chunks
        .iter()
        .rev()
        .find(|c| c["choices"][0]["finish_reason"] == "stop")
        .unwrap_or_else(|| panic!("no closing chunk: {response}"));
    let text = closing["choices"][0]["delta"]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("**ERROR**: ") && text.contains(REFUSAL),
        "{response}"
    );
    let whole = t.api.post(&oai, json!({"messages": question})).await;
    let text = whole.body["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("**ERROR**: ") && text.contains(REFUSAL),
        "{}",
        whole.body
    );

    // With the database writing again, the agent's turns are saved and answer as before.
    refusal.remove().await;
    let saved = t
        .api
        .post(PATH, json!({"agent_id": agent, "query": "Bern?"}))
        .await;
    let data = saved.expect(0);
    assert!(
        data["data"]["content"]
            .as_str()
            .is_some_and(|c| c.contains("Bern?")),
        "{data}"
    );
}

/// Pads a session's stored transcript with `exchanges` old question-and-answer pairs: a long
/// session, whose state takes a while to read (the database's answer, then its JSON).
async fn pad_session(agent: &str, session: &str, exchanges: usize) {
    let store = &server().store;
    let record = store
        .session(agent, session)
        .await
        .expect("the store answers")
        .expect("the session");
    let mut state = record.state;
    let old = (0..exchanges).flat_map(|i| {
        let id = format!("old{i}");
        [
            json!({"role": "user", "content": format!("question {i}"), "id": id}),
            json!({"role": "assistant", "content": format!("answer {i}"), "id": id}),
        ]
    });
    if let Some(Value::Array(list)) = state.get_mut("message") {
        list.splice(0..0, old);
    }
    store
        .save_session_state(session, &state, 0)
        .await
        .expect("the padded state is stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_racing_for_a_session_each_read_it_under_their_lease() {
    let t = tenant().await;
    let agent = agent_on(&t.api, chat_dsl()).await;
    let first = t
        .api
        .post(PATH, json!({"agent_id": agent, "query": "first"}))
        .await;
    let session = first.expect(0)["session_id"]
        .as_str()
        .expect("a session")
        .to_string();
    pad_session(&agent, &session, 50_000).await;

    // Several turns on the session at once, each asking again while another holds it. A turn
    // that read the session before taking its lease would run (and save) from the state
    // before the turn that held it, and that turn would be lost.
    const TURNS: usize = 6;
    let racers = (0..TURNS).map(|i| {
        let (client, agent, session) = (t.api.clone(), agent.clone(), session.clone());
        tokio::spawn(async move {
            let query = format!("racer {i}");
            let started = Instant::now();
            loop {
                let body = json!({"agent_id": agent, "session_id": session, "query": query});
                let answer = client.post(PATH, body).await;
                match answer.code() {
                    0 => return query,
                    103 => {}
                    _ => panic!("{query}: {}", answer.body),
                }
                assert!(
                    started.elapsed() < Duration::from_secs(120),
                    "{query} never ran"
                );
            }
        })
    });
    let mut asked = Vec::new();
    for racer in futures::future::join_all(racers).await {
        asked.push(racer.expect("the racer ends"));
    }

    let stored = session_state(&t.api, &agent, &session).await;
    let said: Vec<&str> = stored["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .filter(|c| c.starts_with("racer "))
        .collect();
    let mut lost: Vec<&String> = asked
        .iter()
        .filter(|q| !said.contains(&q.as_str()))
        .collect();
    lost.sort();
    assert!(lost.is_empty(), "turns answered but lost: {lost:?}");
    assert_eq!(stored["round"], 1 + TURNS, "rounds");
}

#[tokio::test]
async fn an_answer_cut_by_a_departing_client_is_saved_as_cancelled() {
    let t = tenant().await;
    let agent = agent_on(&t.api, chat_dsl()).await;
    let mut run = Streaming::start(
        &t.api,
        json!({"agent_id": agent, "query": "slow please", "stream": true}),
    )
    .await;
    run.until(|f| events(f, "message").count() >= 3).await;
    let (session, run_id) = run.ids();
    drop(run);
    let waited = Instant::now();
    let stored = loop {
        let stored = session_state(&t.api, &agent, &session).await;
        if stored["round"] == 1 {
            break stored;
        }
        assert!(waited.elapsed() < Duration::from_secs(5), "never saved");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // The cut answer is kept as far as it got, and the turn says it was cancelled, as
    // RAGFlow's `canvas.error` says for a Message whose stream a cancel stopped.
    let cut = stored["message"][1]["content"].as_str().unwrap_or_default();
    assert!(cut.split_whitespace().count() < SLOW_CHUNKS, "{cut}");
    assert_eq!(stored["errors"], "Task has been canceled", "{stored}");
    assert_eq!(run_status(&run_id).await.0, RunStatus::Cancelled);
}
