#!/usr/bin/env python3
"""Writes expected.json: what CPython 3.11 answers for the Python behaviour canvasc reproduces in
`value/src/py/` (read by `value/src/py/cpython_tests.rs`).

Run with the interpreter RAGFlow runs on (CPython 3.11, Unicode 14.0):

    python3 tests/golden/python/gen.py > tests/golden/python/expected.json

Only the standard library is used; nothing here is RAGFlow code.
"""

import json
import random
import struct
import sys
import unicodedata
from urllib.parse import urlparse, urlsplit

assert sys.version_info[:2] == (3, 11), "expected values come from CPython 3.11"


def outcome(f, *args):
    """{"ok": result} or {"err": str(exception)}."""
    try:
        return {"ok": f(*args)}
    except (ValueError, TypeError, OverflowError) as e:
        return {"err": str(e)}


def ranges(pred):
    """Inclusive [lo, hi] runs of code points (surrogates excluded: Rust has no such char)."""
    out = []
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF or not pred(chr(cp)):
            continue
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def bits(f):
    return str(struct.unpack("<Q", struct.pack("<d", f))[0])


FLOAT_TEXTS = [
    "1", "-1", "+1.5", "1_000.5", "1__0", "_1", "1_", "1_.5", "1._5", "1e1_0", "1_2.3_4e1_0",
    "  12  ", "\t\n12\x0b\x0c", "\u00a012\u2003", "\u0661\u0662", "\uff11\uff12.\uff15",
    "\U0001d7cf\U0001d7d0", "\u0663.\u0665", "\U00011f51", "\U0001e4f1", "\x1c1", "1\x1f",
    "\u180e1", "inf", "-Infinity", "+nan", "NaN", "-nan", "iNf", "INFINITY", "infinit", "nan(1)",
    "1e400", "-1e400", "1e-400", "4.9e-324", "2.5e-324", "1.7976931348623157e308",
    "1.7976931348623159e308", "0x10", "1e", "1e+", ".5", "5.", ".", "e5", "+-1", "--1", "1\x00",
    "", " ", "1 2", "9" * 400, "0." + "0" * 400 + "1", "1e99999999999999999999",
    "1e-99999999999999999999", "1.e5", "1.5E+3", "-0", "-0.0", "0e0", "\u1c41", "1,5", "１e１",
]

INT_TEXTS = [
    "1", " -1_000 ", "+0", "00", "0_0", "1__0", "_1", "1_", "0x10", "1.0", "", " ", "-", "+",
    "\u0661\u0662\u0663", "\uff11\uff12", "\U00011f51", "\U0001e4f1", "  \u2003 42 \u00a0",
    "42\x1c", "\x0b42\x0c", "4 2", "1e5", "12345678901234567890123456789012345678901234567890",
    "-" + "9" * 50, "9" * 4300, "9" * 4301, "9" * 4301 + "x", "1" * 4301 + "_", "0" * 4301,
    "a" * 250, "\U0001d7d7", "٣",
]

INT_FLOATS = [
    0.0, -0.0, 1.5, -1.5, 1e300, -1e300, 2.0**63, -(2.0**63), 2.0**64, 1e38, 1e16,
    1.7976931348623157e308, 123456789.987654321,
]

REPR_FLOATS = [
    0.0, -0.0, 0.1, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.00012345, 1359936536649604.25,
    5e-324, 2.5, 1.7976931348623157e308, 123456789.123, 1e22, 2.0**63, 9007199254740993.0,
    float("inf"), float("-inf"), float("nan"), 1 / 3, 2 / 3, 100.0, 1e100, 1.5e300,
]
rng = random.Random(20261125)
while len(REPR_FLOATS) < 400:
    f = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    if f == f and abs(f) != float("inf"):
        REPR_FLOATS.append(f)

REPR_STRINGS = [
    "", "abc", "it's", 'say "hi"', "both ' and \"", "\\", "\t\n\r", "\x00\x1f\x7f",
    "\x80\x9f\xa0\xad", "é中😀", "\u200b\u200e\u2028\u2029\u3000", "\ue000", "\U000f0000",
    "\U0010ffff", "\u0378", "\U0001faf7", "\U00011f00", "\u0890", "\ufeff", "\ufffe", "\U000e0001",
    "\u061c", "\u180e", "\u1680", "\U0001f600\u200d\U0001f600", "\x1b[0m", "\u0600", "\U0001bca0",
    "\u2066", "\U00013430", "\U0001d173", "'\"'", "\u0085", "\ud7ff", "\ue000\uf8ff",
]

VALUES = [
    None, True, False, 0, -7, 2**63, 1.0, -0.0, 1e16, 1e-5, 0.1, "x", "it's", [], {},
    [1, 2.5, "a", None, True], {"a": [1, {"b": "c'"}], "é": None}, [[[]]], {"": ""},
]

