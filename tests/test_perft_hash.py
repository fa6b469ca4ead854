"""perft with a transposition table (``hash_mb``, ``symmetric``) on both twins:
the same counts as the plain perft and the reference table, whatever the table
keeps; one table across divide's first moves and per task of a pool; clear
refusals; stops; and the ``brett perft --hash`` command.
"""

from __future__ import annotations

import concurrent.futures
import subprocess
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brett
from conftest import BACKENDS, advance, needs_cython
from test_perft import VECTORS

# (options, deepest depth on the plain twin, on the compiled one)
BOARDS = {
    "8x8": ({}, 6, 9),
    "6x6": ({"size": 6}, 6, 10),
    "4x4": ({"size": 4}, 9, 12),
    "holes": ({"holes": ["b4", "e2", "g5"]}, 5, 8),
    "handicap": ({"handicap": 2}, 5, 8),
    "10x10": ({"size": 10}, 6, 9),
    "octagon-holes": ({"board": "octagon", "holes": ["c3", "h5"]}, 5, 9),
    "16x16": ({"size": 16}, 5, 8),
}
SQUARE = ("8x8", "6x6", "4x4", "handicap", "10x10", "16x16")   # symmetries apply
WIDE = ("10x10", "octagon-holes", "16x16")     # the cores' wide bitboards and keys


def _game(backend: str, board: str) -> Any:
    return brett.Reversi.twin(backend)(**BOARDS[board][0])


def _deepest(backend: str, board: str) -> int:
    return BOARDS[board][1 if backend == "python" else 2]


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("count_finished", [False, True])
def test_hashed_counts_are_the_plain_counts(backend: str, board: str,
                                            count_finished: bool) -> None:
    game = _game(backend, board)
    for depth in range(_deepest(backend, board) + 1):
        plain = game.perft(depth, count_finished)
        assert game.perft(depth, count_finished, hash_mb=4) == plain
        if board in SQUARE:
            assert game.perft(depth, count_finished, hash_mb=4, symmetric=True) == plain


LIMITS = {"python": 60_000, "cython": 2_000_000_000}
"""The most leaves a reference count is checked at, through a table (the
compiled twin: Othello to depth 12 in about a second)."""
REFERENCE_CASES = [
    pytest.param(vid, kind, backend, marks=[needs_cython] if backend == "cython" else [],
                 id=f"{backend}-{vid}-{kind}")
    for vid in ("reversi-8x8-start", "reversi-6x6-start", "reversi-8x8-holes-b4-e2-g5")
    for kind in ("perft", "perft_count_finished")
    for backend in ("python", "cython")
    if any(nodes <= LIMITS[backend] for nodes in VECTORS[vid].get(kind, {}).values())
]


@pytest.mark.parametrize(("vid", "kind", "backend"), REFERENCE_CASES)
def test_the_reference_table_through_a_table(vid: str, kind: str, backend: str) -> None:
    vector = VECTORS[vid]
    game = brett.Reversi.twin(backend)(**vector["options"])
    symmetric = "holes" not in vid
    for depth, nodes in sorted((int(d), n) for d, n in vector[kind].items()):
        if nodes <= LIMITS[backend]:
            assert game.perft(depth, kind == "perft_count_finished", hash_mb=64,
                              symmetric=symmetric) == nodes, depth


@pytest.mark.parametrize(("board", "symmetric"), [("8x8", False), ("8x8", True),
                                                 ("10x10", False), ("10x10", True)])
def test_a_table_of_one_bucket_still_counts_exactly(backend: str, board: str,
                                                    symmetric: bool) -> None:
    """Two entries for the whole tree: every store replaces one, no count is lost."""
    game = _game(backend, board)
    depth = _deepest(backend, board) - 1
    assert game.perft(depth, hash_mb=1e-9, symmetric=symmetric) == game.perft(depth)


@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 40),
       board=st.sampled_from(list(BOARDS)), count_finished=st.booleans())
