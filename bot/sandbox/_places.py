"""The sandbox's places besides its server's channels: each person's DM with the bot and one group DM of everyone
(issue 23, play anywhere). The sandbox's people have King Me installed on their accounts, so its commands reach the
group DM, where the bot is not a member and can only answer interactions, as on Discord. A page lists the server's
channels and the DMs its person is in, and hears only of those."""

from __future__ import annotations

from bot.emulator import Channel, DiscordEmulator, User

ChannelJson = dict[str, str | int | bool | None]
"""A channel as the page reads it."""
GROUP_NAME = "game night"
"""The name of the sandbox's group DM."""


def open_private_places(emulator: DiscordEmulator) -> None:
    """Install King Me on every person's account, and open each one's DM with the bot and the group DM of everyone
    (the ones a restored world has are kept). User installs are not kept in the world's file: this runs at each
    start."""
    people = [u for u in emulator.state.users.values() if not u.bot]
    for person in people:
        emulator.install(person)
        emulator.dm(person)
    everyone = {p.id for p in people}
    groups = [c for c in emulator.state.channels.values() if c.is_private and c.name == GROUP_NAME]
    if len(people) > 1 and not any(c.member_ids == everyone for c in groups):
        emulator.group_dm(people, name=GROUP_NAME)


def sees(emulator: DiscordEmulator, user: User, channel_id: int) -> bool:
    """True when ``user`` may see the channel: one of the server's (or its threads), or a DM they are in."""
    channel = emulator.state.channels.get(channel_id)
    return channel is None or not channel.is_private or user.id in channel.member_ids


def visible_channels(emulator: DiscordEmulator, user: User) -> list[Channel]:
    """The server's channels and threads, then the DMs and group DMs ``user`` is in."""
    channels = emulator.state.channels.values()
    mine = [c for c in channels if c.is_private and user.id in c.member_ids]
    return [c for c in channels if c.guild_id == emulator.guild.id] + mine


def channel_json(emulator: DiscordEmulator, channel: Channel, viewer: User | None = None) -> ChannelJson:
    """A channel as the page shows it; a DM is named after the others in it (as ``viewer`` sees it)."""
    name = channel.name
    if channel.is_private and not name:
        others = [u.name for i, u in emulator.state.users.items() if i in channel.member_ids and u is not viewer]
        name = ", ".join(sorted(others))
    return {
        "id": str(channel.id),
        "name": name,
        "parent_id": None if channel.parent_id is None else str(channel.parent_id),
        "thread": channel.is_thread,
        "private": channel.is_private,
        "archived": channel.archived,
        "locked": channel.locked,
        "position": channel.position,
    }
