"""brett.records (headers, tree of moves) and the WTHOR archive format, on both cores."""

from __future__ import annotations

import os
import struct
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
import brett.records
from brett.errors import BrettError, InvalidRecordError
from brett.records import MAX_RECORD, Node, Record
from brett.records import read as read_records
from brett.records import write as write_records
from brett.records._io import CHUNK
from brett.records.ggf import MAX_GGF, read_ggf
from brett.records.wthor import read_wthor, write_wthor
from conftest import SETUPS, advance
from fuzz.readers import on_core

FIXTURE = [HealthCheck.function_scoped_fixture]


# ------------------------------------------------------------------ Record
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_a_record_replays_its_game_on_every_game(setup: str, backend: str) -> None:
    name, options = SETUPS[setup]
    game = advance(brett.GAMES[name].twin(backend)(**options), 25, seed=3)
    record = Record.from_game(game, Event="test")
    again = record.game()
    assert again == game and again.move_stack == game.move_stack
    assert record.moves == game.move_stack and record.headers == {"Event": "test"}
    assert record == Record.from_game(game, Event="test")
    assert record != Record.from_game(game, Event="other")


def test_variations_comments_and_navigation(backend: str) -> None:
    record = Record("reversi", brett.Reversi.twin(backend)().position(), {"Black": "Ann"})
    f5 = record.root.add("f5", comment="the usual")
    d6 = f5.add("d6")
    f6 = f5.add("f6", comment="a variation")
    d6.add("c3")
    assert [n.move for n in record.root.mainline()] == ["f5", "d6", "c3"]
    assert [n.move for n in f6.path()] == ["f5", "f6"] and f6.parent is f5
    assert [n.move for n in record.root.walk()] == [None, "f5", "d6", "c3", "f6"]
    assert str(record.game(f6).peek()) == "f6" and len(record.game().move_stack) == 3
    bad = d6.add("a1")
    with pytest.raises(InvalidRecordError, match=r"move 3 \('a1'\) does not replay"):
        record.game(bad)
    with pytest.raises(InvalidRecordError):
        record.root.add(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError):
        Record("chess", "x")
    with pytest.raises(InvalidRecordError):
        Record("reversi", "x", {"Black": 1})  # type: ignore[dict-item]
    with pytest.raises(InvalidRecordError, match="bad start position"):
        Record("reversi", "not a position").game()


def test_comments_and_properties_are_strings() -> None:
    """Writers escape them as text: anything else is refused where it enters."""
    node = Record("reversi", brett.Reversi().position()).root
    for bad in ({"comment": 5}, {"comment": None}, {"eval": 1.5}, {"time": b"2"}):
        with pytest.raises(InvalidRecordError, match="is a string"):
            node.add("f5", **bad)
    assert node.children == []
    assert node.add("f5", "fine", eval="+1").properties == {"eval": "+1"}


def long_phutball_line(moves: int) -> Record:
    """A Phutball main line of ``moves`` moves (a man placed by the ball and
    jumped, to and fro) with a side leaf at every node."""
    record = Record("phutball", brett.Phutball().position())
    node = record.root
    cycle = ("g10", "h10-f10", "g10", "f10-h10")
    for number in range(moves):
        parent = node
        node = parent.add(cycle[number % 4])
        parent.add("a1")
    return record


