"""brett.ai.ReversiPlayer: the pattern evaluation, the alpha-beta search and the player.

The twins (``_alphabeta_c.pyx`` over ``ext/brett_eval.h``, ``_alphabeta_py.py``)
agree on the evaluation of random positions and on fixed-depth search values; the
player plays legal moves, keeps its time, stops on stop(), a Stopper and Ctrl-C,
never changes the game, beats RandomPlayer, solves endgames exactly, refuses
games it does not play; a corrupted weights file is a clear error; the training
script runs on a few hundred games and writes a file that loads.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import brett
from brett import ai
from brett._core import _alphabeta_py as abpy
from brett.ai import MCTSPlayer, RandomPlayer, ReversiPlayer
from brett.errors import BrettError
from conftest import needs_cython
from test_reliability import CtrlC, ctrl_c_raises  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[1]
WTHOR = Path("/work/shared/data/real/wthor")


def compiled() -> Any:
    from brett._core import _alphabeta_c

    return _alphabeta_c


def random_board(rng: random.Random, plies: int) -> tuple[int, int]:
    """(p, o) after ``plies`` random placements from the start (or the end)."""
    p, o = (1 << 35) | (1 << 28), (1 << 27) | (1 << 36)
    for _ in range(plies):
        mine = abpy.moves(p, o)
        if not mine:
            if not abpy.moves(o, p):
                break
            p, o = o, p
            continue
        sq = rng.choice([s for s in range(64) if mine >> s & 1])
        f = abpy.flips(p, o, sq)
        p, o = o & ~f, p | f | 1 << sq
    return p, o


def game_of(p: int, o: int) -> brett.Reversi:
    """A game with p (as Black) to move."""
    cells = ["x" if p >> s & 1 else "o" if o >> s & 1 else "-" for s in range(64)]
    rows = ["".join(cells[r * 8:r * 8 + 8]) for r in range(8)]
    return brett.Reversi.from_position("/".join(rows) + " x")


def snapshot(game: Any) -> tuple[Any, ...]:
    return game.position(), hash(game), len(game.move_stack)


# ---- the evaluation and the search, twin against twin
@needs_cython
def test_the_twins_evaluate_random_positions_alike() -> None:
    weights = abpy.weights()
    evaluator = compiled().Evaluator(weights)
    rng = random.Random(7)
    values = set()
    for _ in range(300):
        p, o = random_board(rng, rng.randrange(0, 61))
        value = evaluator.evaluate(p, o)
        assert value == abpy.evaluate(p, o, weights), (hex(p), hex(o))
        values.add(value)
    assert len(values) > 100  # the sums are not a constant


@needs_cython
def test_the_twins_search_to_the_same_value() -> None:
    weights = abpy.weights()
    evaluator = compiled().Evaluator(weights)
    rng = random.Random(11)
    for depth, plies in [(1, 10), (2, 20), (3, 30), (3, 44), (4, 12), (2, 56), (9, 55)]:
        p, o = random_board(rng, plies)
        expected = abpy.search(p, o, depth, table=weights)
        assert evaluator.search(p, o, depth) == expected, (depth, hex(p), hex(o))
        assert abpy.Evaluator(weights).search(p, o, depth) == expected


def test_the_evaluation_is_the_sum_of_its_patterns() -> None:
    """The stage's weight of each instance's index, the mobilities, the constant."""
    weights = abpy.weights()
    p, o = random_board(random.Random(3), 30)
    base = weights.stage(64 - bin(p | o).count("1")) * abpy.stage_size()
    starts = abpy.offsets()
    total = 0
    for number, squares in abpy.instances():
        digits = [1 if p >> s & 1 else 2 if o >> s & 1 else 0 for s in squares]
        total += weights.values[base + starts[number] + int("".join(map(str, digits)), 3)]
    extra = base + starts[-1]
    total += weights.values[extra] * bin(abpy.moves(p, o)).count("1")
    total += weights.values[extra + 1] * bin(abpy.moves(o, p)).count("1")
    assert abpy.evaluate(p, o, weights) == total + weights.values[extra + 2]
    assert len(abpy.instances()) == 46


def test_symmetric_positions_evaluate_alike() -> None:
    """The instances are closed under the board's symmetries and the training gives a
    configuration and its mirror image one weight: the 8 images of a position
    evaluate alike."""
    rng = random.Random(5)

    def image(b: int, s: int) -> int:
        out = 0
        for sq in range(64):
            if b >> sq & 1:
                r, c = abpy._symmetries(*divmod(sq, 8))[s]
                out |= 1 << (r * 8 + c)
        return out

    for _ in range(10):
        p, o = random_board(rng, rng.randrange(5, 55))
        values = {abpy.evaluate(image(p, s), image(o, s)) for s in range(8)}
        assert len(values) == 1, values


# ---- the weights file
def test_corrupt_weights_are_a_clear_error(tmp_path: Path) -> None:
    data = bytearray(abpy.weights().data)
    abpy.Weights(bytes(data))  # the shipped file loads
    flipped = bytearray(data)
    flipped[1000] ^= 0x40
    with pytest.raises(BrettError, match="checksum"):
        abpy.Weights(bytes(flipped))
    with pytest.raises(BrettError, match="truncated"):
        abpy.Weights(bytes(data[:-10]))
    with pytest.raises(BrettError, match="not a version"):
        abpy.Weights(b"XXXX" + bytes(data[4:]))
    with pytest.raises(BrettError, match="too short"):
        abpy.Weights(b"")
    other = bytearray(data)
    other[16:20] = b"\0\0\0\0"  # the patterns' CRC
    with pytest.raises(BrettError, match="other patterns"):
        abpy.Weights(bytes(other))
    with pytest.raises(BrettError):
        abpy.Evaluator("weights")  # type: ignore[arg-type]


@needs_cython
def test_a_compiled_evaluator_needs_checked_weights() -> None:
    with pytest.raises(BrettError):
        compiled().Evaluator(b"raw bytes")
    evaluator = compiled().Evaluator(abpy.weights())
    for bad in [(-1, 0), (1 << 64, 0), ("1", 0), (1, 1)]:
        with pytest.raises(BrettError):
            evaluator.evaluate(*bad)


# ---- the player
@pytest.mark.parametrize("plies", [0, 7, 23, 38, 50])
def test_the_player_plays_legal_moves_and_leaves_the_game(plies: int, backend: str) -> None:
    game = brett.GAMES["reversi"].twin(backend)()
    rng = random.Random(plies)
    for _ in range(plies):
        if game.is_over():
            break
        game.push(rng.choice(list(game.legal_moves)))
    if game.is_over():
        pytest.skip("the random game ended")
    before = snapshot(game)
    player = ReversiPlayer(seconds=0.05 if backend == "cython" else 0.3)
    move = player.choose(game)
    assert move in list(game.legal_moves)
    assert snapshot(game) == before
    info = player.last_search
    assert info is not None and info.seconds < 5


@needs_cython
def test_the_player_keeps_its_time() -> None:
    game = brett.Reversi()
    rng = random.Random(2)
    for _ in range(16):
        game.push(rng.choice(list(game.legal_moves)))
    player = ReversiPlayer(seconds=0.3)
    cpu = time.thread_time()
    wall = time.perf_counter()
    player.choose(game)
    assert time.thread_time() - cpu < 1.0
    assert time.perf_counter() - wall < 3.0
    assert player.last_search is not None and player.last_search.depth >= 4


@needs_cython
def test_a_fixed_depth_player_is_reproducible() -> None:
    game = brett.Reversi()
    for text in ("f5", "d6", "c3", "d3", "c4"):
        game.push(text)
    moves = {str(ReversiPlayer(depth=5).choose(game)) for _ in range(3)}
    assert len(moves) == 1
    info = ReversiPlayer(depth=5)
    info.choose(game)
    assert info.last_search is not None and info.last_search.depth == 5


def test_the_player_beats_random_play(backend: str) -> None:
    wins = 0
    games = 10 if backend == "cython" else 1
    for n in range(games):
        game = brett.GAMES["reversi"].twin(backend)()
        players = [ReversiPlayer(depth=2), RandomPlayer(seed=n)]
        if n % 2:
            players.reverse()
        while not game.is_over():
            game.push(players[game.turn].choose(game))
        black, white = game.discs()
        mine = black - white if n % 2 == 0 else white - black
        wins += mine > 0
    assert wins == games


@needs_cython
def test_the_solver_finds_the_exact_best_move() -> None:
    """Positions with 14 empty squares: the player's move reaches the exact score of
    the position, which the plain twin's search to the end confirms."""
    rng = random.Random(21)
    checked = 0
    while checked < 3:
        p, o = random_board(rng, 46)
        if not abpy.moves(p, o) or 64 - bin(p | o).count("1") != 14:
            continue
        game = game_of(p, o)
        player = ReversiPlayer(seconds=20)
        move = player.choose(game)
        info = player.last_search
        assert info is not None and info.exact
        evaluator = compiled().Evaluator(abpy.weights())
        scale = abpy.weights().scale
        exact = evaluator.search(p, o, 14) // scale   # a search to the end is exact
        assert info.score == exact
        text = str(move)
        sq = (int(text[1:]) - 1) * 8 + ord(text[0]) - ord("a")
        f = abpy.flips(p, o, sq)
        child = -evaluator.search(o & ~f, p | f | 1 << sq, 13) // scale
        assert child == exact
        checked += 1


