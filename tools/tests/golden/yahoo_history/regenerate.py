# The History section yfinance prints for chart.json: the DataFrame `Ticker.history()` builds
# (daily bars indexed by the exchange-local date, auto-adjusted by the adjusted close, the
# dividends and splits of the period, all-empty rows dropped), printed by pandas' to_markdown.
# Run with the reference oracle's interpreter (pandas 2.3, tabulate 0.9):
#   $RAGFLOW_PY regenerate.py > expected.md
import json, os
import pandas as pd

here = os.path.dirname(os.path.abspath(__file__))
r = json.load(open(os.path.join(here, "chart.json")))["chart"]["result"][0]
tz = r["meta"]["exchangeTimezoneName"]
q = r["indicators"]["quote"][0]
df = pd.DataFrame({"Open": q["open"], "High": q["high"], "Low": q["low"], "Close": q["close"],
                   "Adj Close": r["indicators"]["adjclose"][0]["adjclose"], "Volume": q["volume"]},
                  index=pd.to_datetime(r["timestamp"], unit="s", utc=True).tz_convert(tz), dtype="float64")
df["Volume"] = df["Volume"].astype("Int64") if df["Volume"].isna().any() else df["Volume"].astype("int64")
df = df.dropna(how="all", subset=["Open", "High", "Low", "Close", "Volume"])
df.index = pd.to_datetime(df.index.date).tz_localize(tz)
df.index.name = "Date"
ratio = (df["Adj Close"] / df["Close"]).to_numpy()
df["Open"] = df["Open"] * ratio
df["High"] = df["High"] * ratio
df["Low"] = df["Low"] * ratio
df["Close"] = df["Adj Close"]
df = df.drop(columns=["Adj Close"])
df["Volume"] = df["Volume"].astype("int64")
df["Dividends"] = 0.0
df["Stock Splits"] = 0.0
for e in r.get("events", {}).get("dividends", {}).values():
    d = pd.Timestamp(pd.to_datetime(e["date"], unit="s", utc=True).tz_convert(tz).date()).tz_localize(tz)
    if d in df.index:
        df.loc[d, "Dividends"] = e["amount"]
for e in r.get("events", {}).get("splits", {}).values():
    d = pd.Timestamp(pd.to_datetime(e["date"], unit="s", utc=True).tz_convert(tz).date()).tz_localize(tz)
    if d in df.index:
        df.loc[d, "Stock Splits"] = e["numerator"] / e["denominator"]
print("# History:\n" + df.to_markdown() + "\n", end="")