@settings(max_examples=25, deadline=None)
@pytest.mark.parametrize("backend", BACKENDS)
def test_random_positions_count_alike(backend: str, seed: int, plies: int, board: str,
                                      count_finished: bool) -> None:
    """From random positions (passes and finished games among them), with and
    without symmetries: the plain count."""
    game = advance(_game(backend, board), plies, seed, decision=False)
    depth = (3 if backend == "python" else 6) - (board in WIDE)   # more moves a ply there
    plain = game.perft(depth, count_finished)
    assert game.perft(depth, count_finished, hash_mb=1) == plain
    if board in SQUARE:
        assert game.perft(depth, count_finished, hash_mb=1, symmetric=True) == plain


@pytest.mark.parametrize("board", ["8x8", "holes", "10x10"])
def test_divide_shares_one_table(backend: str, board: str) -> None:
    game = _game(backend, board)
    depth = 5 if backend == "python" else 8
    divided = game.divide(depth, hash_mb=2, symmetric=board in SQUARE)
    assert divided == game.divide(depth)
    assert sum(divided.values()) == game.perft(depth)


@pytest.mark.parametrize("board", SQUARE)
def test_mirror_images_share_entries(backend: str, board: str) -> None:
    """The eight images of a position counted through one symmetric table, each
    after the others filled it: every count is the image's plain count (an image
    that is not a symmetry would meet another position's entries)."""
    game = advance(_game(backend, board), 9, seed=7)
    n, black, white, blocked, player = game._core.get_state()
    core = game._core
    table = core.perft_table(1 << 20)
    depth = 4 if backend == "python" else 7
    for image in _images(n):
        core.set_state((n, _permute(black, image), _permute(white, image), blocked, player))
        assert core.perft_hashed(depth, False, table, True) == core.perft(depth, False)


@needs_cython
def test_a_compiled_table_grows_as_it_fills() -> None:
    """A table takes memory as its entries need it, up to its size (a shallow
    count with a large table touches a few pages); the counts stay exact across
    each doubling, and a count through a full-grown table is exact."""
    core = brett.Reversi.twin("cython")()._core
    large = core.perft_table(1 << 30)
    assert large.bytes_in_use <= 1 << 18
    assert core.perft_hashed(6, False, large, True) == core.perft(6, False)
    assert large.bytes_in_use <= 1 << 18
    grown = large.bytes_in_use
    assert core.perft_hashed(11, False, large, False) == core.perft(11, False)
    assert grown < large.bytes_in_use <= 1 << 30
    small = core.perft_table(1 << 19)
    for depth in (11, 10):   # the second count meets the first's entries
        assert core.perft_hashed(depth, True, small, False) == core.perft(depth, True)
        assert small.bytes_in_use == 1 << 19


def _images(n: int) -> list[list[int]]:
    """The eight symmetries of an n x n board: image[sq] is where sq goes."""
    images = []
    for sq_map in (lambda r, c: (r, c), lambda r, c: (c, r)):
        for flip_r in (False, True):
            for flip_c in (False, True):
                image = []
                for sq in range(n * n):
                    r, c = sq_map(*divmod(sq, n))
                    image.append((n - 1 - r if flip_r else r) * n + (n - 1 - c if flip_c else c))
                images.append(image)
    return images


def _permute(bits: int, image: list[int]) -> int:
    return sum(1 << image[sq] for sq in range(len(image)) if bits >> sq & 1)


def test_a_process_pool_with_a_table_per_task(backend: str) -> None:
    game = _game(backend, "8x8")
    depth = 6 if backend == "python" else 9
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        total = game.perft(depth, executor=pool, tasks=8, hash_mb=1, symmetric=True)
    assert total == game.perft(depth)


@pytest.mark.parametrize("board", ["8x8", "holes", "octagon-holes"])
@pytest.mark.parametrize("count_finished", [False, True])
def test_threads_count_through_one_table(backend: str, board: str,
                                         count_finished: bool) -> None:
    game = _game(backend, board)
    depth = _deepest(backend, board) - 1
    plain = game.perft(depth, count_finished)
    for hash_mb in (None, 2):
        assert game.perft(depth, count_finished, hash_mb=hash_mb, threads=2,
                          symmetric=hash_mb is not None and board in SQUARE) == plain
    assert game.perft(depth, count_finished, hash_mb=2, threads=3, tasks=5) == plain


