#!/usr/bin/env python3
"""Regenerates expected.json: what RAGFlow's engine (the reference oracle) reports for each
canvas of make_canvases.py, run as

    cd ../shared/reference-oracle && ALLOW_ANY_HOST=1 $RAGFLOW_PY -m ragflow_ref.run_canvas CASE.json --query QUERY

with `__HOST__` replaced by a local `http.server` serving pages/ on 127.0.0.1:18799. Per case it keeps
the node's `_ERROR` and `result` from its `node_finished` event, and the run's error.

The oracle stubs RAGFlow's HTML parser (deepdoc needs bs4), so the html-* cases are not taken from
it: their expectation, set in HTML_FROM_BS4 below, was checked by running RAGFlow's recursive walk
shape on BeautifulSoup 4.15 / CPython 3.11 (1,000 nested tags raise
`RecursionError: maximum recursion depth exceeded`; see the README).
"""
import json, os, subprocess, sys, tempfile, threading, http.server, functools

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
ORACLE = os.environ.get("RAGFLOW_ORACLE") or "/work/shared/reference-oracle"
PY = os.environ.get("RAGFLOW_PY") or os.path.expanduser("~/.cache/ragflow-ref/venv/bin/python")
PORT = 18799

QUERIES = {"json-deep-argument": "[" * 20000}
HTML_FROM_BS4 = {
    "html-deep-div": {"_ERROR": "maximum recursion depth exceeded", "result": None},
    "html-deep-span": {"_ERROR": "maximum recursion depth exceeded", "result": None},
}


def pages():
    return {
        "deep-div": "<html><body>" + "<div>" * 50000 + "x" + "</div>" * 50000 + "</body></html>",
        "deep-span": "<html><body><p>" + "<span>" * 3000 + "y" + "</span>" * 3000 + "</p></body></html>",
        "ok": "ok",
    }


def serve(root):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
    handler.log_message = lambda *a: None
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def node_result(stdout, node):
    out = {"_ERROR": None, "result": None, "run_error": None}
    for line in stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        data = ev.get("data") or {}
        if ev.get("event") == "node_finished" and data.get("component_id") == node:
            outs = data.get("outputs") or {}
            out["_ERROR"] = outs.get("_ERROR")
            out["result"] = outs.get("result")
        if ev.get("event") == "_exception":
            out["run_error"] = data.get("message")
    return out


def main():
    sys.path.insert(0, HERE)
    from make_canvases import CASES
    expected = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in pages().items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        srv = serve(tmp)
        for name, c in CASES.items():
            node = next(k for k in c["components"] if k not in ("begin", "Message:Out"))
            if name in HTML_FROM_BS4:
                expected[name] = dict(HTML_FROM_BS4[name], node=node, source="bs4")
                continue
            path = os.path.join(tmp, name + ".json")
            with open(path, "w") as f:
                f.write(json.dumps(c).replace("__HOST__", f"127.0.0.1:{PORT}"))
            env = dict(os.environ, ALLOW_ANY_HOST="1")
            res = subprocess.run([PY, "-m", "ragflow_ref.run_canvas", path, "--query", QUERIES.get(name, "go")],
                                 cwd=ORACLE, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True, timeout=120)
            expected[name] = dict(node_result(res.stdout, node), node=node, source="oracle")
            print(name, expected[name], file=sys.stderr)
        srv.shutdown()
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"queries": QUERIES, "cases": expected}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
