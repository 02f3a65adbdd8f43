//! Publishing's build queue (issue 41) on this run's database: a release queues one build per
//! program (two agents releasing the same canvas share it), the builder loop claims it, the
//! version shows `queued`/`building`, then `compiled` with its log, or `failed` with its first
//! error line; a failed build is retried on request, a compiled one is not. The builder is a
//! test double that records its jobs and waits for the test to let each one finish; the
//! product's builder (cargo) is tested in `compiler/tests/serve_publish.rs`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canvasc_server::store::BuildJob;
use canvasc_server::{BuildConfig, BuildOutcome, ProgramBuilder};
use futures::future::BoxFuture;
use reqwest::Method;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use crate::harness::{api_key_at, call_at, extra_server_running, minimal_dsl, unique};

/// Builds nothing: records each job, waits for a permit, then succeeds, unless the canvas's
/// Message says `fail`.
#[derive(Clone)]
struct GatedBuilder {
    jobs: Arc<Mutex<Vec<String>>>,
    gate: Arc<Semaphore>,
}

impl ProgramBuilder for GatedBuilder {
    fn engine_version(&self) -> &str {
        "test"
    }

    fn unavailable(&self) -> Option<String> {
        None
    }

    fn build(&self, job: BuildJob) -> BoxFuture<'static, BuildOutcome> {
        let (jobs, gate) = (Arc::clone(&self.jobs), Arc::clone(&self.gate));
        Box::pin(async move {
            jobs.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(job.program_key.clone());
            if let Ok(permit) = gate.acquire().await {
                permit.forget();
            }
            let result = match job.dsl.contains("fail") {
                true => Err("error[E0001]: the canvas says fail".to_string()),
                false => Ok(()),
            };
            BuildOutcome {
                result,
                log: format!("built {}\nwarning: nothing\n", job.program_key),
            }
        })
    }
}

struct Publisher {
    base: String,
    auth: String,
    builder: GatedBuilder,
}

async fn publisher() -> Publisher {
    let builder = GatedBuilder {
        jobs: Arc::default(),
        gate: Arc::new(Semaphore::new(0)),
    };
    let shared: Arc<dyn ProgramBuilder> = Arc::new(builder.clone());
    let base = extra_server_running(crate::engine::engine(), |config| {
        config.builds = BuildConfig {
            builder: Some(shared),
            jobs: 1,
        };
    })
    .await;
    let auth = api_key_at(&base, &format!("{}@example.com", unique("pub"))).await;
    Publisher {
        base,
        auth,
        builder,
    }
}

impl Publisher {
    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> crate::harness::Answer {
        call_at(&self.base, method, path, Some(&self.auth), body, &[]).await
    }

    /// A new agent with `dsl`, released or a draft; its id.
    async fn agent(&self, dsl: Value, release: bool) -> String {
        let body = json!({"title": unique("pub"), "dsl": dsl, "release": release});
        let created = self.call(Method::POST, "/agents", Some(body)).await;
        created.expect(0)["id"]
            .as_str()
            .expect("an agent id")
            .to_string()
    }

    /// The agent's newest version.
    async fn version(&self, agent: &str) -> Value {
        let versions = self
            .call(Method::GET, &format!("/agents/{agent}/versions"), None)
            .await;
        versions.expect(0)[0].clone()
    }

    /// The version's build once its state is `state`.
    async fn build_in(&self, agent: &str, state: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let build = self.version(agent).await["build"].clone();
            if build["state"] == state {
                return build;
            }
            assert!(Instant::now() < deadline, "never {state}: {build}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn jobs(&self) -> Vec<String> {
        self.builder
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

fn failing_dsl() -> Value {
    let mut dsl = minimal_dsl();
    dsl["components"]["message"]["obj"]["params"]["content"] = json!(["fail"]);
    dsl
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_builds_its_program_once_and_the_version_shows_where_it_stands() {
    let publisher = publisher().await;
    let draft = publisher.agent(minimal_dsl(), false).await;
    assert!(
        publisher.version(&draft).await.get("build").is_none(),
        "a draft has no build"
    );

    let first = publisher.agent(minimal_dsl(), true).await;
    let building = publisher.build_in(&first, "building").await;
    let program = building["program"]
        .as_str()
        .expect("a program key")
        .to_string();
    assert!(
        program.starts_with("sha256:") && program.ends_with("@engine-test"),
        "{building}"
    );
    assert_eq!(building["attempts"], 1);
    // The same canvas released by another agent is the same program: no second build.
    let second = publisher.agent(minimal_dsl(), true).await;
    let shared = publisher.version(&second).await["build"].clone();
    assert_eq!(shared["program"], program.as_str());
    let version = publisher.version(&first).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let log_path = format!("/agents/{first}/versions/{version}/build_log");
    let unfinished = publisher.call(Method::GET, &log_path, None).await;
    assert_eq!(unfinished.code(), 102, "{:?}", unfinished.body);

    publisher.builder.gate.add_permits(1);
    let compiled = publisher.build_in(&first, "compiled").await;
    assert!(compiled["finished_at"].as_i64().is_some(), "{compiled}");
    assert_eq!(compiled["error"], Value::Null);
    assert_eq!(
        publisher.build_in(&second, "compiled").await["program"],
        program.as_str()
    );
    assert_eq!(publisher.jobs(), std::slice::from_ref(&program));

    let log = reqwest::Client::new()
        .get(format!("{}/api/v1{log_path}", publisher.base))
        .header("Authorization", &publisher.auth)
        .send()
        .await
        .expect("the log answers");
    assert!(log.headers()["content-type"]
        .to_str()
        .unwrap_or_default()
        .starts_with("text/plain"));
    assert_eq!(
        log.text().await.expect("a log"),
        format!("built {program}\nwarning: nothing\n")
    );
    let retry = format!("/agents/{first}/versions/{version}/build");
    let refused = publisher.call(Method::POST, &retry, Some(json!({}))).await;
    assert_eq!(refused.code(), 102);
    assert!(
        refused.message().contains("Only a failed build"),
        "{}",
        refused.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_build_says_why_and_is_built_again_when_retried() {
    let publisher = publisher().await;
    let agent = publisher.agent(failing_dsl(), true).await;
    publisher.build_in(&agent, "building").await;
    publisher.builder.gate.add_permits(1);
    let failed = publisher.build_in(&agent, "failed").await;
    assert_eq!(failed["error"], "error[E0001]: the canvas says fail");

    let version = publisher.version(&agent).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let retried = publisher
        .call(
            Method::POST,
            &format!("/agents/{agent}/versions/{version}/build"),
            Some(json!({})),
        )
        .await;
    let state = retried.expect(0)["state"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        state == "queued" || state == "building",
        "{:?}",
        retried.body
    );
    let again = publisher.build_in(&agent, "building").await;
    assert_eq!(again["attempts"], 2);
    publisher.builder.gate.add_permits(1);
    publisher.build_in(&agent, "failed").await;
    assert_eq!(publisher.jobs().len(), 2);
}
