"""The web app (``brett serve --http``) as a person uses it: a real headless
Chromium (Debian's ``chromium``, driven by Playwright) plays by clicks over the
page's WebSocket, and what the page shows is compared with the engine.  Errors
of the page (uncaught exceptions, console errors) fail the test.  Screenshots of
each scenario go to the test's temporary folder (and, with BRETT_SCREENSHOTS=DIR,
to DIR).

Timing: nothing here asserts a duration.  Waits have generous bounds; where two
things must overlap (a page answered while another waits for a slow search) the
slow one is a level-10 search of seconds and the quick one a single move."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest

import brett
import brett.ai
from brett.frontends.protocol import outcome
from brett.records import from_dict
from brett.records.ggf import read_ggf
from brett.records.sgf import read_sgf

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

WAIT = 30_000
"""Milliseconds a page may take for a quick action (generous: the machine may be busy)."""
SEARCH_WAIT = 120_000
"""Milliseconds a level-10 search may take (the server caps a search at 60 s)."""

# The page's CSP forbids eval, so waits are function expressions, never bare strings.
QUIET = "() => document.body.dataset.busy === '0'"
IDLE = "() => document.body.dataset.busy === '0' && document.body.dataset.thinking === '0'"
THINKING = "() => !document.getElementById('thinking').hidden"
# Keeps the first progress line the page shows (in window.firstProgress).
WATCH_PROGRESS = """() => {
  const line = document.getElementById('progress');
  window.firstProgress = null;
  new MutationObserver((changes, watch) => {
    if (!/iterations/.test(line.textContent)) return;
    window.firstProgress = line.textContent;
    watch.disconnect();
  }).observe(line, { childList: true, characterData: true, subtree: true });
}"""
FIRST_PROGRESS = "() => window.firstProgress"
# The squares under the target marks of the drawing: each mark's nearest cell.
DRAWN_TARGETS = """() => {
  const centre = (e) => { const r = e.getBoundingClientRect();
                          return [r.x + r.width / 2, r.y + r.height / 2]; };
  const cells = [...document.querySelectorAll('#board [data-square]')]
    .map((c) => [c.dataset.square, centre(c)]);
  return [...document.querySelectorAll('#board .marks .target')].map((mark) => {
    const [x, y] = centre(mark);
    let best = null, distance = Infinity;
    for (const [name, [cx, cy]] of cells) {
      const d = (cx - x) ** 2 + (cy - y) ** 2;
      if (d < distance) { best = name; distance = d; }
    }
    return best;
  });
}"""


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from brett.frontends.webserver import WebServer

    server = WebServer("127.0.0.1", 0)
    yield server.start()
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


class Player:
    """A person at the page: starts games, clicks squares and buttons, reads it."""

    def __init__(self, browser: Any, url: str, shots: Path,
                 viewport: tuple[int, int] = (1100, 720)) -> None:
        self.context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, accept_downloads=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("console", lambda m: self.errors.append(f"console: {m.text}")
                     if m.type == "error" else None)
        self.shots = shots
        self.page.goto(url)
        self.page.wait_for_selector("#board svg")
        self.idle()

    # ---- acting
    def idle(self, timeout: float = WAIT, search: bool = True) -> None:
        """Wait until the page has done what it was asked (and, with ``search``,
        until the computer has moved)."""
        self.page.wait_for_function(IDLE if search else QUIET, timeout=timeout)

    def new_game(self, game: str, options: Optional[dict[str, Any]] = None,
                 computer: str = "nobody", strength: str = "3") -> None:
        """A new game with these options (a field's text, True/False for a box);
        ``computer``: the seat it plays ("nobody", a seat number, "others"),
        ``strength``: "random" or a level."""
        self.page.select_option("#strength", strength)
        self.page.select_option("#game", game)
        for name, value in (options or {}).items():
            field = self.page.locator(f"#option-{name}")
            if isinstance(value, bool):
                field.set_checked(value)
            elif field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(value)
            else:
                field.fill(value)
        self.page.click("#new")
        self.idle()
        self.page.select_option("#computer", computer)  # the computer moves if it is to
        self.idle()

    def click(self, token: str) -> None:
        square = self.page.locator(f'#board [data-square="{token}"]')
        if square.count():
            square.first.click()
        else:
            self.page.locator("#choices button", has_text=token).first.click()

    def enter(self, clicks: tuple[str, ...], moves_after: int, search: bool = True) -> None:
        """Click a move's squares (and choices) until the game has ``moves_after``
        moves (``search``: the computer's reply included)."""
        for token in clicks:
            self.idle(search=search)
            if self.played() >= moves_after:
                break  # the page completed the move itself (a single way on)
            self.click(token)
        self.idle(search=search)
        self.page.wait_for_function(
            f"() => document.querySelectorAll('#moves .move').length > {moves_after}")

    def play_first_move(self, engine: Any) -> None:
        """Click the engine's first legal move, and make it in the engine too (the
        page then shows one move more)."""
        move = next(iter(engine.legal_moves))
        self.enter(engine._click_path(move), len(engine.move_stack) + 1)
        engine.push(move)

    def press(self, button: str) -> None:
        self.page.click(button)
        self.idle()

    # ---- reading
    def text(self, selector: str) -> str:
        return str(self.page.inner_text(selector)).strip()

    def moves(self) -> list[str]:
        """The moves in the move list (its first entry is the start position)."""
        return [str(m) for m in self.page.eval_on_selector_all(
            "#moves .move", "items => items.map(e => e.textContent)")][1:]

    def played(self) -> int:
        return len(self.moves())

    def position(self) -> str:
        """The shown position's string (what the copy button copies)."""
        return str(self.page.get_attribute("#copy-position", "data-position"))

    def targets(self) -> set[str]:
        """The squares the drawing marks as targets (by where the marks are)."""
        return set(self.page.evaluate(DRAWN_TARGETS))

    def squares(self) -> set[str]:
        return {str(s) for s in self.page.eval_on_selector_all(
            "#board [data-square]", "cells => cells.map(c => c.dataset.square)")}

    def choices(self) -> set[str]:
        return {str(s) for s in self.page.eval_on_selector_all(
            "#choices button", "buttons => buttons.map(b => b.textContent)")}

    def offers(self) -> set[str]:
        """The first clicks the page offers: marked squares and choice buttons."""
        targets, choices = self.targets(), self.choices()
        assert targets <= self.squares() and not choices & self.squares()
        return targets | choices

    def visible(self, selector: str) -> bool:
        return bool(self.page.is_visible(selector))

    def screenshot(self, name: str) -> None:
        self.page.mouse.move(0, 0)  # no hover on the picture
        self.page.wait_for_timeout(700)  # the changed squares' flash has faded in
        self.page.screenshot(path=str(self.shots / f"{name}.png"))
        target = os.environ.get("BRETT_SCREENSHOTS")
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(target) / f"{name}.png"))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def people(browser: Any, url: str, tmp_path: Path) -> Iterator[Any]:
    """Opens pages (each its own browser context: its own WebSocket, its own storage);
    at the end none may have had an error."""
    opened: list[Player] = []

    def person(viewport: tuple[int, int] = (1100, 720)) -> Player:
        opened.append(Player(browser, url, tmp_path, viewport))
        return opened[-1]

    yield person
    errors = [e for p in opened for e in p.errors]
    for player in opened:
        player.close()
    assert errors == []


