# The Calendar, Balance sheet and Cash flow sections RAGFlow's YahooFinance prints for the
# answers in this folder, made by yfinance 0.2.65 itself (the version RAGFlow pins) with
# pandas 2.3.3 and tabulate 0.9.0: a server on 127.0.0.1 answers yfinance's requests with
# these files, and RAGFlow's own expressions print them. Needs a venv with exactly those three
# packages (from PyPI); run from this folder:
#   python regenerate.py > expected.md
# Nothing here reaches Yahoo: yfinance's URLs are rewritten to the local server and its
# cookie/crumb step is replaced by a fixed crumb.
import http.server, json, os, threading, urllib.parse
import pandas as pd
import yfinance as yf
from yfinance import data as yf_data

here = os.path.dirname(os.path.abspath(__file__))
FILES = {"annualTotalAssets": "balance_annual.json", "quarterlyTotalAssets": "balance_quarterly.json",
         "annualFreeCashFlow": "cash_annual.json", "quarterlyFreeCashFlow": "cash_quarterly.json"}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        body = b"{}"
        if url.path.startswith("/v10/finance/quoteSummary/"):
            body = open(os.path.join(here, "calendar.json"), "rb").read()
        elif "/fundamentals-timeseries/" in url.path:
            types = q["type"][0].split(",")
            name = next(f for k, f in FILES.items() if k in types)
            body = open(os.path.join(here, name), "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
local = f"http://127.0.0.1:{srv.server_address[1]}"
orig = yf_data.YfData._make_request


def rewritten(self, url, request_method, body=None, params=None, timeout=30):
    for host in ("https://query1.finance.yahoo.com", "https://query2.finance.yahoo.com"):
        url = url.replace(host, local)
    return orig(self, url, request_method, body=body, params=params, timeout=timeout)


yf_data.YfData._make_request = rewritten
yf_data.YfData._get_cookie_and_crumb = lambda self, timeout=30: ("Xy1.crumb", "basic")

msft = yf.Ticker("aapl")
yahoo_res = []
yahoo_res.append("# Calendar:\n" + pd.DataFrame(msft.calendar).to_markdown() + "\n")
yahoo_res.append("# Balance sheet:\n" + msft.balance_sheet.to_markdown() + "\n")
yahoo_res.append("# Quarterly balance sheet:\n" + msft.quarterly_balance_sheet.to_markdown() + "\n")
yahoo_res.append("# Cash flow statement:\n" + msft.cashflow.to_markdown() + "\n")
yahoo_res.append("# Quarterly cash flow statement:\n" + msft.quarterly_cashflow.to_markdown() + "\n")
print("\n\n".join(yahoo_res), end="")
