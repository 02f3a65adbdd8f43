"""`canvasc serve --demo` (issue 43): the `openai` snippet the demo prints, run as printed (with
this interpreter for `python3`), answers with the demo agent's scripted greeting."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import serving


def test_the_openai_snippet_the_demo_prints_answers() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        canvasc = serving.binary("CANVASC_BIN", "canvasc")
        env = {k: v for k, v in os.environ.items() if k not in serving.IGNORED_ENV}
        env.pop("REDIS_URL", None)
        process = serving.Process(
            [str(canvasc), "serve", "--demo", "--addr", "127.0.0.1:0", "--data-dir",
             str(Path(scratch) / "data"), "--build-jobs", "0"],
            Path(scratch) / "serve.log",
            env=env,
            cwd=Path(scratch),
        )
        try:
            process.url()
            deadline = time.monotonic() + 30
            snippet = None
            while snippet is None and time.monotonic() < deadline:
                snippet = next((l.strip() for l in process.lines if l.strip().startswith("python3 -c ")), None)
                time.sleep(0.05)
            assert snippet, f"no snippet: {process.lines!r} {process.stderr()!r}"
            args = shlex.split(snippet)
            args[0] = sys.executable
            done = subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
            assert done.returncode == 0, done.stderr
            assert "canvasc's demo agent" in done.stdout, done.stdout
        finally:
            process.stop()
