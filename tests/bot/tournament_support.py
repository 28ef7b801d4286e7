"""A Swiss driven on Discord as people drive it, for the tournament acceptance tests: each game played out by clicks
(:func:`play`), the standings worked out by hand from the games (:func:`by_hand`) and read back from the podium's post
(:func:`posted`)."""

from __future__ import annotations

import asyncio
import re
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from fractions import Fraction

from bot.emulator import Channel, DiscordEmulator, Message, User
from bot.service import GameId, GameState, TournamentRecord, TournamentStatus, UserId
from tests.bot.games.conftest import board_state, component, description
from tests.support import eventually


def to_move(board: Message) -> int | None:
    found = re.match(r"<@(\d+)>, your move", board.content)
    return int(found[1]) if found else None


async def click(emulator: DiscordEmulator, user: User, message: Message, prefix: str) -> Message:
    button = component(message, prefix)
    assert button is not None, f"no {prefix} on {message.content!r}"
    return (await emulator.click(user, message, button["custom_id"])).message


async def board_of(emulator: DiscordEmulator, game: GameState) -> Message:
    """The game's board, in the thread the game is filed under."""
    thread = int(game.channel_id)
    assert emulator.state.channels[thread].is_thread, "each game in a thread of its own"

    def found() -> Message | None:
        return next((m for m in emulator.messages(thread) if (board_state(m) or ("", 0))[0] == game.id), None)

    await eventually(lambda: found() is not None, what=f"the board of {game.black.name} vs {game.white.name}")
    board = found()
    assert board is not None
    return board


async def play(emulator: DiscordEmulator, people: Mapping[int, User], game: GameState, first_of_match: bool) -> None:
    """Play ``game`` out by clicks as the module says (an AI's own game is left to the AIs)."""
    board = await board_of(emulator, game)
    if game.black.is_ai and game.white.is_ai:
        return
    if game.black.is_ai or game.white.is_ai:
        person = people[int(game.white.id if game.black.is_ai else game.black.id)]
        await eventually(lambda: to_move(board) == person.id, within=20, what="the person to move")
        asked = await click(emulator, person, board, "km:b:resign:")
        await click(emulator, person, asked, "km:r:")
    elif first_of_match:  # a draw offered by the one to move, accepted by the other
        await eventually(lambda: to_move(board) is not None, what="someone to move")
        mover = people[to_move(board) or 0]
        other = people[int(game.white.id if mover.id == int(game.black.id) else game.black.id)]
        await click(emulator, mover, board, "km:b:draw:")
        await click(emulator, other, board, "km:b:drawyes:")
    else:
        black = people[int(game.black.id)]
        asked = await click(emulator, black, board, "km:b:resign:")
        await click(emulator, black, asked, "km:r:")
    await eventually(lambda: board.content == "Game over.", what="the game over on its board")


def points_of(game: GameState, player: UserId) -> Fraction:
    black = {"1-0": Fraction(1), "0-1": Fraction(0), "1/2-1/2": Fraction(1, 2)}[game.result or ""]
    return black if game.black.id == player else 1 - black


def by_hand(record: TournamentRecord, games: Mapping[GameId, GameState]) -> list[tuple[str, list[Fraction]]]:
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
        rounds = [by_round[player][n] for n in range(1, record.round + 1)]
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


async def play_to_the_end(
    emulator: DiscordEmulator,
    people: Mapping[int, User],
    tournament: Callable[[], Awaitable[TournamentRecord]],
    game_of: Callable[[GameId], Awaitable[GameState]],
    interrupt: Callable[[], Awaitable[None]],
    within: float = 240.0,
) -> TournamentRecord:
    """Play a running tournament's games by clicks (:func:`play`) until it is over; ``interrupt`` is called once, after
    the first game of round 2 that the people end. Returns the tournament as it ends."""
    handled: set[GameId] = set()
    interrupted = False
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        record = await tournament()
        if record.status is not TournamentStatus.RUNNING:
            assert interrupted, "the tournament ended before its round 2 was interrupted"
            return record
        acted = False
        for board in [g for g in record.games if g.game_id not in handled]:
            game = await game_of(board.game_id)
            if not game.is_active:
                handled.add(board.game_id)
                continue
            if game.black.is_ai and game.white.is_ai:
                continue  # the AIs play it out
            await play(emulator, people, game, first_of_match=board.game == 0)
            handled.add(board.game_id)
            acted = True
            if record.round == 2 and not interrupted:  # mid-round 2: its games go on after the interruption
                await interrupt()
                interrupted = True
                break
        if not acted:
            await asyncio.sleep(0.2)
    record = await tournament()
    games = [(g.round, g.game, str(g.game_id), (await game_of(g.game_id)).is_active) for g in record.games]
    raise AssertionError(f"the tournament not over within {within} s: round {record.round}, games {games}")


async def check_the_end(
    emulator: DiscordEmulator,
    record: TournamentRecord,
    games: Mapping[GameId, GameState],
    people: Mapping[int, User],
    rated_games: Callable[[UserId], Awaitable[int]],
    channel: Channel | None = None,
) -> None:
    """A finished Swiss of ballot matches without byes: every game over; nobody met twice, colours swapped within each
    match, a different ballot each round; the podium's post, once, in the tournament's ``channel``, with the table
    :func:`by_hand` works out and the winner named first; each person's rating changed once per rated game
    (``rated_games``: how many their rating counts), and only games between people rated."""
    assert all(not g.is_active and g.result for g in games.values())

    # the pairings: nobody met twice, everyone played each round, colours swapped within each match, every round a
    # different ballot whose opening was played
    met = [frozenset(p.players) for r in record.model.rounds for p in r.pairings]
    assert len(met) == len(set(met)) == record.round * 3
    openings = []
    for round_ in record.model.rounds:
        assert sorted(round_.players) == sorted(record.entrants) and round_.bye is None
        for board in record.games_of_round(round_.number):
            pairing = round_.pairings[board.board]
            game = games[board.game_id]
            colours = (pairing.black, pairing.white) if board.game == 0 else (pairing.white, pairing.black)
            assert (game.black.id, game.white.id) == colours
            openings.append((round_.number, tuple(str(m) for m in game.moves[:3])))
    assert len({o for _, o in openings}) == record.round, "one ballot a round, a different one each round"

    # the podium, with the table worked out by hand
    await eventually(lambda: any("is over" in m.content for m in emulator.messages(channel)), 15, "the podium")
    [final] = [m for m in emulator.messages(channel) if "is over" in m.content]
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
        assert await rated_games(UserId(str(person.id))) == len(rated), person.name
