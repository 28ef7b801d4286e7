"""Where the candidate positions come from: the engine's own self-play from the ACF ballots, and finished games.

Self-play (:func:`self_play`): the compiled kernel against itself from a ballot of the ACF deck, the databases
probed, each side held to a node budget drawn from :data:`SELF_PLAY_NODES` (so a game between a fast, shallow side and
a deeper one has the mistakes that make puzzles, and no two games are alike); a game stops at its end by the rules or
after :data:`MAX_PLIES` plies. Game ``i`` of seed ``s`` is always the same game: its ballot, budgets and the order of
equal moves come from a generator seeded with ``s`` and ``i``, and it starts with an empty table of its own size.

A game, from either source, is its start position and its moves (:data:`Game`); :func:`positions` lists the
positions a game passed through.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ai.ballots import acf_deck
from ai.player import Limits
from ai.puzzles.record import MINED_WITH_PATTERNS
from core import Board

Game = tuple[str, tuple[str, ...]]
"""A game: the FEN it started from and its moves in PDN text."""
SELF_PLAY_NODES = (500, 1_500, 5_000, 15_000, 50_000)
MAX_PLIES = 160
SELF_PLAY_TABLE = 1 << 17
TIME_BACKSTOP = 30.0


def self_play(index: int, seed: int) -> Game:
    """Self-play game number ``index`` of the build seeded ``seed``."""
    from ai.kernel import engine

    rng = random.Random(f"puzzles:{seed}:{index}")
    deck = acf_deck()
    order = list(range(len(deck)))
    random.Random(f"puzzles:{seed}").shuffle(order)
    ballot = deck[order[index % len(deck)]]
    budgets = (rng.choice(SELF_PLAY_NODES), rng.choice(SELF_PLAY_NODES))
    board = ballot.board()
    start = Board().fen()
    emptied = False  # the table is emptied by the game's first real search (a single legal move is not searched)
    for ply in range(MAX_PLIES):
        if board.is_game_over():
            break
        limits = Limits(time=TIME_BACKSTOP, nodes=budgets[ply % 2])
        found = engine.search(
            board,
            limits,
            rng,
            table_entries=SELF_PLAY_TABLE,
            endgames=True,
            fresh=not emptied,
            patterns=MINED_WITH_PATTERNS,
        )
        emptied = emptied or len(board.legal_moves) > 1
        board.push_text(found.move)
    return start, tuple(m.text() for m in board.move_stack)


def positions(game: Game, variant: str = "american") -> list[Board]:
    """The positions ``game`` passed through before each of its moves, each a board of its own with no history (a
    puzzle starts from its FEN alone); :class:`core.RulesError` if a move is illegal."""
    start, moves = game
    board = Board(start, variant)
    found = []
    for text in moves:
        found.append(board.copy(stack=False))
        board.push_text(text)
    return found


def games_of(records: Sequence[tuple[str, str, Sequence[str]]]) -> list[Game]:
    """The English-draughts games among ``(variant, start FEN, moves)`` records (finished games from the store)."""
    return [(fen, tuple(moves)) for variant, fen, moves in records if variant == "american"]
