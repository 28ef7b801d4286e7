"""``kingme endgame show NAME``: print one of the endgame trainer's endings, its value and its line of perfect play;
``kingme endgame prepare``: solve the six-piece database's tables for the trainer (Second Position).

    kingme endgame show NAME [--difficulty easy|medium|hard] [--seed S]
    kingme endgame prepare

``NAME`` is one of :data:`ai.endgames.ENDINGS`; ``--difficulty`` and ``--seed`` choose a ``random`` ending (and the seed
a ``hold_draw`` one). The line is the perfect play of both sides by the distances (``docs/endgames.md``): the quickest
win against the longest defence; in a draw, each side's best try (:func:`ai.endgames.best_moves`).

``prepare`` reads the largest database in the data folder (six pieces: built by ``kingme egdb build --pieces 6``, whole
or a part), solves every table it holds for the distances and writes them beside it, to be mapped by every process
(:func:`ai.endgames.prepare`). The three against three of Second Position took 525 s and 7.5 GB of memory here.
"""

from __future__ import annotations

import argparse
import random
from typing import TYPE_CHECKING

from bot.cli._command import CommandError, Commands, Parser
from bot.cli.engine import numbered_board

if TYPE_CHECKING:
    from core import Board

LINE_PLIES = 200
"""The most plies of a line printed (a drawn line would go on for ever)."""


def register(commands: Commands) -> None:
    from ai.endgames import DIFFICULTIES, ENDINGS

    endgame = commands.add("endgame", _endgame)
    actions = endgame.add_subparsers(metavar="ACTION", required=True, parser_class=Parser)
    show = actions.add_parser("show", help="print an ending of the endgame trainer: board, value, perfect line")
    show.set_defaults(handler=_show)
    show.add_argument("name", metavar="NAME", choices=ENDINGS, help=f"the ending: {', '.join(ENDINGS)}")
    show.add_argument("--difficulty", choices=DIFFICULTIES, default="medium", help="of a random ending")
    show.add_argument("--seed", type=int, default=0, help="chooses a random or hold_draw ending (default 0)")
    prepare = actions.add_parser("prepare", help="solve the six-piece database's tables for the trainer")
    prepare.set_defaults(handler=_prepare)


def _endgame(args: argparse.Namespace) -> int:
    """print an ending of the endgame trainer (kingme endgame show NAME)"""
    raise CommandError("give an action: show or prepare")  # argparse asks for one first


def _show(args: argparse.Namespace) -> int:
    """print an ending of the endgame trainer"""
    from ai import endgames
    from core import Board

    try:
        fen = endgames.setup(args.name, args.difficulty, args.seed)
    except endgames.NotAnEndingError as exc:
        raise CommandError(str(exc)) from None
    board = Board(fen)
    start = endgames.distance(board)
    if start is None:
        raise CommandError(f"{fen} is not in the trainer's tables")
    task = "win" if start.value == endgames.WIN else "draw"
    length = f" in {start.plies} plies ({(start.plies + 1) // 2} moves)" if start.plies is not None else ""
    print(f"{args.name}: {board.turn.label} to move and {task}{length}")
    print(f"fen: {fen}")
    print(numbered_board(board))
    print(f"line: {' '.join(_line(board))}")
    return 0


def _prepare(args: argparse.Namespace) -> int:
    """solve the six-piece database's tables for the trainer"""
    from ai import endgames

    try:
        done = endgames.prepare()
    except endgames.NotAnEndingError as exc:
        raise CommandError(str(exc)) from None
    print(f"prepared {done.positions:,} indexes in {done.seconds:.0f} s: {done.bytes / 1e6:,.0f} MB in {done.folder}")
    return 0


def _line(board: Board) -> list[str]:
    """Perfect play of both sides from ``board`` (which it plays on), up to :data:`LINE_PLIES` plies."""
    from ai import endgames

    line: list[str] = []
    rng = random.Random(0)
    while board.outcome() is None and len(line) < LINE_PLIES:
        move = board.legal_moves[endgames.best_moves(board, rng)[0]]
        line.append(move.text())
        board.push(move)
    return line
