"""``benchmarks/move_quality.py``: positions picked from games as a level has to search them, every legal move scored
by a judge from the mover's side (forced replies played first, won and drawn endings scored without it), and a
level's choices measured against the judge's best; with a stand-in judge (no engine library here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ai.book import shipped
from benchmarks import engines, move_quality
from core import Board, Color
from core.pdn import game_to_pdn

MOVES = ("11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14", "5-9", "14x5", "4-8")


class MaterialJudge(engines.Engine):
    """Scores a position by its material, 100 a man and 130 a king, for Black, in GuiNN's status-line format."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def move(self, board: Board, seconds: float, new_game: bool = False) -> dict[str, Any]:
        self.asked.append(board.fen())
        score = sum(
            (100 + 30 * (piece.king)) * (1 if piece.color is Color.BLACK else -1)
            for n in range(1, 33)
            if (piece := board.piece_at(n)) is not None
        )
        return {"board": engines.to_cb(board), "result": 0, "status": f"Eval: {score}  Depth: 9/12"}


def test_every_legal_move_is_scored_for_the_side_that_moves_with_forced_replies_played_first() -> None:
    judge = MaterialJudge()
    position = move_quality.judge_position(judge, 3, 5, MOVES[:5], 0.01)
    board = position.board()
    assert board.turn is Color.WHITE and (position.game, position.ply, position.moves) == (3, 5, MOVES[:5])
    assert set(position.scores) == {m.text() for m in board.legal_moves}
    # 17-14, 26-23 and 27-23 offer a man: Black's capture is forced, so the judge is asked after it and sees White
    # a man down; the others leave the material even
    assert position.scores == {"17-14": -100, "19-16": 0, "24-20": 0, "25-22": 0, "26-23": -100, "26-22": 0,
                               "27-23": -100}  # fmt: skip
    assert len(judge.asked) == len(board.legal_moves)
    after = Board()
    for text in (*MOVES[:5], "17-14", "10x17"):
        after.push_text(text)
    assert after.fen() in judge.asked
    assert position.best() == 0 and position.loss("25-22") == 0 and position.loss("27-23") == 100


def test_a_move_that_ends_the_game_is_scored_without_the_judge_and_scores_are_clipped() -> None:
    judge = MaterialJudge()
    assert move_quality.scores_of(judge, Board("B:W18:B14,K1", "american"), 0.01) == {"14x23": move_quality.CAP}
    assert judge.asked == []
    down = move_quality.scores_of(MaterialJudge(), Board("W:WK32:B1,2,3,4,5,6,7,8", "american"), 0.01)
    assert down == {"32-28": -move_quality.CAP, "32-27": -move_quality.CAP}  # 670 down, clipped


OFF_BOOK = ("9-13", "24-19", "13-17", "21x14", "10x17", "22x13", "6-9", "13x6", "2x9", "19-16", "12x19", "23x16",
            "11x20", "28-24", "9-14", "25-22")  # fmt: skip
"""A game that leaves the opening book at ply 3; plies 4, 5, 7, 11 and 12 are forced captures."""


def test_positions_are_those_a_level_searches_within_the_plies(tmp_path: Path) -> None:
    board = Board()
    for text in OFF_BOOK:
        board.push_text(text)
    pdn = tmp_path / "games.pdn"
    pdn.write_text(game_to_pdn(board, {"Black": "master", "White": "Engine"}, "1/2-1/2"), encoding="utf-8")
    found = move_quality.candidates([pdn, pdn], 2, 14)
    assert [(game, ply) for game, ply, _ in found] == [(g, p) for g in (1, 2) for p in (3, 6, 8, 9, 10, 13, 14)]
    assert all(moves == OFF_BOOK[:ply] for _, ply, moves in found)
    book = shipped()
    first = Board()
    for text in OFF_BOOK[:2]:
        first.push_text(text)
    assert book.playable(first)  # ply 2 is left out for the book, not for the plies
    assert move_quality.candidates([pdn], 15, 80) == [(1, 15, OFF_BOOK[:15])]
    start = tmp_path / "elsewhere.pdn"
    start.write_text(game_to_pdn(Board("B:W18,22:B14,K1", "american"), {"Black": "a", "White": "b"}, "*"), "utf-8")
    with pytest.raises(SystemExit, match="start position"):
        move_quality.candidates([start], 0, 80)


def test_a_level_is_measured_by_the_judges_best_and_two_levels_side_by_side(tmp_path: Path) -> None:
    positions = [
        move_quality.Position(1, 4, MOVES[:4], {"9-13": 0, "9-14": -60, "10-14": -120}),
        move_quality.Position(1, 6, MOVES[:6], {"a": 10, "b": 10}),
    ]
    path = tmp_path / "judged.json"
    move_quality.save(path, positions, {"engine": "stand-in"})
    assert move_quality.load(path) == positions
    a = move_quality.Scored("a", ("9-13", "a"), (0, 0), 2)
    b = move_quality.Scored("b", ("10-14", "b"), (120, 0), 1)
    assert b.share(50) == 0.5 and b.share(121) == 0.0
    lines = move_quality.report([a, b])
    assert lines[0] == "a: mean loss 0.00, the judge's best 100.0%, lost ≥ 50: 0.0%, ≥ 100: 0.0% (2 positions)"
    assert lines[1].startswith("b: mean loss 60.00, the judge's best 50.0%, lost ≥ 50: 50.0%, ≥ 100: 50.0%")
    assert lines[1].endswith("against a: +60.00 ± 60.00 (moves of different worth in 1)")
    path.write_text('{"format": 0}', encoding="utf-8")
    with pytest.raises(SystemExit):
        move_quality.load(path)


def test_a_level_chooses_a_legal_move_in_the_position_after_the_games_moves() -> None:
    chosen = move_quality._choose(("greedy", OFF_BOOK[:6], 0.01, 0))
    board = Board()
    for text in OFF_BOOK[:6]:
        board.push_text(text)
    assert chosen in {m.text() for m in board.legal_moves}


def test_losses_are_told_apart_by_the_phase_of_the_game() -> None:
    assert move_quality.phase(Board()) == "no king, more than 16 pieces"
    assert move_quality.phase(Board("B:W18,22,23,24,25,26:B1,2,3,4,5,14", "american")) == "no king, 11 to 16"
    assert move_quality.phase(Board("B:W18,22:B14,5", "american")) == "no king, 10 or fewer"
    assert move_quality.phase(Board("B:W18,22:B14,K1", "american")) == "kings, 10 or fewer"
    crowded = "W:W18,19,20,21,22,23:BK1,2,3,4,5,6"
    assert move_quality.phase(Board(crowded, "american")) == "kings, more than 10 pieces"
    positions = [
        move_quality.Position(1, 0, (), {"9-13": 0, "9-14": -60}),
        move_quality.Position(1, 1, ("9-13",), {"22-18": 0, "21-17": -40}),
    ]
    a = move_quality.Scored("a", ("9-14", "22-18"), (60, 0), 1)
    b = move_quality.Scored("b", ("9-13", "21-17"), (0, 40), 1)
    assert move_quality.by_phase(positions, [a, b]) == ["no king, more than 16 pieces (2 positions): a 30.00, b 20.00"]
