"""An independent, deliberately naive move generator used as a referee for the bitboard engine.

It works on (row, column) coordinates with a dictionary board and knows nothing of bitboards, shifts or ghost bits,
so a bug in the engine's layout cannot hide in both. It follows docs/rules.md: compulsory capture, any capture
sequence may be chosen, men forward only, kings both ways (one square), crowning ends the move, captured pieces stay
on the board until the move ends, one move per (start, end, captured set). Mini: single forward jumps, no kings.
"""

from __future__ import annotations

Coord = tuple[int, int]


def square_to_coord(n: int, size: int) -> Coord:
    per_row = size // 2
    row, index = divmod(n - 1, per_row)
    col = 2 * index + (1 if row % 2 == 0 else 0)
    return row, col


def coord_to_square(row: int, col: int, size: int) -> int:
    return row * (size // 2) + col // 2 + 1


def parse_fen(fen: str, size: int) -> tuple[str, dict[Coord, str]]:
    """('B' or 'W', {coord: 'b' | 'w' | 'B' | 'W'}) — lowercase men, uppercase kings."""
    side, *lists = fen.split(":")
    pieces: dict[Coord, str] = {}
    for part in lists:
        colour = part[0]
        for item in filter(None, part[1:].split(",")):
            king = item.startswith("K")
            n = int(item.lstrip("K"))
            pieces[square_to_coord(n, size)] = colour.upper() if king else colour.lower()
    return side, pieces


def legal_moves(fen: str, size: int, *, kings: bool, multi_jump: bool) -> set[tuple[int, int, frozenset[int]]]:
    """Every legal move as (start square, end square, captured squares)."""
    side, pieces = parse_fen(fen, size)
    me = side.lower()
    forward = 1 if me == "b" else -1  # Black moves down the rows (towards higher square numbers)
    crown_row = size - 1 if me == "b" else 0

    def inside(r: int, c: int) -> bool:
        return 0 <= r < size and 0 <= c < size

    def dirs(piece: str) -> list[Coord]:
        if piece.isupper():
            return [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        return [(forward, 1), (forward, -1)]

    captures: set[tuple[int, int, frozenset[int]]] = set()
    steps: set[tuple[int, int, frozenset[int]]] = set()
    for (r, c), piece in pieces.items():
        if piece.lower() != me:
            continue
        start = coord_to_square(r, c, size)
        board = dict(pieces)
        del board[(r, c)]

        def search(
            pr: int,
            pc: int,
            taken: frozenset[Coord],
            piece: str = piece,
            start: int = start,
            board: dict[Coord, str] = board,
        ) -> None:
            extended = False
            for dr, dc in dirs(piece):
                mr, mc, lr, lc = pr + dr, pc + dc, pr + 2 * dr, pc + 2 * dc
                if not inside(lr, lc):
                    continue
                victim = board.get((mr, mc))
                if victim is None or victim.lower() == me or (mr, mc) in taken or (lr, lc) in board:
                    continue
                extended = True
                now = taken | {(mr, mc)}
                crowned = piece.islower() and kings and lr == crown_row
                if multi_jump and not crowned:
                    search(lr, lc, now)
                else:
                    captures.add(
                        (start, coord_to_square(lr, lc, size), frozenset(coord_to_square(*x, size) for x in now))
                    )
            if not extended and taken:
                captures.add(
                    (start, coord_to_square(pr, pc, size), frozenset(coord_to_square(*x, size) for x in taken))
                )

        search(r, c, frozenset())
        for dr, dc in dirs(piece):
            nr, nc = r + dr, c + dc
            if inside(nr, nc) and (nr, nc) not in pieces:
                steps.add((start, coord_to_square(nr, nc, size), frozenset()))
    return captures if captures else steps
