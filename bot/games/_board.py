"""A game's board as a Discord message, built in one place: :func:`board_message` turns a :class:`GameView` into the
text that mentions who is to move, the board embed and the components under it. Posting a board, updating it after a
click and refreshing it after an AI move all send what this builds.

Everything here is a pure function of the view and the language (no I/O); :func:`text_board` is the plain-text form
for screen readers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.games._components import GameButton, MoveSelect, PieceSelect, view_of
from bot.games._messages import MENTIONS
from bot.games._respond import MessageFields
from bot.games._theme import ACTIVE_COLOUR, FINISHED_COLOUR, UNICODE, Theme
from bot.i18n import ENGLISH, Language
from bot.service import GameKind, GameState, GameView, UserId, end_text, replayed, side_name
from core import Board, Color, Move, get_variant


@dataclass(frozen=True)
class BoardMessage:
    """The board of ``game_view`` as a message; ``components`` is None once the game is over."""

    game_view: GameView
    content: str
    embed: discord.Embed
    components: discord.ui.View | None

    def fields(self) -> MessageFields:
        """The keyword arguments that send this message or edit a message into it (an edit with no components
        removes the old ones)."""
        return {"content": self.content, "embed": self.embed, "view": self.components, "allowed_mentions": MENTIONS}

    def copy_fields(self) -> MessageFields:
        """The board as a copy shown outside the game's channel: no controls and no pings."""
        return {"content": self.content, "embed": self.embed, "allowed_mentions": discord.AllowedMentions.none()}


def board_message(
    view: GameView,
    selected: int | None = None,
    theme: Theme = UNICODE,
    lang: Language = ENGLISH,
    *,
    bottom: Color | None = None,
) -> BoardMessage:
    """The board of ``view`` drawn in ``theme``, its words in ``lang``; ``selected`` is the square of the piece whose
    moves the move menu lists (marked on the board); ``bottom`` the side drawn at the bottom (by default
    :func:`bottom_side`)."""
    embed = board_embed(
        view, theme, lang, bottom=bottom if bottom is not None else bottom_side(view.game), selected=selected
    )
    return BoardMessage(view, board_content(view, lang), embed, board_controls(view, selected, lang))


def bottom_side(game: GameState, viewer: str | None = None) -> Color:
    """The side drawn at the bottom: the ``viewer``'s when they play the game, else in a game against the AI its
    player's (the board is theirs), else White's (Black at the top, as the squares are numbered)."""
    color = game.color_of(UserId(viewer)) if viewer is not None else None
    if color is None and game.kind is GameKind.AI and game.humans():
        color = game.color_of(game.humans()[0].id)
    return color if color is not None else Color.WHITE


# -- squares and moves ---------------------------------------------------------------------------------------------


def square_name(variant: str, square: int) -> str:
    """The algebraic name of a PDN square (``11`` is ``f6`` on the 8×8 board, files from the left, rank 1 at the
    bottom, Black at the top)."""
    return get_variant(variant).geometry.square_name(square)


def algebraic(variant: str, move: str) -> str:
    """PDN move text in algebraic notation: ``11-15`` is ``f6-e5``, ``15x24`` is ``e5xc3`` (``pass`` stays)."""
    return re.sub(r"\d+", lambda number: square_name(variant, int(number[0])), move)


def move_start(text: str) -> int | None:
    """The square a move text starts from (None for ``pass``)."""
    head = text.replace("x", "-").split("-", 1)[0]
    return int(head) if head.isdigit() else None


def movable_squares(view: GameView) -> list[int]:
    """The squares holding a piece that can move, in board order."""
    return sorted({s for s in (move_start(m) for m in view.legal_moves) if s is not None})


def moves_from(view: GameView, square: int) -> list[str]:
    return [m for m in view.legal_moves if move_start(m) == square]


def _move_description(variant: str, move: str, lang: Language) -> str:
    squares = [int(s) for s in move.replace("x", "-").split("-") if s.isdigit()]
    path = " → ".join(square_name(variant, s) for s in squares)
    takes = move.count("x")
    return (lang._("{path} · takes {count}", path=path, count=takes) if takes else path)[:100]