@pytest.fixture
def person(people: Any) -> Player:
    return people()  # type: ignore[no-any-return]


def first_clicks(game: Any) -> set[str]:
    """The squares a person may click first, by the engine."""
    return set(game.legal_moves.clicks().next)


def summary(game: Any) -> str:
    """The sentence naming the winner and the score, as the server says it."""
    result = outcome(game)
    assert result is not None
    return str(result["summary"])


# ------------------------------------------------------------------ whole games by clicks
def test_a_whole_reversi_game_by_clicks(person: Player) -> None:
    """Every move by clicks, the position and the legal-move marks checked against
    the engine after each; at the end the winner and the score."""
    person.new_game("reversi")
    engine = brett.Reversi()
    assert person.targets() == first_clicks(engine) == {"d3", "c4", "f5", "e6"}
    while not engine.is_over():
        person.play_first_move(engine)
        assert person.position() == engine.position()
        if not engine.is_over():
            assert person.offers() == first_clicks(engine)
    assert person.text("#status") == "Game over"
    assert person.text("#summary") == summary(engine)
    assert person.offers() == set()
    person.screenshot("reversi")


def test_a_phutball_jump_landing_by_landing_wins(person: Player) -> None:
    """A man goes on any empty point by a click, unmarked; only the ball is marked
    once it can jump, then each landing in turn."""
    person.new_game("phutball", {"columns": "9", "rows": "9"})
    engine = brett.Phutball(columns=9, rows=9)
    assert person.targets() == set() == set(engine.legal_moves.clicks().marked)
    assert len(first_clicks(engine)) == 80  # yet every empty point takes a click
    for point in ("e6", "e8"):
        person.enter((point,), len(engine.move_stack) + 1)
        engine.push(point)
        assert person.position() == engine.position()
    assert person.targets() == {"e5"} == set(engine.legal_moves.clicks().marked)
    person.click("e5")
    person.idle()
    assert person.targets() == {"e7"} == set(engine.legal_moves.clicks("e5").marked)
    person.screenshot("phutball-jump")
    person.enter(("e7", "e9", "stop"), 3)
    engine.push("e5-e7-e9")
    assert person.position() == engine.position()
    assert engine.is_over() and person.text("#status") == "Game over"
    assert person.visible("#outcome") and person.text("#summary") == summary(engine)
    assert "wins" in summary(engine)
    person.screenshot("phutball")


