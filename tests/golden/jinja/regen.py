"""Regenerate expected.json: every case rendered by Jinja2 itself, exactly as RAGFlow renders.

RAGFlow's StringTransform (merge) and Message build one module-level
`jinja2.sandbox.SandboxedEnvironment()` and call `from_string(script).render(kwargs)`, where every
kwarg is a string (the element's value, stringified by `get_kwargs`). This script does the same
for each case in cases.py and records the rendered text, or the exception's class and message
(`phase` says whether `from_string` or `render` raised).

Run with the reference oracle's venv (Jinja2 3.1.6):
    cd tests/golden/jinja && /root/.cache/ragflow-ref/venv/bin/python regen.py
"""

import json
import os

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from cases import CASES, KWARGS

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    env = SandboxedEnvironment()
    out = []
    seen = set()
    for case in CASES:
        name, template = case[0], case[1]
        kwargs = dict(KWARGS)
        if len(case) > 2:
            kwargs.update(case[2])
        assert name not in seen, name
        seen.add(name)
        record = {"name": name, "template": template, "kwargs": kwargs}
        try:
            tpl = env.from_string(template)
        except Exception as e:  # noqa: BLE001 - record whatever Jinja2 raises
            record["error"] = {"phase": "compile", "class": type(e).__name__, "message": str(e)}
            out.append(record)
            continue
        try:
            record["result"] = tpl.render(kwargs)
        except Exception as e:  # noqa: BLE001
            record["error"] = {"phase": "render", "class": type(e).__name__, "message": str(e)}
        out.append(record)
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"jinja2": jinja2.__version__, "cases": out}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(out)} cases")


if __name__ == "__main__":
    main()