def piece_options(
    variant: str, squares: Sequence[int], moves_of: Callable[[int], Sequence[str]], side: Color, selected: int | None
) -> list[discord.SelectOption]:
    """The piece menu's options: each movable piece (at most 25) with its square's name and its moves."""
    piece = UNICODE.side(side)  # menus draw no custom emoji in the sandbox's and some clients' lists
    return [
        discord.SelectOption(
            label=f"{s} ({square_name(variant, s)})",
            value=str(s),
            emoji=piece,
            description=", ".join(moves_of(s))[:100],
            default=s == selected,
        )
        for s in squares[:25]
    ]


def move_options(variant: str, moves: Sequence[str], lang: Language) -> list[discord.SelectOption]:
    """The move menu's options: a chosen piece's moves (at most 25), each with its path in algebraic squares."""
    return [
        discord.SelectOption(label=m[:100], value=m[:100], description=_move_description(variant, m, lang))
        for m in moves[:25]
    ]


RECENT_PLIES = 6
"""Moves of both sides shown on the board message (the Moves button lists them all)."""


def numbered_moves(game: GameState, *, algebraic_too: bool = False) -> list[str]:
    """The game's moves numbered as PDN numbers them (``12. 11-15 22-18``, a game White starts as ``1... 22-18``),
    one entry per full move; with ``algebraic_too`` each move followed by its algebraic form."""
    white_first = game.initial_fen[:1].upper() == "W"
    plies = [f"{m} ({algebraic(game.variant, m)})" if algebraic_too else m for m in game.moves]
    if white_first:
        plies = ["…", *plies]
    return [f"{i // 2 + 1}. {' '.join(plies[i : i + 2])}" for i in range(0, len(plies), 2)]


def recent_moves(game: GameState, plies: int = RECENT_PLIES) -> str:
    """The last ``plies`` moves of both sides, numbered (``… 11. 9-14 23-19 12. 5-9``)."""
    entries = numbered_moves(game)
    shown: list[str] = []
    count = 0
    for entry in reversed(entries):
        shown.insert(0, entry)
        count += len(entry.split(" ")) - 1
        if count >= plies:
            break
    return ("… " if len(shown) < len(entries) else "") + " ".join(shown)


def _last_move(board: Board) -> tuple[Move, Color] | None:
    """The last move that was not a pass, and who played it."""
    stack = board.move_stack
    first = replayed(board.initial_fen, board.variant.name, ()).turn
    for index in range(len(stack) - 1, -1, -1):
        if not stack[index].is_pass:
            return stack[index], first if index % 2 == 0 else first.opponent
    return None


def _captured(game: GameState, board: Board) -> tuple[int, int]:
    """How many pieces Black and White have taken."""
    start = replayed(game.initial_fen, game.variant, ())  # kept: read, never changed
    took_black = start.count(Color.WHITE) - board.count(Color.WHITE)
    took_white = start.count(Color.BLACK) - board.count(Color.BLACK)
    return took_black, took_white


# -- the board -----------------------------------------------------------------------------------------------------


def board_grid(
    board: Board, last: Move | None, theme: Theme = UNICODE, *, flipped: bool = False, selected: int | None = None
) -> str:
    """The board as rows of emoji, Black at the top (White at the top when ``flipped``: the board seen from Black's
    side), ranks on the left and files below (at most 10 per row).

    The last move is marked on the squares its piece left or passed (``s``), the squares it took (``x``) and the square
    it ended on; a theme that cannot mark a piece's cell points at that square's row and column instead. The piece on
    ``selected`` (chosen in the menu) is marked as the last move's end is, in the themes that mark a piece's cell."""
    g = board.variant.geometry
    path = last.path if last is not None else ()
    passed = set(path[:-1])
    taken = set(last.captures) if last is not None else set()
    end = path[-1] if path else None
    marked = selected if selected is not None and theme.marks_end_square else end
    order = range(g.size - 1, -1, -1) if flipped else range(g.size)
    lines = []
    for row in order:
        cells = [theme.rank(g.size - row)]
        for col in order:
            square = g.square_at(row, col)
            piece = board.piece_at(square) if square is not None else None
            if square is None:
                cells.append(theme.light())
            elif piece is not None:
                cells.append(theme.piece(piece.color, piece.king, moved=square == marked))
            else:
                cells.append(theme.empty(square, "x" if square in taken else "s" if square in passed else ""))
        if end is not None and not theme.marks_end_square and g.row_of_square[end] == row:
            cells.append(theme.row_marker)
        lines.append(theme.separator.join(cells))
    files = [theme.file(col) for col in range(g.size)]
    if end is not None and not theme.marks_end_square:
        files[g.col_of_square[end]] = theme.column_marker
    if flipped:
        files.reverse()
    lines.append(theme.separator.join([theme.corner(), *files]))
    return "\n".join(lines)


