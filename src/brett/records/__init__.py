"""Game records: the :class:`Record` (headers, start position, a tree of moves),
its result as data, and one module per format, each reading (streaming from a
path or an open file) and writing records:

* :mod:`brett.records.json`: brett's own, every game exactly (``dump``, ``load``)
* :mod:`brett.records.sgf`: SGF FF[4] (Reversi, Phutball, Focus)
* :mod:`brett.records.ggf`: GGF, the GGS server's format (Othello), archives too
* :mod:`brett.records.wthor`: WTHOR, the French federation's archive (Othello)
* :mod:`brett.records.obf`: Edax's problems (a position, the exact score of its moves)
* :mod:`brett.records.positions`: position lists, one position a line (every game)
* :mod:`brett.records.transcript`: Othello move strings (``f5d6c3...``)

:func:`read` / :func:`stream` / :func:`write` pick the format by extension::

    >>> import brett, tempfile, pathlib
    >>> from brett.records import Record, read, write
    >>> game = brett.Reversi()
    >>> _ = game.random_playout(seed=1)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "games.ggf"
    >>> write([Record.from_game(game, Black="Ann", Result="+2")], path)
    1
    >>> [record] = read(path)
    >>> record.game() == game, record.result.winner
    (True, 0)
"""

from __future__ import annotations

from . import files
from .files import format_of, from_text, guess_format, read, stream, to_text, write
from .json import (
    MAX_RECORD,
    dump,
    from_dict,
    load,
    load_record,
    record_from_dict,
    to_dict,
)
from .record import Node, Record, Step, replay
from .result import ENDINGS, Result, parse_result

FORMATS = files.FORMATS
"""Each record format's extension and name (the formats :func:`read` knows)."""

__all__ = ["ENDINGS", "FORMATS", "MAX_RECORD", "Node", "Record", "Result", "Step", "dump",
           "format_of", "from_dict", "from_text", "guess_format", "load", "load_record",
           "parse_result", "read", "record_from_dict", "replay", "stream", "to_dict",
           "to_text", "write"]
