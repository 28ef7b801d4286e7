"""How the messages beside a board look: challenges, results, the leaderboard, statistics, a player's history.

Everything here is a pure function of service values and the language to say them in (no I/O); the board itself is
:mod:`bot.games._board`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot import service
from bot.games._fit import add_lines
from bot.games._levels import scale, strength
from bot.games._theme import ACTIVE_COLOUR
from bot.i18n import ENGLISH, Language, Text
from core import VARIANTS, Color, get_variant


def variant_title(lang: Language, variant: str) -> str:
    """A variant's title in ``lang`` (the rules' own title is English)."""
    return lang.data("variant", get_variant(variant).title)


def end_of(lang: Language, game: service.GameState) -> str:
    """How the game ended, in ``lang``."""
    return lang.say(service.end_text(game)) or lang._("Game over")


def challenge_content(challenge: service.Challenge, lang: Language = ENGLISH) -> str:
    variant = variant_title(lang, challenge.variant)
    if challenge.fen:
        game = lang._("an unrated game of {variant} from `{fen}`", variant=variant, fen=challenge.fen)
    else:
        game = lang._("a rated game of {variant}", variant=variant)
    params = {
        "challenger": f"<@{challenge.challenger.id}>",
        "game": game,
        "turn_time": lang.say(service.duration(challenge.turn_time)),
        "expires": f"<t:{int(challenge.expires_at)}:R>",
    }
    if challenge.opponent is None:
        return lang._(
            "Anyone: {challenger} challenges you to {game} ({turn_time} a move). The challenge expires {expires}.",
            **params,
        )
    return lang._(
        "{opponent}: {challenger} challenges you to {game} ({turn_time} a move). The challenge expires {expires}.",
        opponent=f"<@{challenge.opponent.id}>",
        **params,
    )


def slash_name(lang: Language, name: str) -> str:
    """A command's or option's name as ``lang``'s Discord client shows it."""
    return lang.say(Text(name, context="command name"))


def slash(lang: Language, command: str) -> str:
    """``/checkers <command>`` as ``lang``'s Discord client shows it."""
    return f"/{slash_name(lang, 'checkers')} {slash_name(lang, command)}"


def jump_url(guild_id: str | int, channel_id: str | int, message_id: str | int) -> str:
    """The address of a message, which Discord opens at that message."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def players_of(game: service.GameState, lang: Language = ENGLISH) -> str:
    return lang._("**{black}** vs **{white}**", black=game.black.name, white=game.white.name)


def thread_notice(view: service.GameView, thread_id: int, lang: Language = ENGLISH) -> str:
    """The short message in a channel that links to a game's thread."""
    return lang._("{players}: the game is in {thread}.", players=players_of(view.game, lang), thread=f"<#{thread_id}>")


def busy_refusal(
    view: service.GameView, asker_id: service.UserId, parent_id: int | None, lang: Language = ENGLISH
) -> str:
    """Why a new game cannot start in a channel that holds one game at a time (threads are not allowed there): whose
    game it is, a link to it, and how it ends. ``parent_id`` is the channel above, when the refusal is in a thread."""
    game = view.game
    place = game.board_message
    players = players_of(game, lang)
    if place is not None:
        link = jump_url(game.guild_id, place.channel_id, place.message_id)
        if parent_id is not None:
            first = lang._(
                "This thread already has a game: {players} ([its board]({link})).", players=players, link=link
            )
        else:
            first = lang._(
                "This channel already has a game: {players} ([its board]({link})).", players=players, link=link
            )
    elif parent_id is not None:
        first = lang._("This thread already has a game: {players}.", players=players)
    else:
        first = lang._("This channel already has a game: {players}.", players=players)
    lines = [first]
    people = [p for p in (game.black, game.white) if not p.is_ai]
    if game.color_of(asker_id) is not None:
        lines.append(lang._("It is yours: finish it, or end it with `/checkers resign`."))
    elif people:
        names = (
            lang._("{first} or {second}", first=people[0].name, second=people[1].name)
            if len(people) > 1
            else people[0].name
        )
        lines.append(
            lang._(
                "It ends when it is over, when {names} resigns with `/checkers resign`, "
                "or when the player to move runs out of time {deadline}.",
                names=names,
                deadline=f"<t:{int(game.deadline)}:R>",
            )
        )
    else:
        lines.append(lang._("The AIs play it to its end on their own, in a few minutes."))
    if parent_id is not None:
        lines.append(
            lang._(
                "A thread holds one game at a time: start yours in {channel}, where each game gets a thread.",
                channel=f"<#{parent_id}>",
            )
        )
    else:
        lines.append(
            lang._(
                "Games get threads of their own only where the bot may open them: "
                "this channel holds one game at a time."
            )
        )
    return " ".join(lines)


def closed_challenge_content(challenge: service.Challenge, text: str, lang: Language = ENGLISH) -> str:
    return f"~~{challenge_content(challenge, lang)}~~\n{lang.say(text)}"


