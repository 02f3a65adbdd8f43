#!/usr/bin/env python3
"""Run generated canvases through RAGFlow's own engine (the reference oracle) and write their
golden streams.

For every DIR/NNNN.json (canvas) with DIR/NNNN.case.json (its turns, written by
`cargo run -p canvasc-tests --bin fuzzgen`), this runs the equivalent of

    $RAGFLOW_PY -m ragflow_ref.run_canvas DIR/NNNN.json --turns "$(jq -c .turns DIR/NNNN.case.json)" > DIR/NNNN.jsonl

from the oracle folder. To amortise Python's start-up (RAGFlow's imports take seconds), one
oracle process imports the engine once and forks a child per canvas; each child calls the
oracle's own `main()` with exactly those arguments, so its output is the command's output.

This script contains no RAGFlow code; it only invokes the oracle.

Each canvas runs --runs times (default 3); its golden is written only when every run printed
the same bytes. RAGFlow runs a batch's components on threads and a few canvases race; those
get no golden and are listed in DIR/unstable.txt (the test reports them as skipped).

Usage:
    python3 tests/fuzz/regen.py [--dir DIR] [--jobs N] [--runs R] [NNNN ...]   # write DIR/NNNN.jsonl
    python3 tests/fuzz/regen.py --twice [...]   # run each case twice, require identical bytes, write nothing
    python3 tests/fuzz/regen.py --check [...]   # compare with the stored .jsonl, write nothing

Environment: RAGFLOW_PY, RAGFLOW_SRC, RAGFLOW_ORACLE as for tests/golden/regen.py (the oracle
folder defaults to $CANVASC_SHARED/reference-oracle, else ../shared/reference-oracle).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ragflow-ref")


def oracle_dir():
    if os.environ.get("RAGFLOW_ORACLE"):
        return os.environ["RAGFLOW_ORACLE"]
    shared = os.environ.get("CANVASC_SHARED") or os.path.join(REPO, "..", "shared")
    return os.path.normpath(os.path.join(shared, "reference-oracle"))


def ragflow_py():
    return os.environ.get("RAGFLOW_PY") or os.path.join(CACHE, "venv", "bin", "python")


# Runs inside the oracle's venv: import RAGFlow once, then fork one child per job line
# ("<canvas> <turns file> <out file>") read from stdin; print "<out> <exit code>" per job.
WORKER = r"""
import os, resource, signal, sys
results = os.fdopen(os.dup(1), "w")
sys.stdout = sys.stderr  # RAGFlow print()s; only results go to the real stdout
from ragflow_ref import run_canvas, bootstrap
bootstrap.install()
import agent.canvas  # the expensive imports, done once before forking
for line in sys.stdin:
    canvas, turns, out = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        # A runaway canvas must not take the machine down: 4 GB and 120 s per canvas.
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        signal.alarm(120)
        run_canvas.main([canvas, "--turns", "@" + turns, "--out", out])
        os._exit(3)
    _, status = os.waitpid(pid, 0)
    print(out + "\t" + str(os.waitstatus_to_exitcode(status)), file=results, flush=True)
