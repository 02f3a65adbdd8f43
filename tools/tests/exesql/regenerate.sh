#!/bin/sh
# Expected ExeSQL outputs from RAGFlow's engine (the reference oracle, /work/shared/reference-oracle):
# the oracle's database driver returns the rows of script.<db>.json, which are the rows the test
# creates in that database (pymysql gives BOOLEAN as 1/0, psycopg2 as True/False).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=${RAGFLOW_PY:-$HOME/.cache/ragflow-ref/venv/bin/python}
cd "${CANVASC_SHARED:-/work/shared}/reference-oracle"
for db in mysql postgres; do
  "$py" -m ragflow_ref.run_canvas "$here/canvas.json" \
    --query 'SELECT id, name, score, bonus, active FROM people ORDER BY name' \
    --script "$here/script.$db.json" 2>/dev/null |
    "$py" -c 'import json,sys
for line in sys.stdin:
    e = json.loads(line)
    if e.get("event") == "_state":
        o = e["data"]["outputs"]["ExeSQL:Q"]
        print(json.dumps({"json": o["json"], "formalized_content": o["formalized_content"]}, ensure_ascii=False, indent=1))' \
    > "$here/expected.$db.json"
done
