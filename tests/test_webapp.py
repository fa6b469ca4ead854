"""The web app (``brett serve --http``) as a person uses it: a real headless
Chromium (Debian's ``chromium``, driven by Playwright) plays by clicks, and after
each move what the page shows is compared with the engine.  Screenshots of each
game go to the test's temporary folder (and, with BRETT_SCREENSHOTS=DIR, to DIR)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import brett

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# .ci/run sets BRETT_REQUIRE_BROWSER=1: there a missing browser fails, never skips.
REQUIRED = bool(os.environ.get("BRETT_REQUIRE_BROWSER"))
if REQUIRED:
    import playwright.sync_api as playwright_api

    assert CHROMIUM is not None, "BRETT_REQUIRE_BROWSER=1 but no chromium on PATH"
else:
    playwright_api = pytest.importorskip("playwright.sync_api",
                                         reason="the test extra installs it")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Chromium (Debian: apt install chromium; .ci/run does)")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from brett.frontends.webserver import make_server

    httpd = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


class Player:
    """A person at the page: starts games, clicks squares and buttons, reads it."""

    def __init__(self, browser: Any, url: str, shots: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1100, "height": 720})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.page.wait_for_selector("#board svg")
        self.idle()
        self.shots = shots

    def new_game(self, game: str, options: str = "{}", computer: str = "nobody",
                 strength: str = "3") -> None:
        """A new game; ``computer`` is the seat the computer plays ("nobody", a seat
        number, "others"), ``strength`` "random" or a level."""
        self.page.select_option("#strength", strength)
        self.page.select_option("#game", game)  # starts a game of it
        self.page.fill("#options", options)
        self.idle()
        self.page.click("#new")
        self.idle()
        self.page.select_option("#computer", computer)  # the computer moves if it is to
        self.idle()

    def moves(self) -> list[str]:
        return [str(m) for m in self.page.eval_on_selector_all(
            "#moves li", "items => items.map(e => e.textContent)")]

    def played(self) -> int:
        return int(self.page.eval_on_selector("#moves", "e => e.children.length"))

    def position(self) -> str:
        return str(self.page.inner_text("#position")).strip()

    def click(self, token: str) -> None:
        square = self.page.locator(f'#board [data-square="{token}"]')
        if square.count():
            square.first.click()
        else:
            self.page.locator("#choices button", has_text=token).first.click()

    def idle(self) -> None:
        self.page.wait_for_function("document.body.dataset.busy === '0'")

    def enter(self, clicks: tuple[str, ...], moves_after: int) -> None:
        for token in clicks:
            self.idle()
            if self.played() >= moves_after:
                break  # the page completed the move itself (a single way on)
            self.click(token)
        self.idle()
        self.page.wait_for_function(
            f"document.querySelector('#moves').children.length >= {moves_after}")

    def screenshot(self, name: str) -> None:
        self.page.wait_for_timeout(700)  # the changed squares' flash has faded in
        self.page.screenshot(path=str(self.shots / f"{name}.png"))
        target = os.environ.get("BRETT_SCREENSHOTS")
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(target) / f"{name}.png"))


@pytest.fixture
def person(browser: Any, url: str, tmp_path: Path) -> Iterator[Player]:
    player = Player(browser, url, tmp_path)
    yield player
    assert player.errors == []
    player.page.close()


def test_a_whole_reversi_game_by_clicks(person: Player) -> None:
    person.new_game("reversi")
    engine = brett.Reversi()
    while not engine.is_over():
        move = next(iter(engine.legal_moves))
        person.enter(engine._click_path(move), len(engine.move_stack) + 1)
        engine.push(move)
        assert person.position() == engine.position()
    assert "Game over" in person.page.inner_text("#status")
    person.screenshot("reversi")


def test_a_phutball_jump_of_several_steps(person: Player) -> None:
    person.new_game("phutball", '{"columns": 9, "rows": 9}')
    engine = brett.Phutball(columns=9, rows=9)
    for clicks, move in ((("e6",), "e6"), (("e8",), "e8"),
                         (("e5", "e7", "e9", "stop"), "e5-e7-e9")):
        person.enter(clicks, len(engine.move_stack) + 1)
        engine.push(move)
        assert person.position() == engine.position()
    assert engine.is_over() and "Game over" in person.page.inner_text("#status")
    person.screenshot("phutball")


def test_a_focus_move_that_splits_a_stack(person: Player) -> None:
    person.new_game("focus")
    engine = brett.Focus()
    engine.push("d2-d3")  # red's piece on d3: a stack of two
    person.enter(("d2", "d3", "1"), 1)
    assert person.position() == engine.position()
    reply = next(m for m in engine.legal_moves if "d3" not in str(m) and "d4" not in str(m))
    person.enter(engine._click_path(reply), 2)
    engine.push(reply)
    split = next(m for m in engine.legal_moves if m.source == "d3" and m.count == 1)
    person.enter(engine._click_path(split), 3)
    engine.push(split)
    assert person.position() == engine.position()
    assert len(engine.piece_at("d3") or ()) == 1  # one piece stayed behind
    person.screenshot("focus")


def test_a_schuft_turn_with_given_dice(person: Player) -> None:
    person.new_game("schuft", '{"players": 2}')
    engine = brett.Schuft(players=2)
    person.page.fill("#roll", "5-8-2")
    person.page.click("#given")
    engine.roll("5-8-2")
    person.idle()
    assert person.position() == engine.position()
    turn = list(engine.legal_moves)[7]
    person.enter(engine._click_path(turn), 2)
    engine.push(turn)
    assert person.position() == engine.position()
    person.screenshot("schuft")


def test_against_the_random_player_with_undo(person: Player) -> None:
    person.new_game("reversi", "{}", computer="1", strength="random")
    person.enter(("d3",), 2)  # the random player answers at once
    engine = brett.Reversi.from_position(person.position())
    assert person.played() == 2 and engine.current_player() == 0
    person.page.click("#undo")
    person.idle()
    assert person.position() == brett.Reversi().position()
    person.page.fill("#options", "{bad")
    person.page.click("#new")
    person.idle()
    assert "Options" in person.page.inner_text("#error")


def test_against_the_computer_with_a_hint(person: Player) -> None:
    """The computer (a level-1 tree search) answers each click; a hint lists the
    search's best moves and marks them on the board; a hint's button plays it."""
    person.new_game("reversi", "{}", computer="1", strength="1")
    seats = person.page.eval_on_selector_all("#computer option", "os => os.map(o => o.text)")
    assert seats == ["nobody", "Black (x)", "White (o)"]
    engine = brett.Reversi()
    for turn in range(3):
        move = next(iter(engine.legal_moves))
        person.enter(engine._click_path(move), len(engine.move_stack) + 2)
        engine.push(move)
        played = person.moves()
        assert played[:-1] == [str(m) for m in engine.move_stack] and len(played) == 2 * turn + 2
        engine.push(played[-1])  # the computer's reply, a legal move
        assert person.position() == engine.position()
        info = person.page.inner_text("#info")
        assert info.startswith(f"White (o) played {played[-1]} (level 1: ") and "value" in info
    assert person.page.is_hidden("#hints")
    person.page.click("#hint")
    person.idle()
    hinted = person.page.eval_on_selector_all(
        "#hint-moves button", "buttons => buttons.map(b => b.textContent)")
    legal = {str(m) for m in engine.legal_moves}
    assert 1 <= len(hinted) <= 5 and set(hinted) <= legal
    assert "visits" in person.page.inner_text("#hint-moves")
    marked = person.page.eval_on_selector_all(
        "#board .highlight", "marks => marks.map(m => m.closest('[data-square]').dataset.square)")
    assert set(marked) == set(hinted[:3])  # the best three are marked on the board
    person.screenshot("reversi-computer")
    person.page.locator("#hint-moves button").first.click()  # play the best one
    person.idle()
    person.page.wait_for_function("document.querySelector('#moves').children.length >= 8")
    played = person.moves()
    assert played[6] == hinted[0] and len(played) == 8
    engine.push(played[6])
    engine.push(played[7])
    assert person.position() == engine.position() and person.page.is_hidden("#hints")
    # the computer takes Black: it moves at once; undo goes back to White's turn
    person.page.select_option("#computer", "0")
    person.idle()
    assert len(person.moves()) == 9
    person.page.click("#undo")
    person.idle()
    assert len(person.moves()) == 7 and "White (o) to move" in person.page.inner_text("#status")


def test_schuft_against_the_computer_who_rolls_its_own_dice(person: Player) -> None:
    """The person rolls (here: given dice) and moves; the computer rolls for its own
    turn and moves; then the page waits for the person's roll."""
    person.new_game("schuft", '{"players": 2}', computer="1", strength="1")
    assert person.moves() == [] and "Roll the dice" in person.page.inner_text("#status")
    assert person.page.is_disabled("#hint")
    person.page.fill("#roll", "5-8-2")
    person.page.click("#given")
    person.idle()
    engine = brett.Schuft(players=2)
    engine.roll("5-8-2")
    turn = list(engine.legal_moves)[3]
    person.enter(engine._click_path(turn), 4)
    engine.push(turn)
    played = person.moves()
    assert played[:2] == ["5-8-2", str(turn)] and len(played) == 4
    engine.push(played[2])  # the computer's roll
    engine.push(played[3])  # and its turn
    assert person.position() == engine.position() and engine.is_chance_node()
    assert "Roll the dice" in person.page.inner_text("#status")
    assert person.page.inner_text("#info").startswith("green (g) played ")
    person.page.click("#random-roll")  # the person's roll alone, no move with it
    person.idle()
    assert len(person.moves()) == 5 and "red (r) to move" in person.page.inner_text("#status")
