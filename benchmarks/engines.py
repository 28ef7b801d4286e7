"""Sparring against a real checkers engine: a King Me level plays a CheckerBoard engine library from ACF ballots.

    python benchmarks/engines.py --engine /tmp/simplech/simplech.so --games 80 --times 0.1,1 --jobs 2
    python benchmarks/engines.py master --engine /tmp/simplech/simplech.so --games 4 --time 0.05 --pdn games.pdn
    python benchmarks/engines.py master@HEAD~1 --engine /tmp/simplech/simplech.so --games 20 --time 0.1

The engine is a shared library with the CheckerBoard engine API (``getmove``), given by path: King Me never ships
or vendors one. The peer it was written for is simplech 1.14 by Martin Fierz (2002), whose public source is
``cliche/simplech.c`` in the GitHub repository hungerburg/capers; build it with
``gcc -O2 -fPIC -shared -o simplech.so simplech.c``. The published file has one bug: in ``checkers()``, a position
with two or more captures falls into the branch for positions without captures (change its ``else`` to
``else if(numberofmoves==0)``); unpatched, it can answer such a position with a plain move, which this benchmark
reports as an illegal move, a forfeit. A stronger peer is GuiNN Checkers 2.06 by Jonathan Kreuzer (a small neural
network over its search, reported to reach Cake's level; CC BY-NC-SA, public source for Windows):
``benchmarks/guinn/build [OUT]`` fetches it and builds ``OUT/guinn.so`` for Linux, its nets, book and 4-piece
database beside it.

The level is any name of :func:`ai.api.levels` (or a hidden benchmark level such as ``python-master``), or
``LEVEL@REVISION``, a level of an earlier commit run from its own files (``benchmarks/revision_worker.py``). Each
ballot is played twice with the colours swapped, the level Black in the odd-numbered games. The engine runs in a
process of its own (it keeps global state and is not thread-safe), loaded with ctypes and spoken to in JSON lines;
each game process keeps one engine process for all its games. The engine sees the position only (the API has no
history; its first move of each game comes with ``CB_RESET_MOVES``, so that an engine that remembers the positions
it has seen, for repetitions, starts afresh); :mod:`core` keeps the game: every move the engine returns is
identified by matching its board against the result of each of ``core``'s legal moves, and a board that matches none
(or an engine that fails) loses the game for the engine, termination ``forfeit: ...``. Games end by ``core``'s rules
(no pieces, no moves, threefold repetition, the 40-move rule) or at the arena's ply cap (``ai.arena.MAX_PLIES``),
scored a draw. The report is the arena's: W/D/L from the level's side, score, and Elo difference with its 95%
interval (:func:`ai.arena.elo_estimate`), per time; then how the games ended, who crowned the first king and how
those games went, forfeits, and each side's time. Where a lost game began to go wrong is for
``benchmarks/judge.py``, the engine scoring its positions.

Both sides are given the same seconds a move, but they spend them differently: King Me's levels stop on the wall
clock, while simplech counts its process's CPU time (``clock()``) and starts a deeper iteration whenever it is still
under the time, so it often takes longer than asked. The report gives each side's mean and longest wall-clock
seconds a move (and the mean depth each reports), so that a result can be read with the time each side really took.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.api import Limits, Player, get_level, levels, merge_limits, warm_up
from ai.arena import ADJUDICATED, MAX_PLIES, GameRecord, MatchGame, MatchResult, deal_ballots
from ai.ballots import Ballot, openings
from benchmarks import master_patterns, python_master  # noqa: F401  (register their hidden levels)
from benchmarks._pipe import Pipe
from benchmarks.revision_worker import Client as RevisionClient
from benchmarks.revision_worker import checkout, split
from core import Board, Color, Move, Piece

VARIANT = "american"

# The CheckerBoard API's piece values; a square holds a colour or-ed with a kind, FREE when empty (0 on light squares).
WHITE, BLACK, MAN, KING, FREE = 1, 2, 4, 8, 16
CODES = {BLACK | MAN: Piece(Color.BLACK, False), BLACK | KING: Piece(Color.BLACK, True),
         WHITE | MAN: Piece(Color.WHITE, False), WHITE | KING: Piece(Color.WHITE, True)}  # fmt: skip
RESET_MOVES = 1
"""``getmove``'s ``info`` bit for the first move of a game."""
REPLY_SIZE = 1024
"""The size of ``getmove``'s status string and ``enginecommand``'s reply, as the API defines them."""
CBBoard = list[list[int]]
"""A CheckerBoard position ``b[x][y]``: ``y`` 0 is Black's back rank (PDN squares 1-4), ``x`` 0 its right end as
Black sees it (square 4)."""