def test_a_focus_move_that_splits_a_stack(person: Player) -> None:
    person.new_game("focus")
    engine = brett.Focus()
    assert person.targets() == first_clicks(engine)
    engine.push("d2-d3")  # red's piece on d3: a stack of two
    person.enter(("d2", "d3", "1"), 1)
    assert person.position() == engine.position()
    reply = next(m for m in engine.legal_moves if "d3" not in str(m) and "d4" not in str(m))
    person.enter(engine._click_path(reply), 2)
    engine.push(reply)
    person.click("d3")  # the stack of two: its counts are offered as choices
    person.idle()
    assert person.text("#status").endswith("d3 …")
    split = next(m for m in engine.legal_moves if m.source == "d3" and m.count == 1)
    person.enter(engine._click_path(split)[1:], 3)
    engine.push(split)
    assert person.position() == engine.position()
    assert len(engine.piece_at("d3") or ()) == 1  # one piece stayed behind
    person.screenshot("focus")


def test_a_schuft_turn_with_given_dice(person: Player) -> None:
    person.new_game("schuft", {"players": "2"})
    engine = brett.Schuft(players=2)
    assert person.text("#status") == "Roll the dice" and person.visible("#dice")
    person.page.fill("#roll", "5-8-2")
    person.press("#given")
    engine.roll("5-8-2")
    assert person.position() == engine.position()
    assert person.offers() == first_clicks(engine) == {"ccw", "cw"}
    turn = list(engine.legal_moves)[7]
    person.enter(engine._click_path(turn), 2)
    engine.push(turn)
    assert person.position() == engine.position()
    person.screenshot("schuft")


# ------------------------------------------------------------------ the computer
def test_against_the_random_player_with_undo_and_redo(person: Player) -> None:
    person.new_game("reversi", computer="1", strength="random")
    assert person.page.is_disabled("#undo") and person.page.is_disabled("#redo")
    person.enter(("d3",), 2)  # the random player answers at once
    answered = person.moves()
    after = person.position()
    assert answered[0] == "d3"
    assert person.text("#info").startswith(f"White (o) played {answered[1]}")
    person.press("#undo")  # the person's move and the reply
    assert person.moves() == [] and person.position() == brett.Reversi().position()
    person.press("#redo")  # both again
    assert person.moves() == answered and person.position() == after
    person.press("#undo")
    person.enter(("c4",), 2)  # a new move: nothing to redo any more
    assert person.page.is_disabled("#redo") and person.moves()[0] == "c4"


