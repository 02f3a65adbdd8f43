//! Checkpoints and resume (issue 28): a run stopped mid-way — its task dropped as a killed
//! process would leave it, or failed — goes on from its last checkpoint, and no component that
//! finished is called again. The scripted LLM server counts the calls each prompt got, across
//! the stop and the resume. Every case runs compiled (`canvas!`) and interpreted.

use canvasc_engine::checkpoint::{Checkpoint, CheckpointSink, PendingCheckpoint};
use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{Program, RunInput, RunOutcome, Services, Session};
use canvasc_tests::scripted_server::ScriptedServer;
use canvasc_tests::workspace_root;
use canvasc_value::{Json, Map};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn dsl_of(name: &str) -> Map<String, Json> {
    let path = workspace_root().join("tests/checkpoint").join(name);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    match serde_json::from_str(&text).expect("fixture is JSON") {
        Json::Object(m) => m,
        _ => panic!("{name} is not an object"),
    }
}

fn interpreted(name: &str) -> Arc<Interpreter> {
    let text = Json::Object(dsl_of(name)).to_string();
    let analysis = canvasc_frontend::analyze(&text).expect("fixture loads");
    Arc::new(Interpreter::from_analysis(&analysis))
}

fn services(server: &ScriptedServer) -> Services {
    let mut config = LlmConfig::single(&server.base_url(), Some("sk-test"));
    config.client.timeout = Duration::from_secs(20);
    Services {
        llm: Some(Arc::new(OpenAiProvider::new(
            Services::default().http,
            config,
        ))),
        ..Services::default()
    }
}

fn input(query: &str, inputs: Json) -> RunInput {
    RunInput {
        query: Some(json!(query)),
        user_id: Some(json!("user-1")),
        inputs: Some(inputs),
        ..RunInput::default()
    }
}

/// What one turn did.
struct Turn {
    /// `None`: the run was stopped (dropped) after the checkpoint it was told to stop at.
    outcome: Option<RunOutcome>,
    checkpoints: Vec<Checkpoint>,
    events: Vec<Json>,
    saved: Json,
}

impl Turn {
    fn last_checkpoint(&self) -> Checkpoint {
        self.checkpoints.last().cloned().expect("a checkpoint")
    }

    /// The answer's text, without spaces (a Message's text may lose some around separators).
    fn answer(&self) -> String {
        self.events
            .iter()
            .filter(|e| e["event"] == "message")
            .filter_map(|e| e["data"]["content"].as_str())
            .collect::<String>()
            .replace(' ', "")
    }
}

/// Runs a turn of `program` from `dsl` (or from `resume`, whose DSL then is the state),
/// dropping the run when the checkpoint of batch `stop_after` arrives.
async fn turn<P: Program>(
    program: Arc<P>,
    server: &ScriptedServer,
    dsl: Map<String, Json>,
    fresh: bool,
    run_input: RunInput,
    resume: Option<Checkpoint>,
    stop_after: Option<u64>,
) -> Turn {
    let (dsl, fresh, resume) = match resume {
        Some(Checkpoint { dsl, point, batch }) => match dsl {
            Json::Object(m) => (m, false, Some((point, batch))),
            _ => panic!("a checkpoint's DSL is an object"),
        },
        None => (dsl, fresh, None),
    };
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    let session = Session::new(program, dsl, services(server), rng, fresh);
    let taken = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(tokio::sync::Notify::new());
    let sink = {
        let (taken, stop) = (Arc::clone(&taken), Arc::clone(&stop));
        move |checkpoint: PendingCheckpoint| {
            let batch = checkpoint.batch;
            taken.lock().unwrap().push(checkpoint.build());
            if Some(batch) == stop_after {
                stop.notify_one();
            }
        }
    };
    let mut events: Vec<Json> = Vec::new();
    let outcome = {
        let sink: &dyn CheckpointSink = &sink;
        let run = session.run_checkpointed(run_input, &mut events, Some(sink), resume);
        tokio::select! {
            outcome = run => Some(outcome),
            () = stop.notified() => None,
        }
    };
    let checkpoints = taken.lock().unwrap().clone();
    Turn {
        outcome,
        checkpoints,
        events,
        saved: session.save(),
    }
}

