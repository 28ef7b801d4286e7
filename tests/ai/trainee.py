"""The trainee's side of an endgame training game, for the tests: the quickest win, or moves that keep the win and
make no progress."""

from __future__ import annotations

from collections import Counter

from ai import endgames
from core import Board


def trainee_best(board: Board) -> str:
    """The move that wins the quickest (what a perfect trainee plays)."""
    start = endgames.distance(board)
    assert start is not None and start.plies is not None
    for move in board.legal_moves:
        board.push(move)
        after = endgames.distance(board)
        board.pop()
        if after is not None and after.value == endgames.LOSS and after.plies == start.plies - 1:
            return move.text()
    raise AssertionError(f"no move wins the quickest in {board.fen()}")


def shuffle(board: Board) -> str:
    """A move that keeps the win but takes nothing, towards the positions seen least: no progress, no repetition."""
    seen = Counter(board.history_hashes())
    kept = []
    for move in board.legal_moves:
        board.push(move)
        after = endgames.distance(board)
        if after is not None and after.value == endgames.LOSS and after.plies:
            replies = []
            for reply in board.legal_moves:
                board.push(reply)
                replies.append(seen[board.hash])
                board.pop()
            kept.append((seen[board.hash] + max(replies), -after.plies, move.text()))
        board.pop()
    return min(kept)[2]