def test_against_the_computer_with_a_hint(person: Player) -> None:
    """The computer (a level-1 tree search) answers each click; a hint lists the
    search's best moves and marks them on the board; a hint's button plays it."""
    person.new_game("reversi", computer="1", strength="1")
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
        info = person.text("#info")
        assert info.startswith(f"White (o) played {played[-1]} (level 1: ") and "value" in info
    assert not person.visible("#hints")
    person.press("#hint")
    hinted = person.page.eval_on_selector_all(
        "#hint-moves button", "buttons => buttons.map(b => b.textContent)")
    legal = {str(m) for m in engine.legal_moves}
    assert 1 <= len(hinted) <= 5 and set(hinted) <= legal
    assert "visits" in person.text("#hint-moves")
    marked = person.page.eval_on_selector_all(
        "#board .highlight", "marks => marks.map(m => m.closest('[data-square]').dataset.square)")
    assert set(marked) == set(hinted[:3])  # the best three are marked on the board
    person.screenshot("reversi-computer-hint")
    person.page.locator("#hint-moves button").first.click()  # play the best one
    person.idle()
    person.page.wait_for_function("() => document.querySelectorAll('#moves .move').length > 8")
    played = person.moves()
    assert played[6] == hinted[0] and len(played) == 8
    engine.push(played[6])
    engine.push(played[7])
    assert person.position() == engine.position() and not person.visible("#hints")
    # the computer takes Black: it moves at once; undo goes back to White's turn
    person.page.select_option("#computer", "0")
    person.idle()
    assert len(person.moves()) == 9
    person.press("#undo")
    assert len(person.moves()) == 7 and person.text("#status") == "White (o) to move"


def test_schuft_against_the_computer_who_rolls_its_own_dice(person: Player) -> None:
    """The person rolls (here: given dice) and moves; the computer rolls for its own
    turn and moves; then the page waits for the person's roll."""
    person.new_game("schuft", {"players": "2"}, computer="1", strength="1")
    assert person.moves() == [] and person.text("#status") == "Roll the dice"
    assert person.page.is_disabled("#hint")
    person.page.fill("#roll", "5-8-2")
    person.press("#given")
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
    assert person.text("#status") == "Roll the dice"
    assert person.text("#info").startswith("Green (g) played ")
    person.press("#random-roll")  # the person's roll alone, no move with it
    assert len(person.moves()) == 5 and person.text("#status") == "Red (r) to move"


def test_stop_a_level_10_search(person: Player) -> None:
    """The person's move shows at once; the computer thinks (a level-10 search of
    several seconds) with live progress; Stop makes it play its best move so far."""
    # the largest board: its search takes several times longer than the test needs
    person.new_game("phutball", {"columns": "25", "rows": "25"}, computer="1", strength="10")
    engine = brett.Phutball(columns=25, rows=25)
    person.page.evaluate(WATCH_PROGRESS)
    person.enter(("h8",), 1, search=False)
    engine.push("h8")
    person.page.wait_for_function(THINKING)
    # the person's move is on the board and in the list while the computer thinks
    assert person.moves() == ["h8"] and person.position() == engine.position()
    assert person.text("#status") == "Down (attacks the bottom) is thinking…"
    assert person.page.is_disabled("#undo") and person.page.is_disabled("#hint")
    person.page.wait_for_function(FIRST_PROGRESS)
    first = person.page.evaluate(FIRST_PROGRESS)  # iterations and seconds, both counted
    shown = re.fullmatch(r"([\d,]+) iterations, (\d+\.\d+) s", first)
    assert shown, first
    assert int(shown[1].replace(",", "")) > 0 and float(shown[2]) > 0, first
    person.screenshot("phutball-thinking")
    person.page.click('#moves button[data-ply="0"]')  # the session answers meanwhile
    person.idle(search=False)
    assert person.position() == engine.start_position() and person.visible("#thinking")
    person.page.click("#live")
    person.idle(search=False)
    person.page.click("#stop")
    person.idle(SEARCH_WAIT)
    played = person.moves()
    assert len(played) == 2 and not person.visible("#thinking")
    engine.push(played[1])  # a legal move
    assert person.position() == engine.position()
    info = person.text("#info")
    assert info.startswith(f"Down (attacks the bottom) played {played[1]} (level 10: ")
    assert info.endswith("stopped, its best move so far")
    iterations = int(info.split("level 10: ")[1].split(" iterations")[0].replace(",", ""))
    assert 0 < iterations < brett.ai.LEVELS[10][0]  # stopped before its budget
    assert person.text("#status") == "Up (attacks the top) to move"


