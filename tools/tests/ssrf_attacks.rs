//! The SSRF attack suite: every canvas-controlled URL goes through `exec::outbound` and its
//! guard. A listener on 127.0.0.1 stands for an internal service; every attack aims at it (or
//! at another non-public address) and must be refused with a clear error while the listener
//! sees no connection. Host names are answered by a test resolver (the guard's `Resolver`,
//! which a deployment may replace too); the only non-public address tests may reach is
//! 127.0.0.2, through the configured allow-list, as a trusted internal host would be.

mod support;

use canvasc_engine::outbound::{fetch, Error, Request};
use canvasc_engine::ssrf::{AllowList, Guard, Resolver};
use futures::future::BoxFuture;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Counts the connections a listener accepts (each is answered with a 200 and closed).
struct Listener {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Listener {
    /// Bind `ip` on `port` (0: any), answering every connection with `response`.
    fn start(ip: &str, port: u16, response: String) -> Listener {
        let listener = TcpListener::bind((ip, port)).expect("bind a loopback address");
        let port = listener.local_addr().expect("address").port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&accepted);
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                seen.fetch_add(1, Ordering::SeqCst);
                let mut conn = conn;
                let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf);
                let _ = conn.write_all(response.as_bytes());
            }
        });
        Listener { port, accepted }
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

fn ok_response() -> String {
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".to_string()
}

fn redirect_response(location: &str) -> String {
    format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}

/// Names the tests resolve, and how often each was looked up.
#[derive(Debug, Default)]
struct TestResolver {
    answers: BTreeMap<String, Vec<Vec<IpAddr>>>,
    lookups: Mutex<BTreeMap<String, usize>>,
}

impl TestResolver {
    fn with(mut self, name: &str, answers: &[&[&str]]) -> Self {
        let parsed = answers
            .iter()
            .map(|a| a.iter().map(|ip| ip.parse().expect("ip")).collect())
            .collect();
        self.answers.insert(name.to_string(), parsed);
        self
    }

    fn lookups(&self, name: &str) -> usize {
        self.lookups
            .lock()
            .expect("lock")
            .get(name)
            .copied()
            .unwrap_or(0)
    }
}

impl Resolver for TestResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, String>> {
        Box::pin(async move {
            let mut lookups = self.lookups.lock().expect("lock");
            let n = lookups.entry(host.to_string()).or_insert(0);
            *n += 1;
            let answers = self
                .answers
                .get(host)
                .ok_or("[Errno -2] Name or service not known")?;
            Ok(answers[(*n - 1).min(answers.len() - 1)].clone())
        })
    }
}

fn resolver() -> TestResolver {
    TestResolver::default()
        .with("localhost", &[&["127.0.0.1"]])
        .with("evil.test", &[&["127.0.0.1"]])
        .with("private.test", &[&["10.0.0.7"]])
        .with("mixed.test", &[&["127.0.0.2", "127.0.0.1"]])
        .with("v6.test", &[&["::1"]])
        .with("mapped.test", &[&["::ffff:127.0.0.1"]])
        .with("cgnat.test", &[&["100.64.0.9"]])
        .with("linklocal.test", &[&["169.254.169.254"]])
        .with("trusted.test", &[&["127.0.0.2"]])
        // Rebinding: the first answer is the trusted address, every later one the target.
        .with("rebind.test", &[&["127.0.0.2"], &["127.0.0.1"]])
}

fn guard(resolver: Arc<TestResolver>) -> Guard {
    Guard {
        allow_any_host: false,
        allow: AllowList::parse(&["127.0.0.2/32"]).expect("allow-list"),
        resolver,
    }
}

