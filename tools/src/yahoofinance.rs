//! YahooFinance (tools.md §26, `agent/tools/yahoofinance.py`). RAGFlow calls the `yfinance`
//! library (`Ticker(code)`, upper-cased) and prints the sections it asked for with pandas'
//! `to_markdown()`. canvasc speaks Yahoo's HTTP API as the library does: a session cookie from
//! `https://fc.yahoo.com` and a crumb (`/v1/test/getcrumb`), then
//!
//! * `info`: `/v10/finance/quoteSummary/<symbol>` with the modules `financialData`,
//!   `quoteType`, `defaultKeyStatistics`, `assetProfile` and `summaryDetail` (`formatted=false`),
//!   flattened as `Ticker.info` flattens them (falsy values dropped, `{raw, fmt}` pairs read as
//!   `raw`, `maxAge: 1` as 86400); an HTTP error gives an empty `info`, as in the library;
//! * `history`: `/v8/finance/chart/<symbol>` for one month of daily bars, auto-adjusted by the
//!   adjusted close, with the dividends and splits of the period, indexed by the exchange's
//!   local dates;
//! * `news`: `/v1/finance/search?q=<symbol>`, its `news` list.
//!
//! * `financials`: the calendar, quoteSummary's `calendarEvents` module; an HTTP error gives
//!   an empty calendar, as in the library;
//! * `balance_sheet` and `cash_flow_statement`: the annual, then the quarterly statement from
//!   `/ws/fundamentals-timeseries/v1/finance/timeseries/<symbol>` with every key the library
//!   asks for (`type=annualTotalAssets,…`, `period1` 2016-12-31, `period2` the next UTC
//!   midnight); any failure gives the empty statement, as the library swallows it
//!   (`yahoo_fundamentals.rs` builds the tables).
//!
//! Differences from the library: the crumb is fetched from the same host as the data; `info`
//! lacks the fields newer `yfinance` versions merge in from `/v7/finance/quote` and the
//! fundamentals time series (`trailingPegRatio`); `history` dates carry the exchange's current
//! UTC offset (`meta.gmtoffset`) rather than the offset in force on each date (they differ
//! only across a daylight-saving change within the month); newer `yfinance` versions read news
//! from Yahoo's page feed rather than the search API. Where the library reads the server's
//! local clock (the calendar's dates, `period1`), canvasc reads UTC. After an HTTP error the
//! library fetches a new crumb by its other cookie strategy and retries once; canvasc does not.

use crate::common::{finish, send_raw, text, with_query, with_retries, DEFAULT_TIMEOUT};
use crate::config::ToolsConfig;
use crate::yahoo_fundamentals::{
    calendar_frame, civil_from_days, period2, statement_frame, type_query, BALANCE_SHEET_KEYS,
    CASH_FLOW_KEYS, PERIOD1,
};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::py::pandas::{Cell, DataFrame as Frame};
use canvasc_value::py::FloatFormat;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

const SERVICE: &str = "yahoo";
const DEFAULT_BASE: &str = "https://query2.finance.yahoo.com";
const COOKIE_URL: &str = "https://fc.yahoo.com";
const INFO_MODULES: &str =
    "financialData,quoteType,defaultKeyStatistics,assetProfile,summaryDetail";

pub struct YahooFinance {
    config: Arc<ToolsConfig>,
}

impl YahooFinance {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        YahooFinance { config }
    }
}

/// A path segment with everything but unreserved characters percent-encoded.
fn segment(s: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~')
        .remove(b'^')
        .remove(b'=');
    percent_encoding::utf8_percent_encode(s, SET).to_string()
}

/// One Yahoo session: the cookie and crumb every data request carries.
struct Session<'a, 'c> {
    cx: &'a ToolCx<'c>,
    base: String,
    cookie: String,
    crumb: String,
}

