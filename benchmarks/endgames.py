"""Does ``master`` win its won endings? Random won positions, played out by ``master`` on both sides.

    python -m benchmarks.endgames --positions 20 --time 0.2 --seed 1
    python -m benchmarks.endgames --kings 4 3 --positions 20 --time 0.2 --seed 1
    python -m benchmarks.endgames --kings 4 3 --men 1 1 --positions 20 --time 0.2 --seed 1
    python -m benchmarks.endgames --fen "B:WK1,K2,K6,K8,11:B5,K27,K31,K32" --positions 4 --time 0.2

By default a position of up to 5 pieces is drawn at random (kings and men, either side to move, no capture pending)
until the shipped 5-piece database says the side to move wins. With ``--kings A B`` it is A kings against B (fewer)
kings, and with ``--men A B`` A men against B men besides, beyond the database, the stronger side to move and no
capture pending: a king up is mostly a win in such endings, but the conversion (forcing an exchange) lies beyond the
search's horizon and needs a plan. With ``--fen`` (once or more) the positions given are played, each
``--positions`` times, the side with more pieces the stronger. ``master`` then plays both sides under the game's rules
(the 40-move rule and repetition included). The report counts the wins the stronger side converts and how many plies
they took.
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


def kings_position(rng: random.Random, strong: int, weak: int, men: tuple[int, int] = (0, 0)) -> Board:
    """A random position of ``strong`` kings against ``weak`` kings, and ``men`` men each (off the rows where they
    would crown or be stuck), the stronger side to move, no capture pending."""
    while True:
        squares = rng.sample(range(1, 33), strong + weak)
        black = rng.random() < 0.5
        free = [n for n in range(5, 29) if n not in squares]
        placed = rng.sample(free, men[0] + men[1])
        mine = ",".join([f"K{n}" for n in squares[:strong]] + [str(n) for n in placed[: men[0]]])
        theirs = ",".join([f"K{n}" for n in squares[strong:]] + [str(n) for n in placed[men[0] :]])
        fen = f"B:W{theirs}:B{mine}" if black else f"W:W{mine}:B{theirs}"
        board = Board(fen)
        if board.outcome() is None and not any(m.captures for m in board.legal_moves):
            return board


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--time", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kings", type=int, nargs=2, metavar=("A", "B"), help="A kings against B kings instead")
    parser.add_argument("--men", type=int, nargs=2, default=(0, 0), metavar=("A", "B"), help="and A men against B")
    parser.add_argument("--fen", action="append", default=[], help="play this position (--positions times each)")
    args = parser.parse_args(argv)
    db = loaded()
    if db is None:
        raise SystemExit("no endgame database")
    if args.kings and not args.kings[0] > args.kings[1] > 0:
        raise SystemExit("--kings A B: A more kings than B, B at least 1")
    rng = random.Random(args.seed)
    play_rng = random.Random(args.seed + 1)  # apart from the positions' draw, so runs of two versions share positions
    level = get_level("master")
    player = level.factory()
    converted: list[int] = []
    games = args.positions * max(len(args.fen), 1)
    for n in range(games):
        if args.fen:
            board = Board(args.fen[n // args.positions])
        elif args.kings:
            strong, weak = args.kings
            board = kings_position(rng, strong, weak, men=(args.men[0], args.men[1]))
        else:
            board = won_position(rng, db)
        start, winner = board.fen(), board.turn
        if args.fen and board.black.bit_count() != board.white.bit_count():
            winner = Color.BLACK if board.black.bit_count() > board.white.bit_count() else Color.WHITE
        while board.outcome() is None:
            board.push_text(player.choose(board, Limits(time=args.time), play_rng).move)
        outcome = board.outcome()
        won = outcome is not None and outcome.winner is winner
        if won:
            converted.append(len(board.move_stack))
        ending = "won" if won else outcome.describe() if outcome is not None else "?"
        print(f"{n + 1:3} {start}: {ending} in {len(board.move_stack)} plies", flush=True)
    mean = sum(converted) / len(converted) if converted else 0.0
    print(f"converted {len(converted)}/{games}, mean {mean:.1f} plies, longest {max(converted, default=0)}")


if __name__ == "__main__":
    main()
