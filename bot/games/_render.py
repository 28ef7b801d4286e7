"""How games look in Discord: the board embed, the plain-text board, challenges, results, tables.

Everything here is a pure function of service values (no I/O). The emoji theme is :class:`Theme`, defined once;
:data:`THEME` is the one the bot uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.service import (
    Challenge,
    Event,
    EventKind,
    GameKind,
    GameState,
    GameView,
    LeaderboardEntry,
    PlayerStats,
    duration,
)
from core import Board, Color, Move, get_variant

ACTIVE_COLOUR = 0xC8A165
FINISHED_COLOUR = 0x5A8F5A
_KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")
_LETTERS = tuple(chr(0x1F1E6 + i) for i in range(10))  # regional indicators A..J


@dataclass(frozen=True)
class Theme:
    """The board's emoji, in one place. Men and kings of each side share a colour and differ in shape."""

    light: str = "⬜"
    dark: str = "🟫"
    black_man: str = "⚫"
    black_king: str = "🖤"
    white_man: str = "⚪"
    white_king: str = "🤍"
    trail: str = "🟨"
    """Squares the last move's piece left or jumped through."""
    taken: str = "💥"
    """Squares where the last move took a piece."""
    corner: str = "🔳"
    ranks: tuple[str, ...] = _KEYCAPS
    files: tuple[str, ...] = _LETTERS
    separator: str = "\u200b"
    """Between every two cells: keeps regional-indicator letters from merging into flags (🇧🇪 is Belgium)."""

    def piece(self, color: Color, king: bool) -> str:
        if color is Color.BLACK:
            return self.black_king if king else self.black_man
        return self.white_king if king else self.white_man

    def side(self, color: Color) -> str:
        return self.piece(color, False)

    def legend(self) -> str:
        return (
            f"{self.black_man} Black man · {self.black_king} Black king · {self.white_man} White man · "
            f"{self.white_king} White king · {self.trail} last move · {self.taken} taken"
        )


THEME = Theme()


# -- squares and moves ---------------------------------------------------------------------------------------------


def square_name(variant: str, square: int) -> str:
    """The algebraic name of a PDN square (``11`` is ``f6`` on the 8×8 board, files from the left, rank 1 at the
    bottom, Black at the top)."""
    g = get_variant(variant).geometry
    row = g.row_of_square[square]
    return f"{'abcdefghij'[g.col_of_square[square]]}{g.size - row}"


def move_start(text: str) -> int | None:
    """The square a move text starts from (None for ``pass``)."""
    head = text.replace("x", "-").split("-", 1)[0]
    return int(head) if head.isdigit() else None


def movable_squares(view: GameView) -> list[int]:
    """The squares holding a piece that can move, in board order."""
    return sorted({s for s in (move_start(m) for m in view.legal_moves) if s is not None})


def moves_from(view: GameView, square: int) -> list[str]:
    return [m for m in view.legal_moves if move_start(m) == square]


def _last_move(board: Board) -> tuple[Move, Color] | None:
    """The last move that was not a pass, and who played it."""
    stack = board.move_stack
    first = Board(board.initial_fen, board.variant).turn
    for index in range(len(stack) - 1, -1, -1):
        if not stack[index].is_pass:
            return stack[index], first if index % 2 == 0 else first.opponent
    return None


def _captured(game: GameState, board: Board) -> tuple[int, int]:
    """How many pieces Black and White have taken."""
    start = Board(game.initial_fen, game.variant)
    took_black = start.count(Color.WHITE) - board.count(Color.WHITE)
    took_white = start.count(Color.BLACK) - board.count(Color.BLACK)
    return took_black, took_white


# -- the board -----------------------------------------------------------------------------------------------------


def board_grid(board: Board, last: Move | None, theme: Theme = THEME) -> str:
    """The board as rows of emoji, Black at the top, ranks on the left and files below (at most 10 per row)."""
    g = board.variant.geometry
    trail = set(last.path[:-1]) if last is not None else set()
    taken = set(last.captures) if last is not None else set()
    lines = []
    for row in range(g.size):
        cells = [theme.ranks[g.size - row - 1]]
        for col in range(g.size):
            square = g.square_at(row, col)
            piece = board.piece_at(square) if square is not None else None
            if square is None:
                cells.append(theme.light)
            elif piece is not None:
                cells.append(theme.piece(piece.color, piece.king))
            elif square in taken:
                cells.append(theme.taken)
            elif square in trail:
                cells.append(theme.trail)
            else:
                cells.append(theme.dark)
        lines.append(theme.separator.join(cells))
    lines.append(theme.separator.join([theme.corner, *theme.files[: g.size]]))
    return "\n".join(lines)


