"""How a tournament looks on Discord: its announcement (with Join and Leave while it is open), a round's pairings, the
standings table and the final podium.

Everything here is a pure function of service values and the language to say them in (no I/O), within Discord's
limits by design: long lists go on in more pieces (:mod:`bot.games._fit`), never cut inside a word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import discord

from bot import service
from bot.games._components import tournament_controls
from bot.games._fit import EMBED_DESCRIPTION, FIELD_VALUE, pieces, shortened
from bot.games._render import slash_name, variant_title
from bot.games._respond import MessageFields
from bot.i18n import ENGLISH, Language
from bot.service import (
    TIEBREAKS,
    GameId,
    GameState,
    MatchKind,
    StandingRow,
    TieBreak,
    TournamentFormat,
    TournamentRecord,
    TournamentStatus,
    UserId,
    is_ai_id,
)

MESSAGE_CONTENT = 2000
"""A message's content."""
NAME_WIDTH = 16
"""The most characters of a name in the standings table (a longer one is cut: the table is monospace)."""
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
MENTIONED_USERS = 100
"""The most people one message may ping by name (Discord's limit on ``allowed_mentions.users``)."""
_CODE = "```\n{}\n```"
_NO_PINGS = discord.AllowedMentions.none()


def format_name(lang: Language, tournament_format: TournamentFormat) -> str:
    if tournament_format is TournamentFormat.ROUND_ROBIN:
        return lang._("Round robin")
    if tournament_format is TournamentFormat.ARENA:
        return lang._("Arena")
    return lang._("Swiss")


def match_name(lang: Language, match: MatchKind) -> str:
    if match is MatchKind.BALLOT:
        return lang._("ballot matches (two games of a three-move ballot, colours swapped)")
    return lang._("single games")


def rounds_text(lang: Language, record: TournamentRecord) -> str:
    """How many rounds: a Swiss's, or a round robin's (fixed when it starts: one fewer than its players); an arena's
    length."""
    if record.format is TournamentFormat.ARENA:
        return lang._n("{count} minute", "{count} minutes", round(record.duration / 60))
    if record.rounds_planned:
        return lang._n("{count} round", "{count} rounds", record.rounds_planned)
    return lang._("everyone meets everyone")


def entrant(record: TournamentRecord, player: UserId) -> str:
    """A player as a message names them: a person by a mention, an AI by its name."""
    return f"**{record.name_of(player)}**" if is_ai_id(player) else f"<@{player}>"


def _name(record: TournamentRecord, player: UserId) -> str:
    return discord.utils.escape_markdown(record.name_of(player))


# -- the announcement ----------------------------------------------------------------------------------------------


def announcement(record: TournamentRecord, lang: Language = ENGLISH, page: str | None = None) -> MessageFields:
    """The message that announces a tournament, as it stands: its settings, its entrants, where it is at, and Join and
    Leave while it is open."""
    turn_time = lang.say(service.duration(record.turn_time))
    rated = lang._("rated") if record.rated else lang._("unrated")
    lines = [
        f"{format_name(lang, record.format)} · {rounds_text(lang, record)} · {match_name(lang, record.match)}",
        lang._(
            "{variant} · {turn_time} a move · {rated}",
            variant=variant_title(lang, record.variant),
            turn_time=turn_time,
            rated=rated,
        ),
        status_line(record, lang),
    ]
    if record.status is TournamentStatus.OPEN and record.ai_allowed:
        lines.append(lang._("AI entrants are welcome: the creator adds them with {command}.", command=_add_ai(lang)))
    embed = discord.Embed(title=shortened(f"🏆 {record.name}", 256), description="\n".join(lines), url=page)
    names = [_name(record, player) for player in record.entrants]
    count = f"{len(names)}/{record.max_players}"
    heading = lang._("Entrants ({count})", count=count)
    embed.add_field(name=heading, value=listed(names, FIELD_VALUE, lang), inline=False)
    embed.set_footer(text=lang._("Created by {name}", name=record.name_of(record.creator)))
    open_ = record.status is TournamentStatus.OPEN
    view = tournament_controls(record.id, lang) if open_ else None
    return {"content": None, "embed": embed, "view": view, "allowed_mentions": _NO_PINGS}