def test_two_pages_at_once(people: Any) -> None:
    """One page waits for a slow level-10 move while another plays on, answered
    at once; then the slow move arrives."""
    slow, quick = people(), people()
    slow.new_game("phutball", strength="10")
    slow.page.select_option("#computer", "0")  # the computer opens: it thinks
    slow.page.wait_for_function(THINKING)
    quick.new_game("reversi")
    engine = brett.Reversi()
    for turn in range(4):
        quick.play_first_move(engine)
        assert quick.position() == engine.position()
        if turn == 0:  # answered while the other page's search runs
            assert slow.visible("#thinking") and slow.moves() == []
    slow.idle(SEARCH_WAIT)
    played = slow.moves()
    assert len(played) == 1 and played[0] in {str(m) for m in brett.Phutball().legal_moves}
    assert slow.text("#info").startswith(f"Up (attacks the top) played {played[0]} (level 10: ")
    quick.screenshot("two-pages-quick")
    slow.screenshot("two-pages-slow")


def test_a_new_game_while_the_computer_thinks(person: Player) -> None:
    """The new game replaces the old one and its search; nothing waits for it."""
    person.new_game("phutball", strength="10")
    person.page.select_option("#computer", "0")
    person.page.wait_for_function(THINKING)
    person.page.select_option("#computer", "nobody")  # for the next game
    person.new_game("reversi")
    assert not person.visible("#thinking") and person.text("#error") == ""
    assert person.position() == brett.Reversi().position() and person.moves() == []
    person.enter(("d3",), 1)
    assert person.moves() == ["d3"] and person.text("#status") == "White (o) to move"


# ------------------------------------------------------------------ the new-game form
def test_the_options_form_follows_the_games(person: Player) -> None:
    """A field per constructor option, with its type's widget, range and help."""
    for name, cls in brett.GAMES.items():
        person.page.select_option("#game", name)
        for option in (o.as_dict() for o in cls.OPTIONS):
            field = person.page.locator(f"#option-{option['name']}")
            assert field.get_attribute("title") == option["help"]
            assert person.page.locator(f"label[for=option-{option['name']}]").count() == 1
            tag, kind = field.evaluate("e => [e.tagName, e.type]")
            if "boolean" in option["types"]:
                assert kind == "checkbox" and field.is_checked() == option["default"]
            elif option.get("choices"):
                values = field.evaluate("e => [...e.options].map(o => o.value)")
                assert tag == "SELECT" and set(option["choices"]) <= set(values)
            elif option["types"] in (["integer"], ["integer", "null"]):
                assert kind == "number"
                for bound in ("minimum", "maximum", "step"):
                    if bound in option:
                        attribute = {"minimum": "min", "maximum": "max"}.get(bound, bound)
                        assert field.get_attribute(attribute) == str(option[bound])
            else:
                assert kind == "text"
    person.page.select_option("#game", "focus")  # teams only for 4, the F9 options for 2
    assert not person.visible("#option-teams") and person.visible("#option-mirror_rule")
    person.screenshot("focus-options")
    person.page.fill("#option-players", "4")
    assert person.visible("#option-teams") and not person.visible("#option-mirror_rule")
    assert not person.visible("#option-swap")
    person.new_game("focus", {"players": "2", "mirror_rule": True})
    assert "mirror" in person.position()
    person.new_game("focus", {"players": "3"})  # the hidden box is not sent: no error
    assert person.text("#error") == "" and person.position() == brett.Focus(players=3).position()
    person.new_game("focus", {"players": "4", "move_rule": "up_to", "teams": False})
    assert person.position() == brett.Focus(players=4, move_rule="up_to", teams=False).position()
    seats = person.page.eval_on_selector_all("#computer option", "os => os.map(o => o.value)")
    assert seats == ["nobody", "0", "1", "2", "3", "others"]
    person.new_game("reversi", {"holes": "b2,g7", "board": "square"})
    assert person.position() == brett.Reversi(holes="b2,g7").position()


