#!/usr/bin/env python3
"""Regenerate the golden event streams in this folder with RAGFlow's own engine (the oracle).

Reads cases.json (next to this file) and, for every case, runs

    $RAGFLOW_PY -m ragflow_ref.run_canvas <canvas> [--query Q] [--inputs JSON] [--turns JSON]
        [--script FILE] [--default-llm-id ID] [--set path=JSON ...]

from the oracle folder (../shared/reference-oracle relative to the repo root), with the case's
`env` added to the environment, and writes stdout byte for byte to <name>.jsonl.
Cases with "converted": true are first converted with `canvasc convert --to v1` into
converted/<fixture>.v1.json, and the oracle runs on that file.

This script contains no RAGFlow code; it only invokes the oracle.

Usage (from anywhere):
    python3 tests/golden/regen.py                 # regenerate every case
    python3 tests/golden/regen.py NAME ...        # only these cases
    python3 tests/golden/regen.py --check [NAME]  # run and compare with the stored .jsonl, write nothing
    python3 tests/golden/regen.py --twice [NAME]  # run each case twice and require byte-identical output
    python3 tests/golden/regen.py --print-commands
    python3 tests/golden/regen.py --readme        # regenerate the case table and commands in README.md

Environment:
    RAGFLOW_PY      python of the oracle's venv   (default ${XDG_CACHE_HOME:-~/.cache}/ragflow-ref/venv/bin/python)
    RAGFLOW_SRC     exported RAGFlow sources      (default ${XDG_CACHE_HOME:-~/.cache}/ragflow-ref/src)
    RAGFLOW_ORACLE  oracle folder                 (default <repo>/../shared/reference-oracle)
    CANVASC         a built canvasc binary for the conversions (default: cargo run -q -p canvasc --)
    GOLDEN_TIMEOUT  seconds per oracle run        (default 300)
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ragflow-ref")


def oracle_dir():
    return os.environ.get("RAGFLOW_ORACLE") or os.path.normpath(os.path.join(REPO, "..", "shared", "reference-oracle"))


def ragflow_py():
    return os.environ.get("RAGFLOW_PY") or os.path.join(CACHE, "venv", "bin", "python")


def ragflow_src():
    return os.environ.get("RAGFLOW_SRC") or os.path.join(CACHE, "src")


def converted_path(case):
    """Repo-relative path of the v1 file the oracle runs for a converted case."""
    stem = os.path.splitext(os.path.basename(case["canvas"]))[0]
    return os.path.join("tests", "golden", "converted", stem + ".v1.json")


def convert(case, out_abs):
    """canvasc convert --to v1 <canvas> > out_abs"""
    canvasc = os.environ.get("CANVASC")
    cmd = [canvasc] if canvasc else ["cargo", "run", "-q", "-p", "canvasc", "--"]
    cmd += ["convert", "--to", "v1", case["canvas"]]
    res = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE)
    if res.returncode != 0 or not res.stdout.strip():
        stored = os.path.join(REPO, converted_path(case))
        if os.path.exists(stored):
            print(f"warning: `{' '.join(cmd)}` failed (exit {res.returncode}); using the stored {converted_path(case)}",
                  file=sys.stderr, flush=True)
            if os.path.abspath(stored) != os.path.abspath(out_abs):
                with open(stored, "rb") as src, open(out_abs, "wb") as dst:
                    dst.write(src.read())
            return
        sys.exit(f"conversion failed: {' '.join(cmd)} (exit {res.returncode})")
    os.makedirs(os.path.dirname(out_abs), exist_ok=True)
    with open(out_abs, "wb") as f:
        f.write(res.stdout)


def oracle_args(case, canvas, root=REPO):
    """Arguments after `python -m ragflow_ref.run_canvas`; repo-relative paths are joined to root
    (the oracle runs from its own folder, so file arguments must be absolute).
    Returns a list of (argument, is_path)."""
    args = [(os.path.join(root, canvas), True)]
    if "turns" in case:
        args += [("--turns", False), (json.dumps(case["turns"], ensure_ascii=False), False)]
    else:
        args += [("--query", False), (case.get("query", ""), False)]
        if case.get("inputs"):
            args += [("--inputs", False), (json.dumps(case["inputs"], ensure_ascii=False), False)]
    if case.get("script"):
        args += [("--script", False), (os.path.join(root, case["script"]), True)]
    if case.get("default_llm_id"):
        args += [("--default-llm-id", False), (case["default_llm_id"], False)]
    for path, value in (case.get("set") or {}).items():
        args += [("--set", False), (f"{path}={json.dumps(value, ensure_ascii=False)}", False)]
    return args


class SlowServer:
    """Runs slow_server.py (the status service of timeout fixtures) while a case that needs it runs."""

    def __init__(self, case):
        self.wanted = "slow-server" in case.get("needs", [])
        self.proc = None

    def __enter__(self):
        if self.wanted:
            import socket
            import time
            self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "slow_server.py")])
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", 18765), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()


class McpFixtureServer:
    """Runs the fixture MCP server (the Rust `mcp-fixture-server` the tests start in-process) while
    a case that needs it runs. $MCP_FIXTURE_SERVER names a built binary; otherwise cargo runs it."""

    def __init__(self, case):
        self.wanted = "mcp-server" in case.get("needs", [])
        self.proc = None

    def __enter__(self):
        if self.wanted:
            import socket
            import time
            cmd = [os.environ["MCP_FIXTURE_SERVER"]] if os.environ.get("MCP_FIXTURE_SERVER") else \
                ["cargo", "run", "-q", "-p", "canvasc-tests", "--bin", "mcp-fixture-server"]
            self.proc = subprocess.Popen(cmd, cwd=REPO)
            for _ in range(3000):
                try:
                    socket.create_connection(("127.0.0.1", 18766), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.1)
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()


def run_oracle(case, canvas_rel):
    with SlowServer(case), McpFixtureServer(case):
        return run_oracle_now(case, canvas_rel)


def driver_args(case, repo):
    """The oracle entry point: run_canvas, or a driver of ours around it."""
    if "cancel_after" in case:
        return [os.path.join(repo, "tests", "golden", "cancel_after.py"), str(case["cancel_after"])]
    if "mcp_servers" in case:
        return [os.path.join(repo, "tests", "golden", "oracle_mcp.py")]
    return ["-m", "ragflow_ref.run_canvas"]


def case_env(case):
    env = dict(case.get("env") or {})
    if "mcp_servers" in case:
        env["CANVASC_MCP_SERVERS"] = json.dumps(case["mcp_servers"], separators=(",", ":"))
    return env


def run_oracle_now(case, canvas_rel):
    env = dict(os.environ)
    env["RAGFLOW_SRC"] = ragflow_src()
    env.update(case_env(case))
    cmd = [ragflow_py()] + driver_args(case, REPO) + [a for a, _ in oracle_args(case, canvas_rel)]
    timeout = float(os.environ.get("GOLDEN_TIMEOUT", "300"))
    res = subprocess.run(cmd, cwd=oracle_dir(), env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout)
    return res.stdout


def turn_results(stream: bytes):
    """Result of every turn: finished | user_inputs | error | exception.
    An empty list means the canvas could not even be built (`_exception` before any `_turn`)."""
    results = []
    events = None
    for line in stream.decode("utf-8").splitlines():
        if not line.strip():
            continue
        ev = json.loads(line).get("event")
        if ev == "_turn":
            events = []
            results.append(events)
        elif events is not None:
            events.append(ev)

    def one(evs):
        if "_exception" in evs:
            return "exception"  # Canvas.run() raised
        if "workflow_finished" in evs:
            return "finished"
        if "user_inputs" in evs:
            return "user_inputs"  # paused at a UserFillUp
        return "error"  # stopped on a component error without workflow_finished

    return [one(evs) for evs in results]


def classify(stream: bytes):
    """Result of the last turn; "refused" when the canvas could not be built."""
    results = turn_results(stream)
    return results[-1] if results else "refused"


def shell_command(case):
    """The command as a shell line, run from the oracle folder, with $REPO for the repo root."""
    canvas = converted_path(case) if case.get("converted") else case["canvas"]
    parts = [f'"{a}"' if is_path else shlex.quote(a) for a, is_path in oracle_args(case, canvas, "$REPO")]
    env = "".join(f"{k}={shlex.quote(v)} " for k, v in case_env(case).items())
    driver = " ".join(f'"{a.replace(REPO, "$REPO", 1)}"' if a.startswith(REPO) else a for a in driver_args(case, REPO))
    return f"{env}$RAGFLOW_PY {driver} " + " ".join(parts) + f' > "$REPO/tests/golden/{case["name"]}.jsonl"'


BEGIN = "<!-- BEGIN GENERATED by regen.py --readme: do not edit by hand -->"
END = "<!-- END GENERATED -->"


def readme_section(cases):
    def md(text):
        return str(text).replace("|", "\\|").replace("\n", " ")

    out = [BEGIN, "", "### Cases", "",
           "| case | canvas | oracle_result | turns | needs | deterministic | note |",
           "|---|---|---|---|---|---|---|"]
    for c in cases:
        canvas = f"`{c['canvas']}`" + (f" → `{converted_path(c)}`" if c.get("converted") else "")
        turns = " → ".join(c["turn_results"]) if "turn_results" in c else "1"
        det = "yes" if c.get("deterministic", True) else "**no**"
        out.append(f"| `{c['name']}` | {canvas} | {c['oracle_result']} | {turns} | {', '.join(c['needs']) or '–'} | {det} | {md(c.get('note', ''))} |")
    out += ["", "### Exact commands", "",
            "Run from the oracle folder with `REPO` set to the repo root (see *Regenerating*); converted",
            "cases first need `converted/` (written by `regen.py`, or by hand with the `canvasc convert` line).", "",
            "```sh"]
    seen = set()
    for c in cases:
        if c.get("converted") and c["canvas"] not in seen:
            seen.add(c["canvas"])
            out.append(f'(cd "$REPO" && cargo run -q -p canvasc -- convert --to v1 {c["canvas"]} > {converted_path(c)})')
    for c in cases:
        out.append(shell_command(c))
    out += ["```", "", END]
    return "\n".join(out)


def write_readme(cases):
    path = os.path.join(HERE, "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    a, b = text.index(BEGIN), text.index(END) + len(END)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:a] + readme_section(cases) + text[b:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--check", action="store_true", help="compare with the stored streams; write nothing")
    ap.add_argument("--twice", action="store_true", help="run every case twice; fail unless byte-identical")
    ap.add_argument("--print-commands", action="store_true")
    ap.add_argument("--readme", action="store_true", help="rewrite the generated part of README.md from cases.json and exit")
    args = ap.parse_args()

    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    if args.readme:
        write_readme(cases)
        return 0
    if args.names:
        unknown = set(args.names) - {c["name"] for c in cases}
        if unknown:
            sys.exit(f"unknown case(s): {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c["name"] in args.names]
    if args.print_commands:
        for c in cases:
            print(shell_command(c))
        return 0

    failures = 0
    tmpdir = tempfile.mkdtemp(prefix="golden-") if args.check else None
    done_conversions = set()
    for case in cases:
        name = case["name"]
        canvas = case["canvas"]
        if case.get("converted"):
            canvas = converted_path(case)
            if args.check:  # --check writes nothing under tests/golden: convert into a temp dir
                canvas = os.path.join(tmpdir, os.path.basename(canvas))
            if canvas not in done_conversions:
                convert(case, os.path.join(REPO, canvas))
                done_conversions.add(canvas)
        status = []
        try:
            out = run_oracle(case, canvas)
            if args.twice:
                again = run_oracle(case, canvas)
                if again != out:
                    status.append("NOT DETERMINISTIC" + (" (expected: deterministic=false)" if case.get("deterministic") is False else ""))
                    if case.get("deterministic") is not False:
                        failures += 1
        except subprocess.TimeoutExpired:
            print(f"{name}: TIMEOUT", flush=True)
            failures += 1
            continue
        result = classify(out)
        if case.get("oracle_result") and result != case["oracle_result"]:
            status.append(f"result {result} != manifest {case['oracle_result']}")
            failures += 1
        if "turn_results" in case and turn_results(out) != case["turn_results"]:
            status.append(f"turn results {turn_results(out)} != manifest {case['turn_results']}")
            failures += 1
        target = os.path.join(HERE, name + ".jsonl")
        if args.check:
            try:
                with open(target, "rb") as f:
                    old = f.read()
            except FileNotFoundError:
                old = None
            if old != out:
                status.append("DIFFERS from stored stream" if old is not None else "no stored stream")
                if case.get("deterministic") is not False:
                    failures += 1
        else:
            with open(target, "wb") as f:
                f.write(out)
        print(f"{name}: {result}, {len(out.splitlines())} lines" + ("; " + "; ".join(status) if status else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