def result_message(
    view: service.GameView, events: Sequence[service.Event], replay_url: str | None = None, lang: Language = ENGLISH
) -> str:
    """The announcement at a game's end, with the AI's strength (in a game with one), the rating changes (and a link
    to the game's replay page, if any)."""
    game = view.game
    lines = [f"🏁 {players_of(game, lang)}: {end_of(lang, game)} ({game.result})"]
    levels = dict.fromkeys(p.level for p in (game.black, game.white) if p.level is not None)
    strengths = [shown for shown in (strength(lang, level) for level in levels) if shown]
    if strengths:
        lines.append(lang._("AI strength: {levels}. {scale}.", levels=" · ".join(strengths), scale=scale(lang)))
    changes = [e.text for e in events if isinstance(e, service.RatingChanged)]
    reason = lang.say(Text(game.unrated_reason)) if game.unrated_reason else None
    if changes:
        lines.append(lang._("Ratings: {changes}", changes=" · ".join(changes)))
    elif game.kind is service.GameKind.HUMAN:
        lines.append(lang._("Unrated: {reason}.", reason=reason or lang._("not rated")))
    else:
        lines.append(lang._("Unrated ({reason}).", reason=reason or game.kind.value))
    export = f"`{slash(lang, 'export')} {slash_name(lang, 'game')}:{game.id}`"
    if game.kind is service.GameKind.EXHIBITION:  # nobody played it, so nobody can ask for it again
        lines.append(lang._("{export} for the PDN", export=export))
    else:
        lines.append(
            lang._(
                "{export} for the PDN · {rematch} to play again", export=export, rematch=f"`{slash(lang, 'rematch')}`"
            )
        )
    if replay_url is not None:
        lines.append(lang._("Replay: {url}", url=f"<{replay_url}>"))
    return "\n".join(lines)


def leaderboard_title(lang: Language, variant: str, everyone: bool, season: str | None = None) -> str:
    """The ladder's title: the variant, and whose ladder (everyone's, this server's or one of its ``season``)."""
    title = lang.data("variant", get_variant(variant).title) if variant in VARIANTS else variant
    if season is not None:
        return lang._("Leaderboard: {variant}, {season}", variant=title, season=season)
    if everyone:
        return lang._("Leaderboard: {variant}, everyone", variant=title)
    return lang._("Leaderboard: {variant}, this server", variant=title)


def leaderboard_embed(
    entries: Sequence[service.LeaderboardEntry], title: str, url: str | None = None, lang: Language = ENGLISH
) -> discord.Embed:
    """The ladder; ``url`` (the public leaderboard page, if any) is the title's link."""
    embed = discord.Embed(title=title, colour=ACTIVE_COLOUR, url=url)
    if not entries:
        embed.description = lang._("Nobody has a rating here yet: finish a rated game with `/checkers challenge`.")
        return embed
    lines = [
        f"**{e.rank}.** {e.name}: {round(e.rating)}{'?' if e.provisional else ''} "
        f"({lang._n('{count} game', '{count} games', e.games)})"
        for e in entries
    ]
    embed.description = "\n".join(lines) + "\n\n" + lang._("`?` marks a provisional rating.")
    return embed


def stats_embed(stats: service.PlayerStats, everyone: bool, name: str, lang: Language = ENGLISH) -> discord.Embed:
    """A player's statistics, titled with ``name`` (the player's name now: the store knows only those who played)."""
    r = stats.rating
    variant = variant_title(lang, stats.variant)
    if everyone:
        title = lang._("{name}: {variant} (everyone)", name=name, variant=variant)
    else:
        title = lang._("{name}: {variant} (this server)", name=name, variant=variant)
    embed = discord.Embed(title=title, colour=ACTIVE_COLOUR)
    if stats.provisional:
        rating = lang._("{rating} (provisional) ± {deviation}", rating=round(r.rating), deviation=round(2 * r.rd))
    else:
        rating = f"{round(r.rating)} ± {round(2 * r.rd)}"
    embed.add_field(name=lang._("Rating"), value=rating, inline=True)
    embed.add_field(name=lang._("Rank"), value=f"#{stats.rank}" if stats.rank else lang._("unranked"), inline=True)
    embed.add_field(name=lang._("Rated games"), value=record(lang, r.wins, r.losses, r.draws, games=r.games))
    if stats.versus_bot:
        lines = [f"{level}: {record(lang, w, lo, d)}" for level, (w, lo, d) in stats.versus_bot.items()]
        add_lines(embed, lang._("Against the AI"), lines)
    return embed


def record(lang: Language, won: int, lost: int, drawn: int, *, games: int | None = None) -> str:
    """``3 won, 1 lost, 0 drawn`` (after ``games:`` when the number of games is given)."""
    text = lang._("{won} won, {lost} lost, {drawn} drawn", won=won, lost=lost, drawn=drawn)
    return text if games is None else f"{games}: {text}"


def history_line(
    game: service.GameState, user_id: service.UserId, lang: Language = ENGLISH, url: str | None = None
) -> str:
    """One finished game of a player's history; its id links to its replay page when there is one (``url``)."""
    me = game.color_of(user_id)
    other = game.player(me.opponent) if me is not None else None
    if me is None or other is None:
        outcome = game.result or "*"
        versus = lang._("{black} vs {white}", black=game.black.name, white=game.white.name)
    else:
        if game.winner is None:
            outcome = lang._("½ drew")
        elif game.winner == ("black" if me is Color.BLACK else "white"):
            outcome = lang._("✅ won")
        else:
            outcome = lang._("❌ lost")
        versus = lang._("against {name}", name=other.name)
    when = f"<t:{int(game.ended_at or game.updated_at)}:d>"
    shown = f"[`{game.id}`]({url})" if url else f"`{game.id}`"
    return f"{outcome} {versus} · {end_of(lang, game)} · {when} · {shown}"
