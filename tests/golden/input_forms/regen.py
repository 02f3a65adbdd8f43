#!/usr/bin/env python3
"""Regenerate expected.json: RAGFlow's answer to `GET /api/v1/agents/{id}/components/{cid}/input-form`
for every component of every canvas listed in canvases.txt, and for one id no canvas has.

Run with the reference oracle's python (its README: `$RAGFLOW_PY`):

    cd tests/golden/input_forms && $RAGFLOW_PY regen.py          # write expected.json
    $RAGFLOW_PY regen.py --check                                 # compare with the stored expected.json

RAGFlow's `get_agent_component_input_form` (api/apps/restful_apis/agent_api.py) and the answers it
builds, `get_json_result`, `get_data_error_result` and `server_error_response`
(api/utils/api_utils.py), are loaded at run time from $RAGFLOW_SRC with the oracle's
`astload.load_defs`; `agent.canvas.Canvas` is RAGFlow's real engine through the oracle's
bootstrap. The route's decorators (routing, login, tenant, access) are identity functions here:
the test checks access on its own. `UserCanvasService.get_by_id` answers the canvas of the case.
This file contains no RAGFlow code.
"""

import argparse
import json
import logging
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SHARED = os.environ.get("CANVASC_SHARED") or os.path.normpath(os.path.join(REPO, "..", "shared"))
ORACLE = os.environ.get("RAGFLOW_ORACLE") or os.path.join(SHARED, "reference-oracle")
sys.dont_write_bytecode = True
sys.path.insert(0, ORACLE)

from ragflow_ref import bootstrap  # noqa: E402

bootstrap.install()
from ragflow_ref.astload import load_defs  # noqa: E402
from ragflow_ref.run_canvas import to_jsonable  # noqa: E402

AGENT_ID = "input-form-agent"
TENANT = "tenant-1"
MISSING = "NoSuchComponent:0"


class Record:
    def __init__(self, dsl):
        self.id = AGENT_ID
        self.user_id = TENANT
        self.dsl = dsl


class FakeUserCanvasService:
    dsl = None

    @classmethod
    def get_by_id(cls, agent_id):
        return True, Record(cls.dsl)


class FakeManager:
    @staticmethod
    def route(*a, **kw):
        return lambda f: f


def identity(f):
    return f


def fake_jsonify(obj):
    return obj


def load_ragflow():
    from common.constants import RetCode

    api = {"sys": sys, "logging": logging, "RetCode": RetCode, "jsonify": fake_jsonify, "has_app_context": lambda: True}
    load_defs("api/utils/api_utils.py",
              ["_safe_jsonify", "get_data_error_result", "server_error_response", "get_json_result"],
              api, module_name="api.utils.api_utils")
    ns = {
        "json": json, "logging": logging, "manager": FakeManager, "login_required": identity,
        "add_tenant_id_to_kwargs": identity, "_require_canvas_access_sync": identity,
        "UserCanvasService": FakeUserCanvasService, "get_json_result": api["get_json_result"],
        "get_data_error_result": api["get_data_error_result"],
        "server_error_response": api["server_error_response"],
    }
    load_defs("api/apps/restful_apis/agent_api.py", ["get_agent_component_input_form"], ns,
              module_name="api.apps.restful_apis.agent_api")
    return ns["get_agent_component_input_form"]


def canvases():
    with open(os.path.join(HERE, "canvases.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line


def read_canvas(rel):
    base = SHARED if rel.startswith("corpus/") else REPO
    with open(os.path.join(base, rel), encoding="utf-8") as f:
        doc = json.load(f)
    return doc.get("dsl", doc) if isinstance(doc, dict) and "components" not in doc else doc


def default_models(dsl):
    """canvasc runs an LLM or Agent whose `llm_id` is empty (every template's) on the tenant's
    default model (frontend/src/construct.rs); RAGFlow's check refuses it. The canvases are
    asked with that model named (an Agent's sub-agents too), so the forms, not that decision,
    are compared."""
    def fill(params):
        if not isinstance(params, dict):
            return
        if params.get("llm_id") == "":
            params["llm_id"] = "default"
        for tool in params.get("tools") or []:
            if isinstance(tool, dict):
                fill(tool.get("params"))

    for cpn in (dsl.get("components") or {}).values():
        if isinstance(cpn, dict) and isinstance(cpn.get("obj"), dict):
            fill(cpn["obj"].get("params"))
    return dsl


def answer_of(view, cid):
    logging.disable(logging.CRITICAL)
    rv = view(AGENT_ID, cid, TENANT)
    return to_jsonable(rv)


def regenerate():
    view = load_ragflow()
    out = {}
    for rel in canvases():
        dsl = default_models(read_canvas(rel))
        FakeUserCanvasService.dsl = dsl
        ids = list(dsl.get("components", {}).keys()) + [MISSING]
        out[rel] = {cid: answer_of(view, cid) for cid in ids}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    got = regenerate()
    text = json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    path = os.path.join(HERE, "expected.json")
    if args.check:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit("expected.json differs from RAGFlow's answers: run regen.py")
        print("expected.json matches RAGFlow's answers")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {path}: {sum(len(v) for v in got.values())} answers on {len(got)} canvases")


if __name__ == "__main__":
    main()
