"""Game records with headers, comments and variations, for every game.

A :class:`Record` is what interchange formats carry: headers (players, event,
date, result, anything else, kept verbatim as strings), the game and its start
position (which holds every option), and a tree of moves, like SGF: the first
child of a node is the main line, the others are variations. Each node may hold
a comment and format-specific properties (a GGF move's evaluation and time)::

    >>> import brett
    >>> from brett.records import Record
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> record = Record.from_game(game, Black="Ann", White="Bob")
    >>> [str(m) for m in record.moves], record.headers["Black"]
    (['f5', 'd6', 'c3'], 'Ann')
    >>> side = record.root.children[0].children[0].add("c5", comment="also good")
    >>> str(record.game(side).peek()), record.game() == game
    ('c5', True)

Readers and writers for the formats live beside it in :mod:`brett.records`;
every reader replays each record through the rules, so a record it returns is
legal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, cast

from .._checks import MAX_TEXT
from ..errors import BrettError, InvalidRecordError
from ..game import GAMES, AnyGame, AnyMove, Game

if TYPE_CHECKING:
    from .result import Result


@dataclass(eq=False, slots=True)
class Node:
    """One move of a record's tree (the root holds no move)."""

    move: Optional[str] = None
    comment: str = ""
    properties: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    parent: Optional[Node] = field(default=None, repr=False)

    def add(self, move: str, comment: str = "", **properties: str) -> Node:
        """A new child (a variation unless it is the first) playing ``move``;
        the comment and the property values are strings (the formats write them)."""
        if not isinstance(move, str) or len(move) > MAX_TEXT:
            raise InvalidRecordError(f"a record's move is its notation, not {move!r:.60}")
        _text(comment, "comment", None)
        for name, value in properties.items():
            _text(value, f"property {name!r:.40}", None)
        child = Node(move, comment, dict(properties), [], self)
        self.children.append(child)
        return child

    def extend(self, moves: Iterable[str]) -> Node:
        """Add ``moves`` one below the other (a line of play); returns the last
        node.  For readers: the moves are not checked here."""
        node = self
        for move in moves:
            child = Node(move, "", {}, [], node)
            node.children.append(child)
            node = child
        return node

    def path(self) -> list[Node]:
        """The nodes from the first move down to this one."""
        nodes: list[Node] = []
        node: Optional[Node] = self
        while node is not None and node.parent is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def mainline(self) -> list[Node]:
        """This node's first children, one after another (not the node itself)."""
        nodes = []
        node = self
        while node.children:
            node = node.children[0]
            nodes.append(node)
        return nodes

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first, main lines first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def same_tree(self, other: Node) -> bool:
        """Equal moves, comments and properties all the way down."""
        pairs = [(self, other)]
        while pairs:
            a, b = pairs.pop()
            if (a.move, a.comment, a.properties, len(a.children)) != \
                    (b.move, b.comment, b.properties, len(b.children)):
                return False
            pairs.extend(zip(a.children, b.children, strict=True))
        return True


class Step(NamedTuple):
    """One node of :meth:`Record.replay_tree`, its move just played."""

    node: Node
    depth: int
    """The moves from the start position down to this node, this one included."""
    player: int
    """Who made the move (the player to move before it)."""
    move: Any
    """The game's Move object (its ``str`` is the canonical notation)."""