WHITESPACE_TEXTS = [
    " x ", "\x1c a \x1f", "\u0085x\u00a0", "\u180ex\u180e", "\u200bx\u200b", "\u2028x\u3000",
    "\x0b\x0cx\r\n", "\t\t", "", "Bearer token", "Bearer ", "reBear", "\u202fx\u205f",
]
STRIP_CHARS = [None, "Bearer", "x", " \t", ""]

URLS = [
    "http://User:Pass@Example.COM:8080/a/b;p?q=1#f", "HTTPS://example.com", "  \x00 http://a.com/x",
    "ht\ttp://a\n.com/p\rq", "http://[::1]:80/", "http://[fe80::1%25En0]/", "http://[FE80::1%En0]:1/",
    "http://[v1.x]/", "http://[vq]/", "http://[v1.]/", "http://[V1.x]/", "http://[1.2.3.4]/",
    "http://[zz]/", "http://[::1", "http://::1]/", "http://a[::1]/", "http://[::1]x/",
    "http://u@[::1]:80/", "http://[x]@example.com/", "http://a\uff0fb", "http://a\u2100b",
    "http://ex\uff03ample/", "http://exa:mple@\u00e9.com/", "mailto:user@example.com",
    "//example.com/path", "example.com/path", "/path;params?x#y", "http:///path", "ftp://h/",
    "1http://x", "a+b-c.d://x", "a_b://x", "path:with:colons", "http:", "http://", "http://a?b#c?d",
    "http://a#b?c", "file:///etc/passwd", "http://a.com/p;x/y;z", "http://a.com/p;x;y",
    "tel:+1;ext=2", "unknown://h/p;x", "http://[::ffff:1.2.3.4]/", "http://[1::2::3]/",
    "http://[::1%]/", "http://[01.2.3.4]/", "http://[1:2:3:4:5:6:7:8]/", "http://[1:2:3:4:5:6:7:8:9]/",
    "http://[::1.2.3]/", "http://[12345::]/", "HTTP://EXAMPLE.com", "http://a%20b/",
    "http://\u00e9x\u00e0mple.com/", "http://[::1]:abc/", "   ", "", "javascript:alert(1)",
    "http://[::1]]/", "http://h:80:90/", "http://@/", "http://:80/", "\u00e9http://x",
    "http://ÉXAMPLE.com/", "http://[fe80::1%ZoNe]/", "http://user@host@evil.com/",
    "http://a.com\\@b.com/", "s3://bucket/key", "http://[::1]/\u3000", "HtTp://x.y",
]


def url_fields(r):
    return {
        "scheme": r.scheme, "netloc": r.netloc, "path": r.path, "query": r.query,
        "fragment": r.fragment, "hostname": r.hostname,
        **({"params": r.params} if hasattr(r, "params") else {}),
    }


def main():
    nfkc_delims = [
        cp for cp in range(sys.maxunicode + 1)
        if not 0xD800 <= cp <= 0xDFFF and chr(cp) not in "/?#@:"
        and any(d in unicodedata.normalize("NFKC", chr(cp)) for d in "/?#@:")
    ]
    out = {
        "python": sys.version.split()[0],
        "unicode": unicodedata.unidata_version,
        "not_printable": ranges(lambda c: not c.isprintable()),
        "space": [cp for r in ranges(str.isspace) for cp in range(r[0], r[1] + 1)],
        "decimal": ranges(str.isdecimal),
        "nfkc_url_delimiters": nfkc_delims,
        "float_parse": [
            {"in": s, **outcome(lambda x: repr(float(x)), s)} for s in FLOAT_TEXTS
        ],
        "int_parse": [{"in": s, **outcome(lambda x: str(int(x)), s)} for s in INT_TEXTS],
        "int_of_float": [
            {"bits": bits(f), **outcome(lambda x: str(int(x)), f)}
            for f in INT_FLOATS + [float("nan"), float("inf"), float("-inf")]
        ],
        "float_repr": [{"bits": bits(f), "repr": repr(f)} for f in REPR_FLOATS],
        "repr_str": [{"in": s, "repr": repr(s)} for s in REPR_STRINGS],
        "values": [{"in": v, "str": str(v), "repr": repr(v)} for v in VALUES],
        "strip": [
            {"in": s, "chars": c, "strip": s.strip(c), "lstrip": s.lstrip(c), "rstrip": s.rstrip(c)}
            for s in WHITESPACE_TEXTS for c in STRIP_CHARS
        ],
        "urlsplit": [{"in": u, **outcome(lambda x: url_fields(urlsplit(x)), u)} for u in URLS],
        "urlparse": [{"in": u, **outcome(lambda x: url_fields(urlparse(x)), u)} for u in URLS],
    }
    json.dump(out, sys.stdout, ensure_ascii=True, indent=1)
    sys.stdout.write("\n")


main()
