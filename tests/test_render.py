"""brett.svg / Game._repr_svg_: well-formed SVG whose drawn pieces match the game."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

import brett
from brett.focus import Focus
from brett.phutball import Phutball
from brett.reversi import Reversi
from brett.schuft import Schuft

SVG = "{http://www.w3.org/2000/svg}"


def parse(game: brett.Game, size: int = 400, **options: Any) -> ET.Element:
    text = brett.svg(game, size, **options)
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


def cells(root: ET.Element) -> dict[str, ET.Element]:
    """Each square's ``<g class="cell" data-square=...>`` by its name."""
    groups = drawn(root, "cell", "g")
    found = {g.get("data-square", ""): g for g in groups}
    assert len(found) == len(groups)
    return found


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
    on = {sq: disc.get("class") for sq, group in cells(root).items()
          for disc in drawn(group, "disc")}
    assert len(on) == black + white
    assert on == {sq: "disc black" if game.position().split()[0].split("/")[int(sq[1]) - 1]
                  ["abcdefgh".index(sq[0])] == "x" else "disc white" for sq in on}
    # the last move c4 is marked on its square: the leftmost column, the second row
    (mark,) = drawn(root, "last-move")
    (c4,) = drawn(cells(root)["c4"], "disc")
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
    stacks = {sq: stack for sq, group in cells(root).items()
              for stack in drawn(group, "stack", "g")}
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
    assert drawn(cells(root)["a6"], "ball") == [ball]
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


# ---------------------------------------------------------------- options for frontends
def beyond(game: brett.Game) -> set[str]:
    """Phutball's points past the goal lines, where a jump can end."""
    from brett.phutball import LETTERS

    return {f"{LETTERS[c]}{r}" for r in (0, game.rows + 1) for c in range(game.columns)}


def names(game: brett.Game) -> set[str]:
    if isinstance(game, Phutball):
        return set(game.points) | beyond(game)
    return set(game.squares)


def centre(game: brett.Game, name: str, **options: Any) -> tuple[float, float]:
    """Where ``name`` is drawn: the centre of its target mark."""
    (mark,) = drawn(parse(game, targets=[name], **options), "target")
    return float(mark.get("cx", 0)), float(mark.get("cy", 0))


def near(got: Any, want: Any) -> bool:
    """Lists of (x, y) equal up to the two decimals of the SVG."""
    flat = [float(v) for xy in got for v in xy]
    return flat == pytest.approx([float(v) for xy in want for v in xy], abs=0.011)


def points(el: ET.Element) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in
            (pair.split(",") for pair in el.get("points", "").split())]


def example(name: str) -> brett.Game:
    """A position of each game with a move played (the default classes)."""
    if name == "reversi":
        game: brett.Game = brett.Reversi()
        game.push_transcript("f5d6c3d3c4")
    elif name == "focus":
        game = brett.Focus()
        game.push("c3-c4")
    elif name == "phutball":
        game = brett.Phutball()
        for move in ("h11", "h12", "j10", "h9", "h10-h13"):
            game.push(move)
    else:
        game = brett.Schuft(players=2)
        game.roll("5-8-2")
        game.push("ccw 17/9 1/32 9/7")
        game.roll("5-8-2")
    return game


GAMES = ["reversi", "focus", "phutball", "schuft"]
# Two squares of each game, an arrow between them, and the pair a half turn swaps.
SQUARES = {"reversi": ("a1", "h8"), "focus": ("c1", "f8"), "phutball": ("a1", "p19"),
           "schuft": ("1", "19")}


@pytest.mark.parametrize("game", [
    brett.Reversi(), brett.Reversi(size=6, holes=["a1", "f6"]), brett.Reversi(board="octagon"),
    brett.Reversi(size=12, holes="random", seed=4), brett.Focus(), brett.Focus(players=4),
    brett.Phutball(), brett.Phutball(columns=9, rows=11), brett.Schuft(players=2),
    brett.Schuft(players=3), brett.Schuft(players=4)], ids=repr)
@pytest.mark.parametrize("orientation", [0, 1])
def test_every_square_is_one_clickable_cell(game: brett.Game, orientation: int) -> None:
    root = parse(game, orientation=orientation)
    found = [el.get("data-square") for el in root.iter() if el.get("data-square") is not None]
    assert len(found) == len(set(found))  # exactly once each
    assert set(found) == names(game) == set(cells(root))
    if isinstance(game, Phutball):
        assert set(game.points) < set(found)
    for group in cells(root).values():  # something painted takes the clicks
        assert len(group) >= 1


