"""Discord JSON for the emulated objects, in the shapes discord.py 2.7 parses without a KeyError.

Snowflakes are strings, as Discord sends them.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ._state import JSON, Channel, EmulatorState, Guild, Message, User


def _bits(*positions: int) -> int:
    return sum(1 << p for p in positions)


# view channel, send messages, embed links, attach files, read history, add reactions, external emojis,
# use application commands, create public threads, send messages in threads
MEMBER_PERMISSIONS = _bits(10, 11, 14, 15, 16, 6, 18, 31, 35, 38)
# the bot also manages messages and threads and creates private ones
BOT_PERMISSIONS = MEMBER_PERMISSIONS | _bits(13, 34, 36)
MANAGE_GUILD = _bits(5)
"""What a member of :attr:`Guild.manager_ids` has on top of :data:`MEMBER_PERMISSIONS`."""
# create public and private threads, send messages in threads: what a channel that forbids threads denies
THREAD_PERMISSIONS = _bits(35, 36, 38)
# what an app may do in a DM or group DM (Discord's "app_permissions" there): view, send, embed links, attach files,
# read history, add reactions, use application commands; in the DM with the bot also external emojis
PRIVATE_PERMISSIONS = _bits(10, 11, 14, 15, 16, 6, 31)
EXTERNAL_EMOJIS = _bits(18)
_MENTION = re.compile(r"<@!?(\d+)>")


def timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


class PayloadBuilder:
    """Builds payloads from :class:`EmulatorState`; ``base_url`` (known once the server listens) makes
    attachment URLs."""

    def __init__(self, state: EmulatorState, base_url: str = "") -> None:
        self.state = state
        self.base_url = base_url

    def user(self, user: User) -> JSON:
        return {
            "id": str(user.id),
            "username": user.name,
            "global_name": user.name,
            "discriminator": "0",
            "avatar": None,
            "bot": user.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def member(
        self, user: User, guild: Guild, *, with_user: bool = True, permissions: int | None = None
    ) -> JSON:
        data: JSON = {
            "roles": [],
            "joined_at": timestamp(guild.joined_at),
            "nick": None,
            "avatar": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user(user)
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    @staticmethod
    def permissions_of(user: User, guild: Guild) -> int:
        """A member's permissions in a channel as an interaction carries them: a manager of the server has Manage
        Server too."""
        return MEMBER_PERMISSIONS | (MANAGE_GUILD if user.id in guild.manager_ids else 0)

    def channel(self, channel: Channel, *, permissions: int | None = None) -> JSON:
        messages = self.state.channel_messages(channel.id)
        if channel.guild_id is None:
            return self.private_channel(channel, last_message_id=str(messages[-1].id) if messages else None)
        data: JSON = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "name": channel.name,
            "position": channel.position,
            "permission_overwrites": [],
            "nsfw": False,
            "rate_limit_per_user": 0,
            "topic": None,
            "flags": 0,
            "parent_id": None if channel.parent_id is None else str(channel.parent_id),
            "last_message_id": str(messages[-1].id) if messages else None,
        }
        if channel.is_thread:
            archive_at = channel.created_at + timedelta(minutes=channel.auto_archive_duration)
            data |= {
                "owner_id": str(channel.owner_id),
                "message_count": len(messages),
                "total_message_sent": len(messages),
                "member_count": len(channel.member_ids),
                "thread_metadata": {
                    "archived": channel.archived,
                    "locked": channel.locked,
                    "auto_archive_duration": channel.auto_archive_duration,
                    "archive_timestamp": timestamp(archive_at),
                    "create_timestamp": timestamp(channel.created_at),
                    "invitable": True,
                },
            }
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    def private_channel(self, channel: Channel, *, last_message_id: str | None) -> JSON:
        """A DM (type 1) or group DM (type 3): its people as ``recipients``."""
        people = [self.state.users[uid] for uid in sorted(channel.member_ids) if uid in self.state.users]
        data: JSON = {
            "id": str(channel.id),
            "type": channel.type,
            "recipients": [self.user(u) for u in people],
            "last_message_id": last_message_id,
            "flags": 0,
        }
        if channel.type == 3:
            owner = channel.owner_id or (people[0].id if people else None)
            data |= {"name": channel.name or None, "icon": None, "owner_id": None if owner is None else str(owner)}
        return data

    def everyone_role(self, guild: Guild) -> JSON:
        return {
            "id": str(guild.id),
            "name": "@everyone",
            "permissions": str(MEMBER_PERMISSIONS),
            "position": 0,
            "color": 0,
            "colors": {"primary_color": 0},
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }

    def guild(self, guild: Guild) -> JSON:
        """The full GUILD_CREATE object: channels, active threads, the @everyone role and all members."""
        channels = [c for c in self.state.channels.values() if c.guild_id == guild.id]
        members = self.state.guild_members(guild)
        return {
            "id": str(guild.id),
            "name": guild.name,
            "owner_id": str(guild.owner_id),
            "icon": None,
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "joined_at": timestamp(guild.joined_at),
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [self.everyone_role(guild)],
            "preferred_locale": guild.locale,
            "premium_tier": 0,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "system_channel_flags": 0,
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "channels": [self.channel(c) for c in channels if not c.is_thread],
            "threads": [self.channel(c) for c in channels if c.is_thread and not c.archived],
            "members": [self.member(u, guild) for u in members],
        }

    def attachment_url(self, message: Message, index: int) -> str:
        attachment = message.attachments[index]
        return f"{self.base_url}/attachments/{message.channel_id}/{attachment.id}/{attachment.filename}"

    def message(self, message: Message) -> JSON:
        mentioned = [
            self.state.users[int(uid)]
            for uid in _MENTION.findall(message.content)
            if int(uid) in self.state.users
        ]
        data: JSON = {
            "id": str(message.id),
            "channel_id": str(message.channel_id),
            "author": self.user(message.author),
            "content": message.content,
            "embeds": message.embeds,
            "components": message.components,
            "attachments": [
                {
                    "id": str(a.id),
                    "filename": a.filename,
                    "size": len(a.data),
                    "content_type": a.content_type,
                    "description": a.description,
                    "url": self.attachment_url(message, i),
                    "proxy_url": self.attachment_url(message, i),
                }
                for i, a in enumerate(message.attachments)
            ],
            "flags": message.flags,
            "type": message.type,
            "timestamp": timestamp(message.created_at),
            "edited_timestamp": timestamp(message.edited_at),
            "tts": False,
            "pinned": False,
            "mention_everyone": False,
            "mentions": [self.user(u) for u in mentioned],
            "mention_roles": [],
        }
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        if message.webhook_id is not None:
            data["webhook_id"] = data["application_id"] = str(message.webhook_id)
        if message.interaction_metadata is not None:
            data["interaction_metadata"] = message.interaction_metadata
        if message.message_reference is not None:
            data["message_reference"] = message.message_reference
        if message.thread_id is not None and message.thread_id in self.state.channels:
            data["thread"] = self.channel(self.state.channels[message.thread_id])
        return data