impl<'a, 'c> Session<'a, 'c> {
    async fn open(cx: &'a ToolCx<'c>, config: &ToolsConfig) -> Result<Session<'a, 'c>, String> {
        let base = config.base_url(SERVICE, DEFAULT_BASE);
        let cookie_url = config.geo_url(SERVICE, COOKIE_URL);
        let resp = cx
            .http()
            .get(&cookie_url)
            .timeout(DEFAULT_TIMEOUT)
            .send()
            .await
            .map_err(|e| crate::common::request_error(&e))?;
        let cookie = resp
            .headers()
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.split(';').next())
            .map(|v| py::strip(v).to_string())
            .filter(|v| v.contains('='))
            .collect::<Vec<_>>()
            .join("; ");
        let url = format!("{base}/v1/test/getcrumb");
        let mut req = cx.http().get(&url);
        if !cookie.is_empty() {
            req = req.header("Cookie", &cookie);
        }
        let (status, crumb) = send_raw(req, DEFAULT_TIMEOUT, &url).await?;
        let crumb = py::strip(&crumb).to_string();
        if status.as_u16() != 200 || crumb.is_empty() || crumb.contains("<html>") {
            return Err("Failed to obtain a Yahoo Finance crumb.".into());
        }
        Ok(Session {
            cx,
            base,
            cookie,
            crumb,
        })
    }

    /// `GET <base><path>?<query>&crumb=…`: the status and the body.
    async fn get_text(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(u16, String), String> {
        let shown = format!("{}{path}", self.base);
        let mut pairs = query.to_vec();
        pairs.push(("crumb", self.crumb.clone()));
        let mut req = self.cx.http().get(with_query(&shown, &pairs)?);
        if !self.cookie.is_empty() {
            req = req.header("Cookie", &self.cookie);
        }
        let (status, body) = send_raw(req, DEFAULT_TIMEOUT, &shown).await?;
        Ok((status.as_u16(), body))
    }

    /// `GET <base><path>?<query>&crumb=…`: the status and the body parsed as JSON (`null`
    /// for an HTTP error).
    async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<(u16, Json), String> {
        let (status, body) = self.get_text(path, query).await?;
        if status >= 400 {
            return Ok((status, Json::Null));
        }
        let json = serde_json::from_str(&body).map_err(|e| format!("Expecting value: {e}"))?;
        Ok((status, json))
    }

    /// quoteSummary with the given modules, as the library's `Quote._fetch` asks for them.
    async fn quote_summary(&self, symbol: &str, modules: &str) -> Result<(u16, Json), String> {
        let path = format!("/v10/finance/quoteSummary/{}", segment(symbol));
        let query = [
            ("modules", modules.to_string()),
            ("corsDomain", "finance.yahoo.com".to_string()),
            ("formatted", "false".to_string()),
            ("symbol", symbol.to_string()),
        ];
        self.get(&path, &query).await
    }

    /// One statement (`timescale` `annual` or `quarterly`) from the fundamentals time series;
    /// the library turns every failure into the empty frame.
    async fn statement(&self, symbol: &str, timescale: &str, keys: &[&str]) -> Frame {
        let path = format!(
            "/ws/fundamentals-timeseries/v1/finance/timeseries/{}",
            segment(symbol)
        );
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        let query = [
            ("symbol", symbol.to_string()),
            ("type", type_query(timescale, keys)),
            ("period1", PERIOD1.to_string()),
            ("period2", period2(now).to_string()),
        ];
        let answer = match self.get_text(&path, &query).await {
            Ok((_, body)) => serde_json::from_str(&body).unwrap_or(Json::Null),
            Err(_) => Json::Null,
        };
        statement_frame(&answer, timescale, keys)
    }
}

/// `Ticker.info`'s `_format`: `{raw, fmt}` → `raw` (`fmt` for the two market times), lists and
/// dicts recursively, non-breaking spaces in text replaced.
fn format_info(key: Option<&str>, v: &Json) -> Json {
    match v {
        Json::Object(m) if m.contains_key("raw") && m.contains_key("fmt") => {
            let pick = if matches!(key, Some("regularMarketTime" | "postMarketTime")) {
                "fmt"
            } else {
                "raw"
            };
            m.get(pick).cloned().unwrap_or(Json::Null)
        }
        Json::Array(items) => Json::Array(items.iter().map(|x| format_info(None, x)).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), format_info(Some(k), x)))
                .collect(),
        ),
        Json::String(s) => Json::String(s.replace('\u{a0}', " ")),
        other => other.clone(),
    }
}

/// The flattened `info` of a quoteSummary answer.
pub fn flatten_info(summary: &Json) -> Vec<(String, Json)> {
    let Some(result) = summary
        .pointer("/quoteSummary/result/0")
        .and_then(Json::as_object)
    else {
        return Vec::new();
    };
    let mut info: Vec<(String, Json)> = Vec::new();
    for module in result.values().filter_map(Json::as_object) {
        for (k, v) in module {
            let v = if k == "maxAge" && v.as_i64() == Some(1) {
                Json::from(86400)
            } else {
                v.clone()
            };
            if !py::truthy(&v) {
                continue;
            }
            let v = format_info(Some(k), &v);
            match info.iter_mut().find(|(key, _)| key == k) {
                Some(slot) => slot.1 = v,
                None => info.push((k.clone(), v)),
            }
        }
    }
    info
}

