"""Records as other programs write them: GGS archive lines and synchro pairs,
results as data and their check against the board, GGF types (anti-Reversi,
komi, random starts), pass spellings, Edax problems, position lists, Othello
transcripts and streaming.  The small files here reproduce, each in a few
lines of our own, the quirks found in real files (shared/data/real/README.md)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import brett
from brett.errors import InvalidRecordError
from brett.frontends.cli import main
from brett.records import Record, parse_result, read, stream, write
from brett.records.ggf import GgfType, iter_ggf, parse_type, read_ggf, write_ggf
from brett.records.obf import read_obf, write_obf
from brett.records.positions import read_positions, write_positions
from brett.records.sgf import iter_sgf, read_sgf, write_sgf
from brett.records.transcript import read_transcripts, write_transcripts
from conftest import SETUPS, advance
from fuzz.readers import on_core

BOARD = "-------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *"


def ggf_game(moves: str, extra: str = "", board: str = BOARD) -> str:
    return f"(;GM[Othello]PB[a]PW[b]{extra}BO[8 {board}]{moves};)"


def played(seed: int, plies: Any = None, **options: Any) -> brett.Reversi:
    game = brett.Reversi(**options)
    game.random_playout(seed=seed, max_plies=plies)
    return game


def ggf_moves(game: brett.Reversi) -> str:
    """A game's moves as GGF writes them (passes as PA)."""
    return "".join(f"{colour}[{'PA' if m.is_pass else str(m).upper()}]"
                   for colour, m in zip(_colours(game), game.move_stack, strict=True))


def _colours(game: brett.Reversi) -> Iterator[str]:
    replay = brett.Reversi.from_position(game.start_position())
    for move in game.move_stack:
        yield "BW"[replay.current_player()]
        replay.push(move)


# ------------------------------------------------------------------ GGS archives
def test_archive_lines_and_synchro_pairs_read_whole(backend: str) -> None:
    games = [played(seed) for seed in range(3)]
    one = ggf_game(ggf_moves(games[0]), "TY[8]RE[?]")
    pair = ggf_game(ggf_moves(games[1]), "TY[s8]") + ggf_game(ggf_moves(games[2]), "TY[s8]")
    text = f"1 {one}\n2 {pair}\n{one}\n"
    with on_core(backend):
        records = read_ggf(text)
    assert [r.game() for r in records] == [games[0], games[1], games[2], games[0]]
    assert [r.headers.get("Synchro") for r in records] == [None, "1.1", "1.2", None]
    assert records[1].headers["Type"] == "s8"
    written = write_ggf(records)
    assert written.splitlines()[1].startswith("2 (;GM[Othello]")
    assert read_ggf(written) == records