def test_a_tree_replays_with_one_push_per_node(backend: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """load_record walks the tree once with push and pop (it replayed every leaf
    from the root: a 4,000-move line with side leaves took minutes)."""
    record = long_phutball_line(400)
    text = brett.dump(record)
    pushes = 0
    push = brett.Phutball.push

    def counted(game: Any, move: Any) -> Any:
        nonlocal pushes
        pushes += 1
        return push(game, move)

    monkeypatch.setattr(brett.Phutball, "push", counted)
    with on_core(backend):
        back = brett.load_record(text)
        assert back.game().backend() == backend
    assert pushes - 400 == 800  # every node once (and the main line of back.game())
    assert back == record
    steps = list(back.replay_tree())
    assert [step.node for step in steps] == list(back.root.walk())[1:]
    assert [step.depth for step in steps] == [*range(1, 401), *range(400, 0, -1)]
    assert [str(step.move) for step in steps[:3]] == ["g10", "h10-f10", "g10"]
    assert {str(step.move) for step in steps[400:]} == {"a1"}


def test_a_main_line_given_flat_becomes_the_tree_on_first_use() -> None:
    start = brett.Reversi().position()
    flat = Record("reversi", start, line=["f5", "d6"])
    assert [str(m) for m in flat.moves] == ["f5", "d6"]
    assert [n.move for n in flat.root.mainline()] == ["f5", "d6"]
    tree = Record("reversi", start)
    tree.root.extend(["f5", "d6"])
    assert flat == tree
    with pytest.raises(InvalidRecordError):
        Record("reversi", start, root=Node(), line=["f5"])


# ------------------------------------------------------------------ WTHOR
def _games(backend: str, count: int, size: int = 8) -> list[Record]:
    records = []
    for seed in range(count):
        game = brett.Reversi.twin(backend)(size=size)
        game.random_playout(seed=seed, max_plies=None if seed % 3 else 30)
        records.append(Record.from_game(game, Black=f"player {seed % 4}",
                                        White=f"player {(seed + 1) % 4}",
                                        Event=f"cup {seed % 2}", Date="2026"))
    return records


@pytest.mark.parametrize("size", [8, 10])
def test_wthor_round_trip_with_passes_and_names(tmp_path: Path, backend: str, size: int) -> None:
    records = _games(backend, 30, size)
    assert any(n.move == "pass" for r in records for n in r.root.mainline())
    paths = tmp_path / "G.wtb", tmp_path / "G.JOU", tmp_path / "G.TRN"
    write_wthor(records, *paths)
    back = list(read_wthor(*paths))
    assert len(back) == len(records)
    for original, read in zip(records, back, strict=True):
        assert read.root.same_tree(original.root)  # passes put back where they were
        assert read.game() == original.game()
        for key in ("Black", "White", "Event", "Date"):
            assert read.headers[key] == original.headers[key]
    # without the name tables: the archive's own headers only
    plain = next(read_wthor(paths[0]))
    assert sorted(plain.headers) == ["BlackScore", "Date", "TheoreticalScore"]


def test_wthor_scores_give_the_empty_squares_to_the_winner(tmp_path: Path) -> None:
    game = brett.Reversi.from_position("xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/"
                                       "xxxxxxxx/xxxxxxxx/oo------ x")
    record = Record.from_game(game)
    assert game.is_over() and game.outcome().scores == (56, 2)
    with pytest.raises(InvalidRecordError, match="standard start"):
        write_wthor([record], tmp_path / "x.wtb")
    played = brett.Reversi()
    played.random_playout(seed=5, max_plies=17)  # a game that stops early (resigned)
    record = Record.from_game(played, BlackScore="40")
    write_wthor([record], tmp_path / "y.wtb")
    assert next(read_wthor(tmp_path / "y.wtb")).headers["BlackScore"] == "40"
    finished = brett.Reversi()
    finished.random_playout(seed=11)
    discs = list(finished.piece_map().values())
    black, white = discs.count(0), discs.count(1)
    empties = 64 - black - white
    expected = black + (empties if black > white else empties // 2 if black == white else 0)
    write_wthor([Record.from_game(finished)], tmp_path / "z.wtb")
    assert next(read_wthor(tmp_path / "z.wtb")).headers["BlackScore"] == str(expected)


def _archive(moves: bytes, count: int = 1, size: int = 0, extra: bytes = b"") -> bytes:
    header = struct.pack("<4BIHHBBBB", 20, 26, 1, 1, count, 0, 2026, size, 0, 0, 0)
    game = struct.pack("<HHHBB", 0, 0, 0, 32, 32) + moves.ljust(60, b"\0")
    return header + game * count + extra


F5 = 10 * 5 + 6  # row 5, column f


@pytest.mark.parametrize(("data", "message"), [
    (b"", "shorter than the 16-byte header"),
    (_archive(bytes([F5]))[:-1], "announces 1 games"),
    (_archive(bytes([F5]), extra=b"\0"), "announces 1 games"),
    (_archive(bytes([F5]), size=9), "board size 9"),
    (_archive(bytes([F5, 0, 46])), "move 3: a move after the padding"),
    (_archive(bytes([F5, 99])), "move 2: byte 99 is not a square"),
    (_archive(bytes([F5, 19])), "move 2: i1 is not legal here|move 2: byte 19"),
    (_archive(bytes([11])), "move 1: a1 is not legal here"),
    (_archive(bytes([F5, F5])), "move 2: f5 is not legal here"),
])
def test_malformed_wthor_files_name_the_place(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "bad.wtb"
    path.write_bytes(data)
    with pytest.raises(InvalidRecordError, match=message):
        list(read_wthor(path))


def test_wthor_name_tables_and_paths_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "g.wtb"
    path.write_bytes(_archive(bytes([F5])))
    with pytest.raises(InvalidRecordError, match="cannot read"):
        list(read_wthor(tmp_path / "missing.wtb"))
    jou = tmp_path / "WTHOR.JOU"
    jou.write_bytes(struct.pack("<4BIHHBBBB", 20, 26, 1, 1, 0, 3, 0, 0, 0, 0, 0) + b"x" * 20)
    with pytest.raises(InvalidRecordError, match="announces 3 names"):
        list(read_wthor(path, jou=jou))
    jou.write_bytes(struct.pack("<4BIHHBBBB", 20, 26, 1, 1, 0, 0, 0, 0, 0, 0, 0))
    with pytest.raises(InvalidRecordError, match="player index 0, the table has 0"):
        list(read_wthor(path, jou=jou))
    with pytest.raises(InvalidRecordError, match="Reversi games only"):
        write_wthor([Record.from_game(brett.Focus())], tmp_path / "f.wtb")
    with pytest.raises(InvalidRecordError, match="disc count"):
        write_wthor([Record.from_game(brett.Reversi(), BlackScore="many")], tmp_path / "s.wtb")
    with pytest.raises(InvalidRecordError, match="cannot write"):
        write_wthor([Record.from_game(brett.Reversi())], tmp_path / "no" / "such.wtb")


def test_wthor_numbers_are_ascii_digits(tmp_path: Path) -> None:
    """str.isdigit takes '²', which int() refuses (a ValueError escaped)."""
    for header in ("BlackScore", "TheoreticalScore"):
        with pytest.raises(InvalidRecordError, match="not a disc count"):
            write_wthor([Record.from_game(brett.Reversi(), **{header: "²"})], tmp_path / "a.wtb")
    write_wthor([Record.from_game(brett.Reversi(), Date="²²²²")], tmp_path / "b.wtb")
    assert next(read_wthor(tmp_path / "b.wtb")).headers["Date"] == "0"  # no year given


@settings(max_examples=25, deadline=None, suppress_health_check=FIXTURE)
@given(data=st.binary(max_size=600))
def test_any_bytes_give_records_or_an_invalid_record_error(tmp_path: Path, data: bytes) -> None:
    """Fuzzed headers and games: never another exception, never a partial game."""
    path = tmp_path / "fuzz.wtb"
    path.write_bytes(_archive(data[:60], extra=data[60:]) if len(data) % 2 else data)
    try:
        for record in read_wthor(path):
            record.game()  # every record returned replays
    except BrettError as exc:
        assert isinstance(exc, InvalidRecordError)


@settings(max_examples=10, deadline=None, suppress_health_check=FIXTURE)
@given(seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=5))
def test_random_games_round_trip_through_wthor(tmp_path: Path, backend: str,
                                               seeds: list[int]) -> None:
    records: list[Any] = []
    for seed in seeds:
        game = brett.Reversi.twin(backend)()
        game.random_playout(seed=seed)
        records.append(Record.from_game(game))
    write_wthor(records, tmp_path / "r.wtb")
    back = list(read_wthor(tmp_path / "r.wtb"))
    assert [r.game().move_stack for r in back] == [r.game().move_stack for r in records]


# ------------------------------------------------------------------ files, devices, pipes
needs_devices = pytest.mark.skipif(not (Path("/dev/zero").exists() and hasattr(os, "mkfifo")),
                                   reason="this platform has no /dev/zero or named pipes")


@needs_devices
@pytest.mark.parametrize("fmt", ["json", "sgf", "ggf", "wtb"])
def test_an_endless_device_is_refused_at_once(fmt: str) -> None:
    """A device announces no size: it is streamed, and refused at its first byte
    that no record starts with (it was read whole: a MemoryError)."""
    tracemalloc.start()
    try:
        with pytest.raises(InvalidRecordError, match=r"^/dev/zero: "):
            read_records("/dev/zero", fmt)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * CHUNK


def _pipe(path: Path, data: bytes) -> threading.Thread:
    """A named pipe at ``path`` that a thread fills with ``data``."""
    os.mkfifo(path)

    def write() -> None:
        try:
            with open(path, "wb") as pipe:
                pipe.write(data)
        except BrokenPipeError:  # the reader stopped at its limit
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


@needs_devices
def test_a_pipe_is_read_in_chunks_up_to_the_limit(tmp_path: Path) -> None:
    record = Record.from_game(advance(brett.Reversi(), 20, seed=1), Black="Ann")
    writer = _pipe(tmp_path / "one.json", brett.dump(record).encode())
    assert read_records(tmp_path / "one.json") == [record]
    writer.join(10)
    writer = _pipe(tmp_path / "big.json", b" " * CHUNK + b'{"a": "' + b"x" * MAX_RECORD)
    with pytest.raises(InvalidRecordError, match=r"big\.json: line 1, column 1048577: "
                                                 r"more than 67,108,864 characters"):
        read_records(tmp_path / "big.json")
    writer.join(10)
    assert not writer.is_alive()


def test_a_json_file_is_read_record_by_record(tmp_path: Path) -> None:
    """Each record is replayed before the next is decoded: the first error is
    reported, not a broken end of the file."""
    good = brett.dump(Record.from_game(advance(brett.Reversi(), 4, seed=2)))
    bad = good.replace('"moves": [', '"moves": ["a1", ')
    path = tmp_path / "games.json"
    cases = [(f"[{good}, {bad}, this is not JSON", r"record 2: move 1 \('a1'\) does not"),
             (f"[{good}, {good},]",
              "line 1, column [0-9]+: not valid JSON: a record expected after ','"),
             (f" [{good} {good}]", "expected ',' or ']' after record 1"),
             (f"[{good}] x", "extra data"), (f"{good} x", "extra data"),
             ("[", "not valid JSON"), ("", "not valid JSON"), ("[" * 100_000, "not valid")]
    for text, message in cases:
        path.write_text(text)
        with pytest.raises(InvalidRecordError, match=message):
            read_records(path)
    for text, count in ((f"\n{good}\n", 1), (" [ ] ", 0), (f"[{good},\n{good}]", 2)):
        path.write_text(text)
        assert len(read_records(path)) == count


def test_files_are_read_with_universal_newlines(tmp_path: Path) -> None:
    """As open() in text mode gave them (the files are now read as bytes)."""
    (tmp_path / "a.sgf").write_bytes(b"(;GM[2]\r\n;B[f5]C[one\r\ntwo\rthree])")
    [record] = read_records(tmp_path / "a.sgf")
    assert record.root.children[0].comment == "one\ntwo\nthree"


def test_oversized_bytes_are_refused_before_they_are_decoded() -> None:
    """A text of bytes past the limit was decoded (a copy as large) first."""
    for read, limit in ((brett.load, MAX_RECORD), (read_ggf, MAX_GGF)):
        data = b" " * (limit + 1)
        tracemalloc.start()
        try:
            with pytest.raises(InvalidRecordError, match="at most"):
                read(data)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 2**20


def test_paths_that_are_not_paths_are_refused(tmp_path: Path) -> None:
    record = Record.from_game(brett.Reversi())
    for path in (5, None, "nul\0.json"):
        with pytest.raises(InvalidRecordError, match=r"path|cannot read"):
            read_records(path)  # type: ignore[arg-type]
        with pytest.raises(InvalidRecordError, match=r"path|cannot write"):
            write_records([record], path)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="format is a name"):
        read_records(tmp_path / "x.json", 5)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="path"):
        read_records(tmp_path / "x.wtb", jou=3)  # type: ignore[arg-type]


