//! AkShare, QWeather and YahooFinance against stubs on 127.0.0.1, answering in the services'
//! shapes:
//!
//! * East Money's news search (`GET /search/jsonp?cb=…&param=…`, a JSONP answer whose
//!   `result.cmsArticleWebOld[]` has `code`, `title`, `content`, `date`, `mediaName`, `url`),
//!   which AkShare's `stock_news_em` reads (<https://akshare.akfamily.xyz/data/stock/stock.html>,
//!   "个股新闻");
//! * QWeather's GeoAPI city lookup (<https://dev.qweather.com/en/docs/api/geoapi/city-lookup/>),
//!   real-time weather (<https://dev.qweather.com/en/docs/api/weather/weather-now/>), daily
//!   forecast (<https://dev.qweather.com/en/docs/api/weather/weather-daily-forecast/>), indices
//!   (<https://dev.qweather.com/en/docs/api/indices/indices-forecast/>) and real-time air quality
//!   (<https://dev.qweather.com/en/docs/api/air/air-now/>): `code` as a string, then `location[]`,
//!   `now`, `daily[]`;
//! * Yahoo Finance's chart API (`/v8/finance/chart/<symbol>`: `chart.result[0]` with `meta`,
//!   `timestamp[]`, `events.dividends`/`splits` and `indicators.quote[0]`/`adjclose[0]`), as
//!   `yfinance` reads it (`yfinance/scrapers/history.py`); the expected History section is
//!   pandas' own output for the same data (`tests/golden/yahoo_history/regenerate.py`);
//! * Yahoo Finance's quoteSummary `calendarEvents` module (`quoteSummary.result[0]
//!   .calendarEvents` with `dividendDate`, `exDividendDate` and `earnings.earningsDate[]`,
//!   `earningsHigh`, … as raw numbers under `formatted=false`) and fundamentals time series
//!   (`/ws/fundamentals-timeseries/v1/finance/timeseries/<symbol>`: `timeseries.result[]`, one
//!   entry per requested type with `meta.symbol`/`meta.type` and, where Yahoo has data,
//!   `timestamp[]` and `<type>[]` of `{dataId, asOfDate, periodType, currencyCode,
//!   reportedValue: {raw, fmt}}`), the shapes `yfinance` 0.2.65 reads
//!   (`yfinance/scrapers/quote.py` `_fetch_calendar`, `yfinance/scrapers/fundamentals.py`
//!   `_get_financials_time_series`); the expected sections are what `yfinance` 0.2.65 itself
//!   printed for the same answers (`tests/golden/yahoo_fundamentals/regenerate.py`).

mod support;

use serde_json::{json, Value as Json};
use support::{node_canvas, registry, run, Answer, Stub};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn akshare_searches_east_money_and_formats_the_news() {
    let stub = Stub::start().await;
    let data = json!({"code": 0, "msg": "", "result": {"cmsArticleWebOld": [
        {"date": "2024-05-10 19:31:09", "title": "贵州茅台(<em>600519</em>)发布公告", "content": "<em>贵州茅台</em>\u{3000}公告内容\r\n第二段",
         "mediaName": "东方财富网", "code": "202405103071111111", "url": "http://finance.eastmoney.com/a/202405103071111111.html", "image": ""},
        {"date": "2024-05-09 08:00:00", "title": "白酒板块走强", "content": "板块", "mediaName": "证券时报", "code": "202405092222222222", "image": ""},
        {"date": "2024-05-08 08:00:00", "title": "third", "content": "c", "mediaName": "m", "code": "3", "url": "u"}
    ]}});
    let jsonp = format!("jQuery3510875346244069884_1668256937995({data})");
    stub.on(
        "/search/jsonp",
        vec![Answer::text("application/javascript", &jsonp)],
    );
    let toml = format!("[tools.akshare]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas("AkShare", json!({"top_n": 2}), "formalized_content");
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "600519").await;
    let r = &stub.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/search/jsonp")
    );
    let pairs = r.query_pairs();
    assert_eq!(
        pairs[0],
        (
            "cb".into(),
            "jQuery3510875346244069884_1668256937995".into()
        )
    );
    assert_eq!(pairs[1].0, "param");
    let param: Json = serde_json::from_str(&pairs[1].1).unwrap_or(Json::Null);
    assert_eq!(
        param,
        json!({"uid": "", "keyword": "600519", "type": ["cmsArticleWebOld"], "client": "web",
               "clientType": "web", "clientVersion": "curr",
               "param": {"cmsArticleWebOld": {"searchScope": "default", "sort": "default",
                   "pageIndex": 1, "pageSize": 100, "preTag": "<em>", "postTag": "</em>"}}})
    );
    assert_eq!(pairs[2], ("_".into(), "1668256937996".into()));
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("<a href=\"http://finance.eastmoney.com/a/202405103071111111.html\">贵州茅台600519发布公告</a>\n 新闻内容: 贵州茅台公告内容 第二段 \n发布时间:2024-05-10 19:31:09 \n文章来源: 东方财富网\n\n<a href=\"http://finance.eastmoney.com/a/202405092222222222.html\">白酒板块走强</a>\n 新闻内容: 板块 \n发布时间:2024-05-09 08:00:00 \n文章来源: 证券时报")
    );
}