def listed(names: Sequence[str], limit: int, lang: Language = ENGLISH) -> str:
    """``names`` separated by commas, as many as fit in ``limit`` characters, with "and 12 more" for the rest."""
    for count in range(len(names), 0, -1):
        shown, rest = ", ".join(names[:count]), len(names) - count
        if rest:
            shown = lang._n("{names} and {count} more", "{names} and {count} more", rest, names=shown)
        if len(shown) <= limit:
            return shown
    return "-"


def _add_ai(lang: Language) -> str:
    return f"`/{slash_name(lang, 'tournament')} {slash_name(lang, 'add-ai')}`"


def status_line(record: TournamentRecord, lang: Language = ENGLISH) -> str:
    if record.status is TournamentStatus.OPEN:
        if record.starts_at is not None:
            when = f"<t:{int(record.starts_at)}:F> (<t:{int(record.starts_at)}:R>)"
            return lang._("Open for entries: click **Join** to play. It starts {when}.", when=when)
        return lang._("Open for entries: click **Join** to play.")
    if record.status is TournamentStatus.RUNNING:
        if record.round == 0:
            return lang._("Starting: the first round is being paired.")
        if record.format is TournamentFormat.ARENA:
            return lang._("Under way: it ends <t:{end}:R>.", end=int(record.ends_at))
        return lang._("Round {round} of {rounds} is being played.", round=record.round, rounds=record.rounds_planned)
    if record.status is TournamentStatus.CANCELLED:
        return lang._("Cancelled.")
    return lang._n("Finished after {count} round.", "Finished after {count} rounds.", record.round)


# -- pairings ------------------------------------------------------------------------------------------------------


def pairing_lines(
    record: TournamentRecord, number: int, games: Mapping[GameId, GameState], lang: Language = ENGLISH
) -> list[str]:
    """Round ``number``'s boards: the players (people mentioned), each game's room linked (with its result once it
    is over), and the bye."""
    played = record.model.rounds[number - 1]
    lines = [
        lang._(
            "📋 **{name}**: round {round} of {rounds}",
            name=discord.utils.escape_markdown(record.name),
            round=number,
            rounds=record.rounds_planned,
        )
    ]
    for board, pairing in enumerate(played.pairings):
        rooms = []
        for game in sorted((g for g in record.games_of_round(number) if g.board == board), key=lambda g: g.game):
            state = games.get(game.game_id)
            if state is None:
                continue
            where = f"<#{state.channel_id}>" if state.channel_id != record.channel_id else lang._("in this channel")
            rooms.append(where if state.is_active else f"{where} ({state.result})")
        if pairing.games > len(rooms) and rooms:
            rooms.append(lang._("game {number} follows", number=len(rooms) + 1))
        players = lang._(
            "{black} vs {white}", black=entrant(record, pairing.black), white=entrant(record, pairing.white)
        )
        lines.append(" · ".join([lang._("Board {number}: {players}", number=board + 1, players=players), *rooms]))
    if played.bye is not None:
        lines.append(lang._("Bye: {player}", player=entrant(record, played.bye.player)))
    return lines


def contents(lines: Sequence[str]) -> list[str]:
    """``lines`` as the contents of as few messages as they fit in, whole lines each."""
    return pieces(lines, MESSAGE_CONTENT)


# -- standings -----------------------------------------------------------------------------------------------------


def points(value: Fraction) -> str:
    """``2``, ``1½``, ``¾``: points as a table shows them (halves and quarters as fractions, anything else rounded)."""
    sign, value = ("-", -value) if value < 0 else ("", value)
    whole, part = divmod(value, 1)
    fraction = {Fraction(0): "", Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}.get(part)
    if fraction is None:
        return f"{sign}{float(value):.2f}"
    return f"{sign}{whole or ''}{fraction}" if whole or fraction else "0"


def _tiebreak_names(lang: Language) -> dict[TieBreak, tuple[str, str]]:
    """Each tie-break's column heading and what it is."""
    return {
        TieBreak.BUCHHOLZ_CUT1: (lang._p("tie-break", "BH-1"), lang._("Buchholz cut 1")),
        TieBreak.SONNEBORN_BERGER: (lang._p("tie-break", "SB"), lang._("Sonneborn-Berger")),
        TieBreak.WINS: (lang._p("tie-break", "W"), lang._("games won")),
        TieBreak.HEAD_TO_HEAD: (lang._p("tie-break", "H2H"), lang._("head-to-head")),
        TieBreak.PERFORMANCE: (lang._p("tie-break", "Perf"), lang._("performance")),
    }