def status_line(view: GameView, theme: Theme = UNICODE, lang: Language = ENGLISH) -> str:
    game = view.game
    if not game.is_active:
        return f"🏁 **{lang.say(end_text(game)) or lang._('Game over')}** ({game.result})"
    mover = view.to_move
    if mover.is_ai:
        return lang._("{side} **{name}** is thinking… 🤔", side=theme.side(view.turn), name=mover.name)
    line = lang._(
        "{side} {mention} to move ({colour}) · time runs out {deadline}",
        side=theme.side(view.turn),
        mention=f"<@{mover.id}>",
        colour=side_name(view.turn),
        deadline=f"<t:{int(game.deadline)}:R>",
    )
    lines = [line]
    if game.draw_offer:
        offerer = game.player(Color.BLACK if game.draw_offer == "black" else Color.WHITE)
        lines.append(lang._("🤝 {name} offers a draw", name=offerer.name))
    if game.takeback_offer:
        asker = game.player(Color.BLACK if game.takeback_offer == "black" else Color.WHITE)
        lines.append(lang._("↩️ {name} asks to take a move back", name=asker.name))
    return "\n".join(lines)


def board_embed(
    view: GameView,
    theme: Theme = UNICODE,
    lang: Language = ENGLISH,
    *,
    bottom: Color = Color.WHITE,
    selected: int | None = None,
) -> discord.Embed:
    """The board, its status and legend as an embed. The board is the embed's description because it does not fit a
    message's text (see :class:`TileTheme`); the title is plain text, where Discord draws no custom emoji."""
    game = view.game
    board = game.board()
    g = board.variant.geometry
    if not theme.fits(g.size, g.squares):
        theme = UNICODE
    last = _last_move(board)
    title = lang._(
        "{black} vs {white}",
        black=f"{UNICODE.black_man} {game.black.name}",
        white=f"{UNICODE.white_man} {game.white.name}",
    )
    flipped = bottom is Color.BLACK
    grid = board_grid(board, last[0] if last else None, theme, flipped=flipped, selected=selected)
    description = f"{grid}\n\n{status_line(view, theme, lang)}"
    embed = discord.Embed(
        title=title[:256],
        description=description,
        colour=ACTIVE_COLOUR if game.is_active else FINISHED_COLOUR,
    )
    if last is not None:
        move, mover = last
        shown = f"{theme.side(mover)} {move.text()} ({board.algebraic(move)})"
        embed.add_field(name=lang._("Last move"), value=shown, inline=True)
        embed.add_field(name=lang._("Moves"), value=recent_moves(game)[:1024], inline=True)
    took_black, took_white = _captured(game, board)
    captured = lang._(
        "{black} took {black_took} · {white} took {white_took}",
        black=theme.side(Color.BLACK),
        black_took=took_black,
        white=theme.side(Color.WHITE),
        white_took=took_white,
    )
    embed.add_field(name=lang._("Captured"), value=captured, inline=True)
    if theme.shows_numbers and flipped:
        numbering = lang._(
            "Squares 1–{count}, right to left from the bottom: empty dark squares show theirs", count=g.squares
        )
    elif theme.shows_numbers:
        numbering = lang._(
            "Squares 1–{count}, left to right from the top: empty dark squares show theirs", count=g.squares
        )
    elif flipped:
        numbering = lang._(
            "Squares 1–{count}, right to left from the bottom (you play from Black's side): 1 is {square}",
            count=g.squares,
            square=square_name(game.variant, 1),
        )
    else:
        numbering = lang._(
            "Squares 1–{count}, left to right from the top: 1 is {square}",
            count=g.squares,
            square=square_name(game.variant, 1),
        )
    legend = theme.legend(lang, kings=get_variant(game.variant).kings)
    embed.add_field(name=lang._("Legend"), value=f"{legend}\n{numbering}", inline=False)
    details = {
        "variant": lang.data("variant", get_variant(game.variant).title),
        "game": game.id,
        "move": len(game.moves) // 2 + 1,
    }
    if game.rated:
        footer = lang._("{variant} · rated · game {game} · move {move}", **details)
    else:
        footer = lang._("{variant} · unrated · game {game} · move {move}", **details)
    embed.set_footer(text=footer)
    return embed