def square_xy(square: int) -> tuple[int, int]:
    """The ``(x, y)`` of PDN square 1-32 in a CheckerBoard array: 1 is ``(6, 0)``, 4 is ``(0, 0)``, 32 ``(1, 7)``."""
    if not 1 <= square <= 32:
        raise ValueError(f"square {square} is not on the board: squares are 1 to 32")
    y, index = divmod(square - 1, 4)
    file = 2 * index + (1 if y % 2 == 0 else 0)  # counted from White's left, as core's columns are
    return 7 - file, y


SQUARE_OF_XY = {square_xy(n): n for n in range(1, 33)}


def code_of(piece: Piece | None) -> int:
    if piece is None:
        return FREE
    return (BLACK if piece.color is Color.BLACK else WHITE) | (KING if piece.king else MAN)


def to_cb(board: Board) -> CBBoard:
    """The position of an 8×8 board as a CheckerBoard array (empty dark squares ``FREE``, light squares 0)."""
    if board.variant.geometry.squares != 32:
        raise ValueError(f"a CheckerBoard engine plays on the 8×8 board, not {board.variant.name}")
    b = [[0] * 8 for _ in range(8)]
    for n in range(1, 33):
        x, y = square_xy(n)
        b[x][y] = code_of(board.piece_at(n))
    return b


def read_cb(b: Sequence[Sequence[int]]) -> tuple[Piece | None, ...]:
    """The piece on each PDN square 1-32 (index 0 is square 1) of a CheckerBoard array. An empty dark square may be
    ``FREE`` or 0 (an engine writes either); :class:`ValueError` for a wrong shape, an unknown value or a piece on a
    light square."""
    if len(b) != 8 or any(len(column) != 8 for column in b):
        raise ValueError("a CheckerBoard position is 8×8")
    pieces: list[Piece | None] = []
    for n in range(1, 33):
        x, y = square_xy(n)
        value = b[x][y]
        if value in (0, FREE):
            pieces.append(None)
        elif value in CODES:
            pieces.append(CODES[value])
        else:
            raise ValueError(f"unknown value {value} on square {n} (b[{x}][{y}])")
    for x in range(8):
        for y in range(8):
            if (x, y) not in SQUARE_OF_XY and b[x][y] not in (0, FREE):
                raise ValueError(f"value {b[x][y]} on the light square b[{x}][{y}]")
    return tuple(pieces)


def from_cb(b: Sequence[Sequence[int]], turn: Color) -> Board:
    """The board of a CheckerBoard array with ``turn`` to move (:class:`ValueError` as :func:`read_cb`)."""
    squares: dict[Color, list[str]] = {Color.BLACK: [], Color.WHITE: []}
    for n, piece in enumerate(read_cb(b), start=1):
        if piece is not None:
            squares[piece.color].append(("K" if piece.king else "") + str(n))
    side = "B" if turn is Color.BLACK else "W"
    return Board(f"{side}:W{','.join(squares[Color.WHITE])}:B{','.join(squares[Color.BLACK])}", VARIANT)


def pieces_of(board: Board) -> tuple[Piece | None, ...]:
    return tuple(board.piece_at(n) for n in range(1, 33))


def identify(board: Board, after: Sequence[Sequence[int]]) -> Move | None:
    """The legal move of ``board`` whose result is the CheckerBoard position ``after``, or None if no legal move's is.

    Matching whole positions checks the move's legality and tells multi-jumps apart (two paths that take the same
    pieces to the same square leave the same position: the first in ``core``'s order is taken). Raises
    :class:`ValueError` for an unreadable array (:func:`read_cb`).
    """
    target = read_cb(after)
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        if pieces_of(child) == target:
            return move
    return None


def describe_cb(b: Sequence[Sequence[int]], turn: Color) -> str:
    """The FEN of an engine's board (``turn`` to move), or its raw values when it cannot be read."""
    try:
        return from_cb(b, turn).fen()
    except ValueError as exc:
        return f"unreadable ({exc}): {json.dumps(b)}"


