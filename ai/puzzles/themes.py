"""What a puzzle is about (its themes) and how hard it is (its initial rating), from its position and solution.

Themes (:data:`ai.puzzles.record.THEMES`), read off the solution replayed with ``core``:

- ``shot``: the solver falls behind in material during the line and ends it ahead (material given, more taken
  back);
- ``breakthrough``: a man of the solver's crowns in the line;
- ``endgame``: six pieces or fewer on the board, or a puzzle the databases prove;
- ``defence``: the solution keeps a draw, not a win;
- ``capture`` / ``quiet``: the first move captures (chosen among other moves) or takes nothing.

The classic named endings (First and Second Position and the like) are not told apart here: that is for the endgame
trainer, which sets them up on purpose.

The rating is a first guess on the Glicko-2 scale (deviation 350, so a few attempts move it a long way): the depth
from which the kernel's fixed-depth search settles on the first move (:func:`discovery_depth`, the deeper the
harder), plus the decisions the line asks for beyond the first, a quiet first move and a defensive task, each making
it harder (:func:`rating`).
"""

from __future__ import annotations

from ai.puzzles.judge import SEED, VERIFY_TABLE
from ai.puzzles.record import MINED_WITH_PATTERNS, THEMES
from ai.review import reproducible_search
from core import Board

ENDGAME_PIECES = 6
DISCOVERY_DEPTH = 12
"""The deepest fixed-depth search :func:`discovery_depth` tries."""
DISCOVERY_NODES = 200_000
"""A backstop on each of those searches (a few positions take that long at depth 12)."""
RATING_MIN, RATING_MAX = 600, 2400
GLICKO_DEVIATION = 350
"""The rating deviation a new puzzle starts with (Glicko-2's default for the unknown)."""


def themes(start: Board, solution: tuple[str, ...], result: str, exact: bool) -> tuple[str, ...]:
    """The themes of the puzzle ``start`` (the solver to move) with ``solution``, in :data:`THEMES` order."""
    board = start.copy(stack=False)
    solver = board.turn
    found: set[str] = set()
    balance = 0
    gave = False
    for text in solution:
        mover = board.turn
        was_man = False
        move = board.parse_move(text)
        if move.path:
            piece = board.piece_at(move.start)
            was_man = piece is not None and not piece.king
        board.push(move)
        balance += len(move.captures) if mover is solver else -len(move.captures)
        gave = gave or balance < 0
        after = board.piece_at(move.end) if move.path else None
        if mover is solver and was_man and after is not None and after.king:
            found.add("breakthrough")
    if gave and balance > 0:
        found.add("shot")
    if exact or start.count(solver) + start.count(solver.opponent) <= ENDGAME_PIECES:
        found.add("endgame")
    if result == "draw":
        found.add("defence")
    found.add("capture" if start.parse_move(solution[0]).is_capture else "quiet")
    return tuple(t for t in THEMES if t in found)


def decisions(start: Board, solution: tuple[str, ...]) -> int:
    """How many of the solver's moves were chosen among others (a forced capture is not a decision)."""
    board = start.copy(stack=False)
    count = 0
    for ply, text in enumerate(solution):
        if ply % 2 == 0 and len(board.legal_moves) > 1:
            count += 1
        board.push_text(text)
    return count


def discovery_depth(board: Board, move: str) -> int:
    """The least depth from which the kernel's fixed-depth searches of ``board`` play ``move`` at every depth up to
    :data:`DISCOVERY_DEPTH` (one more than that if the deepest does not)."""
    found = DISCOVERY_DEPTH + 1
    for depth in range(DISCOVERY_DEPTH, 0, -1):
        chosen = reproducible_search(
            board,
            SEED,
            depth=depth,
            nodes=DISCOVERY_NODES,
            endgames=True,
            table_entries=VERIFY_TABLE,
            patterns=MINED_WITH_PATTERNS,
        )
        if chosen.move != move:
            break
        found = depth
    return found


def rating(depth: int, decided: int, quiet: bool, defence: bool) -> int:
    """The initial rating of a puzzle first found at ``depth`` that asks ``decided`` decisions: 500 plus 100 a ply of
    depth, 150 a decision beyond the first, 100 for a quiet first move and 100 for a defence; rounded to ten, held to
    :data:`RATING_MIN`..:data:`RATING_MAX`."""
    raw = 500 + 100 * depth + 150 * max(0, decided - 1) + 100 * quiet + 100 * defence
    return max(RATING_MIN, min(RATING_MAX, round(raw, -1)))
