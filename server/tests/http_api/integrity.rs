//! The integrity of turns (issue 39): a cancelled run resumed with `resume_from` and saved
//! (cancelled mid-answer, and cancelled before its answer while an earlier component works),
//! a turn whose save fails answering as failed in every framing, turns racing for one session
//! each reading it only under its lease, and an answer cut by a departing client saved as
//! cancelled.

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

/// Begin → LLM:Outline → LLM:Ponder (seconds of thought, read by the next LLM, so not
/// streamed) → LLM:Answer → Message: a cancel while Ponder thinks lands before the answer.
fn pondering_dsl() -> Value {
    let llm = |sys: &str, user: &str, downstream: &str, upstream: &str| {
        json!({"obj": {"component_name": "LLM", "params": {
                   "llm_id": "scripted-chat@Scripted", "sys_prompt": sys,
                   "prompts": [{"role": "user", "content": user}], "max_retries": 0}},
               "downstream": [downstream], "upstream": [upstream]})
    };
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["LLM:Outline"], "upstream": []},
            "LLM:Outline": llm("Outline the question.", "Outline: {sys.query}", "LLM:Ponder", "begin"),
            "LLM:Ponder": llm("You ponder.", "{LLM:Outline@content}", "LLM:Answer", "LLM:Outline"),
            "LLM:Answer": llm("Answer briefly.", "Answer: {LLM:Ponder@content}", "Message:Reply", "LLM:Ponder"),
            "Message:Reply": {"obj": {"component_name": "Message",
                                      "params": {"content": ["{LLM:Answer@content}"]}},
                              "downstream": [], "upstream": ["LLM:Answer"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "variables": {},
    })
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

/// The answer a stream's `message` frames carry.
fn answer(frames: &[Value]) -> String {
    events(frames, "message")
        .filter_map(|f| f["data"]["content"].as_str())
        .collect()
}

fn started(frames: &[Value]) -> Vec<String> {
    events(frames, "node_started")
        .filter_map(|f| f["data"]["component_id"].as_str().map(String::from))
        .collect()
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

/// The record of run `run_id` in the test server's coordinator: its status and why it failed.
pub(crate) async fn run_status(run_id: &str) -> (RunStatus, String) {
    let record = server()
        .coord
        .run(run_id)
        .await
        .expect("the coordinator answers")
        .expect("the run's record");
    (record.status, record.failure_reason)
}

/// A new session's streamed turn whose slow answer has streamed three chunks: the stream,
/// its session and its run id.
async fn slow_answer_under_way(client: &Client, agent: &str) -> (Streaming, String, String) {
    // Its client's going away cancels it, as RAGFlow's does.
    let mut run = Streaming::start(
        client,
        json!({"agent_id": agent, "query": "slow please", "stream": true,
            "on_disconnect": "cancel"}),
    )
    .await;
    run.until(|f| events(f, "message").count() >= 3).await;
    let (session, run_id) = run.ids();
    (run, session, run_id)
}

/// A streamed `resume_from` of `run_id`, read to its end.
async fn resume(client: &Client, agent: &str, session: &str, run_id: &str) -> String {
    let body = json!({"agent_id": agent, "session_id": session, "query": "",
                      "resume_from": run_id, "stream": true});
    Streaming::start(client, body).await.finish().await
}

/// What a resumed run streamed: the run's own id on every frame, one `workflow_finished`, no
/// error frame, and the terminator.
fn assert_resumed_cleanly(body: &str, run_id: &str) -> Vec<Value> {
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    let frames = frames(body);
    assert!(
        frames.iter().all(|f| f["message_id"] == run_id),
        "every frame is the run's: {body}"
    );
    assert!(frames.iter().all(|f| f.get("code").is_none()), "{body}");
    let finished: Vec<&Value> = events(&frames, "workflow_finished").collect();
    assert_eq!(finished.len(), 1, "{body}");
    assert_ne!(
        finished[0]["data"]["outputs"], "Task has been canceled",
        "{body}"
    );
    frames
}

#[tokio::test]
async fn a_run_cancelled_mid_answer_resumes_from_its_checkpoint_and_is_saved() {
    let t = tenant().await;
    let agent = agent_on(&t.api, chat_dsl()).await;
    let (run, session, run_id) = slow_answer_under_way(&t.api, &agent).await;
    let cancelled = t
        .api
        .post(&format!("/tasks/{session}/cancel"), json!({}))
        .await;
    assert_eq!(cancelled.expect(0), &json!(true));
    let cut = frames(&run.finish().await);
    let cut_words = answer(&cut).split_whitespace().count();
    assert!((3..SLOW_CHUNKS).contains(&cut_words), "{cut_words}");
    assert_eq!(run_status(&run_id).await.0, RunStatus::Cancelled);

    // The run goes on from its checkpoint (before the answer streamed): the model streams the
    // whole answer again, under the run's own id.
    let body = resume(&t.api, &agent, &session, &run_id).await;
    let resumed = assert_resumed_cleanly(&body, &run_id);
    assert_eq!(
        started(&resumed),
        ["LLM:WriteReply", "Message:Reply"],
        "{body}"
    );
    let whole = answer(&resumed);
    assert_eq!(whole.split_whitespace().count(), SLOW_CHUNKS, "{whole}");

    // Saved: the turn once, its answer the whole one, not counted twice; the record succeeded.
    let stored = session_state(&t.api, &agent, &session).await;
    let messages = stored["message"].as_array().cloned().unwrap_or_default();
    let turn: Vec<(&str, &str)> = messages
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or(""),
                m["id"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        turn,
        [("user", run_id.as_str()), ("assistant", run_id.as_str())],
        "{stored}"
    );
    assert_eq!(messages[0]["content"], "slow please");
    assert_eq!(messages[1]["content"], whole.as_str());
    assert_eq!(stored["round"], 1, "{stored}");
    assert_eq!(stored["errors"], Value::Null, "{stored}");
    assert_eq!(run_status(&run_id).await.0, RunStatus::Succeeded);

    // The run's log holds both parts: the Message ran once cut, once whole.
    let log = t.api.get(&format!("/agents/{agent}/logs/{run_id}")).await;
    let trace = log.expect(0).clone();
    let message_runs = trace
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["component_id"] == "Message:Reply")
        .and_then(|e| e["trace"].as_array())
        .map_or(0, Vec::len);
    assert_eq!(message_runs, 2, "{trace}");

    // Nothing is left to resume.
    let again = t
        .api
        .post(
            PATH,
            json!({"agent_id": agent, "session_id": session, "resume_from": run_id}),
        )
        .await;
    assert_eq!(again.code(), 102, "{}", again.body);
    assert!(
        again.message().contains("nothing to resume"),
        "{}",
        again.body
    );
}

