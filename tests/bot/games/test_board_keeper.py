"""The board keeper's memory is bounded: it knows the games shown last, and finds a forgotten game's board where the
board is recorded with the game."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.games._board import BoardMessage
from bot.games._keeper import BoardKeeper, Spot
from bot.service import ChannelId, GameView, GuildId, User
from tests.bot.games.conftest import Harness

SHOWN = 1000
REMEMBER = 100


async def test_the_keeper_remembers_only_the_games_shown_last(harness: Harness) -> None:
    assert harness.bot is not None and harness.service is not None
    keeper = BoardKeeper(harness.bot, harness.service, remember=REMEMBER)
    played = await harness.service.play_ai(GuildId("1"), ChannelId("2"), User(3, "alice"), "easy")
    assert played.game is not None
    game = played.game.game

    def view(i: int, version: int) -> GameView:
        return GameView.of(replace(game, id=f"game{i}", version=version), 0.0)

    shown = [view(i, 2) for i in range(SHOWN)]
    for newer in shown:
        assert keeper.newest(newer) is newer
    # a remembered game keeps its newer view against an older one; a forgotten game takes the older one
    remembered = [i for i in reversed(range(SHOWN)) if keeper.newest(view(i, 1)) is shown[i]]
    assert sorted(remembered) == list(range(SHOWN - REMEMBER, SHOWN))


async def test_a_forgotten_games_board_is_found_where_it_is_recorded(harness: Harness) -> None:
    assert harness.bot is not None and harness.service is not None
    keeper = BoardKeeper(harness.bot, harness.service, remember=REMEMBER)
    played = await harness.service.play_ai(GuildId("1"), ChannelId("2"), User(3, "alice"), "easy")
    assert played.game is not None and played.game.game.board_message is None
    await keeper.place(played.game, 10, 20)
    assert keeper.spot(played.game.game) == Spot(10, 20)

    for i in range(REMEMBER):
        keeper.newest(GameView.of(replace(played.game.game, id=f"other{i}"), 0.0))
    assert keeper.spot(played.game.game) is None, "forgotten, and this old view has no board recorded"
    stored = await harness.service.state(played.game.id)
    assert keeper.spot(stored.game) == Spot(10, 20)


async def test_a_click_on_a_busy_board_is_acknowledged_at_once_not_after_its_patience(harness: Harness) -> None:
    """An update holds the game's board (an edit waiting out the channel's rate limit): a click's update, queued
    behind it, acknowledges its interaction at once instead of after its patience, then shows once the board is free."""
    assert harness.bot is not None and harness.service is not None
    keeper = BoardKeeper(harness.bot, harness.service, remember=REMEMBER)
    played = await harness.service.play_ai(GuildId("1"), ChannelId("2"), User(3, "alice"), "easy")
    assert played.game is not None
    view = played.game
    release, holding, acknowledged = asyncio.Event(), asyncio.Event(), asyncio.Event()
    shown: list[str] = []

    async def slow_edit(board: BoardMessage) -> None:
        holding.set()
        await release.wait()
        shown.append("edit")

    async def click(board: BoardMessage) -> None:
        shown.append("click")

    async def acknowledge() -> None:
        acknowledged.set()

    edit = asyncio.create_task(keeper.show(view, slow_edit))
    await holding.wait()
    answer = asyncio.create_task(keeper.show(view, click, waiting=acknowledge, patience=60.0))
    try:
        await asyncio.wait_for(acknowledged.wait(), 5.0)  # not the 60 s of patience
        assert shown == [], "acknowledged while the board is still busy"
    finally:
        release.set()
        await asyncio.gather(edit, answer)
    assert shown == ["edit", "click"], "then shown, in order"