@needs_cython
def test_stop_returns_a_move_at_once() -> None:
    game = brett.Reversi()
    player = ReversiPlayer(seconds=600)
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(player.choose(game)))
    thread.start()
    time.sleep(0.3)
    started = time.perf_counter()
    while thread.is_alive() and time.perf_counter() - started < 10:
        player.stop()
        thread.join(0.05)
    assert not thread.is_alive()
    assert time.perf_counter() - started < 2
    assert result and result[0] in list(game.legal_moves)
    assert player.last_search is not None and player.last_search.interrupted


@needs_cython
def test_a_stopper_ends_the_search_with_stopped() -> None:
    game = brett.Reversi()
    before = snapshot(game)
    stopper = brett.Stopper()
    errors: list[BaseException] = []
    cpu: list[float] = []

    def run() -> None:
        with stopper:
            try:
                ReversiPlayer(seconds=600).choose(game)
            except BaseException as exc:  # handed to the test
                errors.append(exc)
        cpu.append(time.thread_time())

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.3)
    stopper.stop()
    thread.join(10)
    assert not thread.is_alive()
    assert errors and isinstance(errors[0], brett.Stopped)
    assert cpu[0] < 5.0
    assert snapshot(game) == before


@pytest.mark.timing
@needs_cython
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is POSIX")
@pytest.mark.usefixtures("ctrl_c_raises")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_ctrl_c_returns_the_best_move_so_far() -> None:
    game = brett.Reversi()
    before = snapshot(game)
    player = ReversiPlayer(seconds=60)
    presser = CtrlC(0.3)
    started = time.monotonic()
    presser.start()
    try:
        move = player.choose(game)
    except KeyboardInterrupt:
        pytest.fail("the interrupted search raised KeyboardInterrupt")
    finally:
        presser.stop()
    assert time.monotonic() - started < 10
    assert move in list(game.legal_moves)
    assert player.last_search is not None and player.last_search.interrupted
    assert snapshot(game) == before