# ------------------------------------------------------------------ JSON
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_records_with_variations_round_trip_through_json(setup: str, backend: str) -> None:
    name, options = SETUPS[setup]
    game = advance(brett.GAMES[name].twin(backend)(**options), 12, seed=8)
    record = Record.from_game(game, Event="club", Round="3")
    line = record.root.mainline()
    if line:
        line[0].comment = "a first move ] with \\ odd text"
        line[-1].properties["eval"] = "+1"
        sibling = game.copy()
        while len(sibling.move_stack) > 1:
            sibling.pop()
        alternatives = [m for m in list(sibling.legal_moves)[:3]
                        if str(m) != line[1].move] if len(line) > 1 else []
        for move in alternatives[:2]:
            line[0].add(str(move), comment="instead")
    back = brett.load_record(brett.dump(record))
    assert back == record and back.game() == record.game()
    assert brett.load(brett.dump(record)) == game  # the game at the end of the main line
    plain = Record.from_game(game)
    assert "nodes" not in brett.records.to_dict(plain)  # a bare main line stays compact
    assert brett.load_record(brett.dump(game)) == plain


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(nodes=[[1, "f5", "", {}]]), "node 1 must be"),
    (lambda d: d.update(nodes=[[0, "f5", "", {"a": 1}]]), "node 1 must be"),
    (lambda d: d.update(nodes="x"), "must be a list"),
    (lambda d: d.update(nodes=[[0, "f5", "", {}], [0, "a1", "", {}]]), "does not replay"),
    (lambda d: d.update(nodes=[[0, "d3", "", {}]]), "not the main line"),
    (lambda d: d.update(headers=[1]), "headers"),
    (lambda d: d.update(headers={"a": 1}), "header"),
])
def test_broken_record_json_is_an_invalid_record_error(change: Any, message: str) -> None:
    import json

    record = Record.from_game(brett.Reversi())
    record.root.add("f5", comment="c")
    data = brett.records.to_dict(record)
    change(data)
    with pytest.raises(InvalidRecordError, match=message):
        brett.load_record(json.dumps(data))


