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
        f"**{e.rank}.** {e.name}: {round(e.rating)}{'?' if e.provisional else ''} ({e.games} games)" for e in entries
    ]
    embed.description = "\n".join(lines) + "\n\n`?` marks a provisional rating."
    return embed


def stats_embed(stats: service.PlayerStats, where: str) -> discord.Embed:
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
