"""``kingme perft``, ``kingme moves`` and ``kingme show``: the rules engine from the shell."""

from __future__ import annotations

import argparse
import time

from bot.cli._command import CommandError, Commands, add_variant_option
from core import Board, divide, get_variant, perft


def register(commands: Commands) -> None:
    p = commands.add("perft", _perft)
    p.add_argument("depth", type=int, help="plies (0 or more)")
    p.add_argument("--fen", help="start position (default: the variant's start)")
    add_variant_option(p)
    p.add_argument("--divide", action="store_true", help="show the count under each first move")
    p.add_argument("--time", action="store_true", help="also print the time taken and leaves per second")
    for name, handler in (("moves", _moves), ("show", _show)):
        p = commands.add(name, handler)
        add_position_argument(p)
        add_variant_option(p)


def add_position_argument(parser: argparse.ArgumentParser) -> None:
    """The position a command works on, as a FEN argument."""
    parser.add_argument("fen", help="position, e.g. B:W21,22:B1,2 (or 'start')")


def board_from_args(fen: str | None, variant: str) -> Board:
    """The board for a ``--fen``/``--variant`` pair; ``start`` or no FEN is the variant's start position."""
    v = get_variant(variant)
    return Board(None if fen in (None, "", "start") else fen, v)


def _perft(args: argparse.Namespace) -> int:
    """count the move sequences of DEPTH plies (move generator check)"""
    if args.depth < 0 or args.depth > 30:
        raise CommandError("depth must be between 0 and 30")
    board = board_from_args(args.fen, args.variant)
    started = time.perf_counter()
    if args.divide:
        if args.depth < 1:
            raise CommandError("--divide needs a depth of 1 or more")
        rows = divide(board, args.depth)
        for text, count in rows:
            print(f"{text}: {count}")
        total = sum(count for _, count in rows)
        print(f"total: {total}")
    else:
        total = perft(board, args.depth)
        print(total)
    if args.time:
        elapsed = time.perf_counter() - started
        rate = total / elapsed if elapsed > 0 else float("inf")
        print(f"time: {elapsed:.2f} s, {rate:,.0f} leaves/s")
    return 0


def _moves(args: argparse.Namespace) -> int:
    """list every legal move of a position, one a line"""
    board = board_from_args(args.fen, args.variant)
    for move in board.legal_moves:
        print(move.text())
    return 0


def _show(args: argparse.Namespace) -> int:
    """print a position as a text board"""
    board = board_from_args(args.fen, args.variant)
    print(board.ascii())
    outcome = board.outcome()
    side = board.turn.label
    print(f"{side} to move" if outcome is None else outcome.describe())
    return 0