# -- the engine's process -----------------------------------------------------------------------------------------


def serve(library: str) -> None:  # pragma: no cover - needs an engine library
    """Load ``library`` with ctypes and answer JSON lines: ``{"command": "name"}`` with ``{"reply": ...}`` (the API's
    ``enginecommand``, "?" without one), ``{"board", "color", "time"}`` with ``{"board", "result", "status"}`` (the
    position after the engine's move, ``getmove``'s return value and its status line)."""
    import ctypes

    class Coor(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]

    class CBmove(ctypes.Structure):
        _fields_ = [
            ("jumps", ctypes.c_int),
            ("newpiece", ctypes.c_int),
            ("oldpiece", ctypes.c_int),
            ("from_", Coor),
            ("to", Coor),
            ("path", Coor * 12),
            ("del_", Coor * 12),
            ("delpiece", ctypes.c_int * 12),
        ]

    Array = (ctypes.c_int * 8) * 8
    engine = ctypes.CDLL(library)
    getmove = engine.getmove
    getmove.restype = ctypes.c_int
    getmove.argtypes = [
        ctypes.POINTER(ctypes.c_int * 8),
        ctypes.c_int,
        ctypes.c_double,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
        ctypes.c_int,
        ctypes.POINTER(CBmove),
    ]
    playnow = ctypes.c_int(0)
    for line in sys.stdin:
        request = json.loads(line)
        if "command" in request:
            reply = ctypes.create_string_buffer(REPLY_SIZE)
            text = "?"
            if hasattr(engine, "enginecommand"):
                command = ctypes.create_string_buffer(str(request["command"]).encode(), 256)
                engine.enginecommand(command, reply)
                text = reply.value.decode(errors="replace")
            print(json.dumps({"reply": text}), flush=True)
            continue
        b = Array()
        for x in range(8):
            for y in range(8):
                b[x][y] = int(request["board"][x][y])
        status = ctypes.create_string_buffer(REPLY_SIZE)
        move = CBmove()
        color = BLACK if request["color"] == "black" else WHITE
        info = int(request.get("info", 0))
        result = getmove(b, color, float(request["time"]), status, ctypes.byref(playnow), info, 0, ctypes.byref(move))
        after = [[b[x][y] for y in range(8)] for x in range(8)]
        reply_ = {"board": after, "result": result, "status": status.value.decode(errors="replace")}
        print(json.dumps(reply_), flush=True)


class Engine:
    """A CheckerBoard engine library in a process of its own."""

    def __init__(self, library: str) -> None:
        self.library = library
        self.pipe = Pipe([sys.executable, str(Path(__file__).resolve()), "--serve", library])

    def name(self) -> str:
        """The engine's name (``enginecommand("name")``), or the library's file name when it does not say."""
        reply = str(self.pipe.ask({"command": "name"})["reply"]).strip()
        return reply if reply and reply != "?" else Path(self.library).stem

    def move(self, board: Board, seconds: float, new_game: bool = False) -> dict[str, Any]:
        """The engine's reply to ``board``; ``new_game`` on its first move of a game (the API's ``CB_RESET_MOVES``:
        an engine that keeps the game's positions for repetitions starts afresh)."""
        color = "black" if board.turn is Color.BLACK else "white"
        info = RESET_MOVES if new_game else 0
        return self.pipe.ask({"board": to_cb(board), "color": color, "time": seconds, "info": info})

    def close(self) -> None:
        try:
            self.pipe.close(timeout=10)
        except Exception:
            self.pipe.process.kill()
            self.pipe.process.wait()


# One engine process (and one process per earlier revision) for every game a process plays: the pool's workers keep
# theirs until they exit (an engine process ends when its stdin closes).
_ENGINES: dict[str, Engine] = {}
_REVISIONS: dict[str, RevisionClient] = {}


def engine_for(library: str) -> Engine:
    if library not in _ENGINES:
        _ENGINES[library] = Engine(library)
    return _ENGINES[library]


def drop_engine(library: str) -> None:
    """Stop a failed engine process: the next game starts a fresh one."""
    engine = _ENGINES.pop(library, None)
    if engine is not None:
        engine.pipe.process.kill()
        engine.pipe.process.wait()


def close_all() -> None:
    for engine in _ENGINES.values():
        engine.close()
    _ENGINES.clear()
    for client in _REVISIONS.values():
        client.close()
    _REVISIONS.clear()


