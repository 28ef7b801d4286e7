"""``/checkers analyse`` end to end: a game between two people with a deliberate blunder, played with ``/checkers move``
in its thread, reviewed by the real AI pool at low priority, stored in Redis, shown as an ephemeral embed that marks the
blunder; the Analyse button under the result, and the pages of a long review."""

from __future__ import annotations

from typing import Any

from ai.review import GameReview, Judgement, MoveReview, PlayerReview
from bot.emulator import Message, User
from bot.service import ChannelId, GuildId
from bot.store import RedisGameStore
from tests.bot.games.conftest import Harness, component, custom_ids, game_thread, play_ai
from tests.bot.games.test_challenge import start_game
from tests.support import eventually

OPENING = ("11-15", "23-19")
BLUNDER = "12-16"
"""Black's third move walks into 19x12, White's only answer: a man lost for nothing."""


def fields(message: Message) -> dict[str, str]:
    [embed] = message.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


async def move(harness: Harness, user: User, text: str, channel: Any) -> None:
    reply = await harness.command(user, "move", {"move": text}, channel=channel)
    assert reply.message.ephemeral and "You played" in reply.message.content, reply.message.content


async def test_a_blunder_is_marked_in_the_review_and_the_analyse_button_shows_it_too(harness: Harness) -> None:
    emulator = harness.emulator
    carol = harness.user("carol")
    _, black, white = await start_game(harness)
    [thread] = emulator.threads()

    for mover, text in zip((black, white, black), (*OPENING, BLUNDER), strict=True):
        await move(harness, mover, text, thread)
    assert harness.service is not None
    [game] = await harness.service.channel_games(GuildId(str(emulator.guild.id)), ChannelId(str(thread.id)))
    early = await harness.command(black, "analyse", {"game": game.id}, channel=thread)
    assert early.message.ephemeral
    assert early.message.content == "That game is still being played: review it when it ends."

    await move(harness, white, "19x12", thread)
    resigned = await harness.command(black, "resign", channel=thread)
    confirm = component(resigned.message, "km:r:")
    assert confirm is not None
    await emulator.click(black, resigned.message, confirm["custom_id"])
    await eventually(lambda: any("🏁" in m.content for m in emulator.messages(thread)), what="the result message")
    result = next(m for m in emulator.messages(thread) if "🏁" in m.content)
    assert custom_ids(result) == [f"km:a:{game.id}"]

    review = (await harness.command(black, "analyse", channel=thread)).message  # the last game, by default
    assert review.ephemeral and review.embeds, review.content
    shown = fields(review)
    [moment] = [name for name in shown if name.startswith("Move ")]
    assert f"{BLUNDER}??" in moment and "blunder" in moment and "Move 2" in moment
    assert "Better: **" in shown[moment] and BLUNDER not in shown[moment].split("Better: ")[1].split(",")[0]
    assert "1 blunder" in shown[next(name for name in shown if black.name in name)]
    assert "0 blunders" in shown[next(name for name in shown if white.name in name)]
    assert custom_ids(review) == [], "one page: no page buttons"

    stored = await RedisGameStore(harness.redis).load_review(game.id)
    assert stored is not None
    judged = GameReview.from_json(stored)
    assert [m.judgement for m in judged.moves[2:]] == [Judgement.BLUNDER, Judgement.FORCED]

    clicked = (await emulator.click(carol, result, f"km:a:{game.id}")).message  # a spectator may look too
    assert clicked.ephemeral and clicked.visible_to == carol.id
    assert fields(clicked) == shown, "the stored review, shown again"
    assert await RedisGameStore(harness.redis).load_review(game.id) == stored, "computed once"


def blunders(count: int) -> tuple[MoveReview, ...]:
    return tuple(
        MoveReview(2 * i + 1, "9-13", "black", Judgement.BLUNDER, 0.3, 0.5, 0.2, "11-15", ("11-15", "22-18"))
        for i in range(count)
    )


async def test_a_long_review_is_paged_with_previous_and_next(harness: Harness) -> None:
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": "easy"})
    game_id = board.embeds[0]["footer"]["text"].split("game ")[1].split(" ")[0]
    resigned = await harness.command(alice, "resign", channel=game_thread(harness, board))
    confirm = component(resigned.message, "km:r:")
    assert confirm is not None
    await harness.emulator.click(alice, resigned.message, confirm["custom_id"])
    many = GameReview(
        "american", 50_000, (), blunders(7), PlayerReview("black", 0.0, 0, 0, 7), PlayerReview("white", None)
    )
    await RedisGameStore(harness.redis).save_review(game_id, many.to_json())

    review = (await harness.command(alice, "analyse", {"game": game_id})).message
    assert review.embeds[0]["description"].endswith("7 key moments · page 1 of 2")
    assert sum(name.startswith("Move ") for name in fields(review)) == 5
    previous, following = (c for c in review.iter_components() if c.get("custom_id", "").startswith("km:rv:"))
    assert previous["disabled"] and not following.get("disabled")
    await harness.emulator.click(alice, review, following["custom_id"])
    assert review.embeds[0]["description"].endswith("page 2 of 2")
    assert [name.split(" ·")[0] for name in fields(review) if name.startswith("Move ")] == ["Move 6", "Move 7"]
    back = next(c for c in review.iter_components() if c.get("label") == "◀ Previous")
    await harness.emulator.click(alice, review, back["custom_id"])
    assert review.embeds[0]["description"].endswith("page 1 of 2")