def _round_cell(row: StandingRow, number: int) -> str:
    found = next((r for r in row.results if r.round == number), None)
    if found is None:
        return "-"
    if found.opponent is None:
        return "B"
    return points(found.points) if found.results else "…"


def standings_table(record: TournamentRecord, rows: Sequence[StandingRow], lang: Language = ENGLISH) -> list[str]:
    """The standings as the lines of a monospace table: rank, name, score, the format's tie-breaks, the points of each
    round."""
    kinds = TIEBREAKS[record.format]
    names = _tiebreak_names(lang)
    heading = ["#", lang._p("standings", "Player"), lang._p("standings", "Pts"), *(names[k][0] for k in kinds)]
    heading += [lang._p("standings", "R{number}", number=n) for n in range(1, record.round + 1)]
    body = []
    for row in rows:
        name = record.name_of(row.player)
        name = (name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…") + (" ✗" if row.withdrawn else "")
        cells = [str(row.rank), name, points(row.score)]
        cells += [str(round(v)) if k is TieBreak.PERFORMANCE else points(v) for k, v in row.tiebreaks]
        cells += [_round_cell(row, n) for n in range(1, record.round + 1)]
        body.append(cells)
    widths = [max(len(cells[i]) for cells in (heading, *body)) for i in range(len(heading))]

    def line(cells: Sequence[str]) -> str:
        shown = [c.rjust(w) if i != 1 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(shown).rstrip()

    return [line(heading), *(line(cells) for cells in body)]


def standings_legend(record: TournamentRecord, lang: Language = ENGLISH) -> str:
    names = _tiebreak_names(lang)
    parts = [lang._("Pts: points")]
    parts += [f"{names[k][0]}: {names[k][1]}" for k in TIEBREAKS[record.format]]
    parts.append(lang._("R1, R2…: points each round (B: a bye, …: being played)"))
    if any(e.withdrawn for e in record.model.players):
        parts.append(lang._("✗: withdrew"))
    return " · ".join(parts)


def standings_embeds(
    record: TournamentRecord, rows: Sequence[StandingRow], lang: Language = ENGLISH
) -> list[discord.Embed]:
    """The standings table in embeds (one a message), its heading on each: more than one only when the field is too
    large for one."""
    title = shortened(lang._("Standings: {name}", name=record.name), 256)
    heading, *body = standings_table(record, rows, lang)
    room = EMBED_DESCRIPTION - len(_CODE.format(heading + "\n"))
    table = [f"{heading}\n{piece}" for piece in pieces(body, room)] or [heading]
    embeds = [discord.Embed(title=title, description=_CODE.format(piece)) for piece in table]
    embeds[-1].set_footer(text=shortened(standings_legend(record, lang), 2048))
    return embeds


# -- the end -------------------------------------------------------------------------------------------------------


def podium(record: TournamentRecord, rows: Sequence[StandingRow], lang: Language = ENGLISH) -> list[str]:
    """The end of a tournament: its winners, people mentioned (equal ranks share a medal), as lines."""
    lines = [lang._("🏁 **{name}** is over.", name=discord.utils.escape_markdown(record.name))]
    for row in rows:
        if row.rank in MEDALS:
            score = lang._n("{count} point", "{count} points", float(row.score))
            lines.append(f"{MEDALS[row.rank]} {entrant(record, row.player)} · {score}")
    return lines


def podium_pings(rows: Sequence[StandingRow]) -> discord.AllowedMentions:
    """Only the people on the podium are pinged."""
    people = [discord.Object(int(row.player)) for row in rows if row.rank in MEDALS and not is_ai_id(row.player)]
    return discord.AllowedMentions(everyone=False, roles=False, users=people[:MENTIONED_USERS])


def cancelled(record: TournamentRecord, lang: Language = ENGLISH) -> str:
    return lang._(
        "🚫 **{name}** is cancelled: games being played go on, unscored.",
        name=discord.utils.escape_markdown(record.name),
    )