# -- games ------------------------------------------------------------------------------------------------------------

_DEPTH = re.compile(r"depth:?\s+(\d+)", re.IGNORECASE)
"""The depth in an engine's status line ("depth 13", "Depth: 16/36")."""


@dataclass(frozen=True)
class Played:
    """A finished game and what each side spent on its moves."""

    record: GameRecord
    level_seconds: tuple[float, ...]
    engine_seconds: tuple[float, ...]
    level_depths: tuple[int, ...]
    """Depths the level's searches completed (none for its book and forced moves, nor for an earlier revision)."""
    engine_depths: tuple[int, ...]
    """Depths the engine's status line reported (none for its forced moves)."""


def play(
    level: str,
    library: str,
    engine_name: str,
    level_color: Color,
    ballot: Ballot,
    seconds: float,
    seed: int,
) -> Played:
    """One game from ``ballot`` between ``level`` (``level_color``) and the engine, ``seconds`` a move each."""
    board = ballot.board(VARIANT)
    rng = random.Random(seed)
    revision = split(level)
    player: Player | None = None
    limits: Limits | None = None
    if revision is None:
        spec = get_level(level)
        player, limits = spec.factory(), merge_limits(spec, Limits(time=seconds))
    elif level not in _REVISIONS:
        _REVISIONS[level] = RevisionClient(revision[1])
    spent: dict[Color, list[float]] = {Color.BLACK: [], Color.WHITE: []}
    depths: dict[Color, list[int]] = {Color.BLACK: [], Color.WHITE: []}
    termination, result = ADJUDICATED, "1/2-1/2"
    while True:
        outcome = board.outcome()
        if outcome is not None:
            termination, result = outcome.termination.value, outcome.result()
            break
        if len(board.move_stack) >= MAX_PLIES:
            break
        side = board.turn
        lost = "0-1" if side is Color.BLACK else "1-0"
        start = time.perf_counter()
        if side is level_color:
            try:
                if player is not None and limits is not None:
                    choice = player.choose(board.copy(), limits, rng)
                    text, depth = choice.move, choice.depth
                else:
                    moves = [move.text() for move in board.move_stack]
                    assert revision is not None
                    text = _REVISIONS[level].choose(revision[0], moves, seconds, rng.randrange(1 << 30))
                    depth = 0
                move = board.parse_move(text)
            except Exception as exc:  # a broken level loses the game instead of stopping the match
                if (client := _REVISIONS.pop(level, None)) is not None:  # the next game starts a fresh worker
                    client.process.kill()
                    client.process.wait()
                termination, result = f"forfeit: {level} as {side.label}: {type(exc).__name__}: {exc}", lost
                break
            if depth > 0:  # 0: a book move, a forced move or a player that does not search
                depths[side].append(depth)
        else:
            try:
                reply = engine_for(library).move(board, seconds, new_game=not spent[side])
            except Exception as exc:
                drop_engine(library)
                termination = f"forfeit: {engine_name} as {side.label}: the engine failed: {type(exc).__name__}: {exc}"
                result = lost
                break
            try:
                found = identify(board, reply["board"])
            except ValueError:
                found = None
            if found is None:
                after = describe_cb(reply["board"], side.opponent)
                termination = (
                    f"forfeit: {engine_name} as {side.label}: illegal move: its board after the move, {after}, is"
                    f" the result of none of the {len(board.legal_moves)} legal moves of {board.fen()}"
                )
                result = lost
                break
            move = found
            if found_depth := _DEPTH.search(str(reply.get("status", ""))):
                depths[side].append(int(found_depth.group(1)))
        spent[side].append(time.perf_counter() - start)
        board.push(move)
    engine_color = level_color.opponent
    names = {level_color: level, engine_color: engine_name}
    record = GameRecord(
        black=names[Color.BLACK],
        white=names[Color.WHITE],
        variant=board.variant.name,
        initial_fen=board.initial_fen,
        moves=tuple(m.text() for m in board.move_stack),
        result=result,
        termination=termination,
        opening=ballot.name,
        opening_plies=len(ballot.moves),
    )
    return Played(
        record,
        tuple(spent[level_color]),
        tuple(spent[engine_color]),
        tuple(depths[level_color]),
        tuple(depths[engine_color]),
    )