def test_a_half_made_move_is_a_game_not_a_record() -> None:
    game = brett.Phutball(columns=9, rows=9)
    game.push("e6")
    game.apply_action(81)
    with pytest.raises(InvalidRecordError, match="load it as a game"):
        brett.load_record(brett.dump(game))
    assert brett.load(brett.dump(game)) == game


JSON_PIECES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["format", "version", "game", "start", "moves", "headers", "nodes",
                         "pending_actions", "result", "x"]), inner, max_size=8),
    max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(data=JSON_PIECES, base=st.booleans())
def test_any_json_loads_or_raises_an_invalid_record_error(data: Any, base: bool) -> None:
    """Fuzzed record dicts (half of them starting from a valid record): a game,
    a record, or an InvalidRecordError, never another exception."""
    import json

    if base and isinstance(data, dict):
        valid = brett.records.to_dict(Record.from_game(brett.Reversi()))
        data = {**valid, **data}
    text = json.dumps(data)
    for reader in (brett.load, brett.load_record):
        try:
            reader(text)
        except BrettError as exc:
            assert isinstance(exc, InvalidRecordError)


def _some_games(count: int) -> list[Record]:
    games = []
    for seed in range(count):
        game = brett.Reversi()
        game.random_playout(seed=seed, max_plies=30)
        games.append(Record.from_game(game))
    return games


