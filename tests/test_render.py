"""brett.svg / Game._repr_svg_: well-formed SVG whose drawn pieces match the game."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import brett
from brett.focus import Focus
from brett.phutball import Phutball
from brett.reversi import Reversi
from brett.schuft import Schuft

SVG = "{http://www.w3.org/2000/svg}"


def parse(game: brett.Game, size: int = 400) -> ET.Element:
    text = brett.svg(game, size)
    assert text.startswith("<svg")
    root = ET.fromstring(text)  # raises on anything not well-formed
    assert root.tag == f"{SVG}svg"
    assert root.get("width") is not None and float(root.get("viewBox", "0 0 0 0").split()[2]) > 0
    return root


def drawn(root: ET.Element, cls: str, tag: str = "") -> list[ET.Element]:
    """Every element whose class attribute names ``cls`` (optionally of one tag)."""
    return [el for el in root.iter() if cls in el.get("class", "").split()
            and (not tag or el.tag == f"{SVG}{tag}")]


def texts(root: ET.Element, cls: str) -> list[str]:
    return [el.text or "" for el in drawn(root, cls, "text")]


def test_svg_is_exported_and_used_by_jupyter() -> None:
    game = brett.Reversi()
    assert "svg" in brett.__all__
    assert game._repr_svg_() == brett.svg(game)
    assert brett.svg(game, 200) != brett.svg(game)


@pytest.mark.parametrize("bad", [object(), "reversi", None])
def test_svg_refuses_non_games(bad: object) -> None:
    with pytest.raises(brett.BrettError, match="not a brett game"):
        brett.svg(bad)


@pytest.mark.parametrize("size", [0, 10, -400, 400.0, True, "400"])
def test_svg_refuses_bad_sizes(size: object) -> None:
    with pytest.raises(ValueError, match="size="):
        brett.svg(brett.Reversi(), size)  # type: ignore[arg-type]


# ---------------------------------------------------------------- Reversi
def test_reversi_discs_holes_coordinates_and_last_move(backend: str) -> None:
    game = Reversi.twin(backend)(holes=["b4", "e2", "g7"])
    root = parse(game)
    assert len(drawn(root, "disc", "circle")) == 4
    assert len(drawn(root, "hole")) == 3
    assert drawn(root, "cut") == [] and drawn(root, "last-move") == []
    coords = texts(root, "coord")
    assert coords == [c for i in range(8) for c in ("abcdefgh"[i], str(i + 1))]

    game.push_transcript("f5d6c3d3c4")
    root = parse(game)
    black, white = game.discs()
    assert (black, white) == (6, 3)
    assert len(drawn(root, "disc")) == black + white
    assert len(drawn(root, "black")) == black and len(drawn(root, "white")) == white
    on = {el.get("data-square"): el.get("class") for el in drawn(root, "disc")}
    assert on == {sq: "disc black" if game.position().split()[0].split("/")[int(sq[1]) - 1]
                  ["abcdefgh".index(sq[0])] == "x" else "disc white" for sq in on}
    # the last move c4 is marked on its square: the leftmost column, the second row
    (mark,) = drawn(root, "last-move")
    assert mark.get("data-square") == "c4"
    (c4,) = [el for el in drawn(root, "disc") if el.get("data-square") == "c4"]
    assert (c4.get("cx"), c4.get("cy")) == (mark.get("cx"), mark.get("cy"))
    xs = sorted({float(el.get("cx", 0)) for el in drawn(root, "disc")})
    ys = sorted({float(el.get("cy", 0)) for el in drawn(root, "disc")})
    assert float(mark.get("cx", 0)) == xs[0] and float(mark.get("cy", 0)) == ys[1]


def test_reversi_octagon_cut_squares_and_finished_game(backend: str) -> None:
    game = Reversi.twin(backend)(board="octagon")
    root = parse(game)
    assert len(drawn(root, "cut")) == 12 and drawn(root, "hole") == []
    game.random_playout(seed=11)
    assert game.is_over()
    root = parse(game)
    assert len(drawn(root, "disc")) == sum(game.discs())
    assert any(t.startswith("game over") for t in texts(root, "caption"))


def test_reversi_output_changes_after_a_move(backend: str) -> None:
    game = Reversi.twin(backend)()
    before = brett.svg(game)
    game.push("d3")
    after = brett.svg(game)
    assert before != after
    assert len(drawn(ET.fromstring(after), "black")) == 4
    game.pop()
    assert brett.svg(game) == before


# ---------------------------------------------------------------- Focus
@pytest.mark.parametrize("players", [2, 3, 4])
def test_focus_layers_are_the_pieces_on_the_board(backend: str, players: int) -> None:
    from brett._core._focus_py import SQUARE_NAMES

    game = Focus.twin(backend)(players=players)
    game.random_playout(seed=players, max_plies=25)
    root = parse(game)
    stacks = [game.stack(sq) for sq in SQUARE_NAMES]
    layers = drawn(root, "layer", "rect")
    assert len(layers) == sum(len(s) for s in stacks) > 0
    for letter in "rgby"[:players]:
        assert len(drawn(root, letter)) == sum(s.count(letter) for s in stacks)
    assert sorted(texts(root, "height")) == sorted(str(len(s)) for s in stacks if s)
    assert len(drawn(root, "square")) == 52 and len(drawn(root, "cut")) == 12
    caption = " ".join(texts(root, "caption"))
    assert "reserves" in caption and "captured" in caption


def test_focus_stacks_are_drawn_bottom_to_top(backend: str) -> None:
    from brett._core._focus_py import SQUARE_NAMES

    game = Focus.twin(backend)()
    game.push("c3-c4")
    game.random_playout(seed=5, max_plies=30)
    assert max(len(game.stack(sq)) for sq in SQUARE_NAMES) >= 3
    root = parse(game)
    stacks = {g.get("data-square"): g for g in drawn(root, "stack", "g")}
    assert set(stacks) == {sq for sq in SQUARE_NAMES if game.stack(sq)}
    for square, group in stacks.items():
        layers = drawn(group, "layer", "rect")
        letters = "".join(next(c for c in el.get("class", "").split() if c in "rgby")
                          for el in sorted(layers, key=lambda el: -float(el.get("y", 0))))
        assert letters == game.stack(square)  # lowest on screen = bottom of the stack
        assert texts(group, "height") == [str(len(letters))]


def test_focus_output_changes_after_a_move(backend: str) -> None:
    game = Focus.twin(backend)()
    before = parse(game)
    game.push("c3-c4")
    after = parse(game)
    assert len(drawn(before, "layer")) == len(drawn(after, "layer")) == 36
    assert sorted(texts(before, "height")) != sorted(texts(after, "height"))


# ---------------------------------------------------------------- Phutball
def test_phutball_men_ball_goal_lines_and_coordinates(backend: str) -> None:
    game = Phutball.twin(backend)()
    root = parse(game)
    assert drawn(root, "man") == []
    assert len(drawn(root, "ball")) == 1
    assert len(drawn(root, "goal-line")) == 2 and len(drawn(root, "end-zone")) == 2
    coords = texts(root, "coord")
    letters = "abcdefghjklmnop"
    assert [c for c in coords if c.isalpha()] == [c for c in letters for _ in range(2)]
    assert "i" not in coords
    assert [c for c in coords if c.isdigit()] == [str(r) for r in range(1, 20) for _ in range(2)]

    for move in ("h11", "h12", "j10", "h9"):
        game.push(move)
    root = parse(game)
    assert len(drawn(root, "man")) == game.position().count("O") == 4
    ball_before = drawn(root, "ball")[0]
    game.push("h10-h13")
    root = parse(game)
    assert len(drawn(root, "man")) == game.position().count("O") == 2
    (ball,) = drawn(root, "ball")
    assert ball.get("cx") == ball_before.get("cx")
    assert float(ball.get("cy", 0)) < float(ball_before.get("cy", 0))  # up the board
    assert len(drawn(root, "path")) == 1


def test_phutball_ball_beyond_the_goal_line(backend: str) -> None:
    game = Phutball.twin(backend).from_position("O4/O4/O4/*4/5 0 5x5")
    game.push("a2-a6")  # over a3, a4, a5: beyond player 0's goal line
    assert game.is_over() and game.ball == "a6"
    root = parse(game)
    assert drawn(root, "man") == []
    (ball,) = drawn(root, "ball")
    assert ball.get("data-point") == "a6"
    top_zone = min(drawn(root, "end-zone"), key=lambda el: float(el.get("y", 0)))
    assert float(top_zone.get("y", 0)) < float(ball.get("cy", 0)) \
        < float(top_zone.get("y", 0)) + float(top_zone.get("height", 0))
    assert any(t.startswith("game over") for t in texts(root, "caption"))


# ---------------------------------------------------------------- Schuft
def _tongue_pieces(game: brett.Game) -> dict[str, int]:
    tongues = game.position().split("/")[0].split(",")
    totals = {letter: 0 for letter in "rgby"}
    for tok in tongues:
        if tok != ".":
            totals[tok[0]] += int(tok[1:])
    return totals


@pytest.mark.parametrize("players", [2, 3, 4])
def test_schuft_pieces_goal_tracks_and_captions(backend: str, players: int) -> None:
    game = Schuft.twin(backend)(players=players, seed=players)
    root = parse(game)
    assert len(drawn(root, "tongue", "polygon")) == 36
    assert len(drawn(root, "piece")) == 9 * players
    assert len(drawn(root, "goal-track", "g")) == players
    assert len(drawn(root, "goal-field")) == 9 * players and drawn(root, "goal-piece") == []

    game.random_playout(seed=5, max_plies=60)
    while game.is_chance_node():
        game.roll()
    root = parse(game)
    totals = _tongue_pieces(game)
    assert len(drawn(root, "piece")) == sum(totals.values())
    for letter in "rgby"[:players]:
        pieces = [el for el in drawn(root, "piece") if letter in el.get("class", "").split()]
        assert len(pieces) == totals[letter]
    goals = game.position().split("/")[1]  # e.g. "r..r.....,.g......."
    assert len(drawn(root, "goal-piece")) == sum(ch.isalpha() for ch in goals) > 0
    for track in drawn(root, "goal-track", "g"):
        letter = track.get("class", "").split()[1]
        assert len(drawn(track, "goal-piece")) == goals.count(letter)
    outs = game.position().split("/")[2].split(",")
    assert texts(root, "out") == [f"{'rgby'[p]} out {o}" for p, o in enumerate(outs)]
    caption = " ".join(texts(root, "caption"))
    roll = game.pending_roll
    if not game.is_over():
        assert roll is not None and f"rolled {roll} = {roll.total}" in caption


def test_schuft_roll_and_move_change_the_picture(backend: str) -> None:
    game = Schuft.twin(backend)(players=2)
    start = brett.svg(game)
    assert "to roll" in start
    game.roll("5-8-2")
    rolled = brett.svg(game)
    assert rolled != start and "rolled 5-8-2 = 15: choose cw or ccw" in rolled
    game.push("ccw 17/9 1/32 9/7")
    moved = parse(game)
    assert game.position().split("/")[2] == "0,1"  # 1/32 hit a green piece
    assert len(drawn(moved, "piece")) == sum(_tongue_pieces(game).values()) == 17
    assert texts(moved, "out") == ["r out 0", "g out 1"]
    tongues = game.position().split("/")[0].split(",")
    assert sorted(texts(moved, "count")) == sorted(t[1:] for t in tongues if t[1:] > "1")
    assert brett.svg(game) != rolled


def test_schuft_goal_track_starts_at_the_corner(backend: str) -> None:
    parts = Schuft.twin(backend)(players=2).position().split("/")
    tongues = parts[0].split(",")
    assert tongues[0] == "r1"
    tongues[0] = "."  # that piece is home on g1 instead
    parts[0], parts[1] = ",".join(tongues), "r........,........."
    root = parse(Schuft.twin(backend).from_position("/".join(parts)))
    centre = float(root.get("width", 0)) / 2  # the board is a square at the top

    def distance(el: ET.Element) -> float:
        return abs(float(el.get("cx", 0)) - centre) + abs(float(el.get("cy", 0)) - centre)

    red = next(t for t in drawn(root, "goal-track", "g") if "r" in t.get("class", "").split())
    (home,) = drawn(red, "goal-piece")
    assert distance(home) == max(distance(el) for el in drawn(red, "goal-field"))
    # seat 0's corner C_0 is the bottom-left one (S2: clockwise runs right to left)
    assert float(home.get("cx", 0)) < centre < float(home.get("cy", 0))