async fn attempt(g: &Guard, url: &str) -> Result<u16, Error> {
    fetch(g, Request::get(url, Duration::from_secs(3)))
        .await
        .map(|r| r.status)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attack_is_refused_and_never_connects() {
    let target = Listener::start("127.0.0.1", 0, ok_response());
    let p = target.port;
    let res = Arc::new(resolver());
    let g = guard(Arc::clone(&res));
    let attacks: Vec<String> = vec![
        // Loopback in every spelling the HTTP client accepts.
        format!("http://127.0.0.1:{p}/"),
        format!("http://localhost:{p}/"),
        format!("http://LOCALHOST:{p}/"),
        format!("http://localhost.:{p}/"),
        format!("http://2130706433:{p}/"),
        format!("http://0x7f000001:{p}/"),
        format!("http://0177.0.0.1:{p}/"),
        format!("http://0x7f.0.0.1:{p}/"),
        format!("http://127.1:{p}/"),
        format!("http://127.0.1:{p}/"),
        format!("http://0:{p}/"),
        format!("http://0.0.0.0:{p}/"),
        format!("HTTP://127.0.0.1:{p}/"),
        // IPv6, IPv4 inside IPv6, zone ids.
        format!("http://[::1]:{p}/"),
        format!("http://[::ffff:127.0.0.1]:{p}/"),
        format!("http://[::ffff:7f00:1]:{p}/"),
        format!("http://[0:0:0:0:0:ffff:127.0.0.1]:{p}/"),
        format!("http://[::127.0.0.1]:{p}/"),
        format!("http://[64:ff9b::7f00:1]:{p}/"),
        format!("http://[2002:7f00:1::]:{p}/"),
        format!("http://[fe80::1%25lo]:{p}/"),
        format!("http://[::1%25lo]:{p}/"),
        // Other non-public ranges and metadata services.
        "http://10.0.0.1/".into(),
        "http://172.16.0.1/".into(),
        "http://192.168.1.1/".into(),
        "http://169.254.169.254/latest/meta-data/".into(),
        "http://100.64.0.1/".into(),
        "http://224.0.0.1/".into(),
        "http://[ff02::1]/".into(),
        "http://[fd00::1]/".into(),
        "http://metadata.google.internal/computeMetadata/v1/".into(),
        "http://metadata/".into(),
        // Names that resolve to non-public addresses.
        format!("http://evil.test:{p}/"),
        format!("http://private.test:{p}/"),
        format!("http://mixed.test:{p}/"),
        format!("http://v6.test:{p}/"),
        format!("http://mapped.test:{p}/"),
        format!("http://cgnat.test:{p}/"),
        format!("http://linklocal.test:{p}/"),
        // Userinfo and parser confusions.
        format!("http://trusted.test@127.0.0.1:{p}/"),
        format!("http://user:pass@127.0.0.1:{p}/"),
        format!("http://127.0.0.1:{p}#@trusted.test/"),
        format!("http://127.0.0.1:{p}\\@trusted.test/"),
        format!("http://trusted.test\\@127.0.0.1:{p}/"),
        format!("http://127.0.0.1:{p}?@trusted.test/"),
        // Schemes other than http(s).
        "file:///etc/passwd".into(),
        format!("gopher://127.0.0.1:{p}/_GET"),
        format!("ftp://127.0.0.1:{p}/"),
        format!("dict://127.0.0.1:{p}/info"),
        format!("ws://127.0.0.1:{p}/"),
        "javascript:alert(1)".into(),
        format!("//127.0.0.1:{p}/"),
    ];
    assert!(attacks.len() >= 40);
    for url in &attacks {
        match attempt(&g, url).await {
            Err(Error::Refused(msg)) => {
                assert!(!msg.is_empty(), "{url}: an empty refusal");
            }
            other => panic!("{url}: not refused: {other:?}"),
        }
    }
    assert_eq!(target.accepted(), 0, "no attack reached the listener");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_to_private_hosts_are_refused_at_the_hop() {
    let target = Listener::start("127.0.0.1", 0, ok_response());
    let p = target.port;
    let g = guard(Arc::new(resolver()));
    for location in [
        format!("http://127.0.0.1:{p}/"),
        format!("http://localhost:{p}/"),
        format!("http://[::1]:{p}/"),
        format!("http://2130706433:{p}/"),
        format!("http://evil.test:{p}/"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "file:///etc/passwd".to_string(),
    ] {
        // A trusted internal host (allow-listed) that redirects into the network.
        let hop = Listener::start("127.0.0.2", 0, redirect_response(&location));
        let url = format!("http://trusted.test:{}/start", hop.port);
        match attempt(&g, &url).await {
            Err(Error::Refused(msg)) => assert!(!msg.is_empty()),
            other => panic!("redirect to {location}: not refused: {other:?}"),
        }
        assert_eq!(hop.accepted(), 1, "the allowed first hop was reached");
    }
    assert_eq!(target.accepted(), 0, "no redirect reached the listener");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebinding_name_is_looked_up_once_and_pinned() {
    let target = Listener::start("127.0.0.1", 0, ok_response());
    let p = target.port;
    // The vetted (allow-listed) address serves on the same port as the target.
    let vetted = Listener::start("127.0.0.2", p, ok_response());
    let res = Arc::new(resolver());
    let g = guard(Arc::clone(&res));
    // The check's one lookup answers the trusted address; the connection goes there, and no
    // second lookup (which would answer 127.0.0.1) happens.
    assert_eq!(
        attempt(&g, &format!("http://rebind.test:{p}/")).await,
        Ok(200)
    );
    assert_eq!(res.lookups("rebind.test"), 1, "one lookup per request");
    assert_eq!(
        vetted.accepted(),
        1,
        "the request connected to the vetted address"
    );
    assert_eq!(
        target.accepted(),
        0,
        "the rebound address was never connected to"
    );
    // The next request's lookup sees the rebound answer, and the guard refuses it.
    assert!(matches!(
        attempt(&g, &format!("http://rebind.test:{p}/")).await,
        Err(Error::Refused(_))
    ));
    assert_eq!(target.accepted(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_any_host_and_the_allow_list_admit_local_services() {
    let target = Listener::start("127.0.0.1", 0, ok_response());
    let p = target.port;
    let open = Guard {
        allow_any_host: true,
        ..guard(Arc::new(resolver()))
    };
    assert_eq!(
        attempt(&open, &format!("http://127.0.0.1:{p}/")).await,
        Ok(200)
    );
    let listed = Guard {
        allow: AllowList::parse(&["127.0.0.1"]).expect("list"),
        ..guard(Arc::new(resolver()))
    };
    assert_eq!(
        attempt(&listed, &format!("http://localhost:{p}/")).await,
        Ok(200)
    );
    assert_eq!(target.accepted(), 2);
    // Metadata names stay refused even with ALLOW_ANY_HOST.
    assert!(matches!(
        attempt(&open, "http://metadata.google.internal/").await,
        Err(Error::Refused(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn canvas_tools_use_the_guard() {
    let target = Listener::start("127.0.0.1", 0, ok_response());
    let p = target.port;
    // Crawler: RAGFlow's answer to a refused URL.
    let dsl = support::node_canvas("Crawler", json!({}), "formalized_content");
    let ran = support::run(
        &dsl,
        &json!({"default": "x"}),
        support::registry(""),
        &format!("http://127.0.0.1:{p}/"),
    )
    .await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!("URL not valid"));
    // SearXNG: the guard's own words.
    let dsl = support::node_canvas(
        "SearXNG",
        json!({"searxng_url": format!("http://[::1]:{p}")}),
        "formalized_content",
    );
    let ran = support::run(&dsl, &json!({"default": "x"}), support::registry(""), "q").await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("URL resolves to a non-public address (::1), which is not allowed.")
    );
    assert_eq!(target.accepted(), 0);
}
