"""Tournaments on Discord, driven as people drive them: ``/tournament create`` posts an announcement whose Join button
enters people, the creator adds an AI and starts it, each game is played in a thread of its own with its board (moves
from the menus, resignations by the board's button or ``/checkers resign``), each round's pairings and the final
podium are posted in the channel; the refusals, a manager's cancel, and a Join button that works after a restart.
The real bot on the emulator, the real store, the real AI pool."""

from __future__ import annotations

import calendar
import re
import time
from typing import Any

import pytest

from bot.emulator import Channel, InteractionHandle, Message, User
from bot.games._tournament_render import announcement, contents, pairing_lines, podium, podium_pings, standings_embeds
from bot.i18n import language
from bot.service import (
    ChannelId,
    Entrant,
    GameId,
    GameState,
    GuildId,
    MatchKind,
    Tournament,
    TournamentFormat,
    TournamentId,
    TournamentRecord,
    TournamentStatus,
    UserId,
    pair_swiss,
    tournament_standings,
)
from bot.service._tournament_model import WIN
from bot.settings import Settings
from tests.bot.games.conftest import (
    Harness,
    board_state,
    component,
    custom_ids,
    description,
    make_settings,
    play_first_move,
    resign,
)
from tests.support import eventually

NAME = "Autumn Swiss"


@pytest.fixture
def settings() -> Settings:
    return make_settings(sweep_interval=1.0)  # a result another advance missed is picked up within a second


@pytest.fixture
def sweeping() -> bool:
    return True  # the sweeper runs beside the bot, as in `kingme`: what an advance missed is done within a second


def tournament(harness: Harness, user: User, name: str, options: dict[str, Any] | None = None) -> InteractionHandle:
    return harness.emulator.invoke(user, ["tournament", name], options or {})


def entrants(announcement: Message) -> str:
    [field] = [f for f in announcement.embeds[0].get("fields") or [] if f["name"].startswith("Entrants")]
    return f"{field['name']}: {field['value']}"


async def create(harness: Harness, user: User, **options: Any) -> Message:
    """``/tournament create``; returns its announcement (the command's public answer)."""
    reply = await tournament(harness, user, "create", {"name": NAME, **options})
    announcement = reply.message
    assert not announcement.ephemeral, announcement.content
    return announcement


async def click(harness: Harness, user: User, message: Message, action: str) -> Message:
    """Click Join or Leave on an announcement; returns what the clicker alone is told."""
    button = component(message, f"km:t:{action}:")
    assert button is not None, custom_ids(message)
    reply = await harness.emulator.click(user, message, button["custom_id"])
    state = harness.emulator.state

    def told() -> list[Message]:
        answers = [state.messages[i] for i in reply.interaction.message_ids if i in state.messages]
        return [m for m in answers if m.ephemeral]

    await eventually(told, what=f"{user.name} told of {action}")
    return told()[0]


def tournament_id(announcement: Message) -> TournamentId:
    """The tournament's id, from its Join button."""
    button = component(announcement, "km:t:join:")
    assert button is not None
    return TournamentId(button["custom_id"].split(":")[3])


def refused(message: Message, text: str) -> None:
    assert message.ephemeral and text.lower() in message.content.lower(), message.content


async def boards_of_round(harness: Harness, number: int) -> list[tuple[Channel, Message, GameState]]:
    """Each game of round ``number``: its thread (named after the players, the tournament and the round), its board
    there, and the game."""
    emulator = harness.emulator
    suffix = f" · {NAME} R{number}"
    await eventually(
        lambda: len([t for t in emulator.threads() if t.name.endswith(suffix)]) == 2, what=f"round {number}'s threads"
    )
    found = []
    for thread in (t for t in emulator.threads() if t.name.endswith(suffix)):
        await eventually(
            lambda t=thread: any(board_state(m) for m in emulator.messages(t)),  # type: ignore[misc]
            what=f"the board in {thread.name}",
        )
        board = next(m for m in emulator.messages(thread) if board_state(m))
        state = board_state(board)
        assert state is not None and harness.service is not None
        game = (await harness.service.state(GameId(state[0]))).game
        assert thread.name == f"{game.black.name} vs {game.white.name}{suffix}"
        assert str(thread.id) == game.channel_id, "the game is filed under its thread"
        found.append((thread, board, game))
    return found