def _start_worker() -> None:
    _ENGINES.clear()  # the parent's, if any: a worker starts its own
    _REVISIONS.clear()
    warm_up()  # the kernel compiled or loaded before the first move, not during it


# -- the match --------------------------------------------------------------------------------------------------------


def check_level(name: str) -> None:
    """Fail early on an unknown level or revision (extracting the revision's files once, before the games)."""
    revision = split(name)
    get_level(revision[0] if revision else name)
    if revision:
        checkout(revision[1])


def times_of(args: argparse.Namespace) -> list[float]:
    texts = [*args.time, *(part for text in args.times for part in text.split(",") if part.strip())]
    seconds = [float(text) for text in texts] or [0.1, 1.0]
    if not all(s > 0 and math.isfinite(s) for s in seconds):
        raise SystemExit("engines.py: every time must be a number of seconds above 0")
    return seconds


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def first_king(record: GameRecord) -> Color | None:
    """The side that crowned the game's first king (after its opening), or None when no man was crowned."""
    board = Board(record.initial_fen, record.variant)
    for text in record.moves:
        mover = board.turn
        before = (board.pieces(mover) & board.kings).bit_count()
        board.push_text(text)
        if (board.pieces(mover) & board.kings).bit_count() > before:  # a side gains a king only by crowning
            return mover
    return None


def crowning(result: MatchResult) -> str:
    """Who crowned first and how those games ended, from A's side: "A first 27 (+3 =16 -8), B first 53 (...)"."""
    groups: dict[str, list[MatchGame]] = {result.a: [], result.b: [], "": []}
    for game in result.games:
        first = first_king(game.record)
        groups["" if first is None else result.a if first is game.a_color else result.b].append(game)
    parts = []
    for label, games in groups.items():
        if not games and not label:
            continue
        wins, losses = sum(g.a_score == 1.0 for g in games), sum(g.a_score == 0.0 for g in games)
        what = f"{label} first" if label else "no king"
        parts.append(f"{what} {len(games)} (+{wins} ={len(games) - wins - losses} -{losses})")
    return ", ".join(parts)


def report(result: MatchResult, played: Sequence[Played]) -> None:
    n = len(result.games)
    print(f"W/D/L: {result.wins}/{result.draws}/{result.losses} ({result.a} against {result.b})")
    print(f"Score: {100 * result.score:.1f}% ({result.points:g}/{n})")
    print(f"Elo difference: {result.elo().describe()}")
    ends = ", ".join(f"{why} {count}" for why, count in result.terminations().most_common())
    print(f"Endings: {ends}")
    print(f"First king: {crowning(result)} (scores from {result.a}'s side)")
    forfeits = [g for g in result.games if g.record.termination.startswith("forfeit")]
    if forfeits:
        print(f"FORFEITS: {len(forfeits)}")
        for game in forfeits:
            print(f"  game {game.number}: {game.record.termination}")
    else:
        print("Forfeits: none (every engine move was one of core's legal moves)")
    for who, spent, depth in (
        (result.a, [s for p in played for s in p.level_seconds], [d for p in played for d in p.level_depths]),
        (result.b, [s for p in played for s in p.engine_seconds], [d for p in played for d in p.engine_depths]),
    ):
        deepest = f", depth {mean(depth):.1f} on average" if depth else ""
        most = max(spent, default=0.0)
        print(f"Moves by {who}: {len(spent)}, {mean(spent):.3f} s on average (longest {most:.2f} s){deepest}")


