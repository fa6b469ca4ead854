"""Schuft's solo endgame tables (``brett.ai._schuft_endgame``) and the player that
uses them: the shipped tables solve the Bellman equation under the rules as both
twins play them, MCTSPlayer answers from them, and a damaged file is refused."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import brett
from brett.ai import MCTSPlayer
from brett.ai import _schuft_endgame as se
from brett.errors import BrettError
from brett.schuft import Roll

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ["cython", "python"]


def position(pieces: dict[int, int], holes: list[int], roll: str = "-",
             enemy: int = 20, out: int = 0) -> str:
    """Red (seat 0) with ``pieces`` {tongue: count} and the free goal ``holes``
    (0-based); green has one piece on ``enemy`` and eight home.  Red to move."""
    tongues = ["."] * 36
    for tongue, count in pieces.items():
        tongues[tongue - 1] = f"r{count}"
    tongues[enemy - 1] = "g1"
    track = "".join("." if m in holes else "r" for m in range(9))
    return f"{','.join(tongues)}/{track},gggggggg./{out},0/r/{roll}/0/-"


def table_turns(game: Any) -> float:
    found = se.endgame(game._core.get_state(), 0, 0)
    assert found is not None
    return se.tables().turns(*found)


def random_endgames(seed: int, n: int) -> list[tuple[dict[int, int], list[int]]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        left = rng.choice((1, 2, 3))
        holes = sorted(rng.sample(range(9), left))
        tongues = [rng.choice([t for t in range(1, 37) if t != 20]) for _ in range(left)]
        pieces: dict[int, int] = {}
        for t in tongues:
            pieces[t] = pieces.get(t, 0) + 1
        cases.append((pieces, holes))
    return cases


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(15))
def test_the_tables_solve_the_bellman_equation(backend: str, case: int) -> None:
    """T(x) = 1 + the mean over the 216 rolls of the best move's T: the fixed point
    is unique, so this holds only if the tables are the rules' true values."""
    pieces, holes = random_endgames(case, 15)[case]
    cls = brett.Schuft.twin(backend)
    total = 0.0
    for index in range(216):
        game = cls.from_position(position(pieces, holes, str(Roll.from_index(index))))
        assert game.backend() == backend
        best = game._exact_moves()
        assert best is not None
        total += best[0][1]
    start = cls.from_position(position(pieces, holes))
    assert table_turns(start) == pytest.approx(1 + total / 216, abs=2 / 256)


def test_what_the_tables_say() -> None:
    """Facts of the solo endgame: the last hole g9 is the slowest by far (a 9 from
    the last tongue in a clockwise turn), two shallow holes beat one deep one, and
    so do three."""
    t = se.tables()
    assert len(t.levels) == 3 and [len(level) for level in t.levels] == list(se.SIZES)
    lone = [min(t.turns([m], [j]) for j in range(36)) for m in range(9)]
    assert lone == sorted(lone) and lone[8] > 3 * lone[0]
    assert t.turns([8], [0]) == min(t.turns([8], [j]) for j in range(36))
    assert min(t.turns([0, 1], [a, b]) for a in range(36) for b in range(36)) < lone[8]
    assert all(t.turns([2, 5], [a, b]) == t.turns([2, 5], [b, a])
               for a in range(0, 36, 5) for b in range(36))
    assert t.turns([0, 1, 2], [0, 1, 2]) < lone[8]
    assert t.turns([0, 1, 8], [5, 1, 0]) == t.turns([0, 1, 8], [0, 1, 5])


@pytest.mark.parametrize("backend", BACKENDS)
def test_mcts_player_plays_an_endgame_from_the_tables(backend: str) -> None:
    game = brett.Schuft.twin(backend).from_position(position({9: 1}, [8], "9-8-7"))
    player = MCTSPlayer(iterations=50, seed=1)
    stats = player.analyse(game)
    assert str(stats[0].move) == "cw 9/g9"          # the 9 fills the last hole: a win
    assert (stats[0].turns, stats[0].value, stats[0].visits) == (0.0, 1.0, 0)
    assert [s.turns for s in stats] == sorted(s.turns for s in stats)
    assert all(0 < s.value < 1 for s in stats[1:])
    assert len(stats) == game.legal_moves.count()
    assert player.last_search is not None and player.last_search.iterations == 0
    assert player.choose(game) == stats[0].move
    searched = MCTSPlayer(iterations=50, seed=1, exact=False)   # the search, tables aside
    assert sum(s.visits for s in searched.analyse(game)) == 50
    assert all(s.turns is None for s in searched.analyse(game))
    game.push(stats[0].move)
    assert game.outcome().winner == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_best_move_is_the_fastest(backend: str) -> None:
    """Every move is ranked by the tables' value of the position it leads to."""
    game = brett.Schuft.twin(backend).from_position(position({5: 1, 30: 1}, [3, 8], "6-5-8"))
    stats = game._exact_moves()
    assert stats is not None
    for move, turns in stats:
        after = game.copy()
        after.push(move)
        expected = 0.0 if after.is_over() else table_turns(after)
        assert turns == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_search_runs_where_the_tables_do_not_know(backend: str) -> None:
    cls = brett.Schuft.twin(backend)
    for text in (position({}, [8], "9-8-7", out=1),                # the last piece out
                 position({5: 1, 6: 1, 7: 2}, [5, 6, 7, 8], "9-8-7")):  # four left
        game = cls.from_position(text)
        assert game._exact_moves() is None
        stats = MCTSPlayer(iterations=200, seed=2).analyse(game)
        assert stats[0].turns is None and sum(s.visits for s in stats) > 0
    assert brett.Reversi()._exact_moves() is None


def test_a_hint_in_the_cli_names_the_tables() -> None:
    text = position({9: 1}, [8], "9-8-7")
    command = [sys.executable, "-m", "brett", "play", "--position", text,
               "--seats", "human,human", "schuft"]
    done = subprocess.run(command, input="hint 0.1\nquit\n", capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert "hint: cw 9/g9 (endgame tables: 0.0 turns to go), " in done.stdout, done.stdout
    assert "iterations" not in done.stdout


@pytest.mark.parametrize("damage", ["short", "magic", "crc", "size"])
def test_a_damaged_tables_file_is_refused(damage: str) -> None:
    data = bytearray((Path(brett.__file__).parent / "data" / se.FILE).read_bytes())
    if damage == "short":
        data = data[:10]
    elif damage == "magic":
        data[0:4] = b"XXXX"
    elif damage == "crc":
        data[100] ^= 1
    else:
        data = data[:-6] + data[-4:]
    with pytest.raises(BrettError):
        se.Tables(bytes(data), "damaged.bin")


@pytest.mark.slow
def test_the_shipped_tables_are_what_the_script_makes(tmp_path: Path) -> None:
    """Levels 1 and 2 made again (level 3 takes minutes: the Bellman test above
    checks it against the rules instead)."""
    out = tmp_path / "tables.bin"
    subprocess.run([sys.executable, str(ROOT / "tools" / "make_schuft_endgame.py"),
                    "--levels", "2", "-o", str(out)], check=True, capture_output=True,
                   timeout=900, cwd=ROOT)
    shipped = se.tables()
    made = se.Tables(out.read_bytes())
    assert len(made.levels) == 2
    for level in (0, 1):
        worst = max(abs(a - b) for a, b in zip(made.levels[level], shipped.levels[level],
                                               strict=True))
        assert worst <= 1                        # 1 / 256 of a turn: rounding