fn qweather_toml(stub: &Stub) -> String {
    format!(
        "[tools.qweather]\nbase_url = \"{0}/v7\"\ngeo_url = \"{0}/v2\"\n",
        stub.base
    )
}

fn lookup() -> Answer {
    Answer::json(&json!({"code": "200", "location": [
        {"name": "北京", "id": "101010100", "lat": "39.90499", "lon": "116.40529", "adm2": "北京", "adm1": "北京市",
         "country": "中国", "tz": "Asia/Shanghai", "utcOffset": "+08:00", "isDst": "0", "type": "city", "rank": "10", "fxLink": "https://www.qweather.com/weather/beijing-101010100.html"}
    ], "refer": {"sources": ["QWeather"], "license": ["QWeather Developers License"]}}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qweather_looks_up_the_city_then_the_weather() {
    let stub = Stub::start().await;
    stub.on("/v2/city/lookup", vec![lookup()]);
    stub.on("/v7/weather/now", vec![Answer::json(&json!({"code": "200", "updateTime": "2020-06-30T22:00+08:00",
        "now": {"obsTime": "2020-06-30T21:40+08:00", "temp": "24", "feelsLike": "26", "icon": "101", "text": "多云", "windDir": "东南风", "humidity": "72", "precip": "0.0"},
        "refer": {"sources": ["QWeather"]}}))]);
    let dsl = node_canvas(
        "QWeather",
        json!({"web_apikey": "qw-key", "lang": "en"}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&qweather_toml(&stub)),
        "北京",
    )
    .await;
    let requests = stub.requests();
    assert_eq!(requests[0].path, "/v2/city/lookup");
    assert_eq!(
        requests[0].query_pairs(),
        [("location", "北京"), ("key", "qw-key")].map(|(k, v)| (k.to_string(), v.to_string()))
    );
    assert_eq!(requests[1].path, "/v7/weather/now");
    assert_eq!(
        requests[1].query.as_deref(),
        Some("location=101010100&key=qw-key&lang=en")
    );
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("{'obsTime': '2020-06-30T21:40+08:00', 'temp': '24', 'feelsLike': '26', 'icon': '101', 'text': '多云', 'windDir': '东南风', 'humidity': '72', 'precip': '0.0'}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qweather_indices_air_quality_and_error_codes() {
    let stub = Stub::start().await;
    stub.on("/v2/city/lookup", vec![lookup()]);
    stub.on("/v7/indices/1d", vec![Answer::json(&json!({"code": "200", "daily": [
        {"date": "2021-12-16", "type": "1", "name": "运动指数", "level": "3", "category": "较不宜", "text": "天气较好，但考虑天气寒冷。"},
        {"date": "2021-12-16", "type": "2", "name": "洗车指数", "level": "2", "category": "较适宜", "text": "较适宜洗车。"}
    ]}))]);
    stub.on("/v7/air/now", vec![Answer::json(&json!({"code": "200",
        "now": {"pubTime": "2021-02-16T14:42+08:00", "aqi": "46", "level": "1", "category": "优", "primary": "NA", "pm10": "46", "pm2p5": "12"}}))]);
    let toml = qweather_toml(&stub);
    let dsl = node_canvas(
        "QWeather",
        json!({"web_apikey": "k", "type": "indices"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "Beijing").await;
    assert_eq!(
        stub.requests()[1].query.as_deref(),
        Some("type=0&location=101010100&key=k&lang=zh")
    );
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("2021-12-16\n运动指数: 较不宜, 天气较好，但考虑天气寒冷。\n洗车指数: 较适宜, 较适宜洗车。")
    );

    let dsl = node_canvas(
        "QWeather",
        json!({"web_apikey": "k", "type": "airquality"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "Beijing").await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("{'pubTime': '2021-02-16T14:42+08:00', 'aqi': '46', 'level': '1', 'category': '优', 'primary': 'NA', 'pm10': '46', 'pm2p5': '12'}")
    );

    stub.on(
        "/v2/city/lookup",
        vec![Answer::json(&json!({"code": "404"}))],
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "Atlantis").await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("**Error** The queried data or region does not exist.")
    );
    stub.on(
        "/v2/city/lookup",
        vec![Answer::json(&json!({"code": "999"}))],
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "Atlantis").await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("**Error** QWeather API returned code 999.")
    );
}

fn golden(path: &str) -> String {
    let path = format!("{}/tests/golden/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yahoo_finance_prints_the_history_as_pandas_does() {
    let stub = Stub::start().await;
    stub.on("/", vec![Answer::text("text/html", "")]);
    stub.on(
        "/v1/test/getcrumb",
        vec![Answer::text("text/plain", "Cr4mb")],
    );
    let chart: Json =
        serde_json::from_str(&golden("yahoo_history/chart.json")).unwrap_or(Json::Null);
    stub.on("/v8/finance/chart/BRK-B", vec![Answer::json(&chart)]);
    let toml = format!(
        "[tools.yahoo]\nbase_url = \"{0}\"\ngeo_url = \"{0}/\"\n",
        stub.base
    );
    let dsl = node_canvas(
        "YahooFinance",
        json!({"info": false, "history": true, "news": false}),
        "report",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "brk-b").await;
    let requests = stub.requests();
    let chart_request = requests
        .iter()
        .find(|r| r.path == "/v8/finance/chart/BRK-B")
        .cloned();
    let chart_request = chart_request.unwrap_or_else(|| panic!("no chart request: {requests:?}"));
    assert_eq!(
        chart_request.query.as_deref(),
        Some("range=1mo&interval=1d&includePrePost=False&events=div%2Csplits%2CcapitalGains&crumb=Cr4mb")
    );
    assert_eq!(
        ran.output("Tool:T", "report"),
        json!(golden("yahoo_history/expected.md"))
    );
}

/// The `type` query `yfinance` 0.2.65 sends for a statement: every key of its list for the
/// statement, prefixed by the timescale, in its order (checked here on both ends).
fn type_query_of(request: &support::Recorded) -> String {
    request
        .query_pairs()
        .into_iter()
        .find(|(k, _)| k == "type")
        .map(|(_, v)| v)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yahoo_finance_prints_calendar_and_statements_as_yfinance_does() {
    let stub = Stub::start().await;
    stub.on("/", vec![Answer::text("text/html", "")]);
    stub.on(
        "/v1/test/getcrumb",
        vec![Answer::text("text/plain", "Cr4mb")],
    );
    let answer = |f: &str| -> Answer {
        let v: Json = serde_json::from_str(&golden(&format!("yahoo_fundamentals/{f}")))
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        Answer::json(&v)
    };
    stub.on(
        "/v10/finance/quoteSummary/AAPL",
        vec![answer("calendar.json")],
    );
    let timeseries = "/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL";
    stub.on(
        timeseries,
        vec![
            answer("balance_annual.json"),
            answer("balance_quarterly.json"),
            answer("cash_annual.json"),
            answer("cash_quarterly.json"),
        ],
    );
    let toml = format!(
        "[tools.yahoo]\nbase_url = \"{0}\"\ngeo_url = \"{0}/\"\n",
        stub.base
    );
    let dsl = node_canvas(
        "YahooFinance",
        json!({"info": false, "news": false, "financials": true, "balance_sheet": true,
               "cash_flow_statement": true}),
        "report",
    );
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "aapl").await;
    assert_eq!(
        ran.output("Tool:T", "report"),
        json!(golden("yahoo_fundamentals/expected.md"))
    );

    let requests = stub.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/",
            "/v1/test/getcrumb",
            "/v10/finance/quoteSummary/AAPL",
            timeseries,
            timeseries,
            timeseries,
            timeseries
        ]
    );
    assert_eq!(
        requests[2].query.as_deref(),
        Some("modules=calendarEvents&corsDomain=finance.yahoo.com&formatted=false&symbol=AAPL&crumb=Cr4mb")
    );
    // `period2` is the next UTC midnight (`pd.Timestamp.utcnow().ceil("D")`).
    let midnight = |s: u64| s.div_ceil(86_400) * 86_400;
    for (request, timescale, first, last, count) in [
        (
            &requests[3],
            "annual",
            "TreasurySharesNumber",
            "CashCashEquivalentsAndFederalFundsSold",
            145,
        ),
        (
            &requests[4],
            "quarterly",
            "TreasurySharesNumber",
            "CashCashEquivalentsAndFederalFundsSold",
            145,
        ),
        (
            &requests[5],
            "annual",
            "ForeignSales",
            "ReceiptsfromCustomers",
            123,
        ),
        (
            &requests[6],
            "quarterly",
            "ForeignSales",
            "ReceiptsfromCustomers",
            123,
        ),
    ] {
        let types = type_query_of(request);
        let types: Vec<&str> = types.split(',').collect();
        assert_eq!(types.len(), count, "{timescale}");
        assert_eq!(types[0], format!("{timescale}{first}"));
        assert_eq!(types[count - 1], format!("{timescale}{last}"));
        assert!(types.iter().all(|t| t.starts_with(timescale)));
        let pairs = request.query_pairs();
        let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["symbol", "type", "period1", "period2", "crumb"]);
        assert_eq!(pairs[0].1, "AAPL");
        assert_eq!(pairs[2].1, "1483142400");
        let period2: u64 = pairs[3].1.parse().unwrap_or(0);
        assert!(
            period2 == midnight(before) || period2 == midnight(before) + 86_400,
            "period2 {period2}"
        );
        assert_eq!(pairs[4].1, "Cr4mb");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yahoo_finance_statements_yfinance_cannot_build_are_empty() {
    let stub = Stub::start().await;
    stub.on("/", vec![Answer::text("text/html", "")]);
    stub.on(
        "/v1/test/getcrumb",
        vec![Answer::text("text/plain", "Cr4mb")],
    );
    let timeseries = "/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL";
    stub.on(
        timeseries,
        vec![
            // A `null` in a series: the library's reshaping raises and it keeps nothing.
            Answer::json(&json!({"timeseries": {"result": [
                {"meta": {"symbol": ["AAPL"], "type": ["annualTotalAssets"]}, "timestamp": [1727654400],
                 "annualTotalAssets": [null, {"asOfDate": "2024-09-30", "reportedValue": {"raw": 1.0}}]}
            ], "error": null}})),
            // An error answer.
            Answer::status(404, &json!({"finance": {"result": null, "error": {"code": "Not Found", "description": "No data"}}})),
        ],
    );
    stub.on(
        "/v10/finance/quoteSummary/AAPL",
        vec![Answer::status(404, &json!({"quoteSummary": {"result": null, "error": {"code": "Not Found", "description": "Quote not found for symbol: AAPL"}}}))],
    );
    let toml = format!(
        "[tools.yahoo]\nbase_url = \"{0}\"\ngeo_url = \"{0}/\"\n",
        stub.base
    );
    let dsl = node_canvas(
        "YahooFinance",
        json!({"info": false, "news": false, "financials": true, "balance_sheet": true}),
        "report",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "aapl").await;
    // What `pd.DataFrame({}).to_markdown()` and an empty statement print: nothing.
    assert_eq!(
        ran.output("Tool:T", "report"),
        json!("# Calendar:\n\n\n\n# Balance sheet:\n\n\n\n# Quarterly balance sheet:\n\n")
    );
}
