"""The Swiss of the acceptance, on Discord: six players (four people and two AI levels), three rounds of ballot
matches, played by clicks to the podium with a restart of the bot in the middle of round 2. Each round's games are
played as people play them: against an AI the person resigns with the board's button; between two people the first
game of the match is drawn by an offer and its acceptance, and in the second the player with Black resigns; the two
AIs play their own games out. At the end the test works the standings out by hand from the games (score, Buchholz
cut-1, Sonneborn-Berger, games won) and finds that table in the podium's post; every pairing obeys the rules, and the
rated games changed each person's rating once. The real bot on the emulator, the real store, the real AI pool."""

from __future__ import annotations

import asyncio
import re
import time
from collections import defaultdict
from fractions import Fraction

import pytest

from bot.emulator import Message, User
from bot.service import ChannelId, GameId, GameState, GuildId, TournamentRecord, TournamentStatus, UserId
from bot.settings import Settings
from tests.bot.games.conftest import Harness, board_state, component, description, make_settings
from tests.support import eventually

NAME = "Winter Swiss"
ROUNDS = 3


@pytest.fixture
def settings() -> Settings:
    return make_settings(sweep_interval=1.0)


def to_move(board: Message) -> int | None:
    found = re.match(r"<@(\d+)>, your move", board.content)
    return int(found[1]) if found else None


async def click(harness: Harness, user: User, message: Message, prefix: str) -> Message:
    button = component(message, prefix)
    assert button is not None, f"no {prefix} on {message.content!r}"
    return (await harness.emulator.click(user, message, button["custom_id"])).message


async def board_of(harness: Harness, game: GameState) -> Message:
    """The game's board, in the thread the game is filed under."""
    thread = int(game.channel_id)
    assert harness.emulator.state.channels[thread].is_thread, "each game in a thread of its own"

    def found() -> Message | None:
        return next((m for m in harness.emulator.messages(thread) if (board_state(m) or ("", 0))[0] == game.id), None)

    await eventually(lambda: found() is not None, what=f"the board of {game.black.name} vs {game.white.name}")
    board = found()
    assert board is not None
    return board


async def play(harness: Harness, people: dict[int, User], game: GameState, first_of_match: bool) -> None:
    """Play ``game`` out by clicks as the module says (an AI's own game is left to the AIs)."""
    board = await board_of(harness, game)
    if game.black.is_ai and game.white.is_ai:
        return
    if game.black.is_ai or game.white.is_ai:
        person = people[int(game.white.id if game.black.is_ai else game.black.id)]
        await eventually(lambda: to_move(board) == person.id, within=20, what="the person to move")
        asked = await click(harness, person, board, "km:b:resign:")
        await click(harness, person, asked, "km:r:")
    elif first_of_match:  # a draw offered by the one to move, accepted by the other
        await eventually(lambda: to_move(board) is not None, what="someone to move")
        mover = people[to_move(board) or 0]
        other = people[int(game.white.id if mover.id == int(game.black.id) else game.black.id)]
        await click(harness, mover, board, "km:b:draw:")
        await click(harness, other, board, "km:b:drawyes:")
    else:
        black = people[int(game.black.id)]
        asked = await click(harness, black, board, "km:b:resign:")
        await click(harness, black, asked, "km:r:")
    await eventually(lambda: board.content == "Game over.", what="the game over on its board")


def points_of(game: GameState, player: UserId) -> Fraction:
    black = {"1-0": Fraction(1), "0-1": Fraction(0), "1/2-1/2": Fraction(1, 2)}[game.result or ""]
    return black if game.black.id == player else 1 - black


def by_hand(record: TournamentRecord, games: dict[GameId, GameState]) -> list[tuple[str, list[Fraction]]]:
    """The standings worked out from the games alone: (name, [score, Buchholz cut-1, Sonneborn-Berger, wins, round 1
    points, round 2 points, round 3 points]) best first; equal players in the order they entered."""
    score: dict[UserId, Fraction] = defaultdict(Fraction)
    wins: dict[UserId, int] = defaultdict(int)
    opponents: dict[UserId, dict[int, UserId]] = defaultdict(dict)
    by_round: dict[UserId, dict[int, Fraction]] = defaultdict(lambda: defaultdict(Fraction))
    played: list[tuple[UserId, UserId, Fraction]] = []  # (player, opponent, points) a game, both sides
    for board in record.games:
        game = games[board.game_id]
        for me, them in ((game.black.id, game.white.id), (game.white.id, game.black.id)):
            mine = points_of(game, me)
            score[me] += mine
            wins[me] += mine == 1
            opponents[me][board.round] = them
            by_round[me][board.round] += mine
            played.append((me, them, mine))
    table = {}
    for player in record.entrants:
        faced = sorted(score[o] for o in opponents[player].values())
        buchholz_cut1 = sum(faced[1:], Fraction(0))
        sonneborn_berger = sum((score[them] * p for me, them, p in played if me == player), Fraction(0))
        rounds = [by_round[player][n] for n in range(1, ROUNDS + 1)]
        table[player] = [score[player], buchholz_cut1, sonneborn_berger, Fraction(wins[player]), *rounds]
    seeded = [e.id for e in record.model.players]  # the order of equal players
    order = sorted(seeded, key=lambda p: [-v for v in table[p][:4]])
    return [(record.name_of(p), table[p]) for p in order]


