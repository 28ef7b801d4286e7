"""Puzzles through Discord (the real bot on the emulator, the real Redis): ``/checkers puzzle`` solved with the menus,
one failed with its line shown, a retry, a hint, a vote, a stale board, a click sent twice, a typed move, and the
ratings of the player and of the puzzles against Glicko-2 computed here."""

from __future__ import annotations

import asyncio

import pytest

from ai.puzzles import Puzzle, puzzle
from bot.emulator import Message, User
from bot.service import PuzzleSession, UserId
from tests.bot.games.conftest import Harness, component, custom_ids, description
from tests.bot.service.test_puzzles import glicko, wrong_first_move
from tests.support import eventually


def fields(message: Message) -> dict[str, str]:
    return {str(f["name"]): str(f["value"]) for e in message.embeds for f in e.get("fields") or []}


def moved_on(harness: Harness, user: User) -> int:
    """How many private "your puzzle moved on" lines ``user`` was sent."""
    return sum(m.ephemeral and "moved on" in m.content for m in harness.emulator.messages(visible_to=user))


async def session_of(harness: Harness, user: User) -> PuzzleSession:
    assert harness.service is not None
    found = await harness.service.puzzles.current(UserId(str(user.id)))
    assert found is not None
    return found


def shipped(session: PuzzleSession) -> Puzzle:
    found = puzzle(session.puzzle_id)
    assert found is not None
    return found


async def play_move(harness: Harness, user: User, message: Message, move: str) -> None:
    """Play ``move`` with the menus: its piece, then (when the piece has more than one move) the move."""
    piece_menu = component(message, "km:zp:")
    assert piece_menu is not None, custom_ids(message)
    start = move.replace("x", "-").split("-")[0]
    assert start in [o["value"] for o in piece_menu["options"]]
    await harness.emulator.select(user, message, piece_menu["custom_id"], [start])
    move_menu = component(message, "km:zm:")
    if move_menu is not None:
        await harness.emulator.select(user, message, move_menu["custom_id"], [move])


async def test_solve_fail_retry_and_the_ratings(harness: Harness) -> None:
    alice = harness.user("alice")
    answer: Message = (await harness.command(alice, "puzzle")).message
    assert answer.ephemeral and answer.embeds[0]["title"].startswith("Puzzle ")
    first = await session_of(harness, alice)
    p1 = shipped(first)
    assert "to play and" in description(answer)
    assert "Themes" not in fields(answer)  # hidden until solved
    for move in p1.solver_moves:
        await play_move(harness, alice, answer, move)
    assert "Solved!" in description(answer), description(answer)
    r1, rd1 = glicko((1500.0, 350.0, 0.06), (p1.rating, 350.0), 1.0)
    assert f"1500 → {round(r1)}" in fields(answer)["Your puzzle rating"]
    assert "streak 1" in fields(answer)["Your puzzle rating"]
    assert "Themes" in fields(answer)
    assert harness.service is not None
    player = await harness.service.puzzles.player(UserId(str(alice.id)))
    assert player.rating.rating == pytest.approx(r1, abs=1e-6) and player.rating.rd == pytest.approx(rd1, abs=1e-6)
    store = harness.service._store  # the puzzle's record itself
    p1_rating = await store.load_puzzle_rating(p1.id)
    want, _ = glicko((float(p1.rating), 350.0, 0.06), (1500.0, 350.0), 0.0)
    assert p1_rating is not None and p1_rating.rating == pytest.approx(want, abs=1e-6)

    vote = component(answer, "km:zb:up:")
    assert vote is not None
    await harness.emulator.click(alice, answer, vote["custom_id"])
    assert "👍 1" in fields(answer)["Votes"]

    following = component(answer, "km:zb:next:")
    assert following is not None
    await harness.emulator.click(alice, answer, following["custom_id"])
    second = await session_of(harness, alice)
    p2 = shipped(second)
    assert p2.id != p1.id and second.active
    wrong = wrong_first_move(p2)
    await play_move(harness, alice, answer, wrong)
    assert f"{wrong} is not the move" in description(answer)
    assert fields(answer)["The line"].startswith(f"**{p2.solution[0]}**")
    before = player.rating
    r2, _ = glicko((before.rating, before.rd, before.vol), (p2.rating, 350.0), 0.0)
    player = await harness.service.puzzles.player(UserId(str(alice.id)))
    assert player.rating.rating == pytest.approx(r2, abs=1e-6) and player.streak == 0

    retry = component(answer, "km:zb:retry:")
    assert retry is not None
    await harness.emulator.click(alice, answer, retry["custom_id"])
    again = await session_of(harness, alice)
    assert again.puzzle_id == p2.id and not again.rated and again.active
    assert "A retry" in answer.embeds[0]["footer"]["text"]
    other: Message = (await harness.command(alice, "puzzle")).message  # the puzzle going, shown again
    assert (await session_of(harness, alice)).version == again.version
    await harness.emulator.click(alice, other, component(other, "km:zb:hint:")["custom_id"])  # type: ignore[index]
    stale_menu = component(answer, "km:zp:")
    assert stale_menu is not None
    await harness.emulator.select(alice, answer, stale_menu["custom_id"], [stale_menu["options"][0]["value"]])
    await eventually(lambda: moved_on(harness, alice) == 1, what="a private line on why the board changed")
    assert custom_ids(answer) == custom_ids(other), "the stale board now shows the puzzle as it stands"
    assert (await session_of(harness, alice)).version == again.version + 1, "the stale click played nothing"
    for move in p2.solver_moves:
        await play_move(harness, alice, other, move)
    assert "Solved, with a hint" in description(other)
    assert (await harness.service.puzzles.player(UserId(str(alice.id)))).rating == player.rating  # not rated

    stats: Message = (await harness.command(alice, "stats")).message
    assert "Puzzles" in fields(stats) and str(round(r2)) in fields(stats)["Puzzles"]