def test_a_shared_table_serves_threads_at_once(backend: str) -> None:
    """Four threads count one position through one shared table at once (so they
    probe and store the same buckets), in a table of 1 MiB and one of one bucket."""
    game = advance(_game(backend, "8x8"), 6, seed=3)
    depth = 4 if backend == "python" else 8
    plain = game.perft(depth)
    for size in (1 << 20, 64):
        table = game._core.perft_table(size, True)
        cores = [game._core.clone(False) for _ in range(4)]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            counts = list(pool.map(lambda core, shared=table: core.perft_hashed(
                depth, False, shared, True), cores))
        assert counts == [plain] * 4


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"threads": 0}, "threads=0: expected an int from 1 to 1024"),
    ({"threads": "2"}, "threads='2': expected an int from 1 to 1024"),
    ({"threads": 2, "executor": concurrent.futures.ThreadPoolExecutor(1)},
     "perft takes threads or an executor, not both"),
])
def test_bad_threads_are_refused(backend: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(brett.BrettError, match=message):
        _game(backend, "8x8").perft(3, hash_mb=1, **kwargs)


def test_a_worker_keeps_one_table_for_its_tasks(backend: str) -> None:
    """The tasks a pool's thread runs share its table (a transposition between
    two tasks is counted once), exact whatever the tasks before left in it; another
    size or convention is another table or an emptied one."""
    game = _game(backend, "8x8")
    depth = 6 if backend == "python" else 9

    def kept() -> Any:
        return brett.game._KEPT.table[1]

    def run(tasks: list[tuple[str, int]], cf: bool, hash_mb: float,
            symmetric: bool = True) -> int:
        return sum(pool.submit(brett.game._perft_task, "reversi", backend, position, sub,
                               cf, hash_mb, symmetric).result() for position, sub in tasks)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tasks = game.perft_tasks(depth, 8)
        assert run(tasks, False, 1) == game.perft(depth)
        table = pool.submit(kept).result()
        assert run(tasks, True, 1) == game.perft(depth, count_finished=True)
        assert pool.submit(kept).result() is table
        assert run(tasks, False, 2) == game.perft(depth)
        assert pool.submit(kept).result() is not table
        # a wider board's keys are longer: the same table, laid out anew, and back
        table = pool.submit(kept).result()
        wide = _game(backend, "10x10")
        assert run(wide.perft_tasks(depth, 8), False, 2, False) == wide.perft(depth)
        assert run(tasks, False, 2) == game.perft(depth)
        assert pool.submit(kept).result() is table
    assert getattr(brett.game._KEPT, "table", None) is None   # this thread ran no task


def test_a_count_past_64_bits_is_refused(backend: str) -> None:
    """A compiled count that saturates (ext/tests/harness.c plants one) comes out
    as a BrettError, whichever core counts."""
    class Saturating:
        def perft_hashed(self, *args: Any) -> int:
            raise OverflowError("the count passes 2^64 - 1, more than a table's entry holds")

    count = _game(backend, "8x8")._perft_counter(False, 1, False)
    with pytest.raises(brett.BrettError, match=r"perft\(21\): the count passes 2\^64"):
        count(Saturating(), 21)   # type: ignore[arg-type]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"hash_mb": 0}, "hash_mb=0: expected a number of MiB above 0"),
    ({"hash_mb": -1.5}, "hash_mb=-1.5: expected a number of MiB above 0"),
    ({"hash_mb": float("nan")}, "hash_mb=nan: expected a number of MiB"),
    ({"hash_mb": float("inf")}, "hash_mb=inf: expected a number of MiB"),
    ({"hash_mb": 10**9}, "(this machine's memory)"),
    ({"hash_mb": "64"}, "hash_mb='64': expected a number"),
    ({"hash_mb": True}, "hash_mb=True: expected a number"),
    ({"symmetric": True}, "symmetric=True goes with a table: give hash_mb"),
    ({"hash_mb": 1, "symmetric": 1}, "symmetric=1: expected True or False"),
])
def test_bad_tables_are_refused(backend: str, kwargs: dict[str, Any], message: str) -> None:
    game = _game(backend, "8x8")
    for call in (lambda: game.perft(3, **kwargs), lambda: game.divide(3, **kwargs)):
        with pytest.raises(brett.BrettError) as caught:
            call()
        assert message in str(caught.value)


