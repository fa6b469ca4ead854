"""The brett command for Reversi: perft with options, divide, bench, play."""

from __future__ import annotations

import io
from typing import Any

from brett import cli
from brett.reversi import Reversi


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def test_perft_default_and_options() -> None:
    assert "perft(3) = 56" in run("perft", "reversi", "--depth", "3")[1]
    assert "perft(5) = 1364" in run("perft", "reversi", "--depth", "5", "--size", "6")[1]
    assert "perft(4) = 244" in run("perft", "reversi", "--depth", "4", "--board", "octagon")[1]
    assert "perft(4) = 225" in run("perft", "reversi", "--depth", "4",
                                   "--holes", "b4,e2,g5")[1]
    expected = Reversi(holes=["b2", "g7"]).perft(4)
    assert f"perft(4) = {expected}" in run("perft", "reversi", "--depth", "4",
                                           "--holes", "b2,g7")[1]
    assert "perft(5) = 1400" in run("perft", "reversi", "--depth", "5", "--handicap", "2")[1]
    code, text = run("perft", "reversi", "--depth", "3", "--backend", "python")
    assert code == 0 and "perft(3) = 56" in text and "python core" in text
    assert "nodes/s" in text


def test_perft_divide_and_count_finished() -> None:
    code, text = run("perft", "reversi", "--depth", "3", "--divide")
    lines = text.splitlines()
    assert code == 0 and lines[:4] == ["d3 14", "c4 14", "f5 14", "e6 14"]
    assert "perft(3) = 56" in text
    finished = "xxxx/xxxx/xxxx/xxxo x n=4"
    assert "perft(2) = 0" in run("perft", "reversi", "--depth", "2", "--position", finished)[1]
    assert "perft(2) = 1" in run("perft", "reversi", "--depth", "2", "--position", finished,
                                 "--count-finished")[1]
    game = Reversi()
    game.push_transcript("f5d6")
    expected = f"perft(2) = {game.perft(2)}"
    assert expected in run("perft", "reversi", "--depth", "2", "--moves", "f5 d6")[1]


def test_holes_count_random_and_seed() -> None:
    code, text = run("perft", "reversi", "--depth", "2", "--holes", "3", "--seed", "4")
    assert code == 0 and "perft(2) = " in text
    code, text = run("perft", "reversi", "--depth", "2", "--holes", "random", "--seed", "4")
    assert code == 0


def test_bad_options_are_errors(capsys: Any) -> None:
    assert run("perft", "reversi", "--depth", "2", "--size", "7")[0] == 2
    assert "size=7" in capsys.readouterr().err
    assert run("perft", "reversi", "--depth", "2", "--holes", "d4")[0] == 2
    assert run("perft", "reversi", "--depth", "2", "--holes", "5")[0] == 2
    assert run("perft", "reversi", "--depth", "2", "--size", "4", "--holes", "1")[0] == 2
    assert run("perft", "reversi", "--depth", "1", "--moves", "a1")[0] == 2
    assert run("perft", "reversi", "--depth", "1", "--position", "nonsense x")[0] == 2


def test_bench() -> None:
    code, text = run("bench", "reversi", "--games", "50", "--size", "6")
    assert code == 0 and "50 random games" in text


def _play(argv: list[str], answers: Any) -> str:
    args = cli.build_parser(argv).parse_args(argv)
    game = args._loader(args)
    out = io.StringIO()
    cli.cmd_play(game, args, out, read=answers(game))
    return out.getvalue()


def test_play_scripted_human_session() -> None:
    def answers(game: Any) -> Any:
        script = iter(["?", "a1", "zz", "f5", "undo", "d3", "quit"])
        return lambda prompt: next(script)
    text = _play(["play", "reversi", "--seats", "human,human"], answers)
    assert "d3 c4 f5 e6" in text                           # the '?' answer
    assert "illegal move 'a1'" in text and "'zz' is not a move" in text
    assert text.count("x to move") >= 2 and "o to move" in text
    assert "game over" not in text


def test_play_to_the_end_against_random() -> None:
    def answers(game: Any) -> Any:
        return lambda prompt: str(next(iter(game.legal_moves)))
    text = _play(["play", "reversi", "--size", "6", "--seats", "human,random",
                  "--seed", "3"], answers)
    assert "player 1 plays" in text and "game over: Outcome(" in text


def test_main_play_uses_input(monkeypatch: Any) -> None:
    # main() reads moves with input(); EOF ends the session cleanly.
    def eof(prompt: str) -> str:
        raise EOFError
    monkeypatch.setattr(cli, "input", eof, raising=False)
    args = cli.build_parser(["play", "reversi"]).parse_args(["play", "reversi"])
    game = args._loader(args)
    out = io.StringIO()
    cli.cmd_play(game, args, out, read=eof)
    assert str(Reversi()) in out.getvalue()
