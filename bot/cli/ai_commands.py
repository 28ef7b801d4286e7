"""``kingme levels``, ``kingme arena`` and ``kingme bestmove``: the AI levels from the shell."""

from __future__ import annotations

import argparse
import os
import sys

from tqdm import tqdm

from ai.api import GameInput, Limits, SearchResult, choose_move, get_level, levels, measured, warm_up
from ai.arena import MAX_PLIES, MatchGame, run_match
from ai.ballots import openings
from bot.cli._command import CommandError, Commands, add_variant_option
from bot.cli.engine import board_from_args
from core import Board, RulesError, get_variant
from core.pdn import read_pdn


def _default_jobs() -> int:
    return max(1, (os.cpu_count() or 2) // 2)


def register(commands: Commands) -> None:
    commands.add("levels", _levels)
    named = f"weakest to strongest: {', '.join(levels())}"
    p = commands.add("arena", _arena)
    p.add_argument("a", metavar="A", help=f"level A ({named}; the results are from its side)")
    p.add_argument("b", metavar="B", help="level B")
    p.add_argument("--games", type=int, default=20, help="number of games, even (default 20)")
    _add_limits(p, "each level's own")
    add_variant_option(p)
    p.add_argument("--jobs", type=int, default=_default_jobs(), help="worker processes (default: half the CPUs)")
    p.add_argument("--weights-a", metavar="FILE", help="level A (a learning level) plays the weights in FILE")
    p.add_argument("--weights-b", metavar="FILE", help="level B (a learning level) plays the weights in FILE")
    p.add_argument("--pdn", metavar="FILE", help="write every game to FILE as PDN")
    p.add_argument("--seed", type=int, default=0, help="shuffles the ballots and seeds the levels (default 0)")
    p.add_argument(
        "--max-plies",
        type=int,
        default=MAX_PLIES,
        help=f"adjudicate a draw after this many plies (default {MAX_PLIES})",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = commands.add("bestmove", _bestmove)
    p.add_argument("fen", nargs="?", default="start", help="position, e.g. B:W21,22:B1,2 (default: 'start')")
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--game",
        metavar="PDN",
        help="the position at the end of the (first) game in this PDN file ('-' for stdin), its moves the history "
        "that tells repetitions",
    )
    source.add_argument(
        "--stdin",
        action="store_true",
        help="answer many positions in one process: each line read is the moves played since FEN, and the level's "
        "state (the search's table and history) is kept between lines, as in a game",
    )
    p.add_argument("--level", required=True, help=f"AI level ({named})")
    p.add_argument("--weights", metavar="FILE", help="a learning level plays the weights in FILE (kingme train's)")
    _add_limits(p, "the level's own")
    add_variant_option(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the level's random choices (default 0)")
    p.add_argument(
        "--info",
        action="store_true",
        help="then print one line: source S (search, book or solved) depth D nodes N nps N score S pv MOVES",
    )


def _add_limits(parser: argparse.ArgumentParser, whose: str) -> None:
    """``--time`` and ``--depth``, whose defaults are ``whose`` limits."""
    parser.add_argument("--time", type=float, help=f"seconds a move (default: {whose} limit)")
    parser.add_argument("--depth", type=int, help=f"search depth in plies (default: {whose})")


def _limits(args: argparse.Namespace) -> Limits | None:
    if args.time is not None and not args.time > 0:
        raise CommandError("--time must be a number of seconds above 0")
    if args.depth is not None and args.depth < 1:
        raise CommandError("--depth must be 1 or more")
    if args.time is None and args.depth is None:
        return None
    return Limits(time=args.time, depth=args.depth)


def _levels(args: argparse.Namespace) -> int:
    """list the AI levels, weakest to strongest, with their strength and what they play like

    The strength is an Elo-style rating fitted to our own round robin of the levels (easy = 1000), shipped in
    ai/data/levels.json; `python -m benchmarks.strength` measures it again.
    """
    width = max(map(len, levels()))
    for name, level in levels().items():
        print(f"{name:<{width}}  {level.rating if level.rating is not None else '—':>4}  {level.summary}")
    found = measured()
    if found is None:
        print("(no strength measured: ai/data/levels.json is missing)")
        return 0
    per_move = f"{found.time_per_move:g} s a move" if found.time_per_move else "each level's own time"
    print(
        f"\nElo from a round robin of the levels, {found.anchor} = {found.anchor_rating}: "
        f"{found.games_per_pair} games a pair, {per_move}, {found.variant}, {found.date}\n"
        f"measured by: {found.command}"
    )
    return 0


def _arena(args: argparse.Namespace) -> int:
    """play a match between two AI levels from opening ballots and estimate the Elo difference

    Levels A and B play pairs of games from the same ballot with the colours swapped (American and capture-all: the
    ACF 156-opening 3-move deck; mini: every 2-ply opening). A game still going after --max-plies plies is scored a
    draw. Results are from A's side.
    """
    if args.games < 2 or args.games % 2:
        raise CommandError(f"--games must be an even number of 2 or more (games come in pairs), not {args.games}")
    if args.jobs < 1:
        raise CommandError("--jobs must be 1 or more")
    if args.max_plies < 1:
        raise CommandError("--max-plies must be 1 or more")
    limits = _limits(args)
    variant = get_variant(args.variant).name
    a, b = _level_name(args.a, args.weights_a), _level_name(args.b, args.weights_b)
    pdn_file = None
    if args.pdn:
        try:
            pdn_file = open(args.pdn, "w", encoding="utf-8")  # noqa: SIM115 (opened now, so a bad path fails first)
        except OSError as exc:
            raise CommandError(f"cannot write {args.pdn}: {exc.strerror}") from None
    try:
        deck = len(openings(variant))
        per_move = "each level's own limits" if limits is None else _describe_limits(limits)
        print(f"{a} vs {b}: {args.games} games of {variant}, {per_move}, ballots from a deck of {deck}")
        score = {"W": 0, "D": 0, "L": 0}
        with tqdm(total=args.games, desc="arena", unit="game", file=sys.stderr, disable=args.quiet) as bar:

            def on_game(game: MatchGame) -> None:
                score["W" if game.a_score == 1 else "D" if game.a_score == 0.5 else "L"] += 1
                bar.set_postfix_str(f"W/D/L {score['W']}/{score['D']}/{score['L']}", refresh=False)
                bar.update(1)

            try:
                result = run_match(
                    a,
                    b,
                    args.games,
                    limits,
                    variant,
                    jobs=args.jobs,
                    seed=args.seed,
                    on_game=on_game,
                    max_plies=args.max_plies,
                )
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        n = len(result.games)
        print(f"W/D/L: {result.wins}/{result.draws}/{result.losses} ({a} against {b})")
        print(f"Score: {100 * result.score:.1f}% ({result.points:g}/{n})")
        print(f"Elo difference: {result.elo().describe()}")
        ends = ", ".join(f"{why} {count}" for why, count in result.terminations().most_common())
        print(f"Endings: {ends}")
        if pdn_file is not None:
            pdn_file.write(result.pdn())
            print(f"PDN: {n} games written to {args.pdn}")
    finally:
        if pdn_file is not None:
            pdn_file.close()
    return 0


def _level_name(level: str, weights: str | None) -> str:
    """The registry's name of ``level``, playing the weights file ``weights`` if given (``lms@FILE``)."""
    return get_level(level if weights is None else f"{level}@{weights}").name


def _describe_limits(limits: Limits) -> str:
    parts = []
    if limits.time is not None:
        parts.append(f"{limits.time:g} s a move")
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    return ", ".join(parts)


def _bestmove(args: argparse.Namespace) -> int:
    """print the move an AI level chooses in a position (or in each of many, with --stdin)"""
    limits = _limits(args)
    level = _level_name(args.level, args.weights)
    if args.info or args.stdin:
        warm_up()  # load the kernel first, as a worker does, so that the line's nodes a second are the search's
    if args.stdin:
        return _bestmove_lines(args, level, limits)
    board = _game_board(args.game) if args.game else board_from_args(args.fen, args.variant)
    _answer(board, level, limits, args)
    return 0


def _game_board(path: str) -> Board:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()  # noqa: SIM115
        return read_pdn(text)[0].board
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    except RulesError as exc:
        raise CommandError(str(exc)) from None


def _answer(board: Board, level: str, limits: Limits | None, args: argparse.Namespace) -> None:
    outcome = board.outcome()
    if outcome is not None:
        raise CommandError(f"the game is over in that position ({outcome.describe()})")
    result = choose_move(level, GameInput.from_board(board), limits, seed=args.seed)
    print(result.move, flush=not args.info)
    if args.info:
        print(_info(result), flush=True)


def _bestmove_lines(args: argparse.Namespace, level: str, limits: Limits | None) -> int:
    """``--stdin``: one answer a line until the input ends; a line that is not a game so far gets ``error ...``."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            board = board_from_args(args.fen, args.variant)
            for token in line.split():
                if not token.rstrip(".").isdigit():
                    board.push_text(token)
            _answer(board, level, limits, args)
        except (RulesError, CommandError) as exc:
            print(f"error {exc}", flush=True)
    return 0


def _info(result: SearchResult) -> str:
    """What the player did, in one line for scripts: ``source S depth D nodes N nps N score S pv MOVES``, where the
    source says whether the move was searched (``search``), read from the opening book (``book``: no depth, no nodes)
    or from the mini solver (``solved``)."""
    nps = round(result.nodes / result.time) if result.time > 0 else 0
    search = f"depth {result.depth} nodes {result.nodes} nps {nps} score {result.score:g}"
    return f"source {result.source} {search} pv {' '.join(result.pv)}"
