"""The search protocol of the Phutball cores (``s_*`` of the compiled core, ``_s_*``
of the plain twin): a ball move searched step by step (a jump in direction d is
``-1 - d``, *stop* is -9), pruned placements at the start of a turn, the state
of a stepped path equal to the pushed path, undo step by step, playouts from a
pending position, and the compiled core equal to the twin on random walks.

The positions are random walks of placements (many men, so chains of jumps
occur) on 9x9, 15x19 and 7x5 boards, some with a ply cap."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from brett import Phutball
from brett._core import TERMINAL
from brett._core._phutball_py import STOP, search_move
from conftest import BACKENDS, needs_cython

# (columns, rows, men placed by the random walk, ply cap: None, or plies from the start)
BOARDS = [(9, 9, 34, None), (15, 19, 130, None), (7, 5, 13, None), (9, 9, 25, 7),
          (7, 5, 8, 5)]
DIRS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def make_core(backend: str, cols: int, rows: int, men: int, cap: Any, seed: int) -> Any:
    """A core after a random walk of ``men`` placements (half of them near the
    ball, so that it has men to jump), optionally with a ply cap ahead."""
    core = Phutball.twin(backend)(columns=cols, rows=rows)._core.clone(False)
    rng = random.Random(seed)
    for _ in range(men):
        state = core.get_state()
        taken, ball = set(state[2]), state[3]
        free = [c for c in range(cols, (rows + 1) * cols) if c not in taken and c != ball]
        near = [c for c in free if max(abs(c % cols - ball % cols),
                                       abs(c // cols - ball // cols)) <= 3]
        pool = near if near and rng.random() < 0.5 else free
        if not pool:
            break
        assert core.push(rng.choice(pool), None)
    if cap is not None:
        state = list(core.get_state())
        state[6] = state[5] + cap
        core.set_state(tuple(state))
    else:
        core.set_state(core.get_state())  # forget the history
    return core


class Search:
    """One view of both twins' search hooks (the compiled ones through the probes)."""

    def __init__(self, core: Any) -> None:
        self.core = core
        self.compiled = not hasattr(core, "_s_actions")
        if self.compiled:
            from brett._core import _common
            self.probe = _common

    def actions(self) -> list[int]:
        if self.compiled:
            return list(self.probe.probe_actions(self.core))
        return list(self.core._s_actions())

    def do(self, action: int) -> None:
        if self.compiled:
            self.probe.probe_do(self.core, action)
        else:
            self.core._s_do(action)

    def undo(self) -> None:
        if self.compiled:
            self.probe.probe_undo(self.core)
        else:
            self.core._s_undo()

    def player(self) -> int:
        return int(self.probe.probe_player(self.core) if self.compiled
                   else self.core._s_player())

    def pending(self) -> bool:
        return bool(self.probe.probe_pending(self.core) if self.compiled
                    else self.core._s_pending())

    def winners(self) -> int:
        return int(self.probe.probe_winners(self.core) if self.compiled
                   else self.core._s_winners())

    def playout(self, rng: int, max_plies: int) -> tuple[int, int]:
        if self.compiled:
            mask, state = self.probe.probe_playout(self.core, rng, max_plies)
            return int(mask), int(state)
        mask, state = self.core._s_playout(rng, max_plies)
        return int(mask), int(state)

    def snap(self) -> tuple[Any, ...]:
        return self.core.get_state(), self.core.key()


def direction(cols: int, a: int, b: int) -> int:
    """The direction of the jump from cell ``a`` to cell ``b`` (test geometry)."""
    dc, dr = b % cols - a % cols, b // cols - a // cols
    step = (dc > 0) - (dc < 0), (dr > 0) - (dr < 0)
    assert dc == 0 or dr == 0 or abs(dc) == abs(dr)
    return DIRS.index(step)


def path_actions(cols: int, path: tuple[int, ...]) -> list[int]:
    """The jump actions of a ball path (without the final stop)."""
    return [-1 - direction(cols, a, b) for a, b in itertools.pairwise(path)]