def test_a_refused_new_game_leaves_the_game_playable(person: Player) -> None:
    person.new_game("reversi", computer="nobody")
    engine = brett.Reversi()
    person.enter(("d3",), 1)
    engine.push("d3")
    with pytest.raises(brett.BrettError) as refused:
        brett.Reversi(size=7)
    person.page.fill("#option-size", "7")
    person.press("#new")
    assert person.text("#error") == f"New game: {refused.value}"
    assert person.position() == engine.position() and person.moves() == ["d3"]
    person.screenshot("refused-option")
    person.enter(("c5",), 2)  # the old game goes on; the error is gone
    engine.push("c5")
    assert person.position() == engine.position() and person.text("#error") == ""
    person.page.fill("#option-holes", "[b2")  # caught by the page
    person.press("#new")
    assert person.text("#error") == "New game: holes: [b2 is not a JSON array"
    person.page.fill("#option-holes", "")
    person.page.fill("#option-size", "6")
    person.press("#new")
    assert person.text("#error") == "" and person.moves() == []
    assert person.position() == brett.Reversi(size=6).position()
    assert person.targets() == first_clicks(brett.Reversi(size=6))


def test_copy_the_shown_position(person: Player) -> None:
    """The position string is behind a button: it goes to the clipboard, or,
    where the browser refuses the clipboard, into a field to copy by hand."""
    person.new_game("reversi")
    engine = brett.Reversi()
    person.play_first_move(engine)
    assert not person.visible("#position-text")  # the long string is not on show
    person.context.grant_permissions(["clipboard-read", "clipboard-write"])
    person.page.click("#copy-position")
    person.page.wait_for_function("() => document.getElementById('copied').textContent")
    assert person.text("#copied") == "Copied."
    assert person.page.evaluate("() => navigator.clipboard.readText()") == engine.position()
    person.page.evaluate(
        "() => { navigator.clipboard.writeText = () => Promise.reject(new Error('no')); }")
    person.page.click('#moves button[data-ply="0"]')  # the start position is shown
    person.idle()
    assert person.text("#viewing-text") == "The start position (1 move played)"
    assert person.text("#copied") == ""
    person.page.click("#copy-position")
    person.page.wait_for_selector("#position-text", state="visible")
    assert person.page.input_value("#position-text") == engine.start_position()
    assert person.text("#copied") == "Select and copy:"
    person.screenshot("position-by-hand")


# ------------------------------------------------------------------ records
def download(person: Player, format: str, tmp_path: Path) -> Path:
    person.page.select_option("#export-format", format)
    with person.page.expect_download() as info:
        person.page.click("#download")
    path: Path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    person.idle()
    return path