def test_a_game_with_dice_keeps_no_table(backend: str) -> None:
    game = brett.Schuft.twin(backend)(players=2, seed=1)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        for call in (lambda: game.perft(2, hash_mb=1), lambda: game.divide(2, hash_mb=1),
                     lambda: game.perft(4, hash_mb=1, executor=pool)):
            with pytest.raises(brett.BrettError, match="schuft keeps no perft table: hash_mb "
                                                       "is for games without chance nodes"):
                call()


@pytest.mark.parametrize(("name", "options"), [
    ("reversi", {"holes": ["b4", "e2", "g5"]}), ("reversi", {"size": 12, "holes": ["c3"]}),
    ("reversi", {"board": "octagon"}), ("focus", {}), ("phutball", {}),
])
def test_symmetries_need_a_square_reversi_board_without_holes(
        backend: str, name: str, options: dict[str, Any]) -> None:
    game = brett.GAMES[name].twin(backend)(**options)
    for call in (lambda: game.perft(3, hash_mb=1, symmetric=True),
                 lambda: game.divide(3, hash_mb=1, symmetric=True)):
        with pytest.raises(brett.BrettError, match=r"symmetric=True: the mirror images are "
                                                   r"kept for square Reversi boards without "
                                                   r"holes"):
            call()
    assert game.perft(2, hash_mb=1) == game.perft(2)


def test_a_stopped_count_leaves_its_table_exact(backend: str) -> None:
    """A Stopper ends a hashed count part-way; the same table then counts
    exactly (a stopped subtree is short, and none of it is kept)."""
    game = _game(backend, "8x8")
    core = game._core
    table = core.perft_table(1 << 20)
    stopper = brett.Stopper()
    timer = threading.Timer(0.05, stopper.stop)
    timer.start()
    try:
        with stopper, pytest.raises(brett.Stopped):
            core.perft_hashed(40, False, table, True)
    finally:
        timer.cancel()
    depth = 6 if backend == "python" else 10
    assert core.perft_hashed(depth, False, table, True) == game.perft(depth)


def test_the_command_counts_with_a_table() -> None:
    done = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--depth", "9",
                           "--hash", "8", "--symmetric"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "perft(9) = 3005288" in done.stdout
    done = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--depth", "7",
                           "--hash", "1", "--workers", "2"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "perft(7) = 55092" in done.stdout
    done = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--depth", "9",
                           "--hash", "4", "--symmetric", "--threads", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "perft(9) = 3005288" in done.stdout
    for symmetric in ([], ["--symmetric"]):
        done = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--size",
                               "10", "--depth", "7", "--hash", "16", *symmetric],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "perft(7) = 55180" in done.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--hash", "0"], "brett: error: --hash 0.0: expected a number of MiB above 0"),
    (["--symmetric"], "brett: error: --symmetric goes with a table: give --hash"),
    (["--hash", "1", "--board", "octagon", "--symmetric"],
     "brett: error: --symmetric: the mirror images are kept for square Reversi boards"),
    (["--hash", "1", "--holes", "b4", "--symmetric"],
     "brett: error: --symmetric: the mirror images are kept for square Reversi boards "
     "without holes"),
    (["--threads", "0"], "brett: error: --threads=0: expected an int from 1 to 1024"),
    (["--threads", "2", "--workers", "2"], "brett: error: --threads goes with none of"),
    (["--threads", "2", "--divide"], "brett: error: --threads goes with none of"),
])
def test_the_command_refuses_bad_tables(args: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--depth", "3",
                           *args], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), done.stderr