def posted(final: Message) -> list[tuple[str, list[Fraction]]]:
    """The table in the podium's post: (name, the numbers of its row)."""
    lines = description(final).splitlines()
    assert lines[0] == "```" and lines[1].split()[:6] == ["#", "Player", "Pts", "BH-1", "SB", "W"], lines[:2]
    rows = []
    for line in lines[2 : lines.index("```", 1)]:
        cells = re.split(r"\s{2,}", line.strip())
        rows.append((cells[1], [number(c) for c in cells[2:]]))
    return rows


QUARTERS = {"¼": Fraction(1, 4), "½": Fraction(1, 2), "¾": Fraction(3, 4)}


def number(cell: str) -> Fraction:
    """``2``, ``1½``, ``¾``: a table's points."""
    part = QUARTERS.get(cell[-1:], Fraction(0))
    return Fraction(int(cell.rstrip("¼½¾") or 0)) + part


async def test_six_players_three_rounds_two_ais_by_clicks_with_a_restart_in_round_2(harness: Harness) -> None:
    emulator = harness.emulator
    names = ("alice", "bob", "carol", "dave")
    people = {u.id: u for u in (harness.user(n) if n != "dave" else emulator.add_user(n) for n in names)}
    alice, bob, carol, dave = people.values()
    options = {"name": NAME, "format": "swiss", "rounds": ROUNDS, "ai_allowed": True, "turn_time": 300}
    announcement = (await emulator.invoke(alice, ["tournament", "create"], options)).message
    assert "Swiss · 3 rounds · ballot matches" in announcement.embeds[0]["description"]
    for person in (bob, carol, dave):
        await click(harness, person, announcement, "km:t:join:")
    for level in ("easy", "medium"):
        added = (await emulator.invoke(alice, ["tournament", "add-ai"], {"level": level})).message
        assert added.content == f"AI ({level}) entered {NAME}."
    await emulator.invoke(alice, ["tournament", "start"])
    assert harness.service is not None
    where = GuildId(str(emulator.guild.id)), ChannelId(str(announcement.channel_id))
    found = await harness.service.tournaments.in_channel(*where)
    assert found is not None
    tid = found.id

    handled: set[GameId] = set()
    restarted = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert harness.service is not None
        record = await harness.service.tournaments.get(tid)
        if record.status is not TournamentStatus.RUNNING:
            break
        acted = False
        for board in [g for g in record.games if g.game_id not in handled]:
            game = (await harness.service.state(board.game_id)).game
            if not game.is_active:
                handled.add(board.game_id)
                continue
            if game.black.is_ai and game.white.is_ai:
                continue  # the AIs play it out
            await play(harness, people, game, first_of_match=board.game == 0)
            handled.add(board.game_id)
            acted = True
            if record.round == 2 and not restarted:  # mid-round 2: its games go on after the restart
                await harness.restart()
                restarted = True
                break
        if not acted:
            await asyncio.sleep(0.2)
    assert restarted

    service = harness.service
    assert service is not None
    assert record.status is TournamentStatus.FINISHED and record.round == ROUNDS
    games = {b.game_id: (await service.state(b.game_id)).game for b in record.games}
    assert len(games) == len(record.games) == ROUNDS * 3 * 2, "three ballot matches a round, two games each"
    assert all(not g.is_active and g.result for g in games.values())

    # the pairings: nobody met twice, everyone played each round, colours swapped within each match, every round a
    # different ballot whose opening was played
    met = [frozenset(p.players) for r in record.model.rounds for p in r.pairings]
    assert len(met) == len(set(met)) == ROUNDS * 3
    openings = []
    for round_ in record.model.rounds:
        assert sorted(round_.players) == sorted(record.entrants) and round_.bye is None
        for board in record.games_of_round(round_.number):
            pairing = round_.pairings[board.board]
            game = games[board.game_id]
            colours = (pairing.black, pairing.white) if board.game == 0 else (pairing.white, pairing.black)
            assert (game.black.id, game.white.id) == colours
            openings.append((round_.number, tuple(str(m) for m in game.moves[:3])))
    assert len({o for _, o in openings}) == ROUNDS, "one ballot a round, a different one each round"

    # the podium, with the table worked out by hand
    await eventually(lambda: any("is over" in m.content for m in emulator.messages()), within=15, what="the podium")
    [final] = [m for m in emulator.messages() if "is over" in m.content]
    expected = by_hand(record, games)
    assert posted(final) == expected
    podium = final.content.splitlines()[1:]
    assert podium[0].startswith("🥇") and len(podium) >= 3, podium
    winner = next((f"<@{u.id}>" for u in people.values() if u.name == expected[0][0]), f"**{expected[0][0]}**")
    assert winner in podium[0], "the winner named (pinged, if a person) on the podium's first line"

    # ratings: a rated game between people changed both players' ratings once; games with an AI are not rated
    for person in people.values():
        rated = [g for g in games.values() if g.rated and UserId(str(person.id)) in (g.black.id, g.white.id)]
        assert rated and all(not (g.black.is_ai or g.white.is_ai) for g in rated)
        stats = await service.stats(UserId(str(person.id)), guild_id=where[0])
        assert stats.rating.games == len(rated), person.name