class Record:
    """A game's headers, start position and tree of moves (see the module)."""

    __slots__ = ("_line", "_root", "game_class", "game_name", "headers", "start")

    def __init__(self, game: str, start: str, headers: Optional[dict[str, str]] = None,
                 root: Optional[Node] = None, line: Optional[Sequence[str]] = None) -> None:
        """``root`` is the tree; a reader of flat archives may give the main line
        as ``line`` instead (move strings, not checked here, and kept as given,
        not copied): the tree is then built on first use, so a year of games
        costs no node objects until read."""
        self.game_class = GAMES.lookup(game, InvalidRecordError)
        self.game_name: str = game
        if not isinstance(start, str) or len(start) > MAX_TEXT:
            raise InvalidRecordError(f"a start position is a position string, not {start!r:.60}")
        self.start = start
        if not isinstance(headers, (dict, type(None))):
            raise InvalidRecordError(f"headers are a dict of strings, not {headers!r:.60}")
        self.headers: dict[str, str] = {}
        for key, value in (headers or {}).items():
            self.headers[_text(key, "header name")] = _text(value, f"header {key!r}")
        if not isinstance(root, (Node, type(None))) or \
                not isinstance(line, (Sequence, type(None))) or isinstance(line, str):
            raise InvalidRecordError("a record's tree is a Node, its main line a sequence "
                                     "of move strings")
        if root is not None and line:
            raise InvalidRecordError("a record takes a tree or a main line, not both")
        self._root = root
        self._line: Sequence[str] = line if line is not None else ()

    @property
    def root(self) -> Node:
        """The tree's root: its children are the first moves."""
        if self._root is None:
            self._root = Node()
            self._root.extend(self._line)
            self._line = ()
        return self._root

    @classmethod
    def from_game(cls, game: Game[Any], **headers: str) -> Record:
        """The record of ``game``'s moves from its start position (a half-made
        integer-layer move is not a move yet, and is left out)."""
        if not isinstance(game, Game):
            raise InvalidRecordError(f"{game!r:.60} is not a brett game")
        record = cls(game.game_name, game.start_position(), headers)
        node = record.root
        for move in game.move_stack:
            node = node.add(str(move))
        return record

    def game(self, node: Optional[Node] = None) -> AnyGame:
        """The game after the moves down to ``node`` (default: the end of the
        main line), its moves on the move stack.  :class:`InvalidRecordError`
        names the first move that does not replay."""
        moves: Sequence[Any]
        if node is None and self._root is None:
            moves = self._line
        else:
            target = node if node is not None else (self.root.mainline() or [self.root])[-1]
            moves = [step.move for step in target.path()]
        return cast("AnyGame", replay(self.game_class, self.start, moves))

    def replay_tree(self) -> Iterator[Step]:
        """Every node below the root once, depth first, main lines first, with the
        move it plays: one game walks the tree with push and pop, so the time is
        linear in the nodes however long the lines.  :class:`InvalidRecordError`
        names the first move that does not replay."""
        game = replay(self.game_class, self.start, ())
        depth = 0  # the moves on ``game``
        stack = [(child, 1) for child in reversed(self.root.children)]
        while stack:
            node, number = stack.pop()
            while depth >= number:  # back to the node's parent
                game.pop()
                depth -= 1
            player = game.current_player()
            move = _push(game, number, node.move)
            depth = number
            yield Step(node, number, player, move)
            stack.extend((child, number + 1) for child in reversed(node.children))

    @property
    def result(self) -> Optional[Result]:
        """The recorded result as data (parsed from the headers, which keep its
        text), or None when the record gives none."""
        from .result import recorded_result

        return recorded_result(self)

    def check_result(self) -> list[str]:
        """How the recorded result disagrees with the final board: one sentence
        for each disagreement, none when they agree or nothing can be checked
        (no result, an unknown one, a game resigned or lost on time)."""
        from .result import check_result

        return check_result(self)

    @property
    def moves(self) -> list[AnyMove]:
        """The main line as the game's Move objects."""
        return list(self.game().move_stack)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return (self.game_name, self.start, self.headers) == \
            (other.game_name, other.start, other.headers) and self.root.same_tree(other.root)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (f"<Record {self.game_name} {len(self.root.mainline())} moves, "
                f"headers {sorted(self.headers)}>")


def replay(game_class: Any, start: str, moves: Iterable[str]) -> Game[Any]:
    """The game of ``game_class`` from the position ``start`` after ``moves``;
    :class:`InvalidRecordError` names the first move that does not replay."""
    try:
        game: Game[Any] = game_class.from_position(start)
    except BrettError as exc:
        raise InvalidRecordError(f"bad start position: {exc}") from exc
    for number, move in enumerate(moves, 1):
        _push(game, number, move)
    return game


def _push(game: Game[Any], number: int, move: Any) -> Any:
    try:
        return game.push(move)
    except BrettError as exc:
        raise InvalidRecordError(f"move {number} ({move!r:.40}) does not replay: {exc}") from exc


def check_strings(record: Record, number: Optional[int] = None) -> None:
    """What the writers write as text is text: the headers, and every node's
    comment and properties (all may have been set directly).  The error names
    record ``number`` when given."""
    try:
        for key, value in record.headers.items():
            _text(key, "header name")
            _text(value, f"header {key!r:.40}", None)
        for node in record.root.walk():
            _text(node.comment, "comment", None)
            for key, value in node.properties.items():
                _text(key, "property name")
                _text(value, f"property {key!r:.40}", None)
    except InvalidRecordError as exc:
        if number is None:
            raise
        raise InvalidRecordError(f"record {number}: {exc}") from None


def _text(value: Any, what: str, longest: Optional[int] = MAX_TEXT) -> str:
    if not isinstance(value, str) or (longest is not None and len(value) > longest):
        raise InvalidRecordError(f"a {what} is a string, not {value!r:.60}")
    return value


__all__ = ["Node", "Record", "Step", "replay"]