async def test_hint_give_up_and_a_typed_move(harness: Harness) -> None:
    bob = harness.user("bob")
    answer: Message = (await harness.command(bob, "puzzle")).message
    hint = component(answer, "km:zb:hint:")
    assert hint is not None
    await harness.emulator.click(bob, answer, hint["custom_id"])
    session = await session_of(harness, bob)
    square = session.hint_square()
    assert f"move the piece on {square}" in description(answer)
    assert component(answer, "km:zb:hint:") is None

    p = shipped(session)
    for bad in ("99-100", "hello", "1-2"):  # not a move, not one of this position
        refused: Message = (await harness.command(bob, "move", {"move": bad})).message
        assert refused.ephemeral and 0 < len(refused.content) <= 300 and not refused.embeds, refused.content
    assert (await session_of(harness, bob)).version == session.version, "a refused move changes nothing"
    offered = await harness.emulator.autocomplete(bob, ["checkers", "move"], {"move": ""}, "move")
    assert p.solution[0] in [c["value"] for c in offered.choices], "the autocomplete offers the puzzle's moves"
    typed: Message = (await harness.command(bob, "move", {"move": p.solution[0]})).message
    assert typed.ephemeral
    now = await session_of(harness, bob)
    assert now.played[:1] == (p.solution[0],)
    if now.active:
        give_up = component(typed, "km:zb:giveup:")
        assert give_up is not None
        await harness.emulator.click(bob, typed, give_up["custom_id"])
        assert "You gave up" in description(typed)
    player = await harness.service.puzzles.player(UserId(str(bob.id)))  # type: ignore[union-attr]
    assert player.rating.losses == 1  # a hint: counted as not solved


async def test_a_click_sent_twice_is_applied_once_and_both_answers_show_the_result(harness: Harness) -> None:
    carol = harness.user("carol")
    answer: Message = (await harness.command(carol, "puzzle")).message
    give_up = component(answer, "km:zb:giveup:")
    assert give_up is not None
    twice = [harness.emulator.click(carol, answer, give_up["custom_id"]) for _ in range(2)]
    await asyncio.gather(*(handle.wait() for handle in twice))
    assert "You gave up" in description(answer)
    await eventually(lambda: moved_on(harness, carol) == 1, what="the repeat's private line")  # with the result shown
    player = await harness.service.puzzles.player(UserId(str(carol.id)))  # type: ignore[union-attr]
    assert player.rating.losses == 1 and player.rating.wins == 0, "given up once, rated once"