def some_paths(core: Any, limit: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Up to ``limit`` jump paths of ``moves()`` order (the first ones, and a
    random sample of the next few thousand)."""
    paths = [m for m in itertools.islice(core.iter_moves(), 400 * 9 + 5000)
             if type(m) is tuple]
    head = paths[: limit // 2]
    rest = paths[limit // 2:]
    return head + rng.sample(rest, min(len(rest), limit - len(head)))


def jump_target(core: Any, cell: int, d: int) -> int:
    """Where the ball on ``cell`` lands jumping in direction ``d``, or -1 (test geometry)."""
    cols, rows, men, *_ = core.get_state()
    dc, dr = DIRS[d]
    col, row, run = cell % cols + dc, cell // cols + dr, 0
    while 0 <= col < cols and 1 <= row <= rows and row * cols + col in men:
        col, row, run = col + dc, row + dr, run + 1
    return row * cols + col if run and 0 <= col < cols else -1


def expected_actions(core: Any) -> list[int]:
    """The pruning rule and the jump directions, computed from the state alone."""
    cols, rows, men, ball, _, _, _ = core.get_state()
    men = set(men)

    def near_man(c: int) -> bool:
        return any(0 <= c % cols + dc < cols and 1 <= c // cols + dr <= rows
                   and c + dr * cols + dc in men for dc, dr in DIRS)

    free = [c for c in range(cols, (rows + 1) * cols) if c not in men and c != ball]
    kept = [c for c in free if max(abs(c % cols - ball % cols), abs(c // cols - ball // cols))
            <= 2 or near_man(c)]
    jumps = [-1 - d for d in range(8) if jump_target(core, ball, d) >= 0]
    if not kept and not jumps:
        kept = free
    return kept + jumps


# ----------------------------------------------------------------- actions and pruning
@pytest.mark.parametrize("backend", BACKENDS)
def test_actions_are_pruned_placements_then_jumps(backend: str) -> None:
    seen_jumps = pruned_some = 0
    for (cols, rows, men, cap), seed in itertools.product(BOARDS, range(3)):
        core = make_core(backend, cols, rows, men, cap, seed)
        s = Search(core)
        if core.player() == TERMINAL:
            assert s.actions() == [] and s.player() == TERMINAL
            continue
        actions = s.actions()
        assert actions == expected_actions(core)
        placements = [a for a in actions if a >= 0]
        assert placements == sorted(placements) and all(core.is_legal(a) for a in placements)
        _, _, men_now, ball, *_ = core.get_state()
        pruned_some += len(placements) < cols * rows - len(men_now) - 1
        # the jump directions: exactly the one-jump paths of the core
        jumps = [-1 - a for a in actions if a < 0]
        assert jumps == [d for d in range(8) if jump_target(core, ball, d) >= 0]
        assert all(core.is_legal((ball, jump_target(core, ball, d))) for d in jumps)
        seen_jumps += bool(jumps)
        assert len(actions) <= cols * rows + 9
        assert s.player() == core.player() and not s.pending()
    assert seen_jumps >= 5 and pruned_some >= 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_pruning_of_a_lone_ball(backend: str) -> None:
    core = Phutball.twin(backend)(columns=15, rows=19)._core.clone(False)
    s = Search(core)
    cols, _, _, ball, *_ = core.get_state()
    assert len(s.actions()) == 24  # the 5x5 square around the ball
    assert s.actions() == [ball + dr * cols + dc for dr in range(-2, 3) for dc in range(-2, 3)
                           if (dr, dc) != (0, 0)]
    core.push(cols + 3, None)  # a man on d1: its ring joins (d1 has no south neighbours)
    assert s.actions() == sorted({cols + 2, 2 * cols + 2, 2 * cols + 3, 2 * cols + 4, cols + 4}
                                 | {ball + dr * cols + dc for dr in range(-2, 3)
                                    for dc in range(-2, 3) if (dr, dc) != (0, 0)})


# ----------------------------------------------------------------- a stepped path = the pushed path
@pytest.mark.parametrize("backend", BACKENDS)
def test_steps_of_a_path_equal_the_pushed_path(backend: str) -> None:
    rng = random.Random(7)
    checked = long_chains = beyond = 0
    for (cols, rows, men, cap), seed in itertools.product(BOARDS, range(3)):
        core = make_core(backend, cols, rows, men, cap, seed)
        if core.player() == TERMINAL:
            continue
        s = Search(core)
        start, mover, state0 = s.snap(), core.player(), core.get_state()
        for path in some_paths(core, 40, rng):
            pushed = core.clone(False)
            assert pushed.push(path, None)
            jumps = path_actions(cols, path)
            over = not 1 <= path[-1] // cols <= rows
            actions = jumps if over else [*jumps, STOP]
            for i, a in enumerate(actions):
                assert a in s.actions()
                s.do(a)
                last = i == len(actions) - 1
                assert s.pending() == (not last)
                if not last:
                    assert s.player() == mover
                    assert s.actions()[-1] == STOP
                    assert core.get_state()[4:6] == state0[4:6]  # side and ply unchanged
            assert s.snap() == (pushed.get_state(), pushed.key())
            assert s.player() == pushed.player()
            if pushed.player() == TERMINAL:
                assert s.actions() == []
                assert s.winners() == sum(1 << p for p in {1: (0,), 2: (1,), 3: (), 4: (
                    pushed.get_state()[4] ^ 1,)}[pushed.status()])
            for _ in actions:
                s.undo()
            assert s.snap() == start and not s.pending()
            assert search_move(core, actions) == path
            assert search_move(core, jumps) == path
            assert search_move(state0, actions) == path
            checked += 1
            long_chains += len(path) >= 4
            beyond += over
    assert checked >= 100 and long_chains >= 20 and beyond >= 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_search_move_of_placements_and_bad_sequences(backend: str) -> None:
    core = make_core(backend, 9, 9, 30, None, 1)
    actions = Search(core).actions()
    placement = actions[0]
    assert search_move(core, [placement]) == placement
    jumps = [a for a in actions if a < 0]
    assert jumps
    bad: list[list[int]] = [[], [placement, placement], [STOP], [jumps[0], STOP, STOP],
                            [STOP, jumps[0]], [0], [-10], [placement, jumps[0]]]
    bad += [[-1 - d] for d in range(8) if -1 - d not in jumps][:1]
    for seq in bad:
        with pytest.raises(ValueError):
            search_move(core, seq)


# ----------------------------------------------------------------- goal lines
@pytest.mark.parametrize("backend", BACKENDS)
def test_goal_line_steps(backend: str) -> None:
    game = Phutball.twin(backend).from_position("4O4/4*4/9/9/9/9/9/9/9 1 9x9")
    core = game._core.clone(False)
    s = Search(core)
    start = s.snap()
    assert s.actions()[-1] == -1 and STOP not in s.actions()
    s.do(-1)  # north over e9: beyond the top goal line, the move is over
    assert not s.pending() and s.player() == TERMINAL and s.actions() == []
    assert s.winners() == 1 and core.get_state()[4:6] == (0, 1)
    pushed = game._core.clone(False)
    pushed.push((7 * 9 + 4 + 9, 10 * 9 + 4), None)
    assert s.snap() == (pushed.get_state(), pushed.key())
    s.undo()
    assert s.snap() == start
    # landing ON a goal line mid-move: still pending, the mover goes on (or stops and wins)
    game = Phutball.twin(backend).from_position("9/4O4/4*4/9/9/9/9/9/9 0 9x9")
    core = game._core.clone(False)
    s = Search(core)
    s.do(-1)
    assert s.pending() and s.player() == 0 and s.actions() == [STOP]
    s.do(STOP)
    assert s.player() == TERMINAL and s.winners() == 1 and not s.pending()
    with pytest.raises(ValueError):
        s.do(STOP)
    s.undo()
    s.undo()
    assert core.get_state()[2:4] == ((8 * 9 + 4,), 7 * 9 + 4)  # e8 man, e7 ball
    with pytest.raises(ValueError):
        s.do(STOP)  # nothing pending
    with pytest.raises(ValueError):
        s.do(-5)  # no man south
    with pytest.raises(ValueError):
        s.do(8 * 9 + 4)  # a man is there


# ----------------------------------------------------------------- playouts
@pytest.mark.parametrize("backend", BACKENDS)
def test_playout_ends_a_pending_move_first(backend: str) -> None:
    rng = random.Random(3)
    pending_seen = 0
    for (cols, rows, men, cap), seed in itertools.product(BOARDS, range(2)):
        core = make_core(backend, cols, rows, men, cap, seed)
        s = Search(core)
        for _ in range(12):
            actions = s.actions()
            if not actions:
                break
            jumps = [a for a in actions if a < 0 and a != STOP]
            s.do(rng.choice(jumps) if jumps and rng.random() < 0.8 else rng.choice(actions))
            before = s.snap()
            for gen, cut in ((rng.getrandbits(64), -1), (rng.getrandbits(64), 6)):
                ref = core.clone(False)
                if s.pending():  # the reference: the move ended where it stands
                    pending_seen += 1
                    state = list(ref.get_state())
                    state[4] ^= 1
                    state[5] += 1
                    ref.set_state(tuple(state))
                wins, _, _, _, after = ref.playouts(1, gen, cut)
                mask = sum(1 << p for p, w in enumerate(wins) if w)
                assert s.playout(gen, cut) == (mask, after)
                assert s.snap() == before
    assert pending_seen >= 10


# ----------------------------------------------------------------- compiled = twin
@needs_cython
@pytest.mark.parametrize("board", BOARDS, ids=lambda b: "x".join(map(str, b[:2])) + str(b[2:]))
def test_compiled_search_equals_the_twin(board: tuple[int, int, int, Any]) -> None:
    cols, rows, men, cap = board
    stats = {"pending": 0, "terminal": 0, "jumps": 0}
    for seed in range(3):
        py_core = make_core("python", cols, rows, men, cap, seed)
        c_core = make_core("cython", cols, rows, men, cap, seed)
        py, c = Search(py_core), Search(c_core)
        assert c.compiled and not py.compiled and py.snap() == c.snap()
        rng = random.Random(seed)
        history = [c.snap()]
        for step in range(140):
            actions = c.actions()
            assert actions == py.actions()
            assert c.player() == py.player() and c.pending() == py.pending()
            assert c.snap() == history[-1]
            if step % 9 == 0:
                gen = rng.getrandbits(64)
                cut = rng.choice([-1, 3, 30])
                assert c.playout(gen, cut) == py.playout(gen, cut)
                assert c.snap() == py.snap() == history[-1]
            if step % 23 == 11:  # a clone with history keeps the pending move
                twin = c_core.clone(True)
                assert Search(twin).actions() == actions
                assert Search(twin).pending() == c.pending()
            if not actions:
                stats["terminal"] += 1
                assert c.player() == py.player() == TERMINAL
                assert c.winners() == py.winners()
            if len(history) > 1 and (not actions or rng.random() < 0.12):
                c.undo()
                py.undo()
                history.pop()
                assert c.snap() == py.snap() == history[-1]
                continue
            if not actions:
                break
            jumps = [a for a in actions if a < 0]
            action = rng.choice(jumps) if jumps and rng.random() < 0.7 else rng.choice(actions)
            c.do(action)
            py.do(action)
            stats["jumps"] += -9 < action < 0
            stats["pending"] += c.pending()
            assert c_core.get_state() == py_core.get_state()
            history.append(c.snap())
            assert py.snap() == history[-1]
        while len(history) > 1:
            c.undo()
            py.undo()
            history.pop()
            assert c.snap() == py.snap() == history[-1]
        assert c_core.entries == [] and not c.pending()
    assert stats["jumps"] >= 10 and stats["pending"] >= 5 and stats["terminal"] >= 1


@needs_cython
def test_deep_search_stacks_grow_and_unwind() -> None:
    """A 25x25 board filled by search placements (the undo stack grows past its
    first block), then jumps, then everything undone step by step."""
    core = Phutball.twin("cython")(columns=25, rows=25)._core.clone(False)
    s = Search(core)
    history = [s.snap()]
    while len(history) < 800:
        actions = s.actions()
        if not actions:
            break
        s.do(actions[0])  # the first placement while there is one, then jumps
        history.append(s.snap())
    assert len(history) > 600 and s.player() == TERMINAL
    mid = core.clone(True)  # copies the search stack: unwinds to the same start
    while len(history) > 1:
        history.pop()
        s.undo()
        assert s.snap() == history[-1]
    s.undo()  # nothing left: a no-op
    assert s.snap() == history[0]
    m = Search(mid)
    for _ in range(800):
        m.undo()
    assert m.snap() == history[0]
