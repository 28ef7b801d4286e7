"""A room (a thread opened for a game that then did not start) is closed in the same atomic write that files games:
a game is never filed in a room that is closing, and a closed room takes no new game."""

from __future__ import annotations

import pytest

from bot.service import ChannelId, GameService, GuildId, RoomClosedError, User

from .conftest import ai_idle

ANN, BEN = User(101, "Ann"), User(102, "Ben")
GUILD, ROOM = GuildId("1"), ChannelId("77")


async def test_a_room_with_a_game_is_not_closed(service: GameService) -> None:
    result = await service.play_ai(GUILD, ROOM, ANN, "easy")
    assert not await service.close_room(GUILD, ROOM), "a room where a game is filed stays open"
    assert [v.id for v in await service.channel_games(GUILD, ROOM)] == [result.game.id if result.game else None]
    await ai_idle(service)


async def test_a_closed_room_takes_no_new_game(service: GameService) -> None:
    assert await service.close_room(GUILD, ROOM)
    with pytest.raises(RoomClosedError):
        await service.play_ai(GUILD, ROOM, BEN, "easy")
    with pytest.raises(RoomClosedError):
        await service.exhibition(GUILD, ROOM, "easy", "easy")
    assert await service.channel_games(GUILD, ROOM) == []
    other = await service.play_ai(GUILD, ChannelId("78"), BEN, "easy")  # other rooms are not touched
    assert other.game is not None
    await ai_idle(service)