"""


def cases(d, names):
    stems = sorted(f[: -len(".case.json")] for f in os.listdir(d) if f.endswith(".case.json"))
    if names:
        stems = [s for s in stems if s in names]
    return stems


def run_all(d, stems, outdir, jobs):
    """Run every stem through the oracle; returns {stem: exit code}; outputs go to outdir."""
    tmp = tempfile.mkdtemp(prefix="fuzz-turns-")
    lines = []
    for s in stems:
        with open(os.path.join(d, s + ".case.json"), encoding="utf-8") as f:
            case = json.load(f)
        turns = os.path.join(tmp, s + ".turns.json")
        with open(turns, "w", encoding="utf-8") as f:
            json.dump(case["turns"], f, ensure_ascii=False)
        lines.append(f"{os.path.abspath(os.path.join(d, s + '.json'))}\t{turns}\t{os.path.join(outdir, s + '.jsonl')}\n")
    env = dict(os.environ)
    if os.environ.get("RAGFLOW_SRC"):
        env["RAGFLOW_SRC"] = os.environ["RAGFLOW_SRC"]
    chunks = [lines[i::jobs] for i in range(jobs)]
    # RAGFlow's stderr (warnings, logging) is kept for inspection, not shown.
    log = open(os.path.join(tmp, "oracle-stderr.log"), "w")
    procs = []
    for chunk in chunks:
        if not chunk:
            continue
        p = subprocess.Popen([ragflow_py(), "-c", WORKER], cwd=oracle_dir(), env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        p.stdin.write("".join(chunk))
        p.stdin.close()
        procs.append(p)
    codes = {}
    for p in procs:
        for line in p.stdout:
            out, code = line.rstrip("\n").split("\t")
            codes[os.path.basename(out)[: -len(".jsonl")]] = int(code)
        p.wait()
    return codes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--dir", default=os.path.join(HERE, "cases"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--twice", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--runs", type=int, default=3, help="runs per canvas; a golden is written only when all agree")
    args = ap.parse_args()
    stems = cases(args.dir, set(args.names))
    if args.twice or args.check:
        first = tempfile.mkdtemp(prefix="fuzz-a-")
        run_all(args.dir, stems, first, args.jobs)
        if args.twice:
            other = tempfile.mkdtemp(prefix="fuzz-b-")
            run_all(args.dir, stems, other, args.jobs)
        else:
            other = args.dir
        bad = []
        for s in stems:
            a = open(os.path.join(first, s + ".jsonl"), "rb").read()
            b = open(os.path.join(other, s + ".jsonl"), "rb").read() if os.path.exists(os.path.join(other, s + ".jsonl")) else b""
            if a != b:
                bad.append(s)
        print(f"{len(stems) - len(bad)} of {len(stems)} identical; differ: {' '.join(bad) or 'none'}")
        sys.exit(1 if bad else 0)
    # RAGFlow runs a batch's components on threads, and a few canvases race (an Iteration's
    # index, a Message's inputs): only a stream that is the same in every run is a golden.
    outs = [tempfile.mkdtemp(prefix=f"fuzz-run{i}-") for i in range(args.runs)]
    codes = {}
    for out in outs:
        codes = run_all(args.dir, stems, out, args.jobs)
    refused = sorted(s for s, c in codes.items() if c == 2)
    died = sorted(s for s, c in codes.items() if c not in (0, 2))
    unstable = []
    for s in stems:
        golden = os.path.join(args.dir, s + ".jsonl")
        runs = []
        for out in outs:
            p = os.path.join(out, s + ".jsonl")
            runs.append(open(p, "rb").read() if os.path.exists(p) else None)
        if s in died or any(r != runs[0] for r in runs):
            if os.path.exists(golden):
                os.remove(golden)
            if s not in died:
                unstable.append(s)
            continue
        with open(golden, "wb") as f:
            f.write(runs[0])
    listing = os.path.join(args.dir, "unstable.txt")
    previous = open(listing).read().split() if os.path.exists(listing) else []
    keep = sorted((set(previous) - set(stems)) | set(unstable) | set(died))
    with open(listing, "w") as f:
        f.write("".join(s + "\n" for s in keep))
    print(f"{len(codes)} canvases run {args.runs} times; {len(refused)} could not be built by RAGFlow: {' '.join(refused) or 'none'}; "
          f"{len(died)} exceeded 120 s or 4 GB: {' '.join(died) or 'none'}; "
          f"{len(unstable)} differ between runs: {' '.join(unstable) or 'none'} (no golden; listed in unstable.txt)")
    sys.exit(1 if len(codes) != len(stems) else 0)

if __name__ == "__main__":
    main()
