"""Does ``master`` win its won endings? Random won positions of up to 5 pieces, played out by ``master`` on both sides.

    python -m benchmarks.endgames --positions 20 --time 0.2 --seed 1

A position is drawn at random (kings and men, either side to move, no capture pending) until the shipped 5-piece
database says the side to move wins; ``master`` then plays both sides under the game's rules (the 40-move rule and
repetition included). The report counts the wins it converts and how many plies they took.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.api import Limits, get_level
from ai.egdb import WIN, Array, loaded
from ai.kernel.egdb import probe
from core import Board, Color


def won_position(rng: random.Random, db: Array) -> Board:
    """A random position of 3 to 5 pieces that the side to move wins and where it has no capture."""
    while True:
        squares = rng.sample(range(1, 33), rng.randint(3, 5))
        cut = rng.randint(1, len(squares) - 1)

        def items(own: list[int], crown: range) -> str:
            return ",".join(f"K{n}" if n in crown or rng.random() < 0.5 else str(n) for n in own)

        board = Board(f"{rng.choice('BW')}:W{items(squares[cut:], range(1, 5))}:B{items(squares[:cut], range(29, 33))}")
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        quiet = board.outcome() is None and not any(m.captures for m in board.legal_moves)
        if quiet and probe(me, opp, board.kings, black, db) == WIN:
            return board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--time", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    db = loaded()
    if db is None:
        raise SystemExit("no endgame database")
    rng = random.Random(args.seed)
    level = get_level("master")
    player = level.factory()
    converted: list[int] = []
    for n in range(args.positions):
        board = won_position(rng, db)
        start, winner = board.fen(), board.turn
        while board.outcome() is None:
            board.push_text(player.choose(board, Limits(time=args.time), rng).move)
        outcome = board.outcome()
        won = outcome is not None and outcome.winner is winner
        if won:
            converted.append(len(board.move_stack))
        ending = "won" if won else outcome.describe() if outcome is not None else "?"
        print(f"{n + 1:3} {start}: {ending} in {len(board.move_stack)} plies", flush=True)
    mean = sum(converted) / len(converted) if converted else 0.0
    print(f"converted {len(converted)}/{args.positions}, mean {mean:.1f} plies, longest {max(converted, default=0)}")


if __name__ == "__main__":
    main()
