"""GGF (GGS, NBoard, Edax): round trips, files in the shape real tools write, and
every malformed input an InvalidRecordError naming the place."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett.errors import BrettError, InvalidRecordError
from brett.records import Record
from brett.records.ggf import MAX_GGF, read_ggf, write_ggf

START = "---------------------------O*------*O--------------------------- *"
NBOARD = f"""(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[kameoko]PW[Edax (delta)]
RE[?]TI[0:00//02:00]TY[8]BO[8 {START}]B[F5]W[d6//1.25]B[C3/0.00/2.1]W[f4];)
(;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[a]PW[b]RB[2083.25]RW[1800.00]
TI[15:00//02:00]TY[8r]RE[+12.000]
BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]
B[d3]W[c5]KM[0];)
"""


def test_files_in_the_shape_real_tools_write() -> None:
    first, second = read_ggf(NBOARD)
    assert [str(m) for m in first.moves] == ["f5", "d6", "c3", "f4"]
    assert first.headers == {"Place": "NBoard", "Date": "2014-02-21 20:52:27 GMT",
                             "Black": "kameoko", "White": "Edax (delta)", "Result": "?",
                             "TimeControl": "0:00//02:00"}
    nodes = first.root.mainline()
    assert nodes[1].properties == {"time": "1.25"}
    assert nodes[2].properties == {"eval": "0.00", "time": "2.1"}
    assert second.headers["Type"] == "8r" and second.headers["BlackRating"] == "2083.25"
    assert second.headers["KM"] == "0"  # an unknown property is kept under its name
    assert read_ggf(write_ggf([first, second])) == [first, second]


@pytest.mark.parametrize("options", [{}, {"size": 4}, {"size": 10}, {"size": 16}])
def test_round_trip_with_passes_evaluations_and_setups(backend: str,
                                                      options: dict[str, int]) -> None:
    game = brett.Reversi.twin(backend)(**options)
    game.random_playout(seed=7)
    record = Record.from_game(game, Black="Ann", White="Bob", Event="Club")
    record.root.mainline()[0].properties.update(eval="+2.5", time="3.1")
    assert read_ggf(write_ggf([record])) == [record]
    setup = brett.Reversi.twin(backend).from_position(game.move_stack and
                                                      _after(game, 10).position())
    again = read_ggf(write_ggf([Record.from_game(setup)]))[0]
    assert again.game() == setup


def test_passes_are_written_as_pa(backend: str) -> None:
    game = next(g for g in (_played(backend, seed) for seed in range(500))
                if any(m.is_pass for m in g.move_stack))
    text = write_ggf([Record.from_game(game)])
    assert "[PA]" in text and read_ggf(text)[0].game() == game


def _played(backend: str, seed: int) -> brett.Reversi:
    game = brett.Reversi.twin(backend)()
    game.random_playout(seed=seed)
    return game


def _after(game: brett.Reversi, plies: int) -> brett.Reversi:
    copy = game.copy()
    while len(copy.move_stack) > plies:
        copy.pop()
    return copy


def test_what_ggf_cannot_hold_is_refused() -> None:
    with pytest.raises(InvalidRecordError, match="blocked squares"):
        write_ggf([Record.from_game(brett.Reversi(holes=["a1"]))])
    with pytest.raises(InvalidRecordError, match="Reversi games only"):
        write_ggf([Record.from_game(brett.Focus())])
    with pytest.raises(InvalidRecordError, match="cannot hold"):
        write_ggf([Record.from_game(brett.Reversi(), Black="a]b")])


@pytest.mark.parametrize(("text", "message"), [
    ("(;GM[Othello]BO[8 " + START + "]B[F5]", "line 1, column .*never ends"),
    ("(;GM[Chess]BO[8 " + START + "];)", "GM\\[Chess\\]"),
    ("(;GM[Othello]B[F5];)", "no BO"),
    ("(;GM[Othello]BO[9 " + START + "];)", "expected 81 cells"),
    ("(;GM[Othello]BO[8 " + START[:-1] + "x];)", "expected 64 cells"),
    ("(;GM[Othello]BO[x];)", "board size"),
    ("(;GM[Othello]BO[8 " + START + "]\nW[F5];)", "line 2, column 1: W\\[f5\\] but Black"),
    ("(;GM[Othello]BO[8 " + START + "]B[A1];)", "B\\[a1\\]: illegal move"),
    ("(;GM[Othello]BO[8 " + START + "]B[F5/1/2/3];)", "square/evaluation/seconds"),
    ("(;GM[Othello]BO[8 " + START + "]B[Z9];)", "B\\[z9\\]"),
    ("(;GM[Othello]BO[8 " + START + "] 12 ;)", "expected a property"),
    ("junk (;GM[Othello]BO[8 " + START + "];)", "text outside a game"),
    ("(;GM[Othello]BO[8 " + START + "];) trailing", "text outside a game"),
    (b"\xff", "expected a property|text outside"),
])
def test_malformed_text_names_the_place(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        read_ggf(text)


@pytest.mark.parametrize("board", ["² -- *", "9" * 5000 + " -- *"])
def test_the_board_size_is_ascii_digits(board: str) -> None:
    """str.isdigit takes '²', which int() refuses (a ValueError escaped)."""
    with pytest.raises(InvalidRecordError, match=r"line 1, column 17: .*board size"):
        read_ggf(f"(;GM[Othello]BO[{board}];)")


def test_the_first_error_ends_the_reading() -> None:
    """Each move is replayed as it is read: an illegal first move is reported
    before the rest is parsed (every property was parsed first: a 16 MB file took
    seconds and a gigabyte to report its line 1)."""
    text = f"(;GM[Othello]BO[8 {START}]B[A1]" + "W[D6//1.25]" * 100_000 + " garbage"
    with pytest.raises(InvalidRecordError, match=r"line 1, column 86: B\[a1\]: illegal"):
        read_ggf(text)
    with pytest.raises(InvalidRecordError, match="second BO"):
        read_ggf(f"(;GM[Othello]BO[8 {START}]B[F5]BO[8 {START}];)")


def test_writing_checks_what_it_writes() -> None:
    record = Record.from_game(brett.Reversi())
    record.root.add("f5", eval="1/2")
    with pytest.raises(InvalidRecordError, match=r"record 1: .*cannot hold '/'"):
        write_ggf([record])
    record.root.children[0].properties["eval"] = 3  # type: ignore[assignment]
    with pytest.raises(InvalidRecordError, match=r"record 1: .*is a string"):
        write_ggf([record])


def test_the_side_to_move_is_written_even_when_it_cannot_move() -> None:
    """Found by the fuzzer: BO[... *] of a finished position came back as O."""
    [record] = read_ggf("(;GM[Othello]BO[6 ------ ------ ------ --*--O ------ ------ *];)")
    assert record.game().is_over() and record.start.endswith(" x n=6")
    assert "------ *]" in write_ggf([record]) and read_ggf(write_ggf([record])) == [record]


def test_input_size_and_type_are_checked() -> None:
    with pytest.raises(InvalidRecordError):
        read_ggf(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="at most"):
        read_ggf(" " * (MAX_GGF + 1))
    assert read_ggf("") == [] and read_ggf("\n  \n") == []


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="(;)[]BWOPAGMbo*-/ 0123456789FfEeDd\n", max_size=200))
def test_any_text_reads_or_raises_an_invalid_record_error(text: str) -> None:
    try:
        for record in read_ggf(text):
            record.game()
    except BrettError as exc:
        assert isinstance(exc, InvalidRecordError)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), size=st.sampled_from([4, 6, 8, 12]),
       plies=st.integers(0, 80))
def test_random_games_round_trip(seed: int, size: int, plies: int) -> None:
    game = brett.Reversi(size=size)
    game.random_playout(seed=seed, max_plies=plies)
    record = Record.from_game(game, Black="x" * (seed % 5), Result="?")
    assert read_ggf(write_ggf([record])) == [record]