def test_export_and_import_records(people: Any, tmp_path: Path) -> None:
    one, other = people(), people()
    one.new_game("reversi")
    engine = brett.Reversi()
    for _ in range(5):
        one.play_first_move(engine)
    one.page.click("#records summary")
    sgf = download(one, "sgf", tmp_path)
    saved = download(one, "json", tmp_path)
    ggf = download(one, "ggf", tmp_path)
    assert sgf.name == "reversi-5-moves.sgf"
    assert read_sgf(sgf.read_text())[0].game().position() == engine.position()
    assert from_dict(json.loads(saved.read_text())).position() == engine.position()
    assert read_ggf(ggf.read_text())[0].game().position() == engine.position()
    one.press("#show-record")
    assert one.page.input_value("#record-text") == ggf.read_text()

    # the other page: the SGF pasted, the JSON file chosen
    other.new_game("focus")
    other.page.click("#records summary")
    other.page.fill("#record-text", sgf.read_text())
    other.press("#load-text")
    assert other.position() == engine.position()
    assert other.moves() == [str(m) for m in engine.move_stack]
    assert other.page.input_value("#game") == "reversi" and other.text("#error") == ""
    other.page.set_input_files("#record-file", str(saved))
    other.idle()
    assert other.position() == engine.position() and other.text("#info") == f"Loaded {saved.name}."
    # a GGF typed by hand: two games, the first is loaded
    text = ("(;GM[Othello]PB[a]PW[b]TY[8]BO[8 -------- -------- -------- ---O*--- "
            "---*O--- -------- -------- -------- *]B[F5]W[F6]B[E6];)\n"
            "(;GM[Othello]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- "
            "-------- -------- -------- *]B[D3];)\n")
    other.page.fill("#record-text", text)
    other.press("#load-text")
    assert other.position() == read_ggf(text)[0].game().position()
    assert other.moves() == ["f5", "f6", "e6"]
    assert "the first of its 2 games" in other.text("#info")
    other.screenshot("imported-ggf")
    # what does not work is said, and changes nothing
    other.page.fill("#record-text", "(;GM[Othello]BO[broken")
    other.press("#load-text")
    assert other.text("#error").startswith("Load: ") and other.moves() == ["f5", "f6", "e6"]
    assert "<stream>" not in other.text("#error") and other.text("#info") == ""
    other.page.fill("#record-text", "(;FF[4]GM[2]SZ[8];B[fe];B[ed])")
    other.press("#load-text")
    assert other.text("#error") == ("Load: the record text: SGF line 1, column 25: B[ed]: "
                                    "W is to move")
    other.screenshot("import-refused")
    # a transcript is named, not guessed
    other.page.fill("#record-text", "F5d6 c3\n")
    other.page.select_option("#import-format", "txt")
    other.press("#load-text")
    assert other.moves() == ["f5", "d6", "c3"] and other.text("#error") == ""
    # a game is offered only the formats it can be saved in
    other.new_game("focus")
    offered = other.page.eval_on_selector_all("#export-format option",
                                              "options => options.map(o => o.value)")
    assert offered == ["json", "sgf", "pos"]
    other.new_game("schuft")
    offered = other.page.eval_on_selector_all("#export-format option",
                                              "options => options.map(o => o.value)")
    assert offered == ["json", "pos"]
    other.screenshot("export-formats")


# ------------------------------------------------------------------ history
def test_history_navigation(person: Player) -> None:
    person.new_game("reversi")
    engine = brett.Reversi()
    positions = [engine.position()]
    for _ in range(6):
        person.play_first_move(engine)
        positions.append(engine.position())
    played = person.moves()
    person.page.click('#moves button[data-ply="2"]')
    person.idle()
    assert person.position() == positions[2]
    assert positions[2] in str(person.page.text_content("#board svg title"))  # the drawing
    assert person.visible("#viewing")
    assert f"after move 2 of 6 ({played[1]})" in person.text("#viewing")
    assert person.targets() == set()  # no moves on a past position
    person.screenshot("history")
    person.press("#back")
    assert person.position() == positions[1]
    person.press("#back")
    assert person.position() == positions[0] and person.page.is_disabled("#back")
    person.press("#forward")
    assert person.position() == positions[1]
    person.page.focus('#moves button[data-ply="1"]')  # the arrow keys step too
    person.page.keyboard.press("ArrowRight")
    person.idle()
    assert person.position() == positions[2]
    person.page.keyboard.press("ArrowLeft")
    person.idle()
    assert person.position() == positions[1]
    assert person.page.evaluate("() => document.activeElement.dataset.ply") == "1"
    person.press("#live")
    assert person.position() == positions[6] and not person.visible("#viewing")
    assert person.offers() == first_clicks(engine)
    # undo and redo
    person.press("#undo")
    person.press("#undo")
    assert person.moves() == played[:4] and person.position() == positions[4]
    person.press("#redo")
    assert person.moves() == played[:5] and person.position() == positions[5]
    person.press("#redo")
    assert person.moves() == played and person.page.is_disabled("#redo")
    # a move while looking back: the first click returns to the game
    person.page.click('#moves button[data-ply="0"]')
    person.idle()
    assert person.position() == positions[0]
    person.page.locator("#board [data-square]").first.click()
    person.idle()
    assert person.position() == positions[6] and person.moves() == played


