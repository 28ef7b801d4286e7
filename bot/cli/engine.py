"""``kingme perft``, ``kingme moves`` and ``kingme show``: the rules engine from the shell."""

from __future__ import annotations

import argparse
import sys
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


GAME_OVER = 1
"""The exit status of ``kingme moves`` in a position where the game is over (there is no move to list)."""


def _moves(args: argparse.Namespace) -> int:
    """list every legal move of a position, one a line (exit status 1 if the game is over)"""
    board = board_from_args(args.fen, args.variant)
    outcome = board.outcome()
    if outcome is not None:
        print(f"kingme: the game is over in that position: {outcome.describe()}", file=sys.stderr)
        return GAME_OVER
    for move in board.legal_moves:
        print(move.text())
    return 0


def _show(args: argparse.Namespace) -> int:
    """print a position as a text board, empty dark squares showing their numbers"""
    board = board_from_args(args.fen, args.variant)
    print(numbered_board(board))
    outcome = board.outcome()
    side = board.turn.label
    print(f"{side} to move" if outcome is None else outcome.describe())
    return 0


def numbered_board(board: Board) -> str:
    """The board as text with its coordinates, Black at the top: ``b``/``w`` men, ``B``/``W`` kings, and each empty dark
    square showing its number, the numbers that move text such as ``11-15`` uses."""
    g = board.variant.geometry
    files = [" "] * g.size
    ranks = [" "] * g.size
    rows = []
    for row, cells in enumerate(board.rows()):
        drawn = []
        for col, (square, piece) in enumerate(cells):
            if square is None:
                drawn.append("  ")
                continue
            name = g.square_name(square)
            files[col], ranks[row] = name[0], name[1:]
            drawn.append(f" {piece.symbol()}" if piece else f"{square:2d}")
        rows.append(drawn)
    width = max(len(rank) for rank in ranks)
    lines = [f"{ranks[row]:>{width}} " + " ".join(cells).rstrip() for row, cells in enumerate(rows)]
    lines.append(" " * (width + 1) + " ".join(f" {file}" for file in files))
    return "\n".join(lines)
