"""``brett serve``: the engine protocol as JSON Lines on standard input and output.

One request per line in, one answer per line out; the pipe is one session
(docs/protocol.md).  Quick requests are answered in order as they are read; a
search (``perft``, ``play``, ``hint``) is answered when it ends, so its answer
may come after the answers to later requests: match answers by ``id``.  A
streaming client also gets unsolicited *events* (search progress, a game closed
by the server), which carry ``"event"`` instead of ``"ok"``.

Lines are read as bytes in bounded pieces: a line longer than the limit is
answered with an error and skipped, invalid UTF-8 is answered with an error, and
neither ends the session.  The end of input (or ``quit``) stops the searches,
writes their answers and ends the server; Ctrl-C ends it with exit code 130.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import Future, wait
from typing import IO, Any, Optional, TextIO, Union

from .._reading import bounded_lines, waiting_stdin
from ..game import Game
from .protocol import LimitExceeded, encode, error_answer
from .sessions import LOCAL, Answer, Hub, Limits

DRAIN_SECONDS = 10.0
"""At the end, how long the answers of stopped searches may take to be written."""


class Writer:
    """Answers and events as lines on ``out``, from any thread, whole lines only."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.broken = False

    def send(self, message: Answer) -> None:
        line = encode(message) + "\n"
        with self.lock:
            if self.broken:
                return
            try:
                self.out.write(line)
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.broken = True  # nobody is listening: the session goes on to its end


def _deliver(done: Future[Answer], pending: set[Future[Answer]], writer: Writer) -> None:
    """A search's answer, written when it is ready (in the thread that finished it)."""
    pending.discard(done)
    writer.send(done.result())


def serve(inp: Union[TextIO, IO[bytes], None] = None, out: Optional[TextIO] = None,
          limits: Limits = LOCAL, game: Optional[Game[Any]] = None) -> int:
    """Answer requests from ``inp`` (text or bytes; by default stdin) on ``out``
    until ``quit`` or the end of input (exit code 0), or Ctrl-C (130).  With
    ``game``, that game is open first and announced by an ``opened`` event
    (``brett play --json``)."""
    from .commands import opened

    source = inp if inp is not None else waiting_stdin()
    writer = Writer(out if out is not None else sys.stdout)
    hub = Hub(limits)
    session = hub.open(events=writer.send)
    pending: set[Future[Answer]] = set()
    code = 0
    try:
        if game is not None:
            writer.send({"event": "opened", **opened(session, game)})
        for line in bounded_lines(getattr(source, "buffer", source), limits.request_bytes):
            reply = (session.handle(line) if line is not None else error_answer(None, (
                LimitExceeded(f"a request line of more than {limits.request_bytes} bytes"))))
            if isinstance(reply, Future):
                pending.add(reply)
                reply.add_done_callback(lambda done: _deliver(done, pending, writer))
            else:
                writer.send(reply)
            if session.quit:
                break
    except KeyboardInterrupt:
        code = 130
    finally:
        hub.end(session, "the client went away" if not session.quit else "the client quit")
        wait(list(pending), timeout=DRAIN_SECONDS)
        hub.close()
    return code


__all__ = ["serve"]