@pytest.mark.parametrize("name", GAMES)
def test_every_option_on_every_game(name: str) -> None:
    game = example(name)
    a, b = SQUARES[name]
    plain = parse(game)
    root = parse(game, 300, highlight=[a, b], last_move=True, targets=[b], arrows=[(a, b)],
                 orientation=1, coordinates=False)
    assert len(drawn(root, "highlight")) == 2
    assert len(drawn(root, "target", "circle")) == 1
    assert len(drawn(root, "arrow", "g")) == 1
    assert len(drawn(root, "arrow-shaft", "polyline")) == len(drawn(root, "arrow-head")) == 1
    assert drawn(root, "last-move")
    assert texts(root, "coord") == [] and texts(plain, "coord")
    assert texts(root, "caption") == texts(plain, "caption")
    assert float(root.get("width", 0)) < float(plain.get("width", 0))  # size=300
    for el in drawn(root, "marks", "g"):
        assert el.get("pointer-events") == "none"
    for cls in ("highlight", "target", "arrow", "last-move"):
        assert drawn(plain, cls) == [] or (cls == "last-move" and name in ("reversi", "phutball"))
    # classes a stylesheet can use
    piece = {"reversi": "disc", "focus": "layer", "phutball": "man", "schuft": "piece"}[name]
    assert drawn(root, piece) and drawn(root, "cell", "g")
    text = brett.svg(game, highlight=[a], targets=[b], arrows=[(a, b)], last_move=True)
    assert "<script" not in text and "href" not in text and "url(" not in text


def test_square_colours_are_classes() -> None:
    root = parse(brett.Focus())
    assert len(drawn(root, "dark")) == len(drawn(root, "light")) == 26
    assert {el.get("class") for el in drawn(root, "square")} == {"square dark", "square light"}
    root = parse(brett.Schuft())
    assert len(drawn(root, "tongue", "polygon")) == 36 == 2 * len(drawn(root, "dark"))


@pytest.mark.parametrize("name", GAMES)
def test_orientation_turns_the_board_half_round(name: str) -> None:
    game = example(name)
    a, b = SQUARES[name]
    assert centre(game, a) != centre(game, b)
    assert centre(game, a, orientation=1) == pytest.approx(centre(game, b))
    assert centre(game, b, orientation=1) == pytest.approx(centre(game, a))
    flipped = parse(game, orientation=1)
    assert sorted(texts(flipped, "coord")) == sorted(texts(parse(game), "coord"))
    # the pieces stay on their squares
    for square, group in cells(flipped).items():
        assert len(group) == len(cells(parse(game))[square])


def test_orientation_by_colour_and_coordinates_follow() -> None:
    game = brett.Reversi()
    assert brett.svg(game, orientation="white") == brett.svg(game, orientation=1)
    assert brett.svg(game, orientation="Black") == brett.svg(game)
    assert texts(parse(game, orientation=1), "coord")[:2] == ["h", "8"]
    assert brett.svg(brett.Focus(), orientation="green") == brett.svg(brett.Focus(),
                                                                      orientation=1)
    assert brett.svg(brett.Schuft(), orientation="red") == brett.svg(brett.Schuft())
    # Phutball's ball beyond the goal line stays beyond it, now at the bottom
    game = Phutball.from_position("O4/O4/O4/*4/5 0 5x5")
    game.push("a2-a6")
    root = parse(game, orientation=1)
    (ball,) = drawn(root, "ball")
    low_zone = max(drawn(root, "end-zone"), key=lambda el: float(el.get("y", 0)))
    assert float(low_zone.get("y", 0)) < float(ball.get("cy", 0)) \
        < float(low_zone.get("y", 0)) + float(low_zone.get("height", 0))
    assert drawn(root, "path")


@pytest.mark.parametrize("name", GAMES)
def test_highlights_and_targets_sit_on_their_squares(name: str) -> None:
    game = example(name)
    a, b = SQUARES[name]
    root = parse(game, highlight=[a], targets=[a, b])
    (lit,) = drawn(root, "highlight")
    assert lit in list(cells(root)[a])  # inside the square's group, under its pieces
    assert len(drawn(root, "target")) == 2
    # a lone name is one square; duplicates are drawn once
    assert brett.svg(game, highlight=a) == brett.svg(game, highlight=[a, a])


def test_focus_arrows_from_pairs_moves_and_notation() -> None:
    game = brett.Focus()
    root = parse(game, arrows=[("c3", "c5"), Focus().parse_move("d2-d4"), "+e5", "g3-e3"])
    arrows = drawn(root, "arrow", "g")
    assert len(arrows) == 3  # an entry has no source: no arrow
    for group, (src, dst) in zip(arrows, [("c3", "c5"), ("d2", "d4"), ("g3", "e3")],
                                 strict=True):
        (shaft,) = drawn(group, "arrow-shaft")
        (head,) = drawn(group, "arrow-head")
        assert points(shaft)[0] == pytest.approx(centre(game, src))
        assert points(head)[0] == pytest.approx(centre(game, dst))  # the tip


def test_phutball_arrow_is_the_jump_path() -> None:
    game = brett.Phutball()
    for move in ("h11", "h13", "j12"):
        game.push(move)
    move = game.parse_move("h10-h12-h14")
    root = parse(game, arrows=[move, "h3"])  # a placement draws no arrow
    (shaft,) = drawn(root, "arrow-shaft")
    (head,) = drawn(root, "arrow-head")
    path = points(shaft)
    assert near(path[:2], [centre(game, "h10"), centre(game, "h12")])
    assert points(head)[0] == pytest.approx(centre(game, "h14"))
    assert path[-1][0] == pytest.approx(path[0][0]) and path[-1][1] > points(head)[0][1]
    # a longer path of names, across a goal line
    root = parse(game, arrows=[("h10", "h12", "h20")])
    assert points(drawn(root, "arrow-shaft")[0])[:2] == path[:2]
    assert points(drawn(root, "arrow-head")[0])[0] == pytest.approx(centre(game, "h20"))


