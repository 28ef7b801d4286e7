"""Move generation on raw bitboards.

This module is the engine's hot path. It works on plain integers (the side to move's pieces, the opponent's pieces and
the kings of both) and produces *raw moves*: tuples ``(frm, to, captured, path)`` of single-bit masks, where
``captured`` is the mask of the pieces taken and ``path`` is ``None`` for a step or the tuple of landing squares for a
capture. :class:`core.board.Board` turns raw moves into :class:`core.move.Move` values; perft and the search use them
directly.

Quiet moves of all men of a side are generated at once with one shift and one mask per direction, and
:meth:`MoveGenerator.count` counts them without generating them (bulk counting).
"""

from __future__ import annotations

from collections.abc import Callable

from core.geometry import Geometry

RawMove = tuple[int, int, int, tuple[int, ...] | None]
"""``(frm, to, captured, path)``: single-bit masks; ``path`` is the landing squares of a capture, else ``None``."""


class MoveGenerator:
    """Legal move generation for one board shape and one set of movement rules."""

    __slots__ = (
        "_black_count",
        "_white_count",
        "black_crown",
        "black_jumps",
        "geometry",
        "king_jumps",
        "kings_allowed",
        "long",
        "multi_jump",
        "short",
        "valid",
        "white_crown",
        "white_jumps",
    )

    def __init__(self, geometry: Geometry, *, kings: bool, multi_jump: bool) -> None:
        self.geometry = geometry
        self.kings_allowed = kings
        self.multi_jump = multi_jump
        self.short = geometry.short
        self.long = geometry.long
        self.valid = geometry.valid
        # Black's men crown on White's home row and the other way round; with no kings nothing crowns.
        self.black_crown = geometry.white_home if kings else 0
        self.white_crown = geometry.black_home if kings else 0
        self.black_jumps = _jump_table(geometry, (self.short, self.long))
        self.white_jumps = _jump_table(geometry, (-self.short, -self.long))
        self.king_jumps = _jump_table(geometry, (self.short, self.long, -self.short, -self.long))
        self._black_count = _make_counter(self, black=True)
        self._white_count = _make_counter(self, black=False)

    # -- captures ---------------------------------------------------------------------------------------------------

    def has_capture(self, me: int, opp: int, kings: int, black: bool) -> bool:
        """Whether the side owning ``me`` has a capture."""
        s, l = self.short, self.long
        empty = self.valid & ~(me | opp)
        if black:
            men = me & ~kings
            if ((((men << s) & opp) << s) | (((men << l) & opp) << l)) & empty:
                return True
            back = me & kings
            if back and ((((back >> s) & opp) >> s) | (((back >> l) & opp) >> l)) & empty:
                return True
            return bool(back and ((back << s & opp) << s | (back << l & opp) << l) & empty)
        men = me & ~kings
        if ((((men >> s) & opp) >> s) | (((men >> l) & opp) >> l)) & empty:
            return True
        back = me & kings
        if back and ((((back << s) & opp) << s) | (((back << l) & opp) << l)) & empty:
            return True
        return bool(back and ((back >> s & opp) >> s | (back >> l & opp) >> l) & empty)

    def captures(self, me: int, opp: int, kings: int, black: bool) -> list[RawMove]:
        """Every capture of the side owning ``me``, one per (start, end, captured set)."""
        empty = self.valid & ~(me | opp)
        man_table = self.black_jumps if black else self.white_jumps
        king_table = self.king_jumps
        crown = self.black_crown if black else self.white_crown
        multi = self.multi_jump
        out: list[RawMove] = []
        sources = self._jumpers(me, opp, kings, black, empty)
        while sources:
            frm = sources & -sources
            sources ^= frm
            king = frm & kings
            table = king_table if king else man_table
            free = empty | frm
            found_here: list[RawMove] = []
            stack: list[tuple[int, int, tuple[int, ...]]] = [(frm, 0, ())]
            while stack:
                pos, captured, path = stack.pop()
                found = False
                for mid, land in table[pos]:
                    if mid & opp and not mid & captured and land & free:
                        found = True
                        if multi and (king or not land & crown):
                            stack.append((land, captured | mid, (*path, land)))
                        else:
                            found_here.append((frm, land, captured | mid, (*path, land)))
                if not found and captured:
                    found_here.append((frm, pos, captured, path))
            if king and len(found_here) > 1:
                # A king can take the same pieces in a different order: one move per (end, captured set).
                unique: dict[tuple[int, int], RawMove] = {}
                for move in found_here:
                    unique.setdefault((move[1], move[2]), move)
                found_here = list(unique.values())
            out.extend(found_here)
        return out

    def count_captures(self, me: int, opp: int, kings: int, black: bool) -> int:
        """The number of captures, like ``len(captures(...))`` but without building the paths."""
        empty = self.valid & ~(me | opp)
        man_table = self.black_jumps if black else self.white_jumps
        king_table = self.king_jumps
        crown = self.black_crown if black else self.white_crown
        multi = self.multi_jump
        n = 0
        sources = self._jumpers(me, opp, kings, black, empty)
        while sources:
            frm = sources & -sources
            sources ^= frm
            free = empty | frm
            if frm & kings:
                ends: set[tuple[int, int]] = set()
                kstack = [(frm, 0)]
                while kstack:
                    pos, captured = kstack.pop()
                    found = False
                    for mid, land in king_table[pos]:
                        if mid & opp and not mid & captured and land & free:
                            found = True
                            if multi:
                                kstack.append((land, captured | mid))
                            else:
                                ends.add((land, captured | mid))
                    if not found and captured:
                        ends.add((pos, captured))
                n += len(ends)
                continue
            stack = [(frm, 0)]
            while stack:
                pos, captured = stack.pop()
                found = False
                for mid, land in man_table[pos]:
                    if mid & opp and not mid & captured and land & free:
                        found = True
                        if multi and not land & crown:
                            stack.append((land, captured | mid))
                        else:
                            n += 1
                if not found and captured:
                    n += 1
        return n

    def _jumpers(self, me: int, opp: int, kings: int, black: bool, empty: int) -> int:
        """The pieces of the side owning ``me`` that have at least one jump."""
        s, l = self.short, self.long
        s2, l2 = 2 * s, 2 * l
        men = me & ~kings
        back = me & kings
        if black:
            forward, backward = men | back, back
        else:
            forward, backward = back, men | back
        result = 0
        if forward:
            result |= ((((forward << s) & opp) << s) & empty) >> s2 | ((((forward << l) & opp) << l) & empty) >> l2
        if backward:
            result |= ((((backward >> s) & opp) >> s) & empty) << s2 | ((((backward >> l) & opp) >> l) & empty) << l2
        return result

    # -- quiet moves ------------------------------------------------------------------------------------------------

    def quiet_moves(self, me: int, opp: int, kings: int, black: bool) -> list[RawMove]:
        """Every non-capturing step of the side owning ``me`` (call only when it has no capture)."""
        s, l = self.short, self.long
        empty = self.valid & ~(me | opp)
        men = me & ~kings
        back = me & kings
        out: list[RawMove] = []
        append = out.append
        if black:
            groups = ((men | back, s), (men | back, l), (back, -s), (back, -l))
        else:
            groups = ((men | back, -s), (men | back, -l), (back, s), (back, l))
        for movers, d in groups:
            if not movers:
                continue
            if d > 0:
                targets = (movers << d) & empty
                while targets:
                    to = targets & -targets
                    targets ^= to
                    append((to >> d, to, 0, None))
            else:
                targets = (movers >> -d) & empty
                while targets:
                    to = targets & -targets
                    targets ^= to
                    append((to << -d, to, 0, None))
        return out

    def moves(self, me: int, opp: int, kings: int, black: bool) -> list[RawMove]:
        """Every legal move: the captures if there are any (capturing is compulsory), else the steps."""
        if self.has_capture(me, opp, kings, black):
            return self.captures(me, opp, kings, black)
        return self.quiet_moves(me, opp, kings, black)

    def count(self, me: int, opp: int, kings: int, black: bool) -> int:
        """The number of legal moves (no pass), counting steps with popcounts instead of generating them."""
        return self.counter(black)(me, opp, kings)

    def counter(self, black: bool) -> Callable[[int, int, int], int]:
        """The bulk counter for one side: ``count(me, opp, kings)``, built once per generator and side."""
        return self._black_count if black else self._white_count

    def apply(self, me: int, opp: int, kings: int, black: bool, move: RawMove) -> tuple[int, int, int]:
        """The bitboards ``(me, opp, kings)`` after ``move``; the caller swaps sides."""
        frm, to, captured, _ = move
        me = (me ^ frm) | to
        if kings & frm:
            kings = ((kings ^ frm) | to) & ~captured
        else:
            kings = (kings & ~captured) | (to & (self.black_crown if black else self.white_crown))
        return me, opp & ~captured, kings


