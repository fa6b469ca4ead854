"""The body of every atheris target (fuzz_<reader>.py): brett instrumented for
coverage, the reader's check from readers.py on each input, the samples as the
seed corpus.

    python tests/fuzz/fuzz_sgf.py -max_total_time=30 [corpus folder]

The samples seed the first corpus folder when it is empty or new (without one,
a new temporary folder).  A BrettError is
an answer; any other exception, a hang past ``-timeout`` or memory past
``-rss_limit_mb`` is a crash, saved as ``crash-*`` (``-artifact_prefix``).
``BRETT_FUZZ_BACKEND=python`` runs the readers on the plain-Python core.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["brett", "readers"]):
    from readers import backend_from_environment, on_core, run, samples


def main(reader: str) -> None:
    argv = list(sys.argv)
    folders = [Path(arg) for arg in argv[1:] if not arg.startswith("-")]
    if not folders:
        folders = [Path(tempfile.mkdtemp(prefix=f"brett-fuzz-{reader}-"))]
        argv.append(str(folders[0]))
        print(f"corpus: {folders[0]}", file=sys.stderr)
    folders[0].mkdir(parents=True, exist_ok=True)
    if not any(folders[0].iterdir()):
        for data in samples()[reader]:
            (folders[0] / hashlib.sha1(data).hexdigest()).write_bytes(data)

    def one_input(data: bytes) -> None:
        run(reader, data)

    atheris.Setup(argv, one_input)
    with on_core(backend_from_environment()):
        atheris.Fuzz()
