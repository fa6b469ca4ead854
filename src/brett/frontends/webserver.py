"""``brett serve --http``: a small web app over the engine protocol.

One page (plain HTML, JavaScript and CSS shipped in ``brett/web``, nothing from
the network) where people play any of the four games, with any options, against
each other or the computer (the random player, or the tree search of
:mod:`brett.ai` at levels 1-10, on any seats): click to move with the legal
targets shown, the changed squares flashing, undo, new game, a hint (the
search's best moves, marked on the board), Schuft's dice and the result.  The
page speaks the protocol of :mod:`brett.serve` as JSON posted to ``/api``
(``play`` for the computer's moves, ``hint``); the standard library's HTTP
server serves it, one request at a time, on the loopback address by default.
"""

from __future__ import annotations

import http.server
import importlib.resources
import json
import sys
from typing import Any, Optional, TextIO

from .protocol import MAX_LINE, Server

PAGES = {"/": ("index.html", "text/html"), "/index.html": ("index.html", "text/html"),
         "/app.js": ("app.js", "text/javascript"), "/style.css": ("style.css", "text/css")}


def _asset(name: str) -> bytes:
    return importlib.resources.files("brett.frontends.page").joinpath(name).read_bytes()


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "brett"
    engine: Server  # set on the subclass made by make_server

    def do_GET(self) -> None:
        page = PAGES.get(self.path.split("?", 1)[0])
        if self.path == "/favicon.ico":
            self._send(204, b"", "image/x-icon")  # none: no request the browser logs as lost
            return
        if page is None:
            self._send(404, b"not found", "text/plain")
            return
        self._send(200, _asset(page[0]), page[1] + "; charset=utf-8")

    def do_POST(self) -> None:
        if self.path != "/api":
            self._send(404, b"not found", "text/plain")
            return
        size = int(self.headers.get("Content-Length") or 0)
        if not 0 < size <= MAX_LINE:
            reply: dict[str, Any] = {"id": None, "ok": False, "error": {
                "type": "ProtocolError", "message": f"a request of {size} bytes"}}
        else:
            body = self.rfile.read(size).decode("utf-8", "replace")
            reply = self.engine.handle(body)
        self._send(200, json.dumps(reply).encode(), "application/json")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the terminal shows the address, not every request


def make_server(host: str = "127.0.0.1", port: int = 8000) -> http.server.HTTPServer:
    """The app's HTTP server (``port`` 0: any free port; see ``server_address``)."""
    handler = type("Handler", (_Handler,), {"engine": Server()})
    return http.server.HTTPServer((host, port), handler)


def run(host: str = "127.0.0.1", port: int = 8000, out: Optional[TextIO] = None) -> None:
    """Serve the app until Ctrl-C."""
    out = out if out is not None else sys.stdout
    httpd = make_server(host, port)
    shown_port = httpd.server_address[1]
    print(f"brett: play at http://{host}:{shown_port}/ (Ctrl-C to stop)", file=out,
          flush=True)
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()


__all__ = ["make_server", "run"]
