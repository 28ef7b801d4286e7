"""``benchmarks/judge.py``: a lost game's positions scored by an engine's status line, from the level's side, the
first ply where it went wrong and the moves that cost the most; with a stand-in judge (no engine library here)."""

from __future__ import annotations

from typing import Any

from benchmarks import engines, judge
from core import Board, Color
from core.pdn import PdnGame

MOVES = ("11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14", "5-9", "14x5", "4-8")
"""White offers a man (ply 5), the two take (plies 6 and 7), then Black leaves one en prise (5-9, ply 8)."""


class CaptureJudge(engines.Engine):
    """Scores a position by the material after the side to move's first capture, if it has one: 100 a piece, for
    Black, in GuiNN's status-line format."""

    def __init__(self) -> None:
        self.new_games: list[bool] = []

    def move(self, board: Board, seconds: float, new_game: bool = False) -> dict[str, Any]:
        self.new_games.append(new_game)
        after = board.copy(stack=False)
        captures = [m for m in board.legal_moves if "x" in m.text()]
        if captures:
            after.push(captures[0])
        score = 100 * (after.count(Color.BLACK) - after.count(Color.WHITE))
        return {"board": engines.to_cb(board), "result": 0, "status": f"Eval: {score}  Depth: 9/12 (1/7)"}


def game() -> Board:
    board = Board()
    for text in MOVES:
        board.push_text(text)
    return board


def test_a_game_black_lost_is_scored_for_black_and_the_move_that_left_a_man_en_prise_found() -> None:
    lost = PdnGame({"Black": "master@abc123", "White": "Engine"}, game(), "0-1")
    assert judge.lost_by(lost, "master") is Color.BLACK
    assert judge.lost_by(PdnGame({"Black": "master", "White": "Engine"}, game(), "1-0"), "master") is None
    assert judge.lost_by(lost, "hard") is None
    referee = CaptureJudge()
    judged = judge.judge(referee, 7, lost, Color.BLACK, 0.01, plies=90)
    assert referee.new_games == [True] + [False] * (len(MOVES) - 1)
    assert judged.scores == (0, 0, 0, 0, 0, 0, 100, 0, 0, -100, -100)
    assert judged.fens[0] == Board().fen() and judged.moves == MOVES
    assert (judged.first_at(50), judged.first_at(100), judged.first_at(200)) == (9, 9, None)
    assert judged.costly(2) == [(100, 8), (100, 6)]  # 5-9 left a man; 10x17 was answered by 21x14
    lines = judge.report([judged])
    assert lines[0] == (
        "game 7 (Black): first ply ≤ −50: 9, ≤ −100: 9, ≤ −200: None; "
        "costliest: 5-9 at ply 8 (-100), 10x17 at ply 6 (-100), 9-13 at ply 4 (+0)"
    )
    assert lines[1:] == [
        "judged at −50 or worse in 1 of 1 lost games, first at ply 9 (the median)",
        "judged at −100 or worse in 1 of 1 lost games, first at ply 9 (the median)",
        "judged at −200 or worse in 0 of 1 lost games, first at never",
    ]


def test_a_game_white_lost_is_scored_for_white_and_only_its_own_moves_are_blamed() -> None:
    lost = PdnGame({"Black": "Engine", "White": "master"}, game(), "1-0")
    judged = judge.judge(CaptureJudge(), 1, lost, Color.WHITE, 0.01, plies=8)
    assert judged.scores == (0, 0, 0, 0, 0, 0, -100, 0)  # only the first 8 plies
    assert judged.first_at(100) == 6
    assert judged.costly(1) == [(100, 5)]  # 17-14 offered the man
    assert all(ply % 2 == 1 for _, ply in judged.costly(10))