def board_content(view: GameView, lang: Language = ENGLISH) -> str:
    """The text above the board: it mentions the person to move."""
    game = view.game
    if not game.is_active:
        return lang._("Game over.")
    if view.to_move.is_ai:
        return lang._("{name} is thinking…", name=view.to_move.name)
    return lang._("{mention}, your move.", mention=f"<@{view.to_move.id}>")


def board_controls(view: GameView, selected: int | None = None, lang: Language = ENGLISH) -> discord.ui.View | None:
    """The components under a board: piece select, the chosen piece's moves, and the game buttons."""
    game = view.game
    if not game.is_active:
        return None
    items: list[discord.ui.Item[Any]] = []
    squares = movable_squares(view) if not view.to_move.is_ai else []
    if squares:
        options = piece_options(game.variant, squares, lambda s: moves_from(view, s), view.turn, selected)
        items.append(PieceSelect(game.id, game.version, options, lang))
    if selected is not None and selected in squares:
        options = move_options(game.variant, moves_from(view, selected), lang)
        items.append(MoveSelect(game.id, game.version, selected, options, lang))
    actions = []
    if game.draw_offer:
        actions += ["drawyes", "drawno"]
    if game.takeback_offer:
        actions += ["tbyes", "tbno"]
    if game.kind is not GameKind.EXHIBITION:
        if game.kind is GameKind.HUMAN and not game.draw_offer:
            actions.append("draw")
        actions.append("resign")
    for extra in ("side", "moves") if game.kind is GameKind.HUMAN else ("moves",):
        if len(actions) < 5 and (extra != "moves" or game.moves):  # a row holds five buttons
            actions.append(extra)
    items += [GameButton(action, game.id, game.version, lang) for action in actions]
    return view_of(*items)


def move_list(view: GameView, lang: Language = ENGLISH) -> discord.Embed:
    """Every move of the game so far, numbered, each in both notations (the newest kept when they do not all fit)."""
    game = view.game
    lines = numbered_moves(game, algebraic_too=True) or [lang._("No moves yet.")]
    while len(lines) > 1 and sum(len(line) + 1 for line in lines) > 4000:
        lines = lines[1:]
    if len(lines) < len(numbered_moves(game)):
        lines.insert(0, lang._("… (the whole game: /checkers export)"))
    title = lang._("{black} vs {white}: the moves", black=game.black.name, white=game.white.name)
    return discord.Embed(title=title[:256], description="\n".join(lines), colour=ACTIVE_COLOUR)


def text_board(view: GameView, lang: Language = ENGLISH) -> str:
    """The position for screen readers: pieces by square, whose turn, and the legal moves."""
    game = view.game
    board = game.board()
    g = board.variant.geometry
    groups: dict[tuple[Color, bool], list[str]] = {
        (c, k): [] for c in (Color.BLACK, Color.WHITE) for k in (False, True)
    }
    for square in range(1, g.squares + 1):
        piece = board.piece_at(square)
        if piece is not None:
            groups[piece.color, piece.king].append(str(square))
    names = {
        (Color.BLACK, False): lang._("Black men"),
        (Color.BLACK, True): lang._("Black kings"),
        (Color.WHITE, False): lang._("White men"),
        (Color.WHITE, True): lang._("White kings"),
    }
    lines = [
        lang._(
            "{variant}: {black} (Black) against {white} (White).",
            variant=lang.data("variant", get_variant(game.variant).title),
            black=game.black.name,
            white=game.white.name,
        )
    ]
    lines += [f"{names[key]}: {', '.join(squares) if squares else lang._('none')}." for key, squares in groups.items()]
    last = _last_move(board)
    if last is not None:
        lines.append(
            lang._(
                "Last move: {side} {move} ({algebraic}).",
                side=side_name(last[1]),
                move=last[0].text(),
                algebraic=board.algebraic(last[0]),
            )
        )
    if game.is_active:
        lines.append(lang._("{name} ({side}) to move.", name=view.to_move.name, side=side_name(view.turn)))
        both = (f"{m} ({algebraic(game.variant, m)})" for m in view.legal_moves)
        lines.append(lang._("Legal moves: {moves}.", moves=", ".join(both)))
    else:
        lines.append(lang._("Game over: {end} ({result}).", end=end_text(game), result=game.result))
    lines.append(lang._("Squares are numbered 1 to {count}, left to right from the top row.", count=g.squares))
    lines.append("```\n" + board.ascii() + "\n```")
    return "\n".join(lines)[:2000]
