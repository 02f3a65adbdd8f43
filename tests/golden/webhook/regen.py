#!/usr/bin/env python3
"""Regenerate expected.json: every case of cases.json answered by RAGFlow's real webhook code.

Run with the reference oracle's python (see README.md):

    cd tests/golden/webhook && $RAGFLOW_PY regen.py            # write expected.json
    $RAGFLOW_PY regen.py --twice                                # also require two byte-identical runs
    $RAGFLOW_PY regen.py --check                                # compare with the stored expected.json
    $RAGFLOW_PY regen.py NAME ...                               # only these cases, printed to stdout
    $RAGFLOW_PY regen.py --readme                               # rewrite the case table in README.md

RAGFlow's `_webhook_impl`, `_is_truthy`, `_allow_anonymous_webhook` and `_background_tasks`
(api/apps/restful_apis/agent_api.py) and `_safe_jsonify`, `get_data_error_result`,
`get_json_result`, `get_error_data_result`, `server_error_response` (api/utils/api_utils.py) are
loaded at run time from $RAGFLOW_SRC with the oracle's `astload.load_defs` and executed in a
namespace holding the fakes below; `agent.canvas.Canvas` is RAGFlow's real engine imported through
the oracle's bootstrap. This file contains no RAGFlow code.

Fakes (webhook_fakes.py; see README.md for why each is faithful):
  * request       a Quart 0.20 request as built by quart/asgi.py from the case: method, args (query
                  string, first value wins), headers (`Remote-Addr` first, then every wire header
                  with its name `.title()`d, duplicates kept), content_length (werkzeug's rule),
                  get_json / get_data / form / files, authorization (werkzeug's Authorization
                  parsing), remote_addr;
  * REDIS_CONN    in-memory: get, set_obj (json.dumps, False on failure), lua_token_bucket (the Lua
                  token bucket of rag/utils/redis_conn.py, real clock); fresh for every case;
  * Response      records status, body text and content type as werkzeug would set them;
  * jsonify       a JSON response with status 200 (what Quart's jsonify returns);
  * UserCanvasService  get_by_id -> the case's canvas (user_id tenant-1, category agent_canvas);
                  update_by_id records the id it was given;
  * the Quart dispatch: a (response, status) tuple sets the status; an exception escaping the view
    goes to server_error_response (RAGFlow's app.errorhandler(Exception)).
"""

import argparse
import asyncio
import copy
import ipaddress
import json
import logging
import os
import random
import sys
import time
import typing

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
ORACLE = os.environ.get("RAGFLOW_ORACLE") or os.path.normpath(os.path.join(REPO, "..", "shared", "reference-oracle"))
sys.dont_write_bytecode = True  # no __pycache__ next to the goldens
sys.path.insert(0, ORACLE)
sys.path.insert(0, HERE)

from ragflow_ref import bootstrap  # noqa: E402

bootstrap.install()
from ragflow_ref.astload import load_defs  # noqa: E402
from ragflow_ref.paths import ragflow_src  # noqa: E402
from ragflow_ref.run_canvas import normalize, state_of, to_jsonable  # noqa: E402
from webhook_fakes import HOST, FakeRedis, FakeRequest, FakeResponse, fake_jsonify  # noqa: E402

AGENT_ID = "webhook-agent"
TENANT = "tenant-1"


# --------------------------------------------------------------------------- fake RAGFlow services

class CanvasRecord:
    def __init__(self, dsl):
        self.id = AGENT_ID
        self.user_id = TENANT
        self.canvas_category = "agent_canvas"
        self.dsl = dsl

    def to_dict(self):
        return {"id": self.id, "user_id": self.user_id, "canvas_category": self.canvas_category, "dsl": self.dsl}


class FakeUserCanvasService:
    canvas = None
    updates = []

    @classmethod
    def get_by_id(cls, agent_id):
        if agent_id != AGENT_ID:
            return False, None
        return True, CanvasRecord(copy.deepcopy(cls.canvas))

    @classmethod
    def update_by_id(cls, pid, data):
        cls.updates.append(pid)
        return 1


class FakeFileService:
    @staticmethod
    def upload_info(*a, **kw):
        raise NotImplementedError("file uploads are not modelled")


# --------------------------------------------------------------------------- RAGFlow code

