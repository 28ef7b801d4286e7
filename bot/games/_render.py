"""How the messages beside a board look: challenges, results, the leaderboard, statistics, a player's history.

Everything here is a pure function of service values (no I/O); the board itself is :mod:`bot.games._board`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot import service
from bot.games._theme import ACTIVE_COLOUR
from core import Color, get_variant


def challenge_content(challenge: service.Challenge) -> str:
    who = f"<@{challenge.opponent.id}>" if challenge.opponent is not None else "Anyone"
    variant = get_variant(challenge.variant).title
    game = f"an unrated game of {variant} from `{challenge.fen}`" if challenge.fen else f"a rated game of {variant}"
    return (
        f"{who}: <@{challenge.challenger.id}> challenges you to {game} "
        f"({service.duration(challenge.turn_time)} a move). The challenge expires <t:{int(challenge.expires_at)}:R>."
    )


def jump_url(guild_id: str | int, channel_id: str | int, message_id: str | int) -> str:
    """The address of a message, which Discord opens at that message."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def players_of(game: service.GameState) -> str:
    return f"**{game.black.name}** vs **{game.white.name}**"


def thread_notice(view: service.GameView, thread_id: int) -> str:
    """The short message in a channel that links to a game's thread."""
    return f"{players_of(view.game)}: the game is in <#{thread_id}>."


def busy_refusal(view: service.GameView, asker_id: str, parent_id: int | None) -> str:
    """Why a new game cannot start in a channel that holds one game at a time (threads are not allowed there): whose
    game it is, a link to it, and how it ends. ``parent_id`` is the channel above, when the refusal is in a thread."""
    game = view.game
    where = "thread" if parent_id is not None else "channel"
    place = game.board_message
    link = f" ([its board]({jump_url(game.guild_id, place.channel_id, place.message_id)}))" if place else ""
    lines = [f"This {where} already has a game: {players_of(game)}{link}."]
    people = [p for p in (game.black, game.white) if not p.is_ai]
    if game.color_of(asker_id) is not None:
        lines.append("It is yours: finish it, or end it with `/checkers resign`.")
    elif people:
        names = " or ".join(p.name for p in people)
        lines.append(
            f"It ends when it is over, when {names} resigns with `/checkers resign`, "
            f"or when the player to move runs out of time <t:{int(game.deadline)}:R>."
        )
    else:
        lines.append("The AIs play it to its end on their own, in a few minutes.")
    if parent_id is not None:
        lines.append(
            f"A thread holds one game at a time: start yours in <#{parent_id}>, where each game gets a thread."
        )
    else:
        lines.append(
            "Games get threads of their own only where the bot may open them: this channel holds one game at a time."
        )
    return " ".join(lines)


def closed_challenge_content(challenge: service.Challenge, text: str) -> str:
    return f"~~{challenge_content(challenge)}~~\n{text}"


def result_message(view: service.GameView, events: Sequence[service.Event], replay_url: str | None = None) -> str:
    """The announcement at a game's end, with the rating changes (and a link to the game's replay page, if any)."""
    game = view.game
    lines = [f"🏁 **{game.black.name}** vs **{game.white.name}**: {game.end_text} ({game.result})"]
    changes = [e.text for e in events if e.kind is service.EventKind.RATING_CHANGED]
    if changes:
        lines.append("Ratings: " + " · ".join(changes))
    elif game.kind is service.GameKind.HUMAN:
        lines.append(f"Unrated: {game.unrated_reason or 'not rated'}.")
    else:
        lines.append(f"Unrated ({game.unrated_reason or game.kind.value}).")
    lines.append(f"`/checkers export game:{game.id}` for the PDN · `/checkers rematch` to play again")
    if replay_url is not None:
        lines.append(f"Replay: <{replay_url}>")
    return "\n".join(lines)


def leaderboard_embed(entries: Sequence[service.LeaderboardEntry], title: str, url: str | None = None) -> discord.Embed:
    """The ladder; ``url`` (the public leaderboard page, if any) is the title's link."""
    embed = discord.Embed(title=title, colour=ACTIVE_COLOUR, url=url)
    if not entries:
        embed.description = "Nobody has a rating here yet: finish a rated game with `/checkers challenge`."
        return embed
    lines = [
        f"**{e.rank}.** {e.name}: {round(e.rating)}{'?' if e.provisional else ''} ({service.plural(e.games, 'game')})"
        for e in entries
    ]
    embed.description = "\n".join(lines) + "\n\n`?` marks a provisional rating."
    return embed


def stats_embed(stats: service.PlayerStats, where: str, name: str) -> discord.Embed:
    """A player's statistics, titled with ``name`` (the player's name now: the store knows only those who played)."""
    r = stats.rating
    embed = discord.Embed(title=f"{name}: {get_variant(stats.variant).title} ({where})", colour=ACTIVE_COLOUR)
    rating = f"{round(r.rating)}{' (provisional)' if stats.provisional else ''} ± {round(2 * r.rd)}"
    embed.add_field(name="Rating", value=rating, inline=True)
    embed.add_field(name="Rank", value=f"#{stats.rank}" if stats.rank else "unranked", inline=True)
    embed.add_field(name="Rated games", value=f"{r.games}: {r.wins} won, {r.losses} lost, {r.draws} drawn")
    if stats.versus_bot:
        lines = [f"{level}: {w} won, {lo} lost, {d} drawn" for level, (w, lo, d) in stats.versus_bot.items()]
        embed.add_field(name="Against the AI", value="\n".join(lines)[:1024], inline=False)
    return embed


def history_line(game: service.GameState, user_id: str) -> str:
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
