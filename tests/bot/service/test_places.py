"""Where a game is played (issue 23): its place is kept in its record, an old record reads as a server's, and a game
of no server counts on the global ladder alone."""

from __future__ import annotations

import json
from dataclasses import replace

from bot.service import NO_GUILD, ChallengeId, ChannelId, GameState, GuildId, Place, UserId
from bot.service._models import Challenge, PlayerRef
from bot.service._standings import GLOBAL_SCOPE, ladders_of
from tests.bot.service.test_transitions import people


def test_a_game_keeps_its_place_and_an_old_record_reads_as_a_servers() -> None:
    game = replace(people(), place=Place.GROUP_DM)
    text = game.to_json()
    assert json.loads(text)["place"] == "group_dm"
    assert GameState.from_json(text, game.moves, game.version).place is Place.GROUP_DM
    old = json.loads(text)
    del old["place"]
    assert GameState.from_json(json.dumps(old), game.moves, game.version).place is Place.SERVER


def test_a_challenge_keeps_its_place() -> None:
    challenge = Challenge(
        ChallengeId("c" * 12),
        NO_GUILD,
        ChannelId("7"),
        PlayerRef(UserId("1"), "alice"),
        None,
        "american",
        300.0,
        "random",
        0.0,
        600.0,
        place=Place.USER_SERVER,
    )
    assert Challenge.from_json(challenge.to_json(), 1).place is Place.USER_SERVER


def test_a_game_of_no_server_counts_on_the_global_ladder_alone() -> None:
    assert ladders_of(NO_GUILD) == (GLOBAL_SCOPE,)
    assert ladders_of(GuildId("42")) == (GLOBAL_SCOPE, "guild:42")
    assert [p.through_interactions for p in Place] == [False, True, True, True]
