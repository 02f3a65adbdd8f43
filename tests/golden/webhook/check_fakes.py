#!/usr/bin/env python3
"""Check webhook_fakes.FakeRequest / FakeResponse against real Quart (RAGFlow's pins: quart 0.20.0,
werkzeug 3.1.8) for every request of cases.json. Needs a python with Quart, not the oracle:

    python3 -m venv /tmp/quartvenv && /tmp/quartvenv/bin/pip install quart==0.20.0 werkzeug==3.1.8
    /tmp/quartvenv/bin/python tests/golden/webhook/check_fakes.py

Each request is sent through Quart's ASGI entry point (quart/asgi.py builds the request from the
scope, as under Hypercorn) and the view reads what RAGFlow's _webhook_impl reads: method, args,
headers, content_length, remote_addr, authorization, get_json (for JSON mimetypes), form, files,
get_data. The fake must give the same values. The three Response forms _webhook_impl builds and
jsonify must give the content types FakeResponse records.

When redis-server and redis-cli are on PATH, FakeRedis.lua_token_bucket is also compared with
RAGFlow's LUA_TOKEN_BUCKET_SCRIPT (read with ast from $RAGFLOW_SRC/rag/utils/redis_conn.py, default
~/.cache/ragflow-ref/src) run by a throw-away redis-server on port 16390, on a scripted sequence
of calls (same allowed flags, returned tokens and stored hash). Exit code 1 on any difference.
"""

import ast
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from quart import Quart, Response, jsonify, request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ next to the goldens
sys.path.insert(0, HERE)
from webhook_fakes import FakeRedis, FakeRequest, FakeResponse, fake_jsonify  # noqa: E402

app = Quart(__name__)


async def view_of(req):
    out = {
        "method": req.method.upper(),
        "args": list(req.args.items()),
        "headers": list(req.headers.items()),
        "header_dict": {k: v for k, v in req.headers.items()},
        "content_length": req.content_length,
        "remote_addr": req.remote_addr,
    }
    a = req.authorization
    out["authorization"] = None if a is None else [a.type, a.username, a.password]
    ctype = req.headers.get("Content-Type", "").split(";")[0].strip()
    if ctype == "application/json":
        try:
            out["json"] = await req.get_json()
        except Exception as e:
            out["json"] = f"raised {type(e).__name__}"
    if ctype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        try:
            form = await req.form
            files = await req.files
            out["form_items"] = list(form.items())
            out["form_dict"] = dict(form)
            out["files"] = len(files)
        except Exception as e:
            out["form"] = f"raised {type(e).__name__}"
    out["data"] = (await req.get_data()).decode("latin1")
    return out


@app.route("/probe", methods=["POST", "GET", "PUT", "PATCH", "DELETE"])
async def probe():
    return jsonify(await view_of(request))


@app.route("/resp/<kind>", methods=["GET"])
async def resp(kind):
    if kind == "json-template":
        return Response(json.dumps({"a": 1}), status=202, content_type="application/json")
    if kind == "text-template":
        return Response("ok", status=200, content_type="text/plain")
    if kind == "streaming":
        return Response(json.dumps({"code": 201}), status=201, mimetype="application/json")
    return jsonify({"code": 400, "message": "x"}), 400


