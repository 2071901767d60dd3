"""Serves Public/ with Tombola's page routes (/calc, /draw/<code>, …) and the
same CSP, without any API or WebSocket: pages show their offline state. For
layout checks while the real server is not built yet:

    python3 Tests/browser/static_server.py --port 8765
"""

import argparse
import functools
import http.server
import os
import re

PUBLIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Public")
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self' ws: wss:")
ROUTES = [
    (re.compile(r"^/$"), "/index.html"),
    (re.compile(r"^/calc/?$"), "/calc.html"),
    (re.compile(r"^/draw/[^/]+/?$"), "/draw.html"),
    (re.compile(r"^/screen/[^/]+/?$"), "/screen.html"),
    (re.compile(r"^/watch/[^/]+/?$"), "/watch.html"),
]


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".mjs": "text/javascript"}

    def translate_path(self, path):
        clean = path.split("?", 1)[0].split("#", 1)[0]
        for pattern, target in ROUTES:
            if pattern.match(clean):
                path = target
                break
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


def serve(port, host="127.0.0.1"):
    handler = functools.partial(Handler, directory=os.path.abspath(PUBLIC))
    return http.server.ThreadingHTTPServer((host, port), handler)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    serve(args.port).serve_forever()