/// Calls whose prompt contains `text`.
fn calls(server: &ScriptedServer, text: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.body["messages"].to_string().contains(text))
        .count()
}

fn object(v: Json) -> Map<String, Json> {
    match v {
        Json::Object(m) => m,
        _ => panic!("an object"),
    }
}

/// begin → A → B → C → Message: stopped while C runs, resumed: A and B once in all.
async fn sequential<P: Program>(program: Arc<P>) {
    let server = ScriptedServer::from_json(&json!({"responses": [
        {"match": "step A", "content": "alpha", "times": -1},
        {"match": "step B", "content": "beta", "times": -1},
        {"match": "step C", "content": "gamma", "delay_ms": 300, "times": -1},
    ]}))
    .expect("script");
    let dsl = dsl_of("sequential.json");
    // Batches: begin (1), A (2), B (3); stopped while C waits for its answer.
    let first = turn(
        Arc::clone(&program),
        &server,
        dsl.clone(),
        true,
        input("go", json!({})),
        None,
        Some(3),
    )
    .await;
    assert!(first.outcome.is_none(), "the run was stopped");
    assert_eq!(first.last_checkpoint().batch, 3);
    let second = turn(
        program,
        &server,
        dsl,
        false,
        input("ignored", json!({})),
        Some(first.last_checkpoint()),
        None,
    )
    .await;
    assert_eq!(second.outcome, Some(RunOutcome::Finished));
    assert_eq!(second.answer(), "alpha|beta|gamma");
    assert_eq!(calls(&server, "step A"), 1);
    assert_eq!(calls(&server, "step B"), 1);
    // C had not finished when the run stopped: it is called again.
    assert!(calls(&server, "step C") <= 2);
    let started: Vec<&Json> = second
        .events
        .iter()
        .filter(|e| e["event"] == "node_started")
        .map(|e| &e["data"]["component_id"])
        .collect();
    assert_eq!(started, [&json!("LLM:C"), &json!("Message:Out")]);
    assert_eq!(second.saved["path"].as_array().map(Vec::len), Some(5));
}

/// begin → {Ok, Flaky} → Message: Flaky fails once; the resume calls Flaky again, not Ok.
async fn parallel_sibling_fails<P: Program>(program: Arc<P>) {
    let server = ScriptedServer::from_json(&json!({"responses": [
        {"match": "sibling ok", "content": "fine", "times": -1},
        {"match": "sibling flaky", "status": 400, "content": "bad request", "times": 1},
        {"match": "sibling flaky", "content": "recovered", "times": -1},
    ]}))
    .expect("script");
    let dsl = dsl_of("parallel_fail.json");
    let first = turn(
        Arc::clone(&program),
        &server,
        dsl.clone(),
        true,
        input("go", json!({})),
        None,
        None,
    )
    .await;
    assert!(
        matches!(first.outcome, Some(RunOutcome::Failed(_))),
        "{:?} {:?}",
        first.outcome,
        first.events
    );
    let checkpoint = first.last_checkpoint();
    assert_eq!(checkpoint.point.retry, ["LLM:Flaky"]);
    let second = turn(
        program,
        &server,
        dsl,
        false,
        input("ignored", json!({})),
        Some(checkpoint),
        None,
    )
    .await;
    assert_eq!(
        second.outcome,
        Some(RunOutcome::Finished),
        "{:?}",
        second.events
    );
    assert_eq!(second.answer(), "fine+recovered");
    assert_eq!(calls(&server, "sibling ok"), 1);
    assert_eq!(calls(&server, "sibling flaky"), 2);
}