def test_schuft_arrows_and_last_move_use_the_movers_fields() -> None:
    game = example("schuft")  # green (g) to move, red played "ccw 1/32 17/9 9/7"
    root = parse(game, last_move=True)
    got = [(float(el.get("cx", 0)), float(el.get("cy", 0))) for el in drawn(root, "last-move")]
    assert near(got, [centre(game, sq) for sq in ("1", "32", "17", "9", "7")])  # 9 once
    turn = game.move_stack[-2]
    assert len(drawn(parse(game, arrows=[turn]), "arrow", "g")) == 3
    assert brett.svg(game, last_move=turn) == brett.svg(game, last_move=True)
    assert drawn(parse(game, last_move=game.peek()), "last-move") == []  # a roll
    move = brett.Schuft().parse_move("cw x/3 34/g2")
    root = parse(game, arrows=[move])  # for green, who is to move
    heads = [points(el)[0] for el in drawn(root, "arrow-head")]
    shafts = [points(el)[0] for el in drawn(root, "arrow-shaft")]
    assert near(shafts, [centre(game, "g:x"), centre(game, "34")])
    assert near(heads, [centre(game, "3"), centre(game, "g:g2")])
    assert drawn(parse(game, last_move="pass"), "last-move") == []


def test_last_move_true_false_notation_and_default() -> None:
    game = example("reversi")
    (dot,) = drawn(parse(game), "last-move")  # the usual mark
    assert (float(dot.get("cx", 0)), float(dot.get("cy", 0))) == centre(game, "c4")
    assert brett.svg(game, last_move=True) == brett.svg(game)
    assert drawn(parse(game, last_move=False), "last-move") == []
    (dot,) = drawn(parse(game, last_move="d3"), "last-move")
    assert (float(dot.get("cx", 0)), float(dot.get("cy", 0))) == centre(game, "d3")
    assert brett.svg(game, last_move=game.parse_move("d3")) == brett.svg(game, last_move="d3")
    assert drawn(parse(brett.Reversi(), last_move=True), "last-move") == []

    game = example("focus")
    assert drawn(parse(game), "last-move") == []  # Focus marks nothing unless asked
    marks = drawn(parse(game, last_move=True), "last-move")
    assert [(float(el.get("cx", 0)), float(el.get("cy", 0))) for el in marks] \
        == [centre(game, "c3"), centre(game, "c4")]

    game = example("phutball")
    assert [el.get("class") for el in drawn(parse(game), "path")] == ["path last-move"]
    assert drawn(parse(game, last_move=False), "path") == []
    root = parse(game, last_move=True)
    assert len(drawn(root, "path")) == 1 and len(drawn(root, "last-move", "circle")) == 2
    (path,) = drawn(root, "path")
    assert near(points(path), [centre(game, "h10"), centre(game, "h13")])


@pytest.mark.parametrize("options", [
    {"highlight": ["z9"]}, {"highlight": 5}, {"highlight": [None]}, {"highlight": ["b4"]},
    {"targets": ["a9"]}, {"targets": [1]}, {"targets": object()},
    {"last_move": 42}, {"last_move": "zz"}, {"last_move": "b4"}, {"last_move": brett.Focus()},
    {"arrows": [("a1",)]}, {"arrows": [("a1", "z1")]}, {"arrows": [42]}, {"arrows": ["q7"]},
    {"arrows": 3}, {"arrows": [("a1",) * 101]},
    {"orientation": 2}, {"orientation": -1}, {"orientation": True}, {"orientation": None},
    {"orientation": 1.0}, {"orientation": "purple"}, {"orientation": "x"},
    {"coordinates": 1}, {"coordinates": "yes"}, {"coordinates": None},
    {"highlight": ("a1" for _ in range(20_000))},
])
def test_bad_options_raise_brett_errors(options: dict[str, Any]) -> None:
    game = brett.Reversi(holes=["b4"])
    with pytest.raises(brett.BrettError):
        brett.svg(game, **options)


@pytest.mark.parametrize("game", [brett.Focus(), brett.Phutball(), brett.Schuft()], ids=repr)
def test_bad_options_on_the_other_games(game: brett.Game) -> None:
    for options in ({"highlight": ["a1"] if isinstance(game, Focus) else ["37"]},
                    {"targets": ["r:g10"]}, {"last_move": "d3"} if isinstance(game, Schuft)
                    else {"last_move": "xx"},
                    {"arrows": [("a0", "a0", "z")]}, {"orientation": "player"},
                    {"orientation": 2}):
        with pytest.raises(brett.BrettError):
            brett.svg(game, **options)
    if isinstance(game, Phutball):  # past the goal lines: only rows 0 and rows + 1
        brett.svg(game, highlight=["a0", "a20"])
        with pytest.raises(brett.BrettError):
            brett.svg(game, highlight=["a21"])
