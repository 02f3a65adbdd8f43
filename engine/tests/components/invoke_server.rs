//! The HTTP server Invoke's cases run against, moved unchanged from `invoke.rs`'s unit tests:
//! the oracle produced the expectations against this same server. Each case starts
//! one of its own, so `/flaky…` fails the first request of the case that asks for it.

use canvasc_value::Json;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

const HTML: &str = "<html><body><h1>Title</h1><p>Hello <b>world</b> &amp; more</p><script>x=1</script><div>a<br>b</div></body></html>";

/// The same server the expected values were produced against: `/echo…` describes the request
/// it got, `/fail500` answers 500, `/redirect` 302, `/latin` `text/plain` without charset,
/// `/html` an HTML page, `/drop` closes without answering, `/flaky…` does so once per path.
pub fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let counts = Arc::clone(&counts);
            std::thread::spawn(move || handle(stream, &counts));
        }
    });
    port
}

fn handle(mut s: TcpStream, counts: &Mutex<HashMap<String, usize>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_string();
    let path = first.next().unwrap_or("").to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body = String::from_utf8_lossy(&buf[head_end..(head_end + len).min(buf.len())]).to_string();
    let route = path.split('?').next().unwrap_or("").to_string();
    let seen = {
        let mut c = counts.lock().expect("lock");
        let n = c.entry(route.clone()).or_insert(0);
        *n += 1;
        *n
    };
    if route.starts_with("/drop") || (route.starts_with("/flaky") && seen == 1) {
        return;
    }
    let get = |k: &str| headers.get(k).cloned().unwrap_or_else(|| "None".into());
    let (status, ct, data, extra): (&str, Option<&str>, Vec<u8>, &str) =
        if route.starts_with("/fail500") {
            (
                "500 Internal Server Error",
                Some("text/plain; charset=utf-8"),
                format!("boom: {method}").into_bytes(),
                "",
            )
        } else if route.starts_with("/html") {
            (
                "200 OK",
                Some("text/html; charset=utf-8"),
                HTML.as_bytes().to_vec(),
                "",
            )
        } else if route.starts_with("/redirect") {
            (
                "302 Found",
                None,
                b"moved".to_vec(),
                "Location: /elsewhere\r\n",
            )
        } else if route.starts_with("/latin") {
            ("200 OK", Some("text/plain"), "café".as_bytes().to_vec(), "")
        } else {
            let text = format!(
                "{method} {path} ct={} token={} num={} body={body}",
                get("content-type"),
                get("x-token"),
                get("x-num")
            );
            (
                "200 OK",
                Some("text/plain; charset=utf-8"),
                text.into_bytes(),
                "",
            )
        };
    let ct = ct
        .map(|c| format!("Content-Type: {c}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {status}\r\n{ct}{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
        data.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(&data);
}

/// `{PORT}` in a case's parameters is the port [`serve`] listens on (each case starts its own).
pub fn with_port(v: &Json, port: u16) -> Json {
    match v {
        Json::String(s) => Json::String(s.replace("{PORT}", &port.to_string())),
        Json::Array(a) => Json::Array(a.iter().map(|x| with_port(x, port)).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), with_port(x, port)))
                .collect(),
        ),
        other => other.clone(),
    }
}