def load_ragflow():
    from common.constants import RetCode
    from api.db import CanvasCategory
    import jwt

    api = {"sys": sys, "logging": logging, "RetCode": RetCode, "jsonify": fake_jsonify, "has_app_context": lambda: True}
    load_defs("api/utils/api_utils.py",
              ["_safe_jsonify", "get_data_error_result", "server_error_response", "get_json_result", "get_error_data_result"],
              api, module_name="api.utils.api_utils")
    ns = {
        "asyncio": asyncio, "json": json, "logging": logging, "time": time, "ipaddress": ipaddress, "jwt": jwt,
        "Set": typing.Set, "Response": FakeResponse, "UserCanvasService": FakeUserCanvasService,
        "FileService": FakeFileService, "RetCode": RetCode, "CanvasCategory": CanvasCategory,
        "get_data_error_result": api["get_data_error_result"], "get_json_result": api["get_json_result"],
        "server_error_response": api["server_error_response"], "request": None,
    }
    load_defs("api/apps/restful_apis/agent_api.py",
              ["_background_tasks", "_is_truthy", "_allow_anonymous_webhook", "_webhook_impl"],
              ns, module_name="api.apps.restful_apis.agent_api")
    return ns, api


RUNS = []


def install_run_recorder():
    """Wrap Canvas.run to record the webhook_payload, every yielded event and the final state."""
    from agent.canvas import Canvas

    orig = Canvas.run

    def run(self, **kwargs):
        rec = {"webhook_payload": to_jsonable(kwargs.get("webhook_payload")), "events": []}
        RUNS.append(rec)

        async def gen():
            try:
                async for ev in orig(self, **kwargs):
                    rec["events"].append(normalize(to_jsonable(ev)))
                    yield ev
            except Exception as e:
                rec["run_exception"] = {"type": type(e).__name__, "message": str(e)}
                raise
            finally:
                st = state_of(self)
                rec["state"] = normalize(to_jsonable({"path": st["path"], "error": st["error"], "outputs": st["outputs"]}))

        return gen()

    Canvas.run = run


async def dispatch(ns, api, is_test):
    """What Quart does around the view: errorhandler(Exception), (response, status) tuples."""
    try:
        rv = await ns["_webhook_impl"](AGENT_ID, is_test)
    except Exception as e:
        rv = api["server_error_response"](e)
    status = None
    if isinstance(rv, tuple):
        rv, status = rv
    if status is not None:
        rv.status_code = int(status)
    return rv


def response_record(resp):
    out = {"status": resp.status_code, "content_type": resp.content_type}
    if resp.json is not None:
        out["body"] = to_jsonable(resp.json)
    elif resp.content_type.split(";")[0] == "application/json":
        out["body"] = json.loads(resp.body_text)
        out["body_text"] = resp.body_text
    else:
        out["body"] = resp.body_text
    return out


def trace_events(redis, before_keys):
    raw = redis.get(f"webhook-trace-{AGENT_ID}-logs")
    if not raw:
        return []
    webhooks = json.loads(raw)["webhooks"]
    events = []
    for ts, ws in webhooks.items():
        if ts in before_keys:
            continue
        for ev in ws["events"]:
            ev = {k: v for k, v in ev.items() if k != "ts"}
            events.append(normalize(ev))
    return events


async def run_case(ns, api, case, oracle_redis):
    import rag.utils.redis_conn as redis_mod

    with open(os.path.join(REPO, case["canvas"]), "r", encoding="utf-8") as f:
        FakeUserCanvasService.canvas = json.load(f)
    redis = FakeRedis(oracle_redis)
    redis_mod.REDIS_CONN = redis
    random.seed(0)
    results = []
    for spec in case["requests"]:
        RUNS.clear()
        FakeUserCanvasService.updates = []
        raw = redis.get(f"webhook-trace-{AGENT_ID}-logs")
        before = set(json.loads(raw)["webhooks"]) if raw else set()
        ns["request"] = FakeRequest(spec)
        resp = await dispatch(ns, api, case.get("test", False))
        while ns["_background_tasks"]:  # Immediately mode: let the background run finish
            await asyncio.gather(*list(ns["_background_tasks"]), return_exceptions=True)
        rec = response_record(resp)
        if RUNS:
            run = RUNS[0]
            rec["webhook_payload"] = run["webhook_payload"]
            rec["events"] = run["events"]
            if "run_exception" in run:
                rec["run_exception"] = run["run_exception"]
            rec["state"] = run["state"]
            if FakeUserCanvasService.updates:
                rec["update_by_id"] = FakeUserCanvasService.updates
        if case.get("test"):
            rec["trace"] = trace_events(redis, before)
        results.append(rec)
    redis_mod.REDIS_CONN = oracle_redis
    return {"name": case["name"], "results": results}


