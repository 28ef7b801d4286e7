"""The rule sets King Me plays, each a small rules object over the shared bitboard machinery.

- ``american``: English draughts (American checkers), the WCDF/ACF rules.
- ``capture-all``: English draughts where a game is won only by taking every enemy piece; a side with no move passes,
  and the game is drawn when neither side can move (the house rule of the Ragusa program, docs/ai.md).
- ``mini``: 6×6 mini checkers (the Mini-Checkers program, docs/ai.md): men only, forward moves and single forward
  jumps, compulsory capture, a side with no move passes; when neither side can move the side with more pieces wins.

All three use both draw rules: the third repetition of a position with the same side to move, and 80 plies (40 moves
by each side) with no capture and no man moved.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from core.errors import UnknownVariantError
from core.geometry import EIGHT, SIX, Geometry
from core.movegen import MoveGenerator


class BlockedRule(enum.Enum):
    """What happens to a side that has pieces but no legal move."""

    LOSES = "loses"
    """It loses (English draughts)."""
    PASSES_DRAW = "passes-draw"
    """It passes; if neither side can move the game is drawn (capture-all)."""
    PASSES_COUNT = "passes-count"
    """It passes; if neither side can move the side with more pieces wins (mini)."""


@dataclass(frozen=True)
class Variant:
    """One rule set."""

    name: str
    title: str
    geometry: Geometry
    kings: bool
    multi_jump: bool
    blocked: BlockedRule
    move_limit: int = 80
    """Plies without a capture or a man moving after which the game is drawn."""
    repetitions: int = 3
    """How often the same position with the same side to move ends the game as a draw."""
    generator: MoveGenerator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "generator", MoveGenerator(self.geometry, kings=self.kings, multi_jump=self.multi_jump)
        )

    @property
    def passes(self) -> bool:
        """Whether a side with no legal move passes instead of losing."""
        return self.blocked is not BlockedRule.LOSES

    @property
    def start_fen(self) -> str:
        """The FEN of the starting position."""
        g = self.geometry
        per_side = g.start_rows * g.per_row
        black = ",".join(str(n) for n in range(1, per_side + 1))
        white = ",".join(str(n) for n in range(g.squares - per_side + 1, g.squares + 1))
        return f"B:W{white}:B{black}"


AMERICAN = Variant("american", "English draughts", EIGHT, kings=True, multi_jump=True, blocked=BlockedRule.LOSES)
CAPTURE_ALL = Variant(
    "capture-all", "Capture-all checkers", EIGHT, kings=True, multi_jump=True, blocked=BlockedRule.PASSES_DRAW
)
MINI = Variant("mini", "Mini checkers (6×6)", SIX, kings=False, multi_jump=False, blocked=BlockedRule.PASSES_COUNT)

VARIANTS: dict[str, Variant] = {v.name: v for v in (AMERICAN, CAPTURE_ALL, MINI)}
DEFAULT_VARIANT = AMERICAN


def get_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (``american``, ``capture-all`` or ``mini``)."""
    if isinstance(name, Variant):
        return name
    key = name.strip().lower().replace("_", "-")
    aliases = {"english": "american", "checkers": "american", "captureall": "capture-all", "6x6": "mini"}
    key = aliases.get(key, key)
    try:
        return VARIANTS[key]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(
            "unknown variant {name}: choose one of {known}", name=repr(name), known=known
        ) from None