# ------------------------------------------------------------------ robustness
def test_reload_and_reconnect_keep_the_game(person: Player) -> None:
    person.new_game("reversi")
    engine = brett.Reversi()
    for _ in range(3):
        person.play_first_move(engine)
    person.page.reload()
    person.page.wait_for_selector("#board svg")
    person.idle()
    assert person.position() == engine.position()
    assert person.moves() == [str(m) for m in engine.move_stack]
    # the socket drops: the page reconnects and reopens the game from its record (the
    # message is the sign: "connected" still shows until the closing socket says so)
    person.page.evaluate("() => conn.ws.close()")
    person.page.wait_for_function(
        "() => document.getElementById('info').textContent === "
        "'Reconnected: the game goes on.'", timeout=WAIT)
    person.idle()
    assert person.text("#connection") == "connected"
    assert person.position() == engine.position()
    move = next(iter(engine.legal_moves))
    person.enter(engine._click_path(move), 4)
    engine.push(move)
    assert person.position() == engine.position()


def test_a_game_the_server_closed_is_reopened(browser: Any, tmp_path: Path) -> None:
    """A server that closes games idle for three seconds: the page reopens its game
    from the record (the ``closed`` event).  The test's steps are far quicker than
    that, so no click meets a game closed under it."""
    from brett.frontends.sessions import Limits
    from brett.frontends.webserver import WebServer

    server = WebServer("127.0.0.1", 0, limits=Limits(game_idle=3.0))
    person = Player(browser, server.start(), tmp_path)
    try:
        person.new_game("reversi")
        person.enter(("d3",), 1)
        person.page.wait_for_function(  # idle for three seconds, swept every second
            "() => document.getElementById('info').textContent.includes('reopened')",
            timeout=WAIT)
        person.idle()
        engine = brett.Reversi()
        engine.push("d3")
        assert person.position() == engine.position() and person.moves() == ["d3"]
        assert person.errors == []
    finally:
        person.close()
        server.stop()


def test_by_keyboard_in_a_narrow_window(people: Any) -> None:
    """Everything fits a phone-sized window; a move can be made by keyboard alone
    (Tab to a marked square, Enter) or typed."""
    person = people((390, 800))
    person.new_game("reversi")
    width = person.page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1]  # no sideways scrolling
    focused = ""
    for _ in range(80):  # bounded: the page has fewer stops than this before the board
        person.page.keyboard.press("Tab")
        focused = person.page.evaluate(
            "() => document.activeElement.closest('#board') ? "
            "document.activeElement.dataset.square : ''")
        if focused:
            break
    assert focused in first_clicks(brett.Reversi())
    person.page.keyboard.press("Enter")
    person.idle()
    assert person.moves() == [focused]
    person.page.fill("#move-text", "nonsense")
    person.page.keyboard.press("Enter")
    person.idle()
    assert person.text("#error").startswith("Move: ") and person.moves() == [focused]
    engine = brett.Reversi()
    engine.push(focused)
    reply = str(next(iter(engine.legal_moves)))
    person.page.fill("#move-text", reply)
    person.page.keyboard.press("Enter")
    person.idle()
    engine.push(reply)
    assert person.moves() == [focused, reply] and person.position() == engine.position()
    assert person.text("#error") == ""
    person.screenshot("narrow")
