"""SGF FF[4]: round trips for Reversi, Phutball and Focus, real-tool files, and
malformed input that must raise InvalidRecordError and nothing else."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett.errors import InvalidRecordError
from brett.records import Record
from brett.records.sgf import MAX_NODES, MAX_SGF, read_sgf, write_sgf
from conftest import BACKENDS, NO_EXTENSIONS

SETUPS: list[tuple[str, dict[str, Any]]] = [
    ("reversi", {}),
    ("reversi", {"size": 6}),
    ("reversi", {"size": 8, "holes": ["a1", "h8"]}),
    ("reversi", {"board": "octagon", "handicap": 2}),
    ("focus", {}),
    ("focus", {"players": 3}),
    ("focus", {"players": 4, "move_rule": "up_to"}),
    ("focus", {"players": 4, "teams": False, "move_rule": "whole"}),
    ("phutball", {"columns": 9, "rows": 9}),
    ("phutball", {}),
    ("phutball", {"columns": 19, "rows": 19}),
]


def played(backend: str, name: str, options: dict[str, Any], seed: int,
           plies: int = 30) -> Any:
    game = brett.GAMES[name].twin(backend)(**options)
    game.random_playout(seed=seed, max_plies=plies)
    return game


def round_trip(records: list[Record]) -> list[Record]:
    text = write_sgf(records)
    back = read_sgf(text)
    assert back == records, text
    assert write_sgf(back) == text
    return back


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options"), SETUPS)
def test_round_trip_with_options(backend: str, name: str, options: dict[str, Any]) -> None:
    game = played(backend, name, options, seed=7)
    record = Record.from_game(game, Black="Ann \\ ]", White="Bob", Event="Open",
                              Comment="first game", SO="a source", BlackScore="33")
    back = round_trip([record])[0]
    assert back.game() == game
    assert back.start == game.start_position()


@pytest.mark.parametrize(("name", "options"), SETUPS)
def test_variations_and_comments(name: str, options: dict[str, Any]) -> None:
    game = played("python", name, options, seed=3, plies=12)
    record = Record.from_game(game)
    nodes = record.root.mainline()
    assert len(nodes) >= 3
    nodes[1].comment = "a comment with ] and \\ and\nnew lines"
    nodes[2].properties.update({"GB": "1", "eval": "+2.5"})
    for index in (0, 3, 6):
        if index >= len(nodes):
            break  # side lines: other legal moves at some nodes
        node = nodes[index]
        other = record.game(node.parent) if node.parent is not record.root else \
            type(game).from_position(record.start)
        for move in other.legal_moves:
            if str(move) != node.move:
                node.parent.add(str(move), comment=f"instead of {node.move}")
                break
    back = round_trip([record])[0]
    assert [n.move for n in back.root.walk()] == [n.move for n in record.root.walk()]


def test_collection_of_every_game() -> None:
    records = [Record.from_game(played("python", name, options, seed=1))
               for name, options in SETUPS]
    assert len(round_trip(records)) == len(SETUPS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32),
       plies=st.integers(0, 120), backend=st.sampled_from(["python", "cython"]))
def test_random_games_round_trip(setup: tuple[str, dict[str, Any]], seed: int, plies: int,
                                 backend: str) -> None:
    name, options = setup
    if NO_EXTENSIONS:
        backend = "python"
    game = played(backend, name, options, seed, plies)
    back = round_trip([Record.from_game(game, Result="?")])
    assert back[0].game() == game


def test_reversi_file_as_real_tools_write_it() -> None:
    text = """(;GM[2]FF[4]
SZ[8]AP[SomeTool:1.0]PB[Ann]PW[Bob]RE[B+2]C[Opening \\] notes\\\\ here,\\
 joined]AB[e4][D5]AW[d4][e5]PL[B]B[F5]
