"""A user's script, type-checked by tests/test_typing.py with ``mypy --strict``:
every call below must have a precise type (no ``Any``, ``--disallow-any-expr``)."""

import brett
from brett.focus import FocusMove
from brett.phutball import PhutballMove
from brett.reversi import ReversiMove
from brett.schuft import Roll, SchuftMove

game = brett.Reversi()
played = game.push("d3")
reveal_type(played)
reveal_type(game.pop())
game.push(ReversiMove(19, 8))
reveal_type(game.peek())
reveal_type(game.move_stack)
for move in game.legal_moves:
    reveal_type(move)
reveal_type(game.action_to_move(19))
reveal_type(game.legal_actions_mask())
reveal_type(game.observation_tensor())
reveal_type(game.outcome())
reveal_type(game.divide(2))
reveal_type(game.piece_map())
reveal_type(brett.load(brett.dump(game)))

focus: brett.Focus = brett.Focus(players=3)
first: FocusMove = next(iter(focus.legal_moves))
reveal_type(focus.push(first))
reveal_type(focus.piece_at("c3"))

ball = brett.Phutball()
path: PhutballMove = ball.push("h11")
reveal_type(ball.legal_moves)

dice = brett.Schuft()
roll: Roll = dice.roll()
reveal_type(dice.push("pass") if not dice.legal_moves else dice.peek())
turn: SchuftMove | Roll = dice.move_stack[-1]
reveal_type(brett.GAMES["reversi"])
reveal_type(game.effects("c4"))
reveal_type(focus.effects(first))
reveal_type(ball.effects("h12"))
reveal_type(dice.push(roll))
reveal_type(dice.push("5-8-2"))
loaded = brett.load(brett.dump(game))
if isinstance(loaded, brett.Reversi):
    reveal_type(loaded)
record = brett.records.Record.from_game(game)
reveal_type(record.moves)
reveal_type(brett.GAMES["schuft"])