@pytest.mark.parametrize("options", [{"size": 6}, {"holes": 2, "seed": 1}, {"anti": True},
                                     {"board": "octagon"}])
def test_other_boards_are_refused(options: dict[str, Any]) -> None:
    game = brett.Reversi(**options)
    with pytest.raises(BrettError, match="MCTSPlayer"):
        ReversiPlayer(seconds=0.05).choose(game)
    MCTSPlayer(iterations=10).choose(game)  # which plays them


def test_bad_games_and_arguments() -> None:
    with pytest.raises(BrettError):
        ReversiPlayer(seconds=0.05).choose("reversi")  # type: ignore[arg-type]
    with pytest.raises(BrettError, match="MCTSPlayer"):
        ReversiPlayer(seconds=0.05).choose(brett.GAMES["focus"]())
    over = brett.Reversi()
    over.random_playout(seed=1)
    with pytest.raises(BrettError, match="over"):
        ReversiPlayer(seconds=0.05).choose(over)
    for bad in [{"seconds": 0}, {"seconds": -1}, {"seconds": "1"}, {"depth": 0},
                {"depth": 61}, {"depth": 2.5}]:
        with pytest.raises(BrettError):
            ReversiPlayer(**bad)
    assert "ReversiPlayer" in ai.__all__


# ---- the frontends' default
def test_gtp_plays_the_alpha_beta_player_by_time() -> None:
    from brett.frontends._engine import SearchBudget

    game = brett.Reversi()
    assert isinstance(SearchBudget(seconds=0.5).player(None, game), ReversiPlayer)
    assert isinstance(SearchBudget().player(0.2, game), ReversiPlayer)
    assert isinstance(SearchBudget(level=3).player(None, game), MCTSPlayer)
    assert isinstance(SearchBudget(seconds=0.5).player(None, brett.Reversi(size=10)),
                      MCTSPlayer)