def _name(player_name: str, player_id: str, is_ai: bool) -> str:
    return player_name if is_ai else f"<@{player_id}>"


def status_line(view: GameView, theme: Theme = THEME) -> str:
    game = view.game
    if not game.is_active:
        return f"🏁 **{game.end_text or 'Game over'}** ({game.result})"
    mover = view.to_move
    if mover.is_ai:
        return f"{theme.side(view.turn)} **{mover.name}** is thinking… 🤔"
    deadline = int(game.deadline)
    lines = [f"{theme.side(view.turn)} <@{mover.id}> to move ({view.turn.label}) · time runs out <t:{deadline}:R>"]
    if game.draw_offer:
        offerer = game.player(Color.BLACK if game.draw_offer == "black" else Color.WHITE)
        lines.append(f"🤝 {offerer.name} offers a draw")
    if game.takeback_offer:
        asker = game.player(Color.BLACK if game.takeback_offer == "black" else Color.WHITE)
        lines.append(f"↩️ {asker.name} asks to take a move back")
    return "\n".join(lines)


def board_embed(view: GameView, theme: Theme = THEME) -> discord.Embed:
    game = view.game
    board = game.board()
    last = _last_move(board)
    title = f"{theme.black_man} {game.black.name} vs {theme.white_man} {game.white.name}"
    description = f"{board_grid(board, last[0] if last else None, theme)}\n\n{status_line(view, theme)}"
    embed = discord.Embed(
        title=title[:256],
        description=description,
        colour=ACTIVE_COLOUR if game.is_active else FINISHED_COLOUR,
    )
    if last is not None:
        move, mover = last
        embed.add_field(name="Last move", value=f"{theme.side(mover)} {move.text()}", inline=True)
    took_black, took_white = _captured(game, board)
    captured = f"{theme.black_man} took {took_black} · {theme.white_man} took {took_white}"
    embed.add_field(name="Captured", value=captured, inline=True)
    g = board.variant.geometry
    numbering = f"Squares 1–{g.squares}, left to right from the top: 1 is {square_name(game.variant, 1)}"
    embed.add_field(name="Legend", value=f"{theme.legend()}\n{numbering}", inline=False)
    rated = "rated" if game.rated else "unrated"
    embed.set_footer(text=f"{get_variant(game.variant).title} · {rated} · game {game.id} · move {_move_number(game)}")
    return embed


def _move_number(game: GameState) -> int:
    return len(game.moves) // 2 + 1


def board_content(view: GameView) -> str:
    """The text above the board: it mentions the person to move."""
    game = view.game
    if not game.is_active:
        return "Game over."
    if view.to_move.is_ai:
        return f"{view.to_move.name} is thinking…"
    return f"<@{view.to_move.id}>, your move."


def text_board(view: GameView) -> str:
    """The position for screen readers: pieces by square, whose turn, and the legal moves."""
    game = view.game
    board = game.board()
    g = board.variant.geometry
    groups: dict[str, list[str]] = {"Black men": [], "Black kings": [], "White men": [], "White kings": []}
    for square in range(1, g.squares + 1):
        piece = board.piece_at(square)
        if piece is not None:
            key = f"{piece.color.label} {'kings' if piece.king else 'men'}"
            groups[key].append(str(square))
    lines = [f"{get_variant(game.variant).title}: {game.black.name} (Black) against {game.white.name} (White)."]
    lines += [f"{key}: {', '.join(squares) if squares else 'none'}." for key, squares in groups.items()]
    last = _last_move(board)
    if last is not None:
        lines.append(f"Last move: {last[1].label} {last[0].text()}.")
    if game.is_active:
        lines.append(f"{view.to_move.name} ({view.turn.label}) to move.")
        lines.append(f"Legal moves: {', '.join(view.legal_moves)}.")
    else:
        lines.append(f"Game over: {game.end_text} ({game.result}).")
    lines.append(f"Squares are numbered 1 to {g.squares}, left to right from the top row.")
    lines.append("```\n" + board.ascii() + "\n```")
    return "\n".join(lines)[:2000]


