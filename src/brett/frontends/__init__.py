"""The frontends: how people and programs outside Python meet brett.

* :mod:`~brett.frontends.protocol` — the engine protocol (JSON requests and
  answers, sessions, limits), independent of any transport;
* :mod:`~brett.frontends.stdio` — ``brett serve``: the protocol as JSON Lines on
  standard input and output;
* :mod:`~brett.frontends.webserver` — ``brett serve --http``: the protocol over
  HTTP and WebSocket, and the web app's page (``page/``);
* :mod:`~brett.frontends.cli` — the ``brett`` command.

A frontend uses the public API only (docs/architecture.md).
"""