def test_the_match_seats_the_alpha_beta_player() -> None:
    from brett.frontends._peers import Budget, make_seat

    budget = Budget(seconds=0.05, iterations=None, timeout=10, depth=1)
    seat = make_seat("alphabeta", budget, None, None, "x")
    assert isinstance(seat.player, ReversiPlayer) and seat.player.seconds == 0.05
    game = brett.Reversi()
    assert seat.choose(game, 0) in {str(m) for m in game.legal_moves}
    assert make_seat("alphabeta:0.2", budget, None, None, "x").player.seconds == 0.2
    for bad in ("alphabeta:x", "alphabeta:0", "alphabeta:-1"):
        with pytest.raises(BrettError, match="alphabeta:SECONDS"):
            make_seat(bad, budget, None, None, "x")


# ---- training
@pytest.mark.skipif(not WTHOR.is_dir(), reason="the WTHOR archive is not here")
def test_the_training_script_writes_weights_that_load(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    out = tmp_path / "w.bin"
    # the brett this interpreter has installed (a source path would shadow its
    # compiled cores in an installed, non-editable run)
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "train_reversi_eval.py"),
                          str(WTHOR), "-o", str(out), "--limit", "300", "--stages", "1",
                          "--width", "61", "--iterations", "5"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    weights = abpy.Weights(out.read_bytes())
    assert weights.stages == 1 and len(weights.values) == abpy.stage_size()
    assert any(weights.values)
    p, o = random_board(random.Random(1), 20)
    assert abpy.Evaluator(weights).evaluate(p, o) == abpy.evaluate(p, o, weights)


def test_the_training_script_counts_bits_without_numpy_2() -> None:
    """numpy before 2.0 has no bitwise_count: the script's own count (Debian 12
    ships numpy 1.24) agrees with Python's on every bit length."""
    np = pytest.importorskip("numpy")
    import importlib.util

    spec = importlib.util.spec_from_file_location("train", ROOT / "tools" / "train_reversi_eval.py")
    assert spec is not None and spec.loader is not None
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    rng = random.Random(5)
    words = [0, 1, 2**63, 2**64 - 1] + [rng.getrandbits(rng.randint(1, 64)) for _ in range(500)]
    counted = train._popcount_swar(np.array(words, dtype=np.uint64))
    assert counted.tolist() == [bin(w).count("1") for w in words]
    assert train._popcount(np.array(words, dtype=np.uint64)).tolist() == counted.tolist()