/// `±HH:MM` of an offset in seconds.
fn offset_text(seconds: i64) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.unsigned_abs();
    format!("{sign}{:02}:{:02}", s / 3600, (s % 3600) / 60)
}

/// The exchange-local date of a UTC timestamp, printed as pandas prints the midnight
/// `Timestamp` of that date.
fn local_midnight(ts: i64, offset: i64) -> Option<String> {
    let local = ts.checked_add(offset)?;
    let (y, m, d) = civil_from_days(local.div_euclid(86_400));
    Some(format!(
        "{y:04}-{m:02}-{d:02} 00:00:00{}",
        offset_text(offset)
    ))
}

/// `to_markdown()`: YahooFinance prints every section with pandas' defaults (the index shown,
/// floats in `g` format).
pub fn markdown(frame: &Frame) -> String {
    frame.to_markdown(true, FloatFormat::General)
}

fn float_at(v: &Json, i: usize) -> f64 {
    v.get(i).and_then(Json::as_f64).unwrap_or(f64::NAN)
}

/// `Ticker.history()` (one month, daily, auto-adjusted) from a chart answer.
pub fn history_frame(chart: &Json) -> Frame {
    let empty = || {
        Frame::from_columns(
            ["Open", "High", "Low", "Close", "Adj Close", "Volume"]
                .map(String::from)
                .to_vec(),
            vec![Vec::new(); 6],
        )
        .with_index(Some("Date".into()), Vec::new())
    };
    let Some(r) = chart.pointer("/chart/result/0") else {
        return empty();
    };
    let offset = r
        .pointer("/meta/gmtoffset")
        .and_then(Json::as_i64)
        .unwrap_or(0);
    let stamps: Vec<i64> = r
        .get("timestamp")
        .and_then(Json::as_array)
        .map(|a| a.iter().filter_map(Json::as_i64).collect())
        .unwrap_or_default();
    let quote = r
        .pointer("/indicators/quote/0")
        .cloned()
        .unwrap_or(Json::Null);
    let adj = r
        .pointer("/indicators/adjclose/0/adjclose")
        .cloned()
        .unwrap_or(Json::Null);
    let events = |kind: &str, value: &dyn Fn(&Json) -> Option<f64>| -> Vec<(String, f64)> {
        r.pointer(&format!("/events/{kind}"))
            .and_then(Json::as_object)
            .map(|m| {
                m.values()
                    .filter_map(|e| {
                        let date = local_midnight(e.get("date")?.as_i64()?, offset)?;
                        Some((date, value(e)?))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let dividends = events("dividends", &|e| e.get("amount")?.as_f64());
    let splits = events("splits", &|e| {
        Some(e.get("numerator")?.as_f64()? / e.get("denominator")?.as_f64()?)
    });
    let gains = events("capitalGains", &|e| e.get("amount")?.as_f64());
    let field = |k: &str| quote.get(k).cloned().unwrap_or(Json::Null);
    let (open, high, low, close, volume) = (
        field("open"),
        field("high"),
        field("low"),
        field("close"),
        field("volume"),
    );
    let mut index = Vec::new();
    let mut cols: Vec<Vec<Cell>> = vec![Vec::new(); if gains.is_empty() { 7 } else { 8 }];
    for (i, ts) in stamps.iter().enumerate() {
        let (o, h, l, c) = (
            float_at(&open, i),
            float_at(&high, i),
            float_at(&low, i),
            float_at(&close, i),
        );
        let v = volume.get(i).and_then(Json::as_i64);
        if [o, h, l, c].iter().all(|x| x.is_nan()) && v.is_none() {
            continue;
        }
        let Some(date) = local_midnight(*ts, offset) else {
            continue;
        };
        let a = if adj.is_array() { float_at(&adj, i) } else { c };
        let ratio = a / c;
        let on = |list: &[(String, f64)]| {
            list.iter()
                .find(|(d, _)| *d == date)
                .map_or(0.0, |(_, x)| *x)
        };
        let row = [
            Cell::Float(o * ratio),
            Cell::Float(h * ratio),
            Cell::Float(l * ratio),
            Cell::Float(a),
            v.map_or(Cell::Float(f64::NAN), |v| Cell::Int(v.into())),
            Cell::Float(on(&dividends)),
            Cell::Float(on(&splits)),
            Cell::Float(on(&gains)),
        ];
        for (col, cell) in cols.iter_mut().zip(row) {
            col.push(cell);
        }
        index.push(Cell::Str(date));
    }
    let mut names: Vec<String> = [
        "Open",
        "High",
        "Low",
        "Close",
        "Volume",
        "Dividends",
        "Stock Splits",
    ]
    .map(String::from)
    .to_vec();
    if !gains.is_empty() {
        names.push("Capital Gains".into());
    }
    Frame::from_columns(names, cols).with_index(Some("Date".into()), index)
}

impl YahooFinance {
    async fn report(&self, cx: &ToolCx<'_>, code: &str) -> Result<Json, String> {
        let symbol = code.to_uppercase();
        let session = Session::open(cx, &self.config).await?;
        if cx.check_canceled() {
            return Ok(Json::Null);
        }
        let mut sections = Vec::new();
        let wanted = |k: &str| cx.param(k).map_or(matches!(k, "info" | "news"), py::truthy);
        if wanted("info") {
            let (_, summary) = session.quote_summary(&symbol, INFO_MODULES).await?;
            let info = flatten_info(&summary);
            sections.push(format!(
                "# Information:\n{}\n",
                markdown(&Frame::from_series(
                    info.iter().map(|(k, v)| (k.clone(), Cell::of(v))).collect()
                ))
            ));
        }
        if wanted("history") {
            let path = format!("/v8/finance/chart/{}", segment(&symbol));
            let query = [
                ("range", "1mo".to_string()),
                ("interval", "1d".to_string()),
                ("includePrePost", "False".to_string()),
                ("events", "div,splits,capitalGains".to_string()),
            ];
            let (_, chart) = session.get(&path, &query).await?;
            sections.push(format!(
                "# History:\n{}\n",
                markdown(&history_frame(&chart))
            ));
        }
        if wanted("financials") {
            let (status, summary) = session.quote_summary(&symbol, "calendarEvents").await?;
            let calendar = calendar_frame((status < 400).then_some(&summary))?;
            sections.push(format!("# Calendar:\n{}\n", markdown(&calendar)));
        }
        for (option, keys, title, quarterly) in [
            (
                "balance_sheet",
                BALANCE_SHEET_KEYS,
                "Balance sheet",
                "Quarterly balance sheet",
            ),
            (
                "cash_flow_statement",
                CASH_FLOW_KEYS,
                "Cash flow statement",
                "Quarterly cash flow statement",
            ),
        ] {
            if !wanted(option) {
                continue;
            }
            for (timescale, heading) in [("annual", title), ("quarterly", quarterly)] {
                if cx.check_canceled() {
                    return Ok(Json::Null);
                }
                let frame = session.statement(&symbol, timescale, keys).await;
                sections.push(format!("# {heading}:\n{}\n", markdown(&frame)));
            }
        }
        if wanted("news") {
            let (status, found) = session
                .get("/v1/finance/search", &[("q", symbol.clone())])
                .await?;
            if status >= 400 {
                return Err(format!(
                    "{status} Client Error for url: {}/v1/finance/search",
                    session.base
                ));
            }
            let news = found
                .get("news")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default();
            sections.push(format!(
                "# News:\n{}\n",
                markdown(&Frame::from_json_rows(&news))
            ));
        }
        let report = sections.join("\n\n");
        cx.set_output("report", Json::String(report.clone()));
        Ok(Json::String(report))
    }
}

impl External for YahooFinance {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let Some(code) = args.get("stock_code").filter(|c| py::truthy(c)) else {
                cx.set_output("report", Json::from(""));
                return Ok(Json::from(""));
            };
            let code = text(Some(code));
            let outcome = with_retries(cx, true, || self.report(cx, &code)).await;
            Ok(finish(cx, "YahooFinance", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let code = input
            .get("stock_code")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Pulling live financial data for `{code}`."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_timestamps() {
        assert_eq!(
            local_midnight(1714051800, -14400).as_deref(),
            Some("2024-04-25 00:00:00-04:00")
        );
        assert_eq!(
            local_midnight(0, 19800).as_deref(),
            Some("1970-01-01 00:00:00+05:30")
        );
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
