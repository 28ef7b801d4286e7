"""Short texts the cog says to people (errors and acknowledgements that are not the service's own), and the refusals
that carry them."""

from __future__ import annotations

from typing import Any

import discord

MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True)
"""What a message of the bot may ping: people named in it, never roles or everyone."""

NO_GAME_HERE = "you have no game in this channel: start one with `/checkers play` or `/checkers challenge`"
NO_GAME_TO_SHOW = "there is no game in this channel right now"
NO_FINISHED_GAME = "you have no finished game to play again"
NOT_A_PLAYER = "you are not playing in this game"
CHALLENGE_A_BOT = "you cannot challenge a bot: use `/checkers play` to play the AI"
CHALLENGE_NOT_YOURS = "this challenge is between other players"
RESIGN_CONFIRM_RATED = "Really resign this game? It counts as a loss and changes your rating."
RESIGN_CONFIRM_UNRATED = "Really resign this game? It is unrated: no rating changes."
RESIGNED = "You resigned."
RESIGN_CANCELLED = "You play on."
POSITION_CHANGED = "The position changed before your click arrived: here is the current board."
GAME_ENDED = "This game is over: {end}."
BOARD_MOVED = "This board was replaced by a newer one below: play on that one."
INTERNAL = "something went wrong on our side; the game is safe, please try again"
GUILD_ONLY = "King Me works in servers: use the commands in a server channel"
BAD_OPTION = "one of the options has a value that does not fit: check it and try again"
_EXPECTED = {
    discord.AppCommandOptionType.user: "a member of this server: pick one from the list",
    discord.AppCommandOptionType.channel: "a channel of this server: pick one from the list",
    discord.AppCommandOptionType.number: "a number",
    discord.AppCommandOptionType.integer: "a whole number",
    discord.AppCommandOptionType.boolean: "true or false",
}
"""What an option of each type takes, for a value Discord passed but discord.py could not convert."""
MOVE_HINT = (
    "Choose a piece, then its move, in the menus under the board; or type `/checkers move 11-15` "
    "(squares are numbered 1–32 from the top left, row by row; a capture is written 15x24, a multi-jump 1x10x19)."
)


class Refusal(Exception):  # noqa: N818 - a refusal shown to the user, like the service's errors
    """A request the front end itself turns down before calling the service; the message is for the user."""


def opening_thread(name: str) -> str:
    """The message that answers a command starting a game while its thread is being opened."""
    return f"Opening a thread for {name}…"


def takeback_asked(opponent: str) -> str:
    """What the player who asked for a takeback is told (the opponent hears it in the game's thread)."""
    return f"You asked to take your last move back: {opponent} must agree."


def bad_option(value: Any, kind: discord.AppCommandOptionType) -> str:
    """An option value that did not convert (discord.py's :class:`~discord.app_commands.TransformerError`), in our
    words, never discord.py's."""
    expected = _EXPECTED.get(kind)
    if expected is None:
        return BAD_OPTION
    shown = str(getattr(value, "display_name", value)).replace("`", "'")[:40]
    return f"`{shown}` does not fit that option: it takes {expected}"


def turn_of(name: str) -> str:
    return f"it is {name}'s turn: wait for your move"


def short(text: str, limit: int = 300) -> str:
    """A message for an ephemeral reply: capitalised, at most ``limit`` characters."""
    text = text.strip() or INTERNAL
    text = text[0].upper() + text[1:]
    return text if len(text) <= limit else text[: limit - 1] + "…"
