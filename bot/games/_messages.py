"""Short texts the cog says to people (errors and acknowledgements that are not the service's own), and the refusals
that carry them."""

from __future__ import annotations

import discord

from bot.i18n import Language, Text, _

MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True)
"""What a message of the bot may ping: people named in it, never roles or everyone."""

NO_GAME_HERE = _("you have no game in this channel: start one with `/checkers play` or `/checkers challenge`")
NO_GAME_TO_SHOW = _("there is no game in this channel right now")
NO_FINISHED_GAME = _("you have no finished game to play again")
NOT_A_PLAYER = _("you are not playing in this game")
CHALLENGE_A_BOT = _("you cannot challenge a bot: use `/checkers play` to play the AI")
CHALLENGE_NOT_YOURS = _("this challenge is between other players")
RESIGN_CONFIRM_RATED = _("Really resign this game? It counts as a loss and changes your rating.")
RESIGN_CONFIRM_UNRATED = _("Really resign this game? It is unrated: no rating changes.")
RESIGNED = _("You resigned.")
RESIGN_CANCELLED = _("You play on.")
POSITION_CHANGED = _("The position changed before your click arrived: here is the current board.")
BOARD_MOVED = _("This board was replaced by a newer one below: play on that one.")
INTERNAL = _("something went wrong on our side; the game is safe, please try again")
GUILD_ONLY = _("King Me works in servers: use the commands in a server channel")
BOT_NOT_HERE = _(
    "this needs King Me in the server: use it in a server the bot was added to (games work everywhere: "
    "`/checkers play`, `/checkers challenge`)"
)
BAD_OPTION = _("one of the options has a value that does not fit: check it and try again")
_EXPECTED = {
    discord.AppCommandOptionType.user: _("a member of this server: pick one from the list"),
    discord.AppCommandOptionType.channel: _("a channel of this server: pick one from the list"),
    discord.AppCommandOptionType.number: _("a number"),
    discord.AppCommandOptionType.integer: _("a whole number"),
    discord.AppCommandOptionType.boolean: _("true or false"),
}
"""What an option of each type takes, for a value Discord passed but discord.py could not convert."""
MOVE_HINT = _(
    "Choose a piece, then its move, in the menus under the board; or type `/checkers move 11-15` "
    "(squares are numbered 1–32 from the top left, row by row; a capture is written 15x24, a multi-jump 1x10x19)."
)


class Refusal(Exception):  # noqa: N818 - a refusal shown to the user, like the service's errors
    """A request the front end itself turns down before calling the service; the message (a :class:`Text` of the
    catalogue) is for the user, said in their language."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def opening_thread(name: str) -> Text:
    """The message that answers a command starting a game while its thread is being opened."""
    return _("Opening a thread for {name}…", name=name)


def takeback_asked(opponent: str) -> Text:
    """What the player who asked for a takeback is told (the opponent hears it in the game's thread)."""
    return _("You asked to take your last move back: {opponent} must agree.", opponent=opponent)


def game_ended(end: str) -> Text:
    return _("This game is over: {end}.", end=end)


def bad_option(value: object, kind: discord.AppCommandOptionType) -> Text:
    """An option value that did not convert (discord.py's :class:`~discord.app_commands.TransformerError`), in our
    words, never discord.py's."""
    expected = _EXPECTED.get(kind)
    if expected is None:
        return BAD_OPTION
    shown = str(getattr(value, "display_name", value)).replace("`", "'")[:40]
    return _("`{shown}` does not fit that option: it takes {expected}", shown=shown, expected=expected)


def turn_of(name: str) -> Text:
    return _("it is {name}'s turn: wait for your move", name=name)


def short(text: str, limit: int = 300, lang: Language | None = None) -> str:
    """A message for an ephemeral reply, said in ``lang`` (when given): capitalised, at most ``limit`` characters."""
    if lang is not None:
        text = lang.say(text)
    text = text.strip() or (lang.say(INTERNAL) if lang is not None else INTERNAL)
    text = text[0].upper() + text[1:]
    return text if len(text) <= limit else text[: limit - 1] + "…"