def generate(names=None):
    with open(os.path.join(HERE, "cases.json"), "r", encoding="utf-8") as f:
        cases = json.load(f)
    if names:
        unknown = set(names) - {c["name"] for c in cases}
        if unknown:
            sys.exit(f"unknown case(s): {sorted(unknown)}")
        cases = [c for c in cases if c["name"] in names]
    ns, api = load_ragflow()
    install_run_recorder()
    import rag.utils.redis_conn as redis_mod

    oracle_redis = redis_mod.REDIS_CONN

    async def main():
        return [await run_case(ns, api, c, oracle_redis) for c in cases]

    out = asyncio.run(main())
    commit_file = os.path.join(ragflow_src(), ".ragflow_commit")
    commit = open(commit_file).read().strip() if os.path.exists(commit_file) else None
    doc = {"ragflow_commit": commit, "agent_id": AGENT_ID, "host": HOST, "cases": out}
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def summary(rec):
    b = rec["body"]
    if isinstance(b, dict) and "success" in b:
        s = f"success={str(b['success']).lower()} message={json.dumps(b['message'], ensure_ascii=False)}"
    elif isinstance(b, dict) and set(b) >= {"code", "message"}:
        s = f"code {b['code']}: {b['message']}"
    else:
        s = json.dumps(b, ensure_ascii=False)
    if len(s) > 110:
        s = s[:107] + "..."
    extra = []
    if "events" in rec:
        extra.append("ran" + (" (raised)" if "run_exception" in rec else ""))
    if "trace" in rec:
        extra.append(f"trace {len(rec['trace'])}")
    return s.replace("|", "\\|").replace("\n", "\\n"), extra


def write_readme_table():
    with open(os.path.join(HERE, "cases.json"), "r", encoding="utf-8") as f:
        cases = {c["name"]: c for c in json.load(f)}
    with open(os.path.join(HERE, "expected.json"), "r", encoding="utf-8") as f:
        expected = json.load(f)
    lines = ["| case | canvas | route | HTTP | answer | |", "|---|---|---|---|---|---|"]
    for c in expected["cases"]:
        case = cases[c["name"]]
        canvas = os.path.splitext(os.path.basename(case["canvas"]))[0]
        for i, rec in enumerate(c["results"]):
            s, extra = summary(rec)
            name = c["name"] if len(c["results"]) == 1 else f"{c['name']} #{i + 1}"
            route = "test" if case.get("test") else "live"
            lines.append(f"| `{name}` | {canvas} | {route} | {rec['status']} | `{s}` | {', '.join(extra)} |")
    path = os.path.join(HERE, "README.md")
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    begin, end = "<!-- BEGIN CASE TABLE (regen.py --readme) -->", "<!-- END CASE TABLE -->"
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--twice", action="store_true", help="generate twice and require byte-identical output")
    ap.add_argument("--check", action="store_true", help="compare with the stored expected.json, write nothing")
    ap.add_argument("--readme", action="store_true", help="rewrite the case table in README.md from expected.json")
    ap.add_argument("--log-level", default="CRITICAL")
    args = ap.parse_args()
    if args.readme:
        write_readme_table()
        os._exit(0)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), stream=sys.stderr)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # RAGFlow print()s
    text = generate(args.names)
    if args.twice:
        if generate(args.names) != text:
            sys.exit("two runs differ")
        print("two runs byte-identical", file=sys.stderr)
    path = os.path.join(HERE, "expected.json")
    if args.check:
        with open(path, "r", encoding="utf-8") as f:
            same = f.read() == text
        print("expected.json is up to date" if same else "expected.json differs", file=sys.stderr)
        real_stdout.flush()
        os._exit(0 if same else 1)
    if args.names:
        real_stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {path}", file=sys.stderr)
    real_stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # RAGFlow's timeout() wrapper leaves daemon threads


if __name__ == "__main__":
    main()
