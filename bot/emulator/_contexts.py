"""Where an interaction happens and who authorised it, as Discord decides for guild and user installs.

A command is offered in a place only when the place's interaction context is among the command's ``contexts`` and one
of its ``integration_types`` authorises it there: the server install in a guild the bot is in (and in the DM with the
bot), the user install wherever the person who added the app to their account is. Discord's defaults for a global
command registered without these fields: every context, the server install only (the app's configured installs). A
guild command is a guild, server-install command.
"""

from __future__ import annotations

from ._state import JSON, Channel, EmulatorState, RegisteredCommand, User

# interaction contexts (``context``, a command's ``contexts``)
GUILD, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2
# installation contexts (``integration_types``, the keys of ``authorizing_integration_owners``)
GUILD_INSTALL, USER_INSTALL = 0, 1
ALL_CONTEXTS = (GUILD, BOT_DM, PRIVATE_CHANNEL)
DEFAULT_INSTALLS = (GUILD_INSTALL,)
FOLLOWUP_LIMIT = 5
"""Follow-ups per interaction that only a user install authorised (its owners hold ``"1"`` alone)."""
_CONTEXT_NAMES = {GUILD: "a guild", BOT_DM: "the DM with the bot", PRIVATE_CHANNEL: "a DM or group DM"}


def bot_can_access(state: EmulatorState, channel: Channel, bot_id: int) -> bool:
    """True when the bot may use the channel's routes: it is in its guild, or a member of the DM."""
    if channel.guild_id is None:
        return bot_id in channel.member_ids
    guild = state.guilds.get(channel.guild_id)
    return guild is not None and guild.has_bot


def context_of(channel: Channel, bot_id: int) -> int:
    """Discord's interaction context of a channel."""
    if channel.guild_id is not None:
        return GUILD
    return BOT_DM if bot_id in channel.member_ids else PRIVATE_CHANNEL


def place_owners(state: EmulatorState, channel: Channel, user: User, bot_id: int, installs: tuple[int, ...]) -> JSON:
    """``authorizing_integration_owners`` for ``user`` in ``channel``, among the installation contexts ``installs``."""
    owners: dict[str, str] = {}
    context = context_of(channel, bot_id)
    if GUILD_INSTALL in installs:
        if context == GUILD and bot_can_access(state, channel, bot_id):
            owners[str(GUILD_INSTALL)] = str(channel.guild_id)
        elif context == BOT_DM:
            owners[str(GUILD_INSTALL)] = "0"
    if USER_INSTALL in installs and user.id in state.user_installs:
        owners[str(USER_INSTALL)] = str(user.id)
    return owners


def command_owners(
    state: EmulatorState, command: RegisteredCommand, channel: Channel, user: User, bot_id: int
) -> tuple[int, JSON]:
    """The context and owners of ``user`` running ``command`` in ``channel``; ``ValueError`` when Discord would not
    offer the command there (the wrong context, or no install that reaches the place)."""
    context = context_of(channel, bot_id)
    if command.guild_id is not None:
        contexts: tuple[int, ...] = (GUILD,)
        installs: tuple[int, ...] = (GUILD_INSTALL,)
    else:
        payload = command.payload
        contexts = tuple(
            payload.get("contexts") or ([GUILD] if payload.get("dm_permission") is False else ALL_CONTEXTS)
        )
        installs = tuple(payload.get("integration_types") or DEFAULT_INSTALLS)
    if context not in contexts:
        raise ValueError(
            f"/{command.name} is not offered in {_CONTEXT_NAMES[context]}: its contexts are {list(contexts)}"
        )
    owners = place_owners(state, channel, user, bot_id, installs)
    if not owners:
        raise ValueError(
            f"/{command.name} is not offered to {user.name} in {_CONTEXT_NAMES[context]}: no install reaches it "
            f"(its integration_types are {list(installs)}; the bot in the guild: "
            f"{bot_can_access(state, channel, bot_id)}; a user install: {user.id in state.user_installs})"
        )
    return context, owners


def user_install_only(owners: JSON) -> bool:
    """True when only a user install authorised the interaction (Discord then caps its follow-ups)."""
    return str(USER_INSTALL) in owners and str(GUILD_INSTALL) not in owners