@pytest.mark.parametrize(("text", "message"), [
    ("2 " + ggf_game(""), r"line 1, column \d+: the archive line announces 2 games and holds 1"),
    ("3 " + ggf_game("") * 3, r"line 1, column 3: an archive line holds 1 game or 2"),
    ("2 " + ggf_game("") + "\n1 " + ggf_game(""), r"line 2, column 3: the archive line before"),
    ("12345 " + ggf_game(""), r"line 1, column 1: an archive line's count"),
    ("1 x", r"line 1, column 1: an archive line's count is followed by its games"),
    ("1" + ggf_game(""), r"line 1, column 1: an archive line's count is followed"),
])
def test_malformed_archive_lines_are_refused_with_a_position(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        read_ggf(text)


def test_a_synchro_header_that_is_not_a_pair_is_kept_as_a_property() -> None:
    record = Record.from_game(played(1, 6), Synchro="4.1")
    text = write_ggf([record])
    assert "Synchro[4.1]" in text and not text.startswith("2 ")
    assert read_ggf(text) == [record]


# ------------------------------------------------------------------ passes
@pytest.mark.parametrize("spelling", ["PA", "pa", "pass", "PASS", "pass//1.67", "", "@@@@", "ps"])
def test_pass_spellings_in_ggf(spelling: str) -> None:
    game = _with_pass()
    moves = ggf_moves(game).replace("[PA]", f"[{spelling}]")
    [record] = read_ggf(ggf_game(moves))
    assert record.game() == game
    assert any(n.move == "pass" for n in record.root.mainline())


@pytest.mark.parametrize("spelling", ["tt", "", "PA", "pass", "@@"])
def test_pass_spellings_in_sgf(spelling: str) -> None:
    game = _with_pass()
    text = write_sgf([Record.from_game(game)]).replace("[]", f"[{spelling}]")
    assert read_sgf(text)[0].game() == game


QUARRY = Path(__file__).parent / "data" / "quarry.sgf"   # saved by Quarry 0.2.0 (Save As)


def test_quarrys_own_sgf_reads(backend: str) -> None:
    """Quarry writes SGF's two-letter points (``B[ef]`` is e6), leaves forced
    passes out (``W[ag];W[ch];W[ga]``) and gives each move its clock (``BL``)."""
    text = QUARRY.read_text()
    assert ";W[ag]WL[59.956];W[ch]" in text
    with on_core(backend):
        [record] = read_sgf(text)
        game = record.game()
    moves = [str(m) for m in game.move_stack]
    assert moves[0] == "e6" and moves.count("pass") == 2 and len(moves) == 62
    assert moves[-5:] == ["a7", "pass", "c8", "pass", "g1"]
    assert game.is_over() and game.discs() == (33, 31)
    assert record.headers["Result"] == "B+2" and record.check_result() == []
    assert record.headers["Black"] == "brett 0.2.0" and record.headers["AP"] \
        == "Quarry:0.2.0"
    node = record.root
    for _ in range(3):
        node = node.children[0]
    assert (node.move, node.properties) == ("g3", {"BL": "59.992"})
    # written back by brett and read again: the same game, the passes now written
    assert read_sgf(write_sgf([record]))[0].game().move_stack == game.move_stack


@pytest.mark.parametrize("text", ["(;FF[4]GM[2]SZ[8];B[fe];B[ed])",   # White had a move
                                  "(;FF[4]GM[2]SZ[8];W[fe])"])          # Black to move
def test_a_left_out_pass_is_inferred_only_where_the_pass_was_forced(backend: str,
                                                                      text: str) -> None:
    with on_core(backend), pytest.raises(InvalidRecordError, match="is to move"):
        read_sgf(text)


def _with_pass() -> brett.Reversi:
    """The first seeded 8x8 game with a pass in it."""
    for seed in range(200):
        game = played(seed)
        if any(m.is_pass for m in game.move_stack[:-1]):
            return game
    raise AssertionError("no seeded game passes")  # pragma: no cover


# ------------------------------------------------------------------ results
@pytest.mark.parametrize(("text", "winner", "score", "ending"), [
    ("+12.000", 0, 12.0, "normal"), ("-40.00:r", 1, -40.0, "resigned"),
    ("+2.00:t", 0, 2.0, "time"), ("-4.00:s", 1, -4.0, "agreed"), ("+0.000", None, 0.0, "normal"),
    ("0", None, 0.0, "normal"), ("18.0", 0, 18.0, "normal"), ("B+12", 0, 12.0, "normal"),
    ("W+12.5", 1, -12.5, "normal"), ("W+R", 1, None, "resigned"), ("B+Time", 0, None, "time"),
    ("B+", 0, None, "normal"), ("Draw", None, 0.0, "normal"), ("Void", None, None, "unknown"),
    ("?", None, None, "unknown"), ("+3.0:x", None, None, "unknown"), ("", None, None, "unknown"),
])
def test_results_are_parsed_from_every_spelling(text: str, winner: Any, score: Any,
                                                ending: str) -> None:
    result = parse_result(text)
    assert (result.winner, result.score, result.ending, result.text) == (winner, score, ending,
                                                                           text)
    assert result.is_draw == (winner is None and ending != "unknown")


@pytest.mark.parametrize(("text", "sgf", "ggf"), [
    ("+57.000", "B+57", "+57.000"), ("-40.00:r", "W+R", "-40.00:r"),
    ("-3.000:t", "W+T", "-3.000:t"), ("+4.000:s", "B+4", "+4.000:s"),
    ("+0.000", "0", "+0.000"), ("W+2", "W+2", "-2.000"), ("B+12.5", "B+12.5", "+12.500"),
    ("0", "0", "0"), ("Draw", "Draw", "+0.000"), ("+12", "B+12", "+12"), ("7", "B+7", "7"),
    ("W+R", "W+R", "W+R"), ("B+", "B+", "B+"), ("?", "?", "?"), ("Void", "Void", "Void"),
])
def test_each_writer_writes_its_own_result_notation(backend: str, text: str, sgf: str,
                                                    ggf: str) -> None:
    """GGF's RE[+57.000] is SGF's RE[B+57] and back; what a format cannot say
    (a GGF resignation without a score, an unknown text) is kept verbatim."""
    game, _ = _finished(4)
    record = Record.from_game(game, Result=text)
    with on_core(backend):
        as_sgf, as_ggf = write_sgf([record]), write_ggf([record])
        assert f"RE[{sgf}]" in as_sgf and f"RE[{ggf}]" in as_ggf
        # each reads back as its text says, with the same winner (SGF's B+R and
        # B+12 keep no score of a resignation and no agreement)
        for back, written in ((read_sgf(as_sgf)[0], sgf), (read_ggf(as_ggf)[0], ggf)):
            assert back.headers["Result"] == written
            assert back.result is not None
            assert back.result.winner == parse_result(text).winner


def test_convert_writes_sgf_results_from_ggf(tmp_path: Path) -> None:
    game, score = _finished(4)
    source, target = tmp_path / "games.ggf", tmp_path / "games.sgf"
    source.write_text(ggf_game(ggf_moves(game), f"RE[{score:+.3f}]"))
    done = subprocess.run([sys.executable, "-m", "brett", "convert", str(source), str(target)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"RE[{'BW'[score < 0]}+{abs(score)}]" in target.read_text()


def _finished(seed: int) -> tuple[brett.Reversi, int]:
    game = played(seed)
    black, white = game.discs()
    empties = 64 - black - white
    diff = black - white
    return game, diff + (empties if diff > 0 else -empties if diff < 0 else 0)


def test_a_right_result_agrees_and_a_wrong_sign_is_reported(backend: str) -> None:
    """Edax writes the wrong sign in some games (GGF RE and SGF B+/W+)."""
    game, score = _finished(4)
    assert score != 0
    with on_core(backend):
        right = read_ggf(ggf_game(ggf_moves(game), f"RE[{score:+.3f}]"))[0]
        wrong = read_ggf(ggf_game(ggf_moves(game), f"RE[{-score:+.3f}]"))[0]
        sgf = Record.from_game(game, Result=f"{'BW'[score > 0]}+{abs(score)}")
    assert right.result is not None and right.result.score == score
    assert right.check_result() == []
    [message] = wrong.check_result()
    assert f"'{-score:+.3f}'" in message and "the board" in message
    assert wrong.headers["Result"] == f"{-score:+.3f}"  # the text kept verbatim
    assert len(read_sgf(write_sgf([sgf]))[0].check_result()) == 1


def test_a_result_from_the_second_players_side_is_reported() -> None:
    """One NBoard game gives RE from White's side."""
    game, score = _finished(6)
    record = Record.from_game(game, Result=f"{-score:.1f}")
    assert len(record.check_result()) == 1


def test_wthor_counts_an_unfinished_game_and_shared_empties(tmp_path: Path) -> None:
    """WTHOR keeps unfinished games; the Logistello book shares the empties."""
    unfinished = played(1, 30)
    finished = next(g for g in (played(s) for s in range(100)) if sum(g.discs()) < 64
                    and g.discs()[0] != g.discs()[1])
    black, white = finished.discs()
    empties = 64 - black - white
    shared = black + empties // 2
    write([Record.from_game(unfinished, BlackScore="40"),
           Record.from_game(finished, BlackScore=str(shared)), Record.from_game(finished)],
          tmp_path / "y.wtb")
    records = read(tmp_path / "y.wtb")
    assert "is not over" in records[0].check_result()[0]
    assert len(records[1].check_result()) == 1
    assert records[2].check_result() == []
    assert records[2].result is not None and records[2].result.ending == "normal"


def test_komi_and_flags() -> None:
    game, score = _finished(7)
    komi = ggf_game(ggf_moves(game), f"TY[8k]KM[-3.25]RE[{score + 3.25:+.2f}]")
    assert read_ggf(komi)[0].check_result() == []
    assert len(read_ggf(komi.replace("KM[-3.25]", "KM[3.25]"))[0].check_result()) == 1
    resigned = Record.from_game(played(2, 20), Result="-64.00:r")
    assert resigned.result is not None and resigned.result.ending == "resigned"
    assert resigned.check_result() == []  # the board cannot say
    assert Record.from_game(played(2, 20), Result="?").check_result() == []
    assert Record.from_game(played(2, 20)).result is None


def test_stats_check_reports_each_disagreement(tmp_path: Path) -> None:
    game, score = _finished(4)
    (tmp_path / "g.ggf").write_text(ggf_game(ggf_moves(game), f"RE[{-score:+.3f}]") + "\n"
                                    + ggf_game(ggf_moves(game), f"RE[{score:+.3f}]") + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["stats", str(tmp_path / "g.ggf"), "--check"], out, err) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"{tmp_path / 'g.ggf'}: game 1: the result")
    assert "results checked: 2 games with a known result, 1 disagree with the board" in lines


# ------------------------------------------------------------------ GGF types
@pytest.mark.parametrize(("text", "kind"), [
    ("8", GgfType(8, None, False, False, False)), ("s8r18", GgfType(8, 18, True, False, False)),
    ("8kr20", GgfType(8, 20, False, True, False)), ("10a", GgfType(10, None, False, False, True)),
    ("8r", GgfType(8, 0, False, False, False)), ("", GgfType(None, None, False, False, False)),
])
def test_ggf_types(text: str, kind: GgfType) -> None:
    assert parse_type(text) == kind


@pytest.mark.parametrize("text", ["8x", "8 8", "r1r2", "88", "-8"])
def test_unknown_ggf_types_are_refused(text: str) -> None:
    with pytest.raises(InvalidRecordError, match="GGF types"):
        parse_type(text)
    with pytest.raises(InvalidRecordError, match=r"line 1, column 1: TY"):
        read_ggf(ggf_game("", f"TY[{text}]"))


def test_the_type_and_the_board_agree() -> None:
    with pytest.raises(InvalidRecordError, match=r"TY\[10\] is a game on 10x10"):
        read_ggf(ggf_game("B[F5]", "TY[10]"))


def test_a_random_start_with_white_to_move_replays() -> None:
    board = "-------- -------- ---O---- ---***-- ---OO--- --*-**-- -------- -------- O"
    [record] = read_ggf(ggf_game("W[E3/8.00/0.012]B[D2]", "TY[8r]", board))
    assert record.headers["Type"] == "8r" and [str(m) for m in record.moves] == ["e3", "d2"]


def test_anti_reversi_games_read_score_and_write(backend: str) -> None:
    with on_core(backend):
        game = played(5, anti=True)
    black, white = game.discs()
    assert game.outcome() is not None and black != white
    assert game.outcome().winners == ((0,) if black < white else (1,))
    [record] = read_ggf(ggf_game(ggf_moves(game), f"TY[8a]RE[{white - black:+.2f}]"))
    assert record.game() == game and record.game().anti
    assert "Type" not in record.headers  # what the writer writes back
    assert "TY[8a]" in write_ggf([record]) and read_ggf(write_ggf([record])) == [record]
    assert record.check_result() == []
    assert len(Record.from_game(game, Result=f"{black - white:+.2f}").check_result()) == 1
    assert "anti-Reversi" in brett.svg(game)


def test_anti_reversi_twins_agree_on_perft_and_random_games() -> None:
    """The moves are Reversi's: perft is the same; the winner is the other."""
    twins = [brett.Reversi.twin(b) for b in ("python", "cython")
             if brett.Reversi.twin(b) is not None]
    for size in (4, 6, 8):
        counts = {cls(size=size, anti=True).perft(4) for cls in twins}
        assert counts == {brett.Reversi(size=size).perft(4)}
    for seed in range(20):
        games = [cls(anti=True) for cls in twins]
        for game in games:
            game.random_playout(seed=seed)
        assert len({g.position() for g in games}) == 1
        assert len({g.outcome() for g in games}) == 1
        normal = brett.Reversi.from_position(games[0].position().replace(" anti", ""))
        outcome, plain = games[0].outcome(), normal.outcome()
        assert outcome is not None and plain is not None
        assert set(outcome.winners) | set(plain.winners) == ({0, 1} if plain.winners else set())


# ------------------------------------------------------------------ Edax problems
OBF = ("--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;"
       " H7:+6;\n\n")


def test_obf_problems_read_and_write() -> None:
    [problem] = read_obf(OBF + "% a comment line\n")
    assert [(n.move, n.properties) for n in problem.root.children] == [
        ("g8", {"score": "+18"}), ("h1", {"score": "+12"}), ("h7", {"score": "+6"})]
    assert write_obf([problem]) == OBF.strip() + "\n"
    game = problem.game(problem.root.children[1])
    assert str(game.peek()) == "h1"


@pytest.mark.parametrize(("text", "message"), [
    (OBF.replace("G8:+18", "G8:x"), r"line 1: 'G8:x': a move is SQUARE:SCORE"),
    (OBF.replace("G8:+18", "A1:+18"), r"line 1: a1: "),
    (OBF.replace("H7:+6", "G8:+6"), r"line 1: g8 is scored twice"),
    (OBF.replace(" X;", " Z;"), r"line 1: .*side to move"),
    ("\n" + OBF[5:], r"line 2: .*cells of a square board"),
])
def test_malformed_problems_are_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        read_obf(text)


# ------------------------------------------------------------------ position lists
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_position_lists_hold_every_game(setup: str, backend: str) -> None:
    name, options = SETUPS[setup]
    game = advance(brett.GAMES[name].twin(backend)(**options), 12, seed=5)
    record = Record.from_game(game, id="pos 1", note='say "hi"; then \\ go')
    text = write_positions([record, Record(name, game.position())])
    with on_core(backend):
        back = read_positions("# a comment\n\n" + text)
    assert back == [record, Record(name, game.position())]
    assert back[0].game() == game


@pytest.mark.parametrize(("text", "message"), [
    ("chess 8/8 w", r"line 1: 'chess' is not a game"),
    ("reversi nonsense", r"line 1: bad position"),
    ("reversi " + brett.Reversi().position() + "; id", r"expected the value of 'id'"),
    ("reversi " + brett.Reversi().position() + "; id 1 2", r"after 'id': expected ';'"),
    ("reversi " + brett.Reversi().position() + "; moves a1", r"move 1 \('a1'\) does not"),
    ("\n\nreversi " + brett.Reversi().position() + "; a 1; a 2", r"line 3: annotation 'a'"),
])
def test_malformed_position_lists_are_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        read_positions(text)


# ------------------------------------------------------------------ transcripts
def test_transcripts_with_and_without_passes() -> None:
    game = _with_pass()
    plain = "".join(str(m) for m in game.move_stack if not m.is_pass)
    spaced = " ".join("@@" if m.is_pass else str(m).upper() for m in game.move_stack)
    assert [r.game() for r in read_transcripts(f"{plain}\n# note\n\n{spaced}\n")] == [game] * 2
    assert write_transcripts(read_transcripts(plain)) == plain + "\n"


@pytest.mark.parametrize(("text", "message"), [
    ("f5d6c3x9", r"line 1: column 7: 'x9' is not a square"),
    ("f5f5", r"line 1: column 3: f5 does not replay"),
    ("f5\nf5d6pa", r"line 2: column 5: pass does not replay"),
])
def test_malformed_transcripts_are_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        read_transcripts(text)


def test_a_transcript_holds_a_standard_game_only() -> None:
    with pytest.raises(InvalidRecordError, match="standard 8x8 start"):
        write_transcripts([Record.from_game(brett.Reversi(size=6))])


# ------------------------------------------------------------------ round trips
@settings(max_examples=40, deadline=None)
@example(seed=656, plies=59, anti=False, headers={})  # a pass at the end: the transcript's
@given(seed=st.integers(0, 2**16), plies=st.integers(0, 70), anti=st.booleans(),
       headers=st.dictionaries(st.sampled_from(["Black", "White", "Result", "Event", "x:y"]),
                               st.text(st.characters(codec="utf-8",
                                                     exclude_categories=("Cs",)),
                                       max_size=8), max_size=3))
def test_every_new_form_round_trips(seed: int, plies: int, anti: bool,
                                    headers: dict[str, str]) -> None:
    game = played(seed, plies, anti=anti)
    record = Record.from_game(game, **headers)
    assert read_positions(write_positions([record])) == [record]
    bare = Record.from_game(game)
    if not anti and plies:
        assert read_transcripts(write_transcripts([bare])) == [bare]
    if not anti:
        problem = Record("reversi", game.position())
        for move in game.legal_moves:
            problem.root.add(str(move), score=f"{seed % 129 - 64:+d}")
        assert read_obf(write_obf([problem])) == [problem]
    twins = [Record.from_game(played(seed + 1, plies), Synchro="1.1"),
             Record.from_game(game, Synchro="1.2")]
    assert read_ggf(write_ggf(twins)) == twins


# ------------------------------------------------------------------ streaming
def test_every_format_streams_from_an_open_file(tmp_path: Path) -> None:
    records = [Record.from_game(played(seed, 30)) for seed in range(3)]
    for ext in ("json", "sgf", "ggf", "wtb", "pos", "txt"):
        path = tmp_path / f"games.{ext}"
        assert write(iter(records), path) == 3
        with open(path, "rb") as handle:
            assert [r.game() for r in stream(handle, ext)] == [r.game() for r in records]
    with open(tmp_path / "games.sgf", encoding="utf-8") as text:
        assert len(list(iter_sgf(text))) == 3


class _Archive(io.RawIOBase):
    """A GGS archive of ``count`` games made as it is read (never held whole)."""

    def __init__(self, count: int) -> None:
        self.lines = (f"{2 if n % 2 else 1} " + _line(n) for n in range(count))
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self.pending) < len(buffer):
            line = next(self.lines, None)
            if line is None:
                break
            self.pending += line.encode()
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size


_GAMES = [played(seed) for seed in range(8)]
_TEXTS = [ggf_game(ggf_moves(g), "PC[GGS/os]TY[8]RE[?]TI[05:00//02:00]") for g in _GAMES]


def _line(n: int) -> str:
    first = _TEXTS[n % 8]
    return (first + _TEXTS[(n + 1) % 8] if n % 2 else first) + "\n"


def _stream_peak(count: int) -> tuple[int, int]:
    tracemalloc.start()
    try:
        games = sum(1 for _ in iter_ggf(io.BufferedReader(_Archive(count))))
        return games, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_archive_streams_in_bounded_memory() -> None:
    games, peak = _stream_peak(1000)
    assert games == 1500 and peak < 8 * 2**20, peak


STREAM_100K = """
import io, sys
sys.path.insert(0, sys.argv[1])
import test_records_world as w
from brett.records.ggf import iter_ggf
def status(field):  # kB; VmHWM is this process's peak (ru_maxrss counts the forking parent's)
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(field))
before = status("VmRSS")
games = sum(1 for _ in iter_ggf(io.BufferedReader(w._Archive(66_667))))
print(games, status("VmHWM") - before)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_an_archive_of_100000_games_streams_under_50_mb() -> None:
    """In a process of its own (about 20 s on the compiled core): the peak
    resident memory grows by less than 50 MB while 100,000 games stream."""
    result = subprocess.run([sys.executable, "-c", STREAM_100K, str(Path(__file__).parent)],
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert result.returncode == 0, result.stderr[-2000:]
    games, growth_kb = map(int, result.stdout.split())
    assert games == 100_000 and growth_kb < 50 * 1024, growth_kb


def test_record_texts_in_memory_round_trip_and_formats_are_guessed() -> None:
    """to_text / from_text: the text of a file without the file (the protocol's save
    and load); guess_format knows JSON, SGF and GGF (archive lines too), and asks for
    the line formats by name."""
    from brett.records import Record, from_text, guess_format, to_text

    game = brett.Reversi()
    for move in ("f5", "d6", "c3"):
        game.push(move)
    record = Record.from_game(game)
    for fmt in ("json", "sgf", "ggf", "pos", "txt"):
        text = to_text([record, record], fmt)
        back = list(from_text(text, fmt))
        assert len(back) == 2 and all(r.game() == game for r in back), fmt
        if fmt in ("json", "sgf", "ggf"):
            assert guess_format(text) == fmt
    assert guess_format("1 (;GM[Othello]PC[GGS/os];)") == "ggf"
    for text in ("f5d6c3", "reversi ---- x", ""):
        with pytest.raises(brett.BrettError, match="name it"):
            guess_format(text)
    with pytest.raises(brett.BrettError, match="binary"):
        to_text([record], "wtb")