#[tokio::test]
async fn a_run_cancelled_between_components_resumes_without_calling_finished_ones_again() {
    let t = tenant().await;
    let agent = agent_on(&t.api, pondering_dsl()).await;
    let mut run = Streaming::start(
        &t.api,
        json!({"agent_id": agent, "query": "tea or coffee?", "stream": true}),
    )
    .await;
    run.until(|f| started(f).iter().any(|id| id == "LLM:Ponder"))
        .await;
    let (session, run_id) = run.ids();
    let cancelled = t
        .api
        .post(&format!("/tasks/{session}/cancel"), json!({}))
        .await;
    assert_eq!(cancelled.expect(0), &json!(true));
    let cut = run.finish().await;
    assert_eq!(answer(&frames(&cut)), "", "{cut}");
    assert_eq!(run_status(&run_id).await.0, RunStatus::Cancelled, "{cut}");

    // Outline finished before the cancel: the resumed run starts at Ponder.
    let body = resume(&t.api, &agent, &session, &run_id).await;
    let resumed = assert_resumed_cleanly(&body, &run_id);
    assert_eq!(
        started(&resumed),
        ["LLM:Ponder", "LLM:Answer", "Message:Reply"],
        "{body}"
    );
    let whole = answer(&resumed);
    assert_eq!(whole.trim(), "Answer: Pondered.", "{body}");

    let stored = session_state(&t.api, &agent, &session).await;
    let messages = stored["message"].as_array().cloned().unwrap_or_default();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, ["user", "assistant"], "{stored}");
    assert_eq!(messages[0]["content"], "tea or coffee?");
    assert_eq!(messages[1]["content"], whole.as_str());
    assert_eq!(messages[1]["id"], run_id.as_str());
    assert_eq!(stored["round"], 1, "{stored}");
    assert_eq!(stored["errors"], Value::Null, "{stored}");
    assert_eq!(run_status(&run_id).await.0, RunStatus::Succeeded);
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

/// A client is told that the database failed and under which error id the log has the detail,
/// never the database's own words.
fn hides_the_database(message: &str) -> bool {
    let id = regex::Regex::new(r"\(error [0-9a-f]{32}\)").expect("a regex");
    !message.contains(REFUSAL) && !message.contains("run_logs") && id.is_match(message)
}

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
        message.contains("could not be saved") && hides_the_database(message),
        "{body}"
    );
    // The run's record says it failed, and why (the operator's view: the database's words).
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
    assert!(hides_the_database(whole.message()), "{}", whole.body);
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
        text.starts_with("**ERROR**: ") && hides_the_database(text),
        "{response}"
    );
    let whole = t.api.post(&oai, json!({"messages": question})).await;
    let text = whole.body["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("**ERROR**: ") && hides_the_database(text),
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
    let (run, session, run_id) = slow_answer_under_way(&t.api, &agent).await;
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
    // The run's record ends after the turn is saved: wait for it to leave `Running`.
    let status = loop {
        let status = run_status(&run_id).await.0;
        if status != RunStatus::Running || waited.elapsed() >= Duration::from_secs(10) {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(status, RunStatus::Cancelled);
}