# -- other messages --------------------------------------------------------------------------------------------------


def challenge_content(challenge: Challenge) -> str:
    who = f"<@{challenge.opponent.id}>" if challenge.opponent is not None else "Anyone"
    variant = get_variant(challenge.variant).title
    game = f"an unrated game of {variant} from `{challenge.fen}`" if challenge.fen else f"a rated game of {variant}"
    return (
        f"{who}: <@{challenge.challenger.id}> challenges you to {game} "
        f"({duration(challenge.turn_time)} a move). The challenge expires <t:{int(challenge.expires_at)}:R>."
    )


def closed_challenge_content(challenge: Challenge, text: str) -> str:
    return f"~~{challenge_content(challenge)}~~\n{text}"


def result_message(view: GameView, events: Sequence[Event], replay_url: str | None = None) -> str:
    """The announcement at a game's end, with the rating changes (and a link to the game's replay page, if any)."""
    game = view.game
    lines = [f"🏁 **{game.black.name}** vs **{game.white.name}**: {game.end_text} ({game.result})"]
    changes = [e.text for e in events if e.kind is EventKind.RATING_CHANGED]
    if changes:
        lines.append("Ratings: " + " · ".join(changes))
    elif game.kind is GameKind.HUMAN:
        lines.append(f"Unrated: {game.unrated_reason or 'not rated'}.")
    else:
        lines.append(f"Unrated ({game.unrated_reason or game.kind.value}).")
    lines.append(f"`/checkers export game:{game.id}` for the PDN · `/checkers rematch` to play again")
    if replay_url is not None:
        lines.append(f"Replay: <{replay_url}>")
    return "\n".join(lines)


def leaderboard_embed(entries: Sequence[LeaderboardEntry], title: str, url: str | None = None) -> discord.Embed:
    """The ladder; ``url`` (the public leaderboard page, if any) is the title's link."""
    embed = discord.Embed(title=title, colour=ACTIVE_COLOUR, url=url)
    if not entries:
        embed.description = "Nobody has a rating here yet: finish a rated game with `/checkers challenge`."
        return embed
    lines = [
        f"**{e.rank}.** {e.name}: {round(e.rating)}{'?' if e.provisional else ''} ({e.games} games)" for e in entries
    ]
    embed.description = "\n".join(lines) + "\n\n`?` marks a provisional rating."
    return embed


def stats_embed(stats: PlayerStats, where: str) -> discord.Embed:
    r = stats.rating
    embed = discord.Embed(title=f"{stats.name}: {get_variant(stats.variant).title} ({where})", colour=ACTIVE_COLOUR)
    rating = f"{round(r.rating)}{' (provisional)' if stats.provisional else ''} ± {round(2 * r.rd)}"
    embed.add_field(name="Rating", value=rating, inline=True)
    embed.add_field(name="Rank", value=f"#{stats.rank}" if stats.rank else "unranked", inline=True)
    embed.add_field(name="Rated games", value=f"{r.games}: {r.wins} won, {r.losses} lost, {r.draws} drawn")
    if stats.versus_bot:
        lines = [f"{level}: {w} won, {lo} lost, {d} drawn" for level, (w, lo, d) in stats.versus_bot.items()]
        embed.add_field(name="Against the AI", value="\n".join(lines)[:1024], inline=False)
    return embed


def history_line(game: GameState, user_id: str) -> str:
    me = game.color_of(user_id)
    other = game.player(me.opponent) if me is not None else None
    if me is None or other is None:
        outcome = game.result or "*"
        versus = f"{game.black.name} vs {game.white.name}"
    else:
        if game.winner is None:
            outcome = "½ drew"
        elif game.winner == ("black" if me is Color.BLACK else "white"):
            outcome = "✅ won"
        else:
            outcome = "❌ lost"
        versus = f"against {other.name}"
    when = f"<t:{int(game.ended_at or game.updated_at)}:d>"
    return f"{outcome} {versus} · {game.end_text} · {when} · `{game.id}`"
