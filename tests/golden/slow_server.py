#!/usr/bin/env python3
"""The status service of fixtures/valid/timeout-invoke.json, for regenerating its goldens.

GET /status/<seconds> waits that many seconds, then answers {"ok": true}. The Rust tests run an
equivalent server (tests/src/slow_server.rs) on the same port.

Usage: python3 slow_server.py [PORT]   (default 18765)
"""
import http.server
import sys
import time

PORT = 18765


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        delay = self.path.strip("/").split("/")[-1]
        try:
            time.sleep(float(delay or 0))
        except ValueError:
            pass
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else PORT), Handler).serve_forever()