;W[d6]XX[unknown];B[C3]C[Tiger]
(;W[d3];B[c4])
(;W[F4]))"""
    [record] = read_sgf(text)
    assert record.headers == {"AP": "SomeTool:1.0", "Black": "Ann", "White": "Bob",
                              "Result": "B+2", "Comment": "Opening ] notes\\ here, joined"}
    assert record.start == brett.Reversi().position()
    assert [n.move for n in record.root.walk()][1:] == ["f5", "d6", "c3", "d3", "c4", "f4"]
    d6 = record.root.children[0].children[0]
    assert d6.properties == {"XX": "unknown"} and d6.children[0].comment == "Tiger"
    assert read_sgf(write_sgf([record])) == [record]


@pytest.mark.parametrize("pass_value", ["", "tt", "TT", "PA", "pa", "pass"])
def test_reversi_passes(pass_value: str) -> None:
    game = brett.Reversi(size=4)
    game.random_playout(seed=0)
    moves = [str(m) for m in game.move_stack]
    assert "pass" in moves
    body = "".join(f";{'BW'[i % 2]}[{pass_value if m == 'pass' else m}]"
                   for i, m in enumerate(moves))
    [record] = read_sgf(f"(;GM[2]SZ[4]{body})")
    assert record.game() == game
    assert ";B[]" in write_sgf([record]) or ";W[]" in write_sgf([record])


def test_reversi_moves_are_sgf_points() -> None:
    """Reversi squares are written as SGF's two-letter points, as Quarry writes
    them: f5 is ``fe`` (the row letter ``a`` for row 1)."""
    game = brett.Reversi()
    for move in ("f5", "d6", "c3", "d3", "c4"):
        game.push(move)
    text = write_sgf([Record.from_game(game)])
    assert text == "(;FF[4]GM[2]SZ[8]\n;B[fe];W[df];B[cc];W[dc];B[cd])\n"
    assert read_sgf(text)[0].game() == game


MOVE_VALUE = re.compile(r";([BW])\[([^\]]*)\]")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("size", [4, 6, 8, 10, 12, 14, 16])
def test_reversi_points_on_every_board_size(backend: str, size: int) -> None:
    """Whole games on every size, blocked squares and all, are written in points
    (``pp`` is p16) with every pass as ``B[]`` where it was played, and read
    back exactly; on 16x16 ``pa`` is the square p1, not a pass."""
    letters = "abcdefghijklmnop"[:size]
    corners = set()
    for seed in range(40):
        options: dict[str, Any] = {"size": size}
        if seed % 2 and size > 4:     # 4x4 has no square that may be blocked
            options.update(holes="random", seed=seed)
        game = played(backend, "reversi", options, seed, plies=10_000)
        record = Record.from_game(game)
        round_trip([record])
        text = write_sgf([record])
        values = [value for _, value in MOVE_VALUE.findall(text)]
        moves = [str(m) for m in game.move_stack]
        assert len(values) == len(moves)
        for value, move in zip(values, moves, strict=True):
            if move == "pass":
                assert value == ""
            else:
                assert len(value) == 2 and value[0] == move[0] and value[1] in letters
                assert int(move[1:]) == letters.index(value[1]) + 1
        corners |= {value for value in values if value in ("pa", "pp", "aa", "ap")}
    assert size != 16 or corners == {"pa", "pp", "aa", "ap"}, corners


def test_reversi_setup_points() -> None:
    """AB/AW are written in points too and read in either spelling."""
    text = "(;GM[2]FF[4]SZ[6]AB[c3][d4][a1]AW[c4][d3]PL[W];W[b3])"
    [record] = read_sgf(text)
    written = write_sgf([record])
    assert "AB[aa][cc][dd]AW[dc][cd]PL[W]" in written and ";W[bc]" in written
    [again] = read_sgf(written.replace("BP[", "XX["))   # AB/AW alone make the start
    assert again.start == record.start


def test_reversi_setup_without_bp() -> None:
    text = "(;GM[2]FF[4]SZ[6]AB[c3][d4][a1]AW[c4][d3]PL[W];W[b3])"
    [record] = read_sgf(text)
    assert record.start == "x-----/------/--xo--/--ox--/------/------ o n=6"
    assert [str(m) for m in record.moves] == ["b3"]
    again = read_sgf(write_sgf([record]))
    assert again == [record] and "AB[" in write_sgf([record])


def test_two_games_and_whitespace() -> None:
    text = " (;GM[14]SZ[9] ;B[e6] ;W[ e4 ] )\n\n( ; GM [36] ; MV [d2-d3]\n)\n"
    phutball, focus = read_sgf(text)
    assert phutball.game_name == "phutball" and [str(m) for m in phutball.moves] == ["e6", "e4"]
    assert focus.game_name == "focus" and focus.game().ply == 1


def test_move_in_root_and_moveless_nodes() -> None:
    text = "(;GM[2]B[f5]C[root];C[after f5];W[d6];)"
    [record] = read_sgf(text)
    f5 = record.root.children[0]
    assert record.headers == {"Comment": "root"} and f5.comment == "after f5"
    assert [n.move for n in record.root.walk()] == [None, "f5", "d6"]


def test_schuft_is_refused() -> None:
    game = brett.Schuft(players=3, seed=1)
    with pytest.raises(InvalidRecordError, match="SGF"):
        write_sgf([Record.from_game(game)])


def test_write_refuses_root_comment_and_bad_names() -> None:
    record = Record.from_game(brett.Reversi())
    record.root.comment = "x"
    with pytest.raises(InvalidRecordError, match="Comment"):
        write_sgf([record])
    record = Record.from_game(brett.Reversi(), **{"a:b": "1"})
    with pytest.raises(InvalidRecordError, match="':'"):
        write_sgf(record)


MALFORMED = [
    ("", "no game"),
    ("(;GM[2];B[f5]", "never closed"),
    ("(;GM[2];B[f5]))", "expected '\\('"),
    ("(GM[2];B[f5])", "expected ';'"),
    ("(;GM[2]Gm[3])", "bad property name"),
    ("(;GM[2];b[f5])", "unexpected"),
    ("(;GM[2];B[f5)", "never closed"),
    ("(;GM[2];B)", "no value"),
    ("(;GM[2];B[f5]C[a]C[b])", "twice"),
    ("(;GM[2];B[a1])", "does not replay"),
    ("(;GM[2];W[f5])", "B is to move"),
    ("(;GM[2];B[f5]W[d6])", "two moves"),
    ("(;GM[1];B[dd])", "GM\\[1\\]"),
    ("(;B[f5])", "GM\\[1\\]"),
    ("(;GM[2]SZ[7])", "bad start"),
    ("(;GM[2]FF[5])", "FF"),
    ("(;GM[2](;B[f5]);W[d6])", "after a variation"),
    ("(;GM[2];B[f5];AB[a1])", "root"),
    ("(;GM[2]BP[nonsense])", "bad start"),
    ("(;GM[14]SZ[9:11]BP[9/9/9/9/4*4/9/9/9/9 0 9x9])", "does not match"),
    ("(;GM[36];B[d2-d3])(;GM[36]BP[x])", "bad start"),
    ("(;GM[36]BP[.,.,.,./r,r,g,g,b,b/.,g,g,b,b,r,r,./.,b,b,r,r,g,g,./.,r,r,g,g,b,b,./"
     ".,g,g,b,b,r,r,./b,b,r,r,g,g/.,.,.,. r 1,1,1 -,-,- first=rgb];B[+a4])", "MV"),
    ("(;GM[2]AB[z9])", "not a square"),
    ("(;GM[2]PL[X])", "PL"),
    ("x(;GM[2])", "expected '\\('"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_input_names_the_place(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message) as info:
        read_sgf(text)
    assert "line " in str(info.value) or "characters" in str(info.value)


@pytest.mark.parametrize("text", [
    "(;GM[0000020])", "(;GM[2" + "0" * 5000 + "])", "(;GM[²])", "(;GM[2]AB[a²])",
    "(;GM[2]AB[a" + "1" * 5000 + "])", "(;GM[2]AB[a01])", "(;GM[2]SZ[²])",
])
def test_numbers_are_ascii_digits_of_a_sensible_length(text: str) -> None:
    """str.isdigit takes '²', which int() refuses, and int() refuses thousands
    of digits: neither may escape as a ValueError or a KeyError."""
    with pytest.raises(InvalidRecordError, match="line 1"):
        read_sgf(text)


def test_the_first_error_ends_the_reading() -> None:
    """Each node is replayed as it is read: an illegal first move is reported
    before the rest of the text is even parsed."""
    text = "(;GM[2];B[a1]" + ";W[d6]C[...]" * 100_000 + "garbage"
    with pytest.raises(InvalidRecordError, match=r"line 1, column 9: B\[a1\] does not"):
        read_sgf(text)


def test_moveless_nodes_add_their_comments_in_order() -> None:
    text = "(;GM[2];B[d3]C[own];C[a];;C[b]XX[1](;C[c])(;C[d];C[e]))"
    [record] = read_sgf(text)
    [d3] = record.root.children
    assert d3.comment == "own\na\nb\nc\nd\ne" and d3.properties == {"XX": "1"}
    assert read_sgf(write_sgf([record])) == [record]


def test_writing_refuses_text_that_is_not_a_string() -> None:
    """Comments, properties and headers set directly (not through Node.add or
    Record) are checked when written: an InvalidRecordError, not an AttributeError."""
    for spoil in (lambda r: setattr(r.root.children[0], "comment", 5),
                  lambda r: r.root.children[0].properties.update(eval=1.5),
                  lambda r: r.root.children[0].properties.update({3: "x"}),
                  lambda r: r.headers.update(Black=None)):
        record = Record.from_game(played("python", "reversi", {}, 1))
        spoil(record)
        with pytest.raises(InvalidRecordError, match=r"record 1: .*is a string"):
            write_sgf([record])


def test_error_names_line_and_column() -> None:
    with pytest.raises(InvalidRecordError, match="line 3, column 2"):
        read_sgf("(;GM[2]\n;B[f5]\n;B[d6])")


def test_nothing_half_read() -> None:
    good = write_sgf([Record.from_game(played("python", "reversi", {}, 1))])
    with pytest.raises(InvalidRecordError):
        read_sgf(good + "(;GM[2];B[f5](;W[d6])(;W[a1]))")


def test_huge_and_deep_input() -> None:
    with pytest.raises(InvalidRecordError, match="at most"):
        read_sgf("(" * (MAX_SGF + 1))
    with pytest.raises(InvalidRecordError, match="more than 1,000,000 nodes"):
        read_sgf("(;GM[2]" + "(;" * MAX_NODES)  # refused after a million nodes, not at the end
    deep = 200_000
    with pytest.raises(InvalidRecordError, match="never closed"):
        read_sgf("(;GM[2];B[f5]" + "(;C[x]" * deep)  # comments merged into f5's
    # deep but well formed: moveless nodes in nested variations
    text = "(;GM[2]" + "(;" * deep + "B[f5]" + ")" * deep + ")"
    assert [n.move for n in read_sgf(text)[0].root.walk()] == [None, "f5"]
    with pytest.raises(InvalidRecordError, match="never closed"):
        read_sgf("(;GM[2]C[" + "\\" * 1_000_001)


def test_long_game_reads_fast() -> None:
    # fifty whole Reversi games in one collection
    records = [Record.from_game(played("python", "reversi", {}, seed, 200))
               for seed in range(50)]
    assert read_sgf(write_sgf(records)) == records


def test_read_refuses_non_text() -> None:
    with pytest.raises(InvalidRecordError):
        read_sgf(b"(;GM[2])")  # type: ignore[arg-type]


SGF_ALPHABET = st.sampled_from([*"();[]\\ \nBWCGMABEPLSZ25f5d6:tx", "GM[2]", "GM[14]",
                                "GM[36]", ";B[f5]", ";W[d6]", "MV[d2-d3]"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(SGF_ALPHABET, max_size=40).map("".join)))
def test_fuzz_parses_or_raises(text: str) -> None:
    try:
        records = read_sgf(text)
    except InvalidRecordError:
        return
    assert read_sgf(write_sgf(records)) == records