async def asgi_call(method, path, query, wire_headers, body, chunked):
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": [(n.lower().encode("latin1"), v.encode("latin1")) for n, v in wire_headers],
             "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 9380), "extensions": {}}
    if chunked:
        half = len(body) // 2
        msgs = [{"type": "http.request", "body": body[:half], "more_body": True},
                {"type": "http.request", "body": body[half:], "more_body": False}]
    else:
        msgs = [{"type": "http.request", "body": body, "more_body": False}]
    sent = []

    async def receive():
        if msgs:
            return msgs.pop(0)
        await asyncio.sleep(3600)

    async def send(m):
        sent.append(m)

    await app(scope, receive, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


async def main():
    with open(os.path.join(HERE, "cases.json"), "r", encoding="utf-8") as f:
        cases = json.load(f)
    bad = 0
    n = 0
    for case in cases:
        for i, spec in enumerate(case["requests"]):
            n += 1
            fake = FakeRequest(spec)
            _, _, body = await asgi_call(spec["method"], "/probe", spec.get("query", ""), fake.wire_headers,
                                         spec.get("body", "").encode("utf-8"), spec.get("chunked", False))
            real = json.loads(body)
            mine = json.loads(json.dumps(await view_of(fake)))
            if real != mine:
                bad += 1
                print(f"DIFF {case['name']}[{i}]")
                for k in sorted(set(real) | set(mine)):
                    if real.get(k) != mine.get(k):
                        print(f"  {k}: quart={real.get(k)!r}\n  {' ' * len(k)}  fake ={mine.get(k)!r}")
    expect = {
        "json-template": FakeResponse("{}", status=202, content_type="application/json"),
        "text-template": FakeResponse("ok", status=200, content_type="text/plain"),
        "streaming": FakeResponse("{}", status=201, mimetype="application/json"),
        "jsonify": fake_jsonify({}),
    }
    for kind, fr in expect.items():
        status, headers, _ = await asgi_call("GET", f"/resp/{kind}", "", [("Host", "127.0.0.1")], b"", False)
        if headers.get("content-type") != fr.content_type:
            bad += 1
            print(f"DIFF response {kind}: quart content-type {headers.get('content-type')!r}, fake {fr.content_type!r}")
    print(f"{n} requests and {len(expect)} response forms checked, {bad} difference(s)")
    bad += check_token_bucket()
    return 1 if bad else 0


def lua_script():
    src = os.environ.get("RAGFLOW_SRC") or os.path.expanduser("~/.cache/ragflow-ref/src")
    with open(os.path.join(src, "rag", "utils", "redis_conn.py"), "r", encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "LUA_TOKEN_BUCKET_SCRIPT" for t in node.targets):
            return node.value.value
    raise KeyError("LUA_TOKEN_BUCKET_SCRIPT")


def check_token_bucket():
    if not (shutil.which("redis-server") and shutil.which("redis-cli")):
        print("redis-server/redis-cli not found: token bucket not checked")
        return 0
    script = lua_script()
    port = "16390"
    tmp = tempfile.mkdtemp()
    srv = subprocess.Popen(["redis-server", "--port", port, "--save", "", "--appendonly", "no", "--dir", tmp],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", port, "ping"], capture_output=True, text=True).stdout.strip() == "PONG":
                break
            time.sleep(0.05)
        fake = FakeRedis(None)
        t0 = time.time()
        # (capacity, rate, now offset, cost): limit 2/minute, 60/minute defaults, refills, limit 3/second
        calls = [(2, 2 / 60, 0.0, 1), (2, 2 / 60, 0.001, 1), (2, 2 / 60, 0.002, 1), (2, 2 / 60, 20.0, 1),
                 (2, 2 / 60, 29.5, 1), (2, 2 / 60, 31.0, 1), (2, 2 / 60, 31.2, 1), (2, 2 / 60, 200.0, 1),
                 (2, 2 / 60, 200.5, 1), (2, 2 / 60, 200.25, 1)]
        bad = 0
        for i, (cap, rate, off, cost) in enumerate(calls):
            args = [cap, rate, t0 + off, cost]
            real = subprocess.run(["redis-cli", "-p", port, "--no-raw", "EVAL", script, "1", "rl:tb:x"] + [str(a) for a in args],
                                  capture_output=True, text=True).stdout.split()
            real = [int(x) for x in real if x.lstrip("-").isdigit()]
            mine = fake.lua_token_bucket(keys=["rl:tb:x"], args=args)
            h = subprocess.run(["redis-cli", "-p", port, "--raw", "HMGET", "rl:tb:x", "tokens", "timestamp"],
                               capture_output=True, text=True).stdout.split()
            stored = fake.hashes["rl:tb:x"][0]
            if real != mine or [float(x) for x in h] != [float(stored["tokens"]), float(stored["timestamp"])]:
                bad += 1
                print(f"DIFF token bucket call {i} {args}: redis {real} {h}, fake {mine} {stored}")
        print(f"{len(calls)} token-bucket calls checked against redis-server, {bad} difference(s)")
        return bad
    finally:
        srv.terminate()
        srv.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