def _make_counter(gen: MoveGenerator, *, black: bool) -> Callable[[int, int, int], int]:
    """A closure that counts one side's legal moves with its constants bound, for the hot path of perft and search.

    The two sides mirror each other: "forward" is a left shift for Black and a right shift for White.
    """
    s, l, valid = gen.short, gen.long, gen.valid
    captures = gen.count_captures

    if black:

        def count_black(me: int, opp: int, kings: int) -> int:
            empty = valid & ~(me | opp)
            men = me & ~kings
            if ((((men << s) & opp) << s) | (((men << l) & opp) << l)) & empty:
                return captures(me, opp, kings, True)
            back = me & kings
            if back:
                if (
                    (((back >> s) & opp) >> s)
                    | (((back >> l) & opp) >> l)
                    | (((back << s) & opp) << s)
                    | (((back << l) & opp) << l)
                ) & empty:
                    return captures(me, opp, kings, True)
                return (
                    ((me << s) & empty).bit_count()
                    + ((me << l) & empty).bit_count()
                    + ((back >> s) & empty).bit_count()
                    + ((back >> l) & empty).bit_count()
                )
            return ((me << s) & empty).bit_count() + ((me << l) & empty).bit_count()

        return count_black

    def count_white(me: int, opp: int, kings: int) -> int:
        empty = valid & ~(me | opp)
        men = me & ~kings
        if ((((men >> s) & opp) >> s) | (((men >> l) & opp) >> l)) & empty:
            return captures(me, opp, kings, False)
        back = me & kings
        if back:
            if (
                (((back << s) & opp) << s)
                | (((back << l) & opp) << l)
                | (((back >> s) & opp) >> s)
                | (((back >> l) & opp) >> l)
            ) & empty:
                return captures(me, opp, kings, False)
            return (
                ((me >> s) & empty).bit_count()
                + ((me >> l) & empty).bit_count()
                + ((back << s) & empty).bit_count()
                + ((back << l) & empty).bit_count()
            )
        return ((me >> s) & empty).bit_count() + ((me >> l) & empty).bit_count()

    return count_white


def _jump_table(geometry: Geometry, directions: tuple[int, ...]) -> dict[int, tuple[tuple[int, int], ...]]:
    """For each square (as a single-bit mask), the ``(jumped, landing)`` masks of its jumps in ``directions``."""
    valid = geometry.valid
    table: dict[int, tuple[tuple[int, int], ...]] = {}
    for mask in geometry.square_of_bit:
        jumps = []
        for d in directions:
            mid = mask << d if d > 0 else mask >> -d
            land = mid << d if d > 0 else mid >> -d
            if mid & valid and land & valid:
                jumps.append((mid, land))
        table[mask] = tuple(jumps)
    return table
