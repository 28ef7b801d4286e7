"""The solution of a puzzle: the forcing line from its only move, to the point where the solver has no single move
left to find or has made the win plain.

From the position and its :class:`~ai.puzzles.judge.Verdict`: play the solver's move; the opponent answers with the
best reply by the search (the next move of the verifying search's principal variation, or a search of its own where
there is none, as after a database verdict); the solver's next move is added, with that reply, only if it is again
the one move that keeps the same result (:func:`ai.puzzles.judge.verdict`; a move that is the solver's only legal
move is added as it stands). The line stops, ending on a move of the solver's, when

- the game is over, or the solver's next move is not unique;
- a won line is *settled*: the solver is a piece up on the start with no capture pending for the opponent, or the
  line has just reached the databases in a position they call won;
- the solver has played :data:`MAX_SOLVER_MOVES` moves.
"""

from __future__ import annotations

from ai.kernel.egdb import LOSS
from ai.puzzles.judge import SEED, VERIFY_TABLE, Verdict, database_value, in_databases, verdict
from ai.puzzles.record import MINED_WITH_PATTERNS
from ai.review import reproducible_search
from core import Board, Color

MAX_SOLVER_MOVES = 5


def balance(board: Board, solver: Color) -> int:
    """The solver's pieces less the opponent's."""
    return board.count(solver) - board.count(solver.opponent)


def _settled(start: Board, board: Board, solver: Color) -> bool:
    """Whether a won line has made its point in ``board`` (the opponent to move)."""
    legal = board.legal_moves
    quiet = not legal or not legal[0].is_capture
    if quiet and balance(board, solver) > balance(start, solver):
        return True
    return not in_databases(start) and database_value(board) == LOSS


def _reply(board: Board, line: tuple[str, ...], nodes: int) -> str:
    """The opponent's best reply: its only move, else the verifying search's next move, else a search's."""
    legal = [m.text() for m in board.legal_moves]
    if len(legal) == 1:
        return legal[0]
    if len(line) >= 2 and line[1] in legal:
        return line[1]
    return reproducible_search(
        board, SEED, nodes=nodes, endgames=True, patterns=MINED_WITH_PATTERNS, table_entries=VERIFY_TABLE
    ).move


def follow(start: Board, first: Verdict, nodes: int) -> tuple[str, ...]:
    """The solution from ``start`` (the solver to move), whose verdict is ``first``."""
    solver = start.turn
    board = start.copy(stack=False)
    board.push_text(first.move)
    solution = [first.move]
    pv = first.line
    while len(solution) // 2 + 1 < MAX_SOLVER_MOVES and board.outcome() is None:
        if first.result == "win" and _settled(start, board, solver):
            break
        reply = _reply(board, pv, nodes)
        board.push_text(reply)
        if board.outcome() is not None:
            break
        legal = board.legal_moves
        if len(legal) == 1:
            nxt: Verdict | None = Verdict(legal[0].text(), first.result, first.margin)
        else:
            nxt = verdict(board.copy(stack=False), nodes)
        if nxt is None or nxt.result != first.result:
            break
        solution += [reply, nxt.move]
        board.push_text(nxt.move)
        pv = nxt.line
    return tuple(solution)
