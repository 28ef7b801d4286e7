"""King Me's rules engine: English draughts and two house variants on integer bitboards.

Pure, synchronous, standard library only. The main entry point is :class:`Board`.
"""

from core.board import Board, Piece
from core.errors import (
    MESSAGES,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveTextError,
    InvalidPdnError,
    InvalidSquareError,
    RulesError,
    UnknownVariantError,
)
from core.move import PASS, Move
from core.outcome import Color, Outcome, Termination
from core.pdn import PdnGame, game_to_pdn, read_pdn
from core.perft import divide, perft
from core.variants import AMERICAN, CAPTURE_ALL, MINI, VARIANTS, BlockedRule, Variant, get_variant

__all__ = [
    "AMERICAN",
    "CAPTURE_ALL",
    "MESSAGES",
    "MINI",
    "PASS",
    "VARIANTS",
    "AmbiguousMoveError",
    "BlockedRule",
    "Board",
    "Color",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveTextError",
    "InvalidPdnError",
    "InvalidSquareError",
    "Move",
    "Outcome",
    "PdnGame",
    "Piece",
    "RulesError",
    "Termination",
    "UnknownVariantError",
    "Variant",
    "divide",
    "game_to_pdn",
    "get_variant",
    "perft",
    "read_pdn",
]
