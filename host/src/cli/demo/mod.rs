//! `canvasc serve --demo`: the server on the embedded defaults with a scripted model, and what
//! a newcomer needs to try it at once: a demo account and API key, two demo agents (one
//! released), and the lines to call them with. The demo data is made through the server's own
//! HTTP API, as a user would make it, only with the flag, and under names that say it is the
//! demo's; a second start on the same data dir finds it instead of making it again.

use std::net::SocketAddr;

use serde_json::{json, Value};

/// The scripted model every demo run asks (a file in the data dir, so the workers that run
/// compiled versions read the same script).
pub const SCRIPT: &str = include_str!("script.json");
/// The file the script is written to in the data dir.
pub const SCRIPT_FILE: &str = "demo-llm-script.json";
/// The data dir the demo uses unless one is given: demo data never lands in a real one.
pub const DATA_DIR: &str = "canvasc-demo-data";

const EMAIL: &str = "demo@canvasc.demo";
const PASSWORD: &str = "canvasc-demo";
/// Every demo agent's description says what made it.
const MARK: &str = "Demo data, made by `canvasc serve --demo`.";

struct DemoAgent {
    title: &'static str,
    dsl: &'static str,
    release: bool,
}

const AGENTS: [DemoAgent; 2] = [
    DemoAgent {
        title: "Demo: geography tutor (released)",
        dsl: include_str!("../../../../fixtures/valid/llm-think-stream.json"),
        release: true,
    },
    DemoAgent {
        title: "Demo: FAQ bot (draft)",
        dsl: include_str!("../../../../fixtures/valid/template-faq-bot.json"),
        release: false,
    },
];

/// What `--demo` made or found.
pub struct Demo {
    pub base: String,
    pub api_key: String,
    /// (id, title) of each demo agent.
    pub agents: Vec<(String, &'static str)>,
}

/// Makes (or finds) the demo account, a new API key and the demo agents on the server
/// listening on `addr`.
pub async fn seed(addr: SocketAddr) -> Result<Demo, String> {
    let host = match addr.ip() {
        ip if ip.is_unspecified() => "127.0.0.1".to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        ip => ip.to_string(),
    };
    let base = format!("http://{host}:{}", addr.port());
    let client = canvasc_engine::http::shared_client();
    let api = |path: &str| format!("{base}/api/v1{path}");
    let registered = answer(
        client
            .post(api("/users"))
            .json(&json!({"email": EMAIL, "nickname": "demo", "password": PASSWORD})),
    )
    .await?;
    let login = client
        .post(api("/auth/login"))
        .json(&json!({"email": EMAIL, "password": PASSWORD}))
        .send()
        .await
        .map_err(|e| format!("logging the demo account in: {e}"))?;
    let token = login
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "the demo account could not log in (registering it answered {registered}); this data dir holds another first account: start --demo on its own --data-dir"
            )
        })?;
    let key = answer(
        client
            .post(api("/system/tokens"))
            .header("Authorization", &token)
            .json(&json!({})),
    )
    .await?;
    let api_key = key["data"]["token"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("no API key for the demo account: {key}"))?;
    let auth = format!("Bearer {api_key}");
    let mut agents = Vec::new();
    for agent in &AGENTS {
        let url = reqwest::Url::parse_with_params(&api("/agents"), &[("title", agent.title)])
            .map_err(|e| e.to_string())?;
        let listed = answer(client.get(url).header("Authorization", &auth)).await?;
        let found = listed["data"]["canvas"]
            .as_array()
            .and_then(|list| list.first())
            .and_then(|a| a["id"].as_str())
            .map(str::to_string);
        let id = match found {
            Some(id) => id,
            None => {
                let dsl: Value = serde_json::from_str(agent.dsl).map_err(|e| e.to_string())?;
                let dsl = dsl.get("dsl").cloned().unwrap_or(dsl);
                let body = json!({"title": agent.title, "description": MARK, "dsl": dsl,
                    "release": agent.release});
                let created = answer(
                    client
                        .post(api("/agents"))
                        .header("Authorization", &auth)
                        .json(&body),
                )
                .await?;
                created["data"]["id"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| {
                        format!("the demo agent {} was refused: {created}", agent.title)
                    })?
            }
        };
        agents.push((id, agent.title));
    }
    Ok(Demo {
        base,
        api_key,
        agents,
    })
}

/// A request to the server, its JSON answer.
async fn answer(request: reqwest::RequestBuilder) -> Result<Value, String> {
    let response = request.send().await.map_err(|e| e.to_string())?;
    response.json().await.map_err(|e| e.to_string())
}

impl Demo {
    /// What the server prints once the demo is ready: the account, the key, the agents, and
    /// lines to paste.
    pub fn instructions(&self) -> String {
        let mut out = String::new();
        out.push_str("canvasc serve --demo: ready. Demo data (the account and the agents titled \"Demo: …\"), made only with --demo:\n");
        out.push_str(&format!("  account   {EMAIL}   password {PASSWORD}\n"));
        out.push_str(&format!("  API key   {}\n", self.api_key));
        for (id, title) in &self.agents {
            out.push_str(&format!("  agent     {id}   {title}\n"));
        }
        let Some((agent, _)) = self.agents.first() else {
            return out;
        };
        out.push_str(
            "Try it (the model is a script: `hello` gets its greeting, anything else is echoed):\n",
        );
        out.push_str(&format!(
            "  curl -sN {}/api/v1/agents/chat/completions -H 'Authorization: Bearer {}' -H 'Content-Type: application/json' -d '{{\"agent_id\": \"{agent}\", \"query\": \"hello\", \"stream\": true}}'\n",
            self.base, self.api_key
        ));
        out.push_str(&format!(
            "  python3 -c 'from openai import OpenAI; c = OpenAI(base_url=\"{}/api/v1/agents_openai/{agent}\", api_key=\"{}\"); print(c.chat.completions.create(model=\"demo\", messages=[{{\"role\": \"user\", \"content\": \"hello\"}}]).choices[0].message.content)'\n",
            self.base, self.api_key
        ));
        out.push_str("  (pip install openai for the second line; there is no web console yet.)\n");
        out
    }
}