def match(
    level: str,
    library: str,
    engine_name: str,
    seconds: float,
    ballots: Sequence[Ballot],
    seed: int,
    pool: ProcessPoolExecutor | None,
) -> tuple[MatchResult, list[Played]]:
    """Two games a ballot at ``seconds`` a move, the level Black in the odd-numbered ones; each game is printed as it
    ends. ``pool`` plays them (None: this process, one after another)."""
    deals: dict[int, tuple[Color, Ballot, int]] = {}
    for number in range(1, 2 * len(ballots) + 1):
        color = Color.BLACK if number % 2 else Color.WHITE
        deals[number] = (color, ballots[(number - 1) // 2], seed * 1_000_003 + number)
    done: dict[int, Played] = {}

    def finished(number: int, game: Played) -> None:
        done[number] = game
        record = game.record
        mark = "  <-- FORFEIT" if record.termination.startswith("forfeit") else ""
        print(
            f"game {number}: {record.black} - {record.white} ({record.opening}: {deals[number][1].text()}) "
            f"{record.result}, {record.termination}, {len(record.moves)} plies{mark}",
            flush=True,
        )

    calls = {n: (level, library, engine_name, color, ballot, seconds, s) for n, (color, ballot, s) in deals.items()}
    if pool is None:
        for number, call in calls.items():
            finished(number, play(*call))
    else:
        futures = {pool.submit(play, *call): number for number, call in calls.items()}
        for future in as_completed(futures):
            finished(futures[future], future.result())
    games = tuple(MatchGame(n, deals[n][0], done[n].record) for n in sorted(done))
    return MatchResult(level, engine_name, VARIANT, games), [done[n] for n in sorted(done)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=(
            "a King Me level against a CheckerBoard engine library, from ACF ballots with the colours swapped. The "
            "engine is not part of King Me: simplech 1.14 (Martin Fierz) is cliche/simplech.c in the GitHub "
            "repository hungerburg/capers; build it with `gcc -O2 -fPIC -shared -o simplech.so simplech.c` after "
            "changing the `else` in checkers() (the branch for positions without captures) to "
            "`else if(numberofmoves==0)`, or it can answer a position with two or more captures with a plain move "
            "(reported as an illegal move, a forfeit)"
        ),
    )
    parser.add_argument(
        "level",
        nargs="?",
        default="master",
        help=f"a level ({', '.join(levels())}, python-master) or LEVEL@REVISION (default: master)",
    )
    parser.add_argument("--engine", required=True, metavar="PATH", help="the engine library, e.g. simplech.so")
    parser.add_argument("--time", type=float, action="append", default=[], help="seconds a move (repeatable)")
    parser.add_argument("--times", action="append", default=[], help="seconds a move, comma-separated (default: 0.1,1)")
    parser.add_argument("--games", type=int, default=20, help="games a time control (even: ballots come in pairs)")
    parser.add_argument("--jobs", type=int, default=1, help="games at once (each game's two players take turns)")
    parser.add_argument("--seed", type=int, default=0, help="shuffles the ballots (the same for every time)")
    parser.add_argument("--pdn", metavar="FILE", help="write every game as PDN")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be an even number of 2 or more (games come in pairs), not {args.games}")
    if args.jobs < 1:
        parser.error("--jobs must be 1 or more")
    library = str(Path(args.engine).resolve())
    if not Path(library).is_file():
        parser.error(f"no engine library at {args.engine}")
    seconds = times_of(args)
    check_level(args.level)
    asked = Engine(library)  # closed before the pool forks, so that no worker holds its pipe
    try:
        engine_name = asked.name()
    finally:
        asked.close()
    pdn_file = open(args.pdn, "w", encoding="utf-8") if args.pdn else None  # noqa: SIM115 (a bad path fails first)
    ballots = deal_ballots(VARIANT, args.games // 2, args.seed)
    summary: list[tuple[float, MatchResult]] = []
    pool = ProcessPoolExecutor(max_workers=args.jobs, initializer=_start_worker) if args.jobs > 1 else None
    try:
        if pool is None:
            warm_up()
        for limit in seconds:
            print(
                f"{args.level} vs {engine_name} ({library}): {args.games} games of {VARIANT}, {limit:g} s a move "
                f"each, ballots from a deck of {len(openings(VARIANT))}",
                flush=True,
            )
            result, played = match(args.level, library, engine_name, limit, ballots, args.seed, pool)
            report(result, played)
            print(flush=True)
            summary.append((limit, result))
            if pdn_file is not None:
                event = f"King Me {args.level} vs {engine_name}, {limit:g} s a move"
                for game in result.games:
                    pdn_file.write(game.record.pdn({"Event": event, "Round": str(game.number)}) + "\n")
                pdn_file.flush()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        close_all()
        if pdn_file is not None:
            pdn_file.close()
    if len(summary) > 1:
        print(f"{args.level} against {engine_name}, {args.games} games a time control:")
        for limit, result in summary:
            print(
                f"  {limit:g} s a move: +{result.wins} ={result.draws} -{result.losses}, {100 * result.score:.1f}%, "
                f"Elo {result.elo().describe()}"
            )
    if args.pdn:
        print(f"PDN: {sum(len(r.games) for _, r in summary)} games written to {args.pdn}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        main()
