"""Random positions of every variant for the kernel's equality tests: from random play and from random placements.

Placements are dense enough that many have captures, multi-jumps and kings that can take the same pieces in two
orders; in the passing variants some leave a side blocked. Every position is a legal ``core.Board``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from core import VARIANTS, Board, Variant


def played(variant: Variant, rng: random.Random, count: int) -> Iterator[Board]:
    """Positions met in random games from the start (a copy of each, with the game's history)."""
    made = 0
    while made < count:
        board = Board(variant=variant)
        while made < count and board.outcome() is None:
            board.push(rng.choice(board.legal_moves))
            if rng.random() < 0.3:
                yield board.copy()
                made += 1


def placed(variant: Variant, rng: random.Random, count: int) -> Iterator[Board]:
    """Random placements: up to a full side each, kings likely where the variant has them."""
    g = variant.geometry
    most = g.start_rows * g.per_row
    for _ in range(count):
        squares = rng.sample(range(1, g.squares + 1), rng.randint(2, 2 * most))
        cut = rng.randint(1, len(squares) - 1)
        sides = {"B": squares[:cut][:most], "W": squares[cut:][:most]}
        items = {}
        for side, own in sides.items():
            crown = g.white_home if side == "B" else g.black_home
            king_odds = rng.choice((0.0, 0.3, 0.8)) if variant.kings else 0.0
            items[side] = ",".join(
                f"K{n}" if variant.kings and (g.bit_of_square[n] & crown or rng.random() < king_odds) else str(n)
                for n in own
            )
        yield Board(f"{rng.choice('BW')}:W{items['W']}:B{items['B']}", variant)


def sample(seed: int, per_variant: int) -> list[Board]:
    """``per_variant`` positions of each variant, half played and half placed."""
    rng = random.Random(seed)
    boards: list[Board] = []
    for variant in VARIANTS.values():
        boards.extend(played(variant, rng, per_variant // 2))
        boards.extend(placed(variant, rng, per_variant - per_variant // 2))
    return boards