def pairings_post(harness: Harness, number: int) -> Message:
    posts = [m for m in harness.emulator.messages() if f"round {number} of 2" in m.content and "📋" in m.content]
    assert len(posts) == 1, [m.content for m in posts]
    return posts[0]


async def test_a_swiss_from_its_announcement_to_its_podium_with_a_restart_in_round_2(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")
    people = {u.id: u for u in (alice, bob, carol)}
    options = {"format": "swiss", "rounds": 2, "match": "single", "ai_allowed": True, "turn_time": 300}
    announcement = await create(harness, alice, **options)
    tid = tournament_id(announcement)
    embed = announcement.embeds[0]
    assert embed["title"] == f"🏆 {NAME}"
    assert "Swiss · 2 rounds · single games" in embed["description"]
    assert "5 minutes a move · rated" in embed["description"] and "click **Join**" in embed["description"]
    assert entrants(announcement) == "Entrants (1/32): alice"
    assert [c.split(":")[2] for c in custom_ids(announcement)] == ["join", "leave"]

    told = await click(harness, bob, announcement, "join")
    assert told.content == f"You entered {NAME}."
    assert entrants(announcement) == "Entrants (2/32): alice, bob", "the announcement clicked shows the entry"
    refused(await click(harness, bob, announcement, "join"), "already entered")
    await click(harness, carol, announcement, "join")
    refused((await tournament(harness, carol, "start")).message, "only the tournament's creator or a server manager")
    refused((await tournament(harness, carol, "pairings")).message, "no round is paired yet")

    added = (await tournament(harness, alice, "add-ai", {"level": "easy"})).message
    assert added.ephemeral and added.content == f"AI (easy) entered {NAME}."
    await eventually(lambda: "AI (easy)" in entrants(announcement), what="the announcement edited")
    assert entrants(announcement) == "Entrants (4/32): alice, bob, carol, AI (easy)"

    started = (await tournament(harness, alice, "start")).message
    assert started.ephemeral and started.content.startswith(f"{NAME} has started")
    await eventually(lambda: custom_ids(announcement) == [], what="Join and Leave gone from the announcement")
    assert "Round 1 of 2 is being played." in announcement.embeds[0]["description"]

    for number in (1, 2):
        games = await boards_of_round(harness, number)
        await eventually(lambda n=number: any(f"round {n} of 2" in m.content for m in emulator.messages()))  # type: ignore[misc]
        post = pairings_post(harness, number)
        assert "Board 1: " in post.content and "Board 2: " in post.content
        for thread, _board, game in games:
            assert f"<#{thread.id}>" in post.content, "each board links to its game's thread"
            for player in (game.black, game.white):
                shown = player.name if player.is_ai else f"<@{player.id}>"
                assert shown in post.content, "the people who play are mentioned"
        if number == 2:  # the bot restarts in the middle of round 2: its games go on, nothing is paired twice
            await harness.restart()
            assert harness.service is not None
            await harness.service.sweep()  # what the sweeper does on its timer: an advance the stop cut short is redone
        if number == 1:  # mid-tournament: the pairings and the standings on request
            shown = (await tournament(harness, bob, "pairings")).message
            assert not shown.ephemeral and all(f"<#{t.id}>" in shown.content for t, _b, _g in games)
            table = description((await tournament(harness, bob, "standings")).message)
            assert table.startswith("```") and "Pts" in table and "BH-1" in table and "R1" in table
            assert all(name in table for name in ("alice", "bob", "carol", "AI (easy)"))
        for thread, board, game in games:
            person = next(p for p in (game.black, game.white) if not p.is_ai)
            if game.black.is_ai or game.white.is_ai:
                await resign(harness, people[int(person.id)], channel=thread)  # /checkers resign in the thread
                continue
            black, white = people[int(game.black.id)], people[int(game.white.id)]
            await play_first_move(harness, black, board)  # a move with the menus, as in any game
            mention = f"<@{white.id}>, your move"
            await eventually(lambda b=board, m=mention: m in b.content, what="white to move")  # type: ignore[misc]
            button = component(board, "km:b:resign:")
            assert button is not None
            asked = (await emulator.click(white, board, button["custom_id"])).message
            confirm = component(asked, "km:r:")
            assert confirm is not None
            await emulator.click(white, asked, confirm["custom_id"])
            await eventually(lambda t=thread: any("🏁" in m.content for m in emulator.messages(t)), what="result")

    assert harness.service is not None
    await harness.service.sweep()  # as the sweeper would, should the last result's own advance have been cut short
    await eventually(lambda: any("is over" in m.content for m in emulator.messages()), within=30, what="the podium")
    record = await harness.service.tournaments.get(tid)
    assert record.status is TournamentStatus.FINISHED and record.round == 2
    assert len(record.games) == 4 and len({g.game_id for g in record.games}) == 4, "two boards a round, once each"
    assert len([m for m in emulator.messages() if "round 2 of 2" in m.content]) == 1, "round 2 announced once"
    final = next(m for m in emulator.messages() if "is over" in m.content)
    assert final.content.startswith(f"🏁 **{NAME}** is over.")
    rows = tournament_standings(record.model)
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    podium = final.content.splitlines()[1:]
    expected = [
        f"{medals[r.rank]} {'**AI (easy)**' if r.player.startswith('ai:') else f'<@{r.player}>'}"
        for r in rows
        if r.rank <= 3
    ]
    assert [line.rsplit(" · ", 1)[0] for line in podium] == expected
    table = description(final)
    assert table.startswith("```") and "R1" in table and "R2" in table
    first_row = table.splitlines()[2]  # the code fence, the heading, then the winner
    assert first_row.split()[0] == "1" and record.name_of(rows[0].player).split()[0] in first_row
    finished = "Finished after 2 rounds."
    await eventually(lambda: finished in announcement.embeds[0]["description"], what="the announcement at the end")
    refused((await tournament(harness, bob, "standings")).message, "there is no tournament in this channel")


async def test_refusals_and_a_managers_cancel(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")
    refused((await tournament(harness, bob, "join")).message, "there is no tournament in this channel")
    announcement = await create(harness, alice, rounds=1)
    refused((await tournament(harness, bob, "create")).message, "this channel has a tournament already")
    joined = (await tournament(harness, bob, "join")).message
    assert joined.ephemeral and joined.content == f"You entered {NAME}."
    await eventually(lambda: entrants(announcement) == "Entrants (2/32): alice, bob", what="the announcement edited")
    refused((await tournament(harness, bob, "join")).message, "already entered")
    refused((await tournament(harness, bob, "add-ai", {"level": "easy"})).message, "only the tournament's creator")
    refused((await tournament(harness, alice, "add-ai", {"level": "easy"})).message, "for people only")
    refused((await tournament(harness, alice, "leave")).message, "cancel it instead")
    refused(await click(harness, carol, announcement, "leave"), "not entered")
    refused((await tournament(harness, carol, "cancel")).message, "only the tournament's creator or a server manager")

    emulator.guild.manager_ids.append(carol.id)  # Manage Server
    cancelled = (await tournament(harness, carol, "cancel")).message
    assert cancelled.ephemeral and cancelled.content == f"You cancelled {NAME}."
    news = f"🚫 **{NAME}** is cancelled: games being played go on, unscored."
    await eventually(lambda: any(m.content == news for m in emulator.messages()), what="the news in the channel")
    await eventually(lambda: custom_ids(announcement) == [], what="the buttons gone")
    assert "Cancelled." in announcement.embeds[0]["description"]
    refused((await tournament(harness, alice, "start")).message, "there is no tournament in this channel")


async def test_the_join_button_works_after_a_restart(harness: Harness) -> None:
    alice, dave = harness.user("alice"), harness.emulator.add_user("dave")
    announcement = await create(harness, alice, match="single")
    await harness.restart()
    told = await click(harness, dave, announcement, "join")
    assert told.content == f"You entered {NAME}."
    assert entrants(announcement) == "Entrants (2/32): alice, dave"
    left = (await tournament(harness, dave, "leave")).message
    assert left.ephemeral and left.content == f"You left {NAME}."
    await eventually(lambda: entrants(announcement) == "Entrants (1/32): alice", what="the recorded message edited")
    assert re.fullmatch(r"km:t:join:\w+", custom_ids(announcement)[0])


def big_swiss(rounds: int) -> TournamentRecord:
    """256 entrants with 32-character names (Discord's longest display name), ``rounds`` Swiss rounds played."""
    players = tuple(Entrant(UserId(str(10**17 + i)), 1500) for i in range(256))
    model = Tournament(TournamentFormat.SWISS, MatchKind.SINGLE, players, seed=7)
    for number in range(1, rounds + 1):
        paired = pair_swiss(model)
        model = model.with_round(paired)
        for pairing in paired.pairings:
            model = model.with_result(number, pairing.black, 0, WIN)
    names = {e.id: f"player {i:03d} with a long name ....."[:32] for i, e in enumerate(players)}
    return TournamentRecord(
        id=TournamentId("abc123"),
        guild_id=GuildId("1"),
        channel_id=ChannelId("2"),
        creator=players[0].id,
        name="A tournament with a name of a hundred characters, which is the longest a tournament's name may be.",
        variant="american",
        turn_time=300.0,
        rated=True,
        rounds_planned=20,
        max_players=256,
        ai_allowed=False,
        created_at=0.0,
        model=model,
        status=TournamentStatus.RUNNING if rounds else TournamentStatus.OPEN,
        names=names,
    )


@pytest.mark.parametrize("locale", ["en-US", "fr"])
def test_a_full_field_fits_discords_limits_in_whole_lines(locale: str) -> None:
    lang = language(locale)
    opened = announcement(big_swiss(0), lang)["embed"]
    assert len(opened) <= 6000 and all(len(f.value or "") <= 1024 for f in opened.fields)
    assert opened.fields[0].value and opened.fields[0].value.endswith(("more", "autres")), "the rest counted, not cut"

    record = big_swiss(20)
    rows = tournament_standings(record.model)
    pages = standings_embeds(record, rows, lang)
    table = []
    for page in pages:
        assert len(page.description or "") <= 4096 and len(page) <= 6000 and len(page.title or "") <= 256
        lines = (page.description or "").splitlines()
        assert lines[0] == lines[-1] == "```"
        table += lines[1:-1]
    assert len(table) == len(pages) + 256, "a heading on each page and every player once, whole"
    assert len(pages[-1].footer.text or "") <= 2048

    posts = contents(pairing_lines(record, 20, {}, lang))
    assert len(posts) > 1 and all(len(post) <= 2000 for post in posts)
    assert sum(post.count("<@") for post in posts) == 256, "every player of the round"

    tied = big_swiss(0)  # nobody has scored: all 256 share first place
    tied_rows = tournament_standings(tied.model)
    texts = contents(podium(tied, tied_rows, lang))
    assert all(len(text) <= 2000 for text in texts) and sum(t.count("🥇") for t in texts) == 256
    assert len(podium_pings(tied_rows).users) == 100  # type: ignore[arg-type]


async def test_an_arena_set_for_a_time_starts_by_itself(harness: Harness) -> None:
    """``format:arena`` with its minutes and a ``start`` time: the announcement says both; the sweep starts it at its
    time and pairs everyone; a start that is no date is refused plainly."""
    alice, bob = harness.user("alice"), harness.user("bob")
    refused((await tournament(harness, alice, "create", {"start": "tomorrow at six"})).message, "YYYY-MM-DD HH:MM")
    at = time.gmtime(harness.clock() + 3600)
    start = time.strftime("%Y-%m-%d %H:%M", at)
    announcement = await create(harness, alice, format="arena", minutes=10, match="single", start=start)
    description = announcement.embeds[0]["description"]
    starts = calendar.timegm(at) // 60 * 60
    assert "Arena · 10 minutes" in description and f"It starts <t:{starts}:F>" in description, description
    await tournament(harness, bob, "join")
    assert harness.service is not None
    harness.clock.advance(3700)
    await harness.service.sweep()  # what the sweeper does on its timer (the harness runs none)
    where = GuildId(str(announcement.guild_id)), ChannelId(str(announcement.channel_id))

    await eventually(lambda: "it ends" in announcement.embeds[0]["description"], within=20, what="started on time")
    record = await harness.service.tournaments.in_channel(*where)
    assert record is not None and record.round == 1 and len(record.games) == 1, "both paired at once"
