"""The bridge between ``core.Board`` and the compiled kernel: positions in, move texts and counts out.

Nothing outside :mod:`ai.kernel` sees the kernel's arrays.
"""

from __future__ import annotations

import time

from ai.kernel import movegen as mg
from ai.kernel import tables
from ai.kernel.evaluation import evaluate as _evaluate
from ai.kernel.perft import perft as _perft
from core import PASS, Board, Color, Move, Variant


def _node(board: Board) -> tuple[int, int, int, bool]:
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    return me, opp, board.kings, black


def _text(variant: Variant, move: int, path: int) -> str:
    """``core``'s text of a kernel move."""
    if move == mg.PASS:
        return PASS.text()
    g = variant.geometry
    group = 2 * g.per_row + 1
    start = (move >> mg.FROM_SHIFT) & 63
    captured = move & mg.CAPTURED
    if not captured:
        end = (move >> mg.TO_SHIFT) & 63
        return f"{start - start // group + 1}-{end - end // group + 1}"
    landings = [((path >> (5 * j)) & 31) + 1 for j in range(captured.bit_count())]
    return "x".join(str(n) for n in (start - start // group + 1, *landings))


def _packed(variant: Variant, move: Move) -> int:
    """The kernel's form of a ``core`` move."""
    if move.is_pass:
        return mg.PASS
    bit = variant.geometry.bit_of_square
    captured = 0
    for square in move.captures:
        captured |= bit[square]
    return (
        captured | (bit[move.start].bit_length() - 1) << mg.FROM_SHIFT | (bit[move.end].bit_length() - 1) << mg.TO_SHIFT
    )


def legal_moves(board: Board) -> list[str]:
    """The kernel's legal moves of ``board`` as ``core``'s move texts (``pass`` for a side that passes)."""
    me, opp, kings, black = _node(board)
    k = tables.of(board.variant)
    buf = mg.new_buffer(1)
    stack = mg.new_stack()
    end = mg.generate(me, opp, kings, black, k, buf, 0, stack)
    if not end:
        return [PASS.text()] if mg.can_pass(me, opp, kings, black, k, buf, 0, stack) else []
    return [_text(board.variant, int(buf[0, i]), int(buf[1, i])) for i in range(end)]


def perft(board: Board, depth: int) -> int:
    """``core.perft`` computed by the kernel."""
    if depth < 0:
        raise ValueError("depth must be 0 or more")
    me, opp, kings, black = _node(board)
    k = tables.of(board.variant)
    return int(_perft(me, opp, kings, black, depth, k, mg.new_buffer(depth + 1), mg.new_stack()))


def evaluate(board: Board) -> int:
    """The kernel's evaluation of ``board`` for the side to move (``master``'s features and weights)."""
    me, opp, kings, black = _node(board)
    return int(_evaluate(me, opp, kings, black, tables.of(board.variant)))


def key(board: Board) -> int:
    """The kernel's Zobrist key of ``board``, as ``core``'s unsigned hash."""
    k = tables.of(board.variant)
    return tables.unsigned(int(mg.key_of(board.black, board.white, board.kings, board.turn is Color.WHITE, k)))


def key_after(board: Board, move: Move) -> int:
    """The kernel's incremental key after ``move``, as ``core``'s unsigned hash."""
    _, _, kings, black = _node(board)
    k = tables.of(board.variant)
    h = mg.key_after(tables.signed(board.hash), kings, black, _packed(board.variant, move), k)
    return tables.unsigned(int(h))


def warm_up() -> float:
    """Compile the kernel, or load it from the on-disk cache, by running every entry point once; the seconds it took."""
    started = time.perf_counter()
    board = Board("W:WK2,22,23,25,26,27,28,29,30,31,32:B1,4,5,6,7,8,12,13,14,15")
    legal_moves(board)
    perft(board, 2)
    evaluate(board)
    key(board)
    key_after(board, board.legal_moves[0])
    return time.perf_counter() - started
