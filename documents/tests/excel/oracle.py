"""Expected ExcelProcessor outputs from RAGFlow's own engine (../../../shared/reference-oracle).

For each case of cases.json: a canvas Begin -> ExcelProcessor, the input files (written by
`cargo run -p canvasc-documents --example excel_fixtures -- <dir>`) handed to RAGFlow's
FileService through the oracle's `files` fixture, and the component's outputs from the final
`_state` line written to expected/<case>.json. NaN (which Python's json writes as `NaN`) is
written as null, as canvasc reports it; the random `doc_id` of an attachment as "<doc_id>".

Run with the oracle's python from documents/tests/excel:
  $RAGFLOW_PY oracle.py <fixture dir> <reference-oracle dir>
"""
import base64
import json
import math
import os
import subprocess
import sys
import tempfile

fixtures, oracle = sys.argv[1], sys.argv[2]
cases = json.load(open("cases.json"))


def clean(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v


for name, case in cases.items():
    files = case.get("files", [])
    inputs = {}
    begin_inputs = {}
    blobs = {}
    refs = []
    for i, f in enumerate(files):
        key = f"file{i}"
        begin_inputs[key] = {"name": key, "type": "line", "optional": True}
        inputs[key] = {"value": {"id": f"fid-{f}", "name": f}}
        blobs[f"fid-{f}"] = {"blob_b64": base64.b64encode(open(os.path.join(fixtures, f), "rb").read()).decode()}
        refs.append(f"begin@{key}")
    params = {k: v for k, v in case.items() if k not in ("files", "data")}
    params["input_files"] = refs
    if "data" in case:
        begin_inputs["data"] = {"name": "data", "type": "line", "optional": True}
        inputs["data"] = {"value": case["data"]}
        params["transform_data"] = "begin@data"
    dsl = {
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"inputs": begin_inputs}},
                      "downstream": ["ExcelProcessor:0"], "upstream": []},
            "ExcelProcessor:0": {"obj": {"component_name": "ExcelProcessor", "params": params},
                                 "downstream": [], "upstream": ["begin"]},
        },
        "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
    }
    with tempfile.TemporaryDirectory() as tmp:
        dsl_path = os.path.join(tmp, "dsl.json")
        script_path = os.path.join(tmp, "script.json")
        json.dump(dsl, open(dsl_path, "w"))
        json.dump({"files": blobs}, open(script_path, "w"))
        out = subprocess.run(
            [sys.executable, "-m", "ragflow_ref.run_canvas", dsl_path, "--query", "",
             "--inputs", json.dumps(inputs), "--script", script_path, "--raw"],
            cwd=oracle, capture_output=True, text=True, check=True).stdout
    state = None
    for line in out.splitlines():
        ev = json.loads(line.replace("NaN", "null"))
        if ev["event"] == "_state":
            state = ev["data"]
        if ev["event"] == "_exception":
            raise SystemExit(f"{name}: {ev['data']}")
    outputs = state["outputs"]["ExcelProcessor:0"]
    expected = {k: clean(v) for k, v in outputs.items() if k not in ("_created_time", "_elapsed_time")}
    if "attachment" in expected:
        expected["attachment"]["doc_id"] = "<doc_id>"
    json.dump(expected, open(os.path.join("expected", f"{name}.json"), "w"), ensure_ascii=False, indent=1)
    print(name, "ok")