/// An Iteration over four items, stopped after two: the resume calls the other two only.
async fn iteration_half_done<P: Program>(program: Arc<P>) {
    let server = ScriptedServer::from_json(&json!({"responses": [
        {"match": "item: a", "content": "A", "times": -1},
        {"match": "item: b", "content": "B", "times": -1},
        {"match": "item: c", "content": "C", "delay_ms": 300, "times": -1},
        {"match": "item: d", "content": "D", "times": -1},
    ]}))
    .expect("script");
    let dsl = dsl_of("iteration.json");
    let whole = turn(
        Arc::clone(&program),
        &server,
        dsl.clone(),
        true,
        input("a,b,c,d", json!({})),
        None,
        None,
    )
    .await;
    assert_eq!(whole.outcome, Some(RunOutcome::Finished));
    // The batch after which item b's LLM has finished.
    let after_b = whole
        .checkpoints
        .iter()
        .find(|c| {
            c.dsl["components"]["LLM:PerItem"]["obj"]["params"]["outputs"]["content"]["value"]
                == "B"
        })
        .map(|c| c.batch)
        .expect("a checkpoint after item b");
    server.clear_requests();
    let first = turn(
        Arc::clone(&program),
        &server,
        dsl.clone(),
        true,
        input("a,b,c,d", json!({})),
        None,
        Some(after_b),
    )
    .await;
    assert!(first.outcome.is_none(), "the run was stopped");
    let second = turn(
        program,
        &server,
        dsl,
        false,
        input("ignored", json!({})),
        Some(first.last_checkpoint()),
        None,
    )
    .await;
    assert_eq!(second.outcome, Some(RunOutcome::Finished));
    assert_eq!(second.answer(), whole.answer());
    assert_eq!(calls(&server, "item: a"), 1);
    assert_eq!(calls(&server, "item: b"), 1);
    assert!(calls(&server, "item: c") <= 2);
    assert_eq!(calls(&server, "item: d"), 1);
}

/// begin → Before → UserFillUp (pause) | After → Final → Message: the turn that answers the
/// form is stopped after After; the resume calls Final only.
async fn userfillup_pause<P: Program>(program: Arc<P>) {
    let server = ScriptedServer::from_json(&json!({"responses": [
        {"match": "before form", "content": "one", "times": -1},
        {"match": "after form: Bo", "content": "two", "times": -1},
        {"match": "final: two", "content": "three", "delay_ms": 300, "times": -1},
    ]}))
    .expect("script");
    let dsl = dsl_of("userfillup.json");
    let paused = turn(
        Arc::clone(&program),
        &server,
        dsl,
        true,
        input("hello", json!({})),
        None,
        None,
    )
    .await;
    assert_eq!(paused.outcome, Some(RunOutcome::Paused));
    let saved = object(paused.saved.clone());
    let answered = json!({"name": {"value": "Bo"}});
    let first = turn(
        Arc::clone(&program),
        &server,
        saved.clone(),
        false,
        input("", answered.clone()),
        None,
        // The form (1), After (2); stopped while Final waits.
        Some(2),
    )
    .await;
    assert!(first.outcome.is_none(), "the run was stopped");
    let checkpoint = first.last_checkpoint();
    assert!(checkpoint.point.resumed, "the turn continued a pause");
    let second = turn(
        program,
        &server,
        saved,
        false,
        input("", json!({})),
        Some(checkpoint),
        None,
    )
    .await;
    assert_eq!(
        second.outcome,
        Some(RunOutcome::Finished),
        "{:?}",
        second.events
    );
    assert_eq!(second.answer(), "one/two/three");
    assert_eq!(calls(&server, "before form"), 1);
    assert_eq!(calls(&server, "after form"), 1);
    assert!(calls(&server, "final: two") <= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_nodes_resume_without_calling_finished_ones() {
    sequential(interpreted("sequential.json")).await;
    sequential(Arc::new(canvasc_macros::canvas!(
        "checkpoint/sequential.json"
    )))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_sibling_is_called_again_and_the_finished_one_is_not() {
    parallel_sibling_fails(interpreted("parallel_fail.json")).await;
    parallel_sibling_fails(Arc::new(canvasc_macros::canvas!(
        "checkpoint/parallel_fail.json"
    )))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_iteration_half_done_goes_on_with_the_items_left() {
    iteration_half_done(interpreted("iteration.json")).await;
    iteration_half_done(Arc::new(canvasc_macros::canvas!(
        "checkpoint/iteration.json"
    )))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_answering_a_userfillup_resumes_after_the_form() {
    userfillup_pause(interpreted("userfillup.json")).await;
    userfillup_pause(Arc::new(canvasc_macros::canvas!(
        "checkpoint/userfillup.json"
    )))
    .await;
}
