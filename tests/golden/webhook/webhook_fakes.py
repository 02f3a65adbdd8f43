"""Fakes for regen.py that need no RAGFlow code: the Quart request, REDIS_CONN and Quart responses.

Kept apart from regen.py so that check_fakes.py can compare FakeRequest with a real Quart
0.20 request (and the response content types with real Quart responses) in a venv that has Quart.
"""

import base64
import binascii
import codecs
import json
import logging
import math
import time
from urllib.parse import parse_qsl, quote

HOST = "127.0.0.1"  # the Host header of the modelled request (the Rust test sends 127.0.0.1:<port>)


# --------------------------------------------------------------------------- fake request

def _url_quote_errors(e):
    # werkzeug registers "werkzeug.url_quote": invalid bytes stay percent-encoded
    return quote(e.object[e.start:e.end], safe=""), e.end


codecs.register_error("webhook-golden.url_quote", _url_quote_errors)


class MultiDict:
    """The parts of werkzeug's MultiDict that RAGFlow uses: items() and dict() give the first value."""

    def __init__(self, pairs=()):
        self._pairs = list(pairs)
        self._first = {}
        for k, v in self._pairs:
            self._first.setdefault(k, v)

    def items(self):
        return list(self._first.items())

    def keys(self):
        return list(self._first.keys())

    def __getitem__(self, k):
        return self._first[k]

    def __iter__(self):
        return iter(self._first)

    def __len__(self):
        return len(self._first)

    def get(self, k, default=None):
        return self._first.get(k, default)


class Headers:
    """werkzeug Headers: case-insensitive get() returns the first value; items() yields every pair."""

    def __init__(self, pairs):
        self._pairs = list(pairs)

    def get(self, key, default=None):
        k = key.lower()
        for n, v in self._pairs:
            if n.lower() == k:
                return v
        return default

    def items(self):
        return list(self._pairs)


class BadRequest(Exception):
    """werkzeug.exceptions.BadRequest (raised by get_json on invalid JSON)."""

    code = 400

    def __repr__(self):
        return "<BadRequest '400: Bad Request'>"


class Authorization:
    def __init__(self, auth_type, data=None, token=None):
        self.type = auth_type
        self.parameters = data or {}
        self.token = token

    def __getattr__(self, name):
        return self.parameters.get(name)


def parse_authorization(value):
    """werkzeug.datastructures.Authorization.from_header (3.1)."""
    if not value:
        return None
    scheme, _, rest = value.partition(" ")
    scheme = scheme.lower()
    rest = rest.strip()
    if scheme == "basic":
        try:
            username, _, password = base64.b64decode(rest).decode().partition(":")
        except (binascii.Error, UnicodeError):
            return None
        return Authorization(scheme, {"username": username, "password": password})
    if "=" in rest.rstrip("="):
        raise NotImplementedError("parameterised Authorization headers are not modelled")
    return Authorization(scheme, None, rest)


def parse_multipart(body: bytes, boundary: str):
    """Fields of a well-formed multipart/form-data body (files are not modelled)."""
    form, files = [], []
    delim = b"--" + boundary.encode("ascii")
    parts = body.split(delim)
    for part in parts[1:]:
        if part.startswith(b"--"):
            break
        part = part[2:] if part.startswith(b"\r\n") else part
        head, _, data = part.partition(b"\r\n\r\n")
        if data.endswith(b"\r\n"):
            data = data[:-2]
        headers = {}
        for line in head.decode("latin1").split("\r\n"):
            n, _, v = line.partition(":")
            headers[n.strip().lower()] = v.strip()
        disp = headers.get("content-disposition", "")
        params = {}
        for item in disp.split(";")[1:]:
            k, _, v = item.strip().partition("=")
            params[k.lower()] = v.strip('"')
        if "filename" in params:
            files.append(params["name"])
            continue
        form.append((params["name"], data.decode("utf-8", "replace")))
    if files:
        raise NotImplementedError("file parts are not modelled")
    return MultiDict(form), MultiDict()


class _Awaitable:
    def __init__(self, fn):
        self._fn = fn

    def __await__(self):
        async def co():
            return self._fn()

        return co().__await__()


