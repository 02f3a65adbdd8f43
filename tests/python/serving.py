"""What the client tests talk to: `canvasc serve` on a free 127.0.0.1 port with a temporary
data directory (embedded SQLite), its models answered by the scripted OpenAI-compatible server
(`tests/src/bin/scripted-llm-server.rs`, the Rust test double of `shared/spec/scripted-llm.md`),
and an account set up as RAGFlow's own test fixtures set one up (`shared/spec/http-api.md` §14):
register, log in, create an API key.

The binaries come from `$CANVASC_BIN` and `$CANVASC_SCRIPTED_LLM_BIN`, else from the cargo
target directory (`$CARGO_TARGET_DIR`, else `target/`), debug build first.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[2]
URL = re.compile(r"http://127\.0\.0\.1:\d+")
START_TIMEOUT = 60.0
# Settings of the caller's environment that would point the server elsewhere.
IGNORED_ENV = {"CANVASC_CONFIG", "DATABASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"}


def binary(env: str, name: str) -> Path:
    """The binary `$env` names, else `name` in the cargo target directory."""
    named = os.environ.get(env)
    if named:
        return Path(named)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    for profile in ("debug", "release"):
        candidate = target / profile / name
        if candidate.exists():
            return candidate
    raise RuntimeError(f"{name} is not built: run `cargo build` first or set ${env}")


class Process:
    """A child process whose stdout names the URL it serves; its output goes to a log file."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str] | None = None, cwd: Path | None = None):
        self.log = log
        self.lines: list[str] = []
        self._url: str | None = None
        self._seen = threading.Condition()
        self._log_file = log.open("w")
        self.proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=self._log_file,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env or dict(os.environ),
            cwd=cwd,
        )
        # Drain stdout for the whole life of the process, so a chatty child never blocks on a
        # full pipe.
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._seen:
                self.lines.append(line.rstrip("\n"))
                found = URL.search(line)
                if found and self._url is None:
                    self._url = found.group(0)
                self._seen.notify_all()
        with self._seen:
            self._seen.notify_all()

    def url(self, timeout: float = START_TIMEOUT) -> str:
        """The first `http://127.0.0.1:PORT` the process printed."""
        deadline = time.monotonic() + timeout
        with self._seen:
            while self._url is None:
                left = deadline - time.monotonic()
                if self.proc.poll() is not None or left <= 0:
                    raise RuntimeError(
                        f"{self.proc.args[0]} printed no URL (exit {self.proc.poll()}); "
                        f"stdout: {self.lines!r}; stderr: {self.stderr()!r}"
                    )
                self._seen.wait(min(left, 0.5))
            return self._url

    def stderr(self) -> str:
        self._log_file.flush()
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()


@dataclass
class Served:
    """A running `canvasc serve` and the credentials of one registered user."""

    base_url: str
    llm_base_url: str
    email: str
    login_token: str
    api_key: str
    processes: list[Process] = field(default_factory=list)

    def api(self, path: str) -> str:
        return f"{self.base_url}/api/v1{path}"

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()


def start(script: Path, data_dir: Path | None = None) -> Served:
    """Starts the scripted model on `script`, then `canvasc serve` on it, then sets up an
    account. The caller stops both with `Served.stop()`."""
    data_dir = data_dir or Path(tempfile.mkdtemp(prefix="canvasc-python-"))
    processes: list[Process] = []
    try:
        llm = Process(
            [str(binary("CANVASC_SCRIPTED_LLM_BIN", "scripted-llm-server")), str(script)],
            data_dir / "scripted-llm.log",
        )
        processes.append(llm)
        llm_base_url = llm.url() + "/v1"
        # No configuration file (the server runs in the data directory, which has no
        # canvasc.toml) and no other model settings: every model is the scripted one
        # (README, Configuration), and the database is the embedded SQLite.
        env = {k: v for k, v in os.environ.items() if k not in IGNORED_ENV}
        env["CANVASC_LLM_BASE_URL"] = llm_base_url
        env["CANVASC_LLM_API_KEY"] = "scripted"
        serve = Process(
            [
                str(binary("CANVASC_BIN", "canvasc")),
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--data-dir",
                str(data_dir / "data"),
                # The client tests register their own users.
                "--registration",
                "open",
            ],
            data_dir / "serve.log",
            env,
            cwd=data_dir,
        )
        processes.append(serve)
        base_url = serve.url()
        wait_until_up(base_url, serve)
        email, login_token, api_key = account(base_url)
        return Served(base_url, llm_base_url, email, login_token, api_key, processes)
    except BaseException:
        for process in reversed(processes):
            process.stop()
        raise


def wait_until_up(base_url: str, process: Process) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            if requests.get(f"{base_url}/api/v1/system/ping", timeout=2).ok:
                return
        except requests.RequestException:
            pass
        if process.proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"canvasc serve did not answer the ping: {process.stderr()}")
        time.sleep(0.1)


def account(base_url: str) -> tuple[str, str, str]:
    """Registers a user, logs in and creates an API key, as RAGFlow's conftest does."""
    email = f"client-{uuid.uuid4().hex[:12]}@example.com"
    # RAGFlow's clients send the password RSA-encrypted and base64-encoded; the server keeps
    # it opaque, so any base64 text stands for one.
    password = "Y2FudmFzYy1jbGllbnQtdGVzdHM="
    api = f"{base_url}/api/v1"
    registered = requests.post(
        f"{api}/users", json={"email": email, "nickname": "client", "password": password}
    ).json()
    if registered.get("code") != 0:
        raise RuntimeError(f"register: {registered}")
    login = requests.post(f"{api}/auth/login", json={"email": email, "password": password})
    if login.json().get("code") != 0:
        raise RuntimeError(f"login: {login.text}")
    token = login.headers["Authorization"]
    key = requests.post(f"{api}/system/tokens", headers={"Authorization": token}).json()
    if key.get("code") != 0:
        raise RuntimeError(f"create API key: {key}")
    return email, token, key["data"]["token"]


@dataclass
class Golden:
    """One turn RAGFlow's own engine ran on a fixture (`tests/golden/`, from the reference
    oracle): the canvas, the query, and the `message` events the run emitted."""

    name: str
    dsl: dict
    script: Path
    query: str
    messages: list[dict]

    def streamed_text(self) -> str:
        """The answer as clients that concatenate `message` deltas read it (the SDK's stream,
        the OpenAI-compatible mode): think markers carry no text."""
        return "".join(m.get("content", "") for m in self.messages)

    def json_text(self) -> str:
        """`data.data.content` of a non-streaming native answer (http-api.md §7.4): the deltas
        with `<think>`/`</think>` where the think markers were."""
        parts = []
        for m in self.messages:
            if m.get("start_to_think"):
                parts.append("<think>")
            elif m.get("end_to_think"):
                parts.append("</think>")
            parts.append(m.get("content", ""))
        return "".join(parts)


def golden(name: str) -> Golden:
    cases = json.loads((REPO / "tests/golden/cases.json").read_text())
    case = next(c for c in cases if c["name"] == name)
    events = [json.loads(line) for line in (REPO / f"tests/golden/{name}.jsonl").read_text().splitlines() if line.strip()]
    turns = [e for e in events if e.get("event") == "_turn"]
    if len(turns) != 1:
        raise RuntimeError(f"golden {name}: expected one turn, found {len(turns)}")
    return Golden(
        name=name,
        dsl=json.loads((REPO / case["canvas"]).read_text()),
        script=REPO / case["script"],
        query=turns[0]["data"]["query"],
        messages=[e["data"] for e in events if e.get("event") == "message"],
    )
