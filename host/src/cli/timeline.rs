//! `--timeline FILE.svg`: a run drawn as a timeline. One lane per component, a bar from its
//! `node_started` to its `node_finished` (labelled with the duration RAGFlow reports), the
//! batches as shaded bands, the path as the bars' order numbers, failures in red and pauses
//! (`user_inputs`) as a marked line.
//!
//! The picture is a few dozen rectangles and labels placed on a time axis: no layout to
//! compute, so it is written directly (an SVG crate would add a dependency for `format!`);
//! every text goes through [`escape`].

use super::run_log::{component, RunLog};
use canvasc_value::Json;
use std::fmt::Write as _;

const LABEL_WIDTH: f64 = 300.0;
const PLOT_WIDTH: f64 = 800.0;
const LANE: f64 = 28.0;
const TOP: f64 = 68.0;
/// Room right of the plot for the labels of the bars that end there.
const RIGHT: f64 = 140.0;

/// One component invocation on the timeline.
struct Bar {
    lane: usize,
    start: f64,
    end: Option<f64>,
    /// RAGFlow's `elapsed_time` of the invocation, when it finished.
    elapsed: Option<f64>,
    error: Option<String>,
    order: usize,
}

/// The timeline of `log` as an SVG document; `title` names the canvas.
pub fn svg(log: &RunLog, title: &str) -> String {
    let mut lanes: Vec<(String, String)> = Vec::new();
    let mut bars: Vec<Bar> = Vec::new();
    let mut batches: Vec<(f64, f64)> = Vec::new();
    let mut pauses: Vec<(f64, String)> = Vec::new();
    let mut finished: Option<(f64, String)> = None;
    let mut in_batch = false;
    // The last event ends the picture (a run without events: the time it took).
    let end_of_run = log.events.last().map_or_else(|| log.now(), |l| l.at);
    for logged in &log.events {
        let data = &logged.event["data"];
        let at = logged.at;
        let name = logged.event["event"].as_str().unwrap_or("");
        if name != "node_started" {
            in_batch = false;
        }
        match name {
            "node_started" => {
                if !in_batch {
                    batches.push((at, at));
                    in_batch = true;
                }
                let id = data["component_id"].as_str().unwrap_or("?").to_string();
                let lane = match lanes.iter().position(|(l, _)| *l == id) {
                    Some(i) => i,
                    None => {
                        lanes.push((id, component(data)));
                        lanes.len() - 1
                    }
                };
                bars.push(Bar {
                    lane,
                    start: at,
                    end: None,
                    elapsed: None,
                    error: None,
                    order: bars.len() + 1,
                });
            }
            "node_finished" => {
                let id = data["component_id"].as_str().unwrap_or("?");
                let open = bars
                    .iter_mut()
                    .rev()
                    .find(|b| b.end.is_none() && lanes[b.lane].0 == id);
                if let Some(bar) = open {
                    bar.end = Some(at);
                    bar.elapsed = data["elapsed_time"].as_f64();
                    bar.error = match &data["error"] {
                        Json::Null => None,
                        Json::String(e) => Some(e.clone()),
                        other => Some(other.to_string()),
                    };
                }
            }
            "user_inputs" => {
                let tips = data["tips"].as_str().unwrap_or("").to_string();
                pauses.push((at, tips));
            }
            "workflow_finished" => {
                let outputs = match &data["outputs"] {
                    Json::String(s) => s.clone(),
                    _ => "finished".to_string(),
                };
                finished = Some((at, outputs));
            }
            _ => {}
        }
    }
    // A batch lasts until the next one starts (its post-processing included).
    for i in 0..batches.len() {
        batches[i].1 = batches.get(i + 1).map_or(end_of_run, |next| next.0);
    }
    let span = end_of_run.max(1e-3);
    let x = |t: f64| LABEL_WIDTH + t / span * PLOT_WIDTH;
    let height = TOP + LANE * lanes.len().max(1) as f64 + 40.0;
    let width = LABEL_WIDTH + PLOT_WIDTH + RIGHT;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">{} — {:.1} ms</text>"#,
        escape(title),
        span * 1000.0
    );
    for (i, (from, to)) in batches.iter().enumerate() {
        let fill = if i % 2 == 0 { "#f0f4fa" } else { "#fafafa" };
        let _ = writeln!(
            out,
            r#"<rect x="{:.1}" y="{TOP}" width="{:.1}" height="{:.1}" fill="{fill}"><title>batch {}</title></rect>"#,
            x(*from),
            (x(*to) - x(*from)).max(1.0),
            LANE * lanes.len() as f64,
            i + 1
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" fill="#667">batch {}</text>"##,
            x(*from) + 2.0,
            // Short batches sit side by side: alternate rows keep their labels apart.
            TOP - 6.0 - 14.0 * (i % 2) as f64,
            i + 1
        );
    }
    for (i, (_, label)) in lanes.iter().enumerate() {
        let y = TOP + LANE * i as f64;
        let _ = writeln!(
            out,
            r##"<line x1="0" y1="{y:.1}" x2="{width}" y2="{y:.1}" stroke="#dde"/>"##
        );
        let _ = writeln!(
            out,
            r#"<text x="10" y="{:.1}">{}</text>"#,
            y + LANE * 0.65,
            escape(&shorten(label, 44))
        );
    }
    for bar in &bars {
        let y = TOP + LANE * bar.lane as f64 + 5.0;
        let end = bar.end.unwrap_or(end_of_run);
        let (fill, note) = match (&bar.error, bar.end) {
            (Some(e), _) => ("#d9534f", format!("error: {e}")),
            (None, None) => ("#aaaaaa", "did not finish".to_string()),
            (None, Some(_)) => ("#4a90d9", String::new()),
        };
        let duration = bar.elapsed.unwrap_or(end - bar.start) * 1000.0;
        let _ = writeln!(
            out,
            r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" rx="3" fill="{fill}"><title>#{} {} — {duration:.1} ms {}</title></rect>"#,
            x(bar.start),
            (x(end) - x(bar.start)).max(2.0),
            LANE - 10.0,
            bar.order,
            escape(&lanes[bar.lane].1),
            escape(&note)
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" font-size="10">#{} {duration:.1} ms{}</text>"#,
            x(end) + 3.0,
            y + LANE * 0.45,
            bar.order,
            if bar.error.is_some() { " ✗" } else { "" }
        );
    }
    let bottom = TOP + LANE * lanes.len() as f64;
    for (at, tips) in &pauses {
        let _ = writeln!(
            out,
            r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{bottom:.1}" stroke="#f0ad4e" stroke-width="2" stroke-dasharray="4 3"><title>paused for input: {1}</title></line>"##,
            x(*at),
            escape(tips)
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" fill="#c77c00">paused: waiting for input</text>"##,
            x(*at) - 60.0,
            bottom + 16.0
        );
    }
    if let Some((at, outputs)) = &finished {
        let _ = writeln!(
            out,
            r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{bottom:.1}" stroke="#333" stroke-width="1"><title>workflow_finished: {1}</title></line>"##,
            x(*at),
            escape(&shorten(outputs, 200))
        );
    }
    let _ = writeln!(
        out,
        r##"<text x="10" y="{:.1}" fill="#667">0 ms</text><text x="{:.1}" y="{:.1}" fill="#667" text-anchor="end">{:.1} ms</text>"##,
        bottom + 32.0,
        LABEL_WIDTH + PLOT_WIDTH,
        bottom + 32.0,
        span * 1000.0
    );
    out.push_str("</svg>\n");
    out
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

/// Text and attribute values in XML: the five special characters, and control characters
/// (not allowed in XML 1.0) dropped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