class FakeRequest:
    def __init__(self, spec):
        self.method = spec["method"]
        self._body = spec.get("body", "").encode("utf-8")
        wire = [("Host", HOST)] + [tuple(h) for h in spec.get("headers", [])]
        if spec.get("chunked"):
            wire.append(("Transfer-Encoding", "chunked"))
        elif "body" in spec:
            wire.append(("Content-Length", str(len(self._body))))
        self.wire_headers = wire
        # quart/asgi.py: headers["Remote-Addr"] = client host, then add(name.title(), value) for the
        # scope's headers (the HTTP server hands them over lower-cased, in wire order)
        self.headers = Headers([("Remote-Addr", spec["remote_addr"])] + [(n.lower().title(), v) for n, v in wire])
        self.remote_addr = self.headers.get("Remote-Addr")
        self.args = MultiDict(parse_qsl(spec.get("query", ""), keep_blank_values=True, errors="webhook-golden.url_quote"))
        self.authorization = parse_authorization(self.headers.get("Authorization"))
        ctype = self.headers.get("Content-Type") or ""
        self.mimetype = ctype.split(";")[0].strip().lower()
        self.mimetype_params = {}
        for item in ctype.split(";")[1:]:
            k, _, v = item.strip().partition("=")
            self.mimetype_params[k.lower()] = v.strip('"')
        self._form = None
        self._body_consumed = False

    @property
    def content_length(self):
        # werkzeug.sansio.utils.get_content_length
        te = self.headers.get("Transfer-Encoding")
        cl = self.headers.get("Content-Length")
        if (te is not None and "chunked" in [x.strip().lower() for x in te.split(",")]) or cl is None:
            return None
        try:
            return max(0, int(cl.strip()))
        except ValueError:
            return 0

    @property
    def is_json(self):
        mt = self.mimetype
        return mt == "application/json" or (mt.startswith("application/") and mt.endswith("+json"))

    async def get_json(self, force=False, silent=False, cache=True):
        if not (force or self.is_json):
            return None
        try:
            return json.loads(self._body.decode())
        except ValueError:
            if silent:
                return None
            raise BadRequest()

    async def get_data(self, cache=True, as_text=False, parse_form_data=False):
        body = b"" if self._body_consumed else self._body
        return body.decode() if as_text else body

    def _load_form(self):
        if self._form is None:
            if self.mimetype == "multipart/form-data":
                boundary = self.mimetype_params.get("boundary", "")
                if not boundary:
                    raise ValueError("Missing boundary")
                self._form = parse_multipart(self._body, boundary)
                self._body_consumed = True  # Quart's multipart parser consumes the body stream
            elif self.mimetype in ("application/x-www-form-urlencoded", "application/x-url-encoded"):
                self._form = (MultiDict(parse_qsl(self._body.decode(), keep_blank_values=True)), MultiDict())
            else:
                self._form = (MultiDict(), MultiDict())
        return self._form

    @property
    def form(self):
        return _Awaitable(lambda: self._load_form()[0])

    @property
    def files(self):
        return _Awaitable(lambda: self._load_form()[1])


# --------------------------------------------------------------------------- fake redis

class FakeRedis:
    """REDIS_CONN as used by the webhook: get, set_obj and the token-bucket Lua script."""

    REDIS = "fake-redis-client"

    def __init__(self, fallback):
        self.kv = {}
        self.hashes = {}  # key -> ({"tokens": str, "timestamp": str}, expires_at)
        self._fallback = fallback

    def __getattr__(self, name):
        return getattr(self._fallback, name)

    def get(self, k):
        return self.kv.get(k)

    def set_obj(self, k, obj, exp=3600):
        try:
            self.kv[k] = json.dumps(obj, ensure_ascii=False)
            return True
        except Exception as e:
            logging.warning("RedisDB.set_obj got exception: %s", str(e))
        return False

    @staticmethod
    def _lua_str(x: float) -> str:
        # a Lua number handed to redis.call is stored as its shortest round-trip text
        return repr(float(x)) if not float(x).is_integer() else str(int(x))

    def lua_token_bucket(self, keys, args, client=None):
        # rag/utils/redis_conn.py LUA_TOKEN_BUCKET_SCRIPT; redis-py sends ARGV as str(arg)
        key = keys[0]
        capacity, rate, now, cost = (float(str(a)) for a in args)
        ent = self.hashes.get(key)
        if ent is not None and ent[1] <= time.time():  # EXPIRE elapsed
            ent = None
            self.hashes.pop(key, None)
        tokens = float(ent[0]["tokens"]) if ent else None
        last_ts = float(ent[0]["timestamp"]) if ent else None
        if tokens is None:
            tokens = capacity
            last_ts = now
        delta = max(0, now - last_ts)
        tokens = min(capacity, tokens + delta * rate)
        if tokens < cost:
            return [0, int(tokens)]  # Lua numbers become integer replies (truncated)
        tokens = tokens - cost
        ttl = math.ceil(capacity / rate * 2)
        self.hashes[key] = ({"tokens": self._lua_str(tokens), "timestamp": self._lua_str(now)}, time.time() + ttl)
        return [1, int(tokens)]


# --------------------------------------------------------------------------- fake Quart response

def _content_type(mimetype=None, content_type=None):
    if content_type is not None:
        return content_type
    mimetype = mimetype or "text/html"
    if mimetype.startswith("text/") or mimetype in ("application/xml", "application/javascript", "application/ecmascript"):
        return mimetype + "; charset=utf-8"
    return mimetype


class FakeResponse:
    def __init__(self, response=None, status=None, headers=None, mimetype=None, content_type=None):
        self.body_text = response if isinstance(response, str) else (response or b"").decode()
        self.json = None
        self.status_code = 200 if status is None else int(status)
        self.content_type = _content_type(mimetype, content_type)


def fake_jsonify(payload):
    r = FakeResponse("", status=200, mimetype="application/json")
    r.json = payload
    return r
