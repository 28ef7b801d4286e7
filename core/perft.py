"""Perft: the number of move sequences of a given length, the standard proof of a move generator.

The last ply is bulk-counted (:meth:`core.movegen.MoveGenerator.counter`), so leaves are never generated one by one.
Where the variant passes, a blocked side with pieces whose opponent can move has one move, the pass; draw rules are
not applied (perft counts moves, not games).
"""

from __future__ import annotations

from core.board import Board
from core.movegen import MoveGenerator
from core.outcome import Color


def perft(board: Board, depth: int) -> int:
    """The number of leaf positions ``depth`` plies below ``board``."""
    if depth < 0:
        raise ValueError("depth must be 0 or more")
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    gen = board.variant.generator
    if board.variant.passes:
        return _perft_passing(gen, me, opp, board.kings, black, depth)
    return _perft(gen, me, opp, board.kings, black, depth)


def divide(board: Board, depth: int) -> list[tuple[str, int]]:
    """The perft count under each legal first move, as ``(move text, count)`` pairs."""
    if depth < 1:
        raise ValueError("divide needs a depth of 1 or more")
    result = []
    for move in board.legal_moves:
        board.push(move)
        result.append((move.text(), perft(board, depth - 1)))
        board.pop()
    return result


def _perft(gen: MoveGenerator, me: int, opp: int, kings: int, black: bool, depth: int) -> int:
    """Perft where a blocked side loses (no passing): the fast path."""
    if depth <= 1:
        return gen.counter(black)(me, opp, kings) if depth == 1 else 1
    moves = gen.moves(me, opp, kings, black)
    crown = gen.black_crown if black else gen.white_crown
    total = 0
    if depth == 2:
        count = gen.counter(not black)
        for frm, to, captured, _ in moves:
            if kings & frm:
                total += count(opp & ~captured, (me ^ frm) | to, ((kings ^ frm) | to) & ~captured)
            else:
                total += count(opp & ~captured, (me ^ frm) | to, (kings & ~captured) | (to & crown))
        return total
    nxt = not black
    for frm, to, captured, _ in moves:
        if kings & frm:
            k = ((kings ^ frm) | to) & ~captured
        else:
            k = (kings & ~captured) | (to & crown)
        total += _perft(gen, opp & ~captured, (me ^ frm) | to, k, nxt, depth - 1)
    return total


def _perft_passing(gen: MoveGenerator, me: int, opp: int, kings: int, black: bool, depth: int) -> int:
    """Perft where a blocked side with pieces passes while its opponent can move."""
    if depth == 0:
        return 1
    moves = gen.moves(me, opp, kings, black)
    if not moves:
        if me and opp and gen.count(opp, me, kings, not black):
            return _perft_passing(gen, opp, me, kings, not black, depth - 1)
        return 0
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        new_me, new_opp, k = gen.apply(me, opp, kings, black, move)
        total += _perft_passing(gen, new_opp, new_me, k, not black, depth - 1)
    return total