@pytest.mark.parametrize("suffix", ["sgf", "json", "ggf", "pos", "txt", "wtb"])
def test_a_write_that_fails_part_way_leaves_the_old_file_whole(tmp_path: Path,
                                                               suffix: str) -> None:
    """records.write goes to a temporary file beside the target and renames it
    once every record is written: a bad last record leaves the old file as it was
    (a 16 MB archive was cut to 2,439 games that still read as valid) and no
    temporary file."""
    target = tmp_path / f"games.{suffix}"
    games = _some_games(6)
    assert write_records(games, target) == 6
    old = target.read_bytes()

    def failing() -> Any:
        yield from games[:4]
        yield object()

    with pytest.raises(InvalidRecordError, match=r"record 5|is not a"):
        write_records(failing(), target)
    assert target.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    wthor = tmp_path / "games.wtb"       # the target itself, or a new file
    before = wthor.read_bytes() if wthor.exists() else None
    with pytest.raises(InvalidRecordError):
        write_wthor(failing(), wthor)
    assert (wthor.read_bytes() if wthor.exists() else None) == before
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_is_written_as_the_records_come(tmp_path: Path) -> None:
    pipe = tmp_path / "records.pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    assert write_records(_some_games(3), pipe, "sgf") == 3
    reader.join(60)
    assert len(next(iter(brett.records.from_text(received[0].decode(), "sgf"))).moves) > 0
