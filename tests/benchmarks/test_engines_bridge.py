"""The bridge to CheckerBoard engines, without an engine: positions both ways, moves found from a board, forfeits."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ai.arena import MAX_PLIES
from ai.ballots import Ballot
from benchmarks import engines
from core import AMERICAN, Board, Color, Move


def random_positions(seed: int, games: int = 6, plies: int = 160) -> list[Board]:
    """Every position of a few games of random legal moves (many with kings, late in the games)."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        board = Board()
        while board.outcome() is None and len(board.move_stack) < plies:
            positions.append(board.copy(stack=False))
            board.push(rng.choice(board.legal_moves))
        positions.append(board.copy(stack=False))
    return positions


def test_squares_sit_where_the_api_says() -> None:
    assert engines.square_xy(1) == (6, 0)
    assert engines.square_xy(4) == (0, 0)
    assert engines.square_xy(32) == (1, 7)
    geometry = AMERICAN.geometry
    for n in range(1, 33):
        x, y = engines.square_xy(n)
        assert (y, 7 - x) == (geometry.row_of_square[n], geometry.col_of_square[n]), n
    assert len(engines.SQUARE_OF_XY) == 32
    with pytest.raises(ValueError):
        engines.square_xy(33)


def test_the_start_position_has_black_s_men_on_the_rows_of_y_0_to_2() -> None:
    b = engines.to_cb(Board())
    for x in range(8):
        for y in range(8):
            if (x + y) % 2:  # the light squares of the API's array
                assert b[x][y] == 0
            elif y <= 2:
                assert b[x][y] == engines.BLACK | engines.MAN
            elif y >= 5:
                assert b[x][y] == engines.WHITE | engines.MAN
            else:
                assert b[x][y] == engines.FREE


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_positions_go_there_and_back(seed: int) -> None:
    kings = 0
    for board in random_positions(seed):
        back = engines.from_cb(engines.to_cb(board), board.turn)
        assert back == board, board.fen()
        assert back.fen() == board.fen()
        kings += board.kings != 0
    assert kings > 50  # the kings were round-tripped too


@pytest.mark.parametrize("seed", [4, 5])
def test_each_legal_move_is_found_from_the_board_it_leaves(seed: int) -> None:
    checked = captures = 0
    for board in random_positions(seed, games=3):
        if board.outcome() is not None:
            continue
        children: dict[str, list[Move]] = {}
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            children.setdefault(child.fen(), []).append(move)
        for fen, moves in children.items():
            after = engines.to_cb(Board(fen))
            assert engines.identify(board, after) in moves, (board.fen(), moves)
            # an engine may write 0 instead of FREE on an empty square
            assert engines.identify(board, [[v if v != engines.FREE else 0 for v in col] for col in after]) in moves
            checked += 1
            captures += moves[0].is_capture
        assert engines.identify(board, engines.to_cb(board)) is None  # no move at all is no legal move
    assert checked > 500 and captures > 20


def test_two_jumps_from_the_same_square_to_the_same_square_are_told_apart() -> None:
    board = Board("B:W6,7,14,15,30:B2")
    moves = board.legal_moves
    assert sorted(m.text() for m in moves) == ["2x11x18", "2x9x18"]
    for move in moves:
        child = board.copy(stack=False)
        child.push(move)
        assert engines.identify(board, engines.to_cb(child)) == move


def test_boards_that_are_no_legal_move_s_result() -> None:
    board = Board()
    after = engines.to_cb(board)
    x, y = engines.square_xy(12)
    tx, ty = engines.square_xy(13)  # 12 to 13 is no diagonal step
    after[x][y], after[tx][ty] = engines.FREE, engines.BLACK | engines.MAN
    assert engines.identify(board, after) is None
    crowned = engines.to_cb(board)
    x, y = engines.square_xy(11)
    tx, ty = engines.square_xy(15)
    crowned[x][y], crowned[tx][ty] = engines.FREE, engines.BLACK | engines.KING  # 11-15 but crowned on the way
    assert engines.identify(board, crowned) is None
    wrong = engines.to_cb(board)
    wrong[1][0] = engines.BLACK | engines.MAN  # a light square
    with pytest.raises(ValueError, match="light square"):
        engines.identify(board, wrong)
    wrong = engines.to_cb(board)
    wrong[6][0] = 3
    with pytest.raises(ValueError, match="unknown value 3 on square 1"):
        engines.read_cb(wrong)


class FakeEngine(engines.Engine):
    """Plays the first legal move, or, when ``honest`` is False, answers with the position it was given."""

    def __init__(self, honest: bool) -> None:
        self.honest = honest
        self.new_games: list[bool] = []

    def move(self, board: Board, seconds: float, new_game: bool = False) -> dict[str, Any]:
        self.new_games.append(new_game)
        child = board.copy(stack=False)
        if self.honest:
            child.push(board.legal_moves[0])
        return {"board": engines.to_cb(child), "result": 0, "status": "depth 3"}


@pytest.mark.parametrize("color", [Color.BLACK, Color.WHITE])
def test_a_board_that_is_no_legal_move_forfeits_the_game_for_the_engine(
    color: Color, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(engines._ENGINES, "fake.so", FakeEngine(honest=False))
    ballot = Ballot("ACF test", ("11-15", "23-19", "8-11"))
    game = engines.play("easy", "fake.so", "Fake", color, ballot, 0.01, seed=1)
    assert game.record.termination.startswith("forfeit: Fake as ")
    assert "illegal move" in game.record.termination
    assert game.record.score(color) == 1.0
    assert game.engine_seconds == ()  # no move of the engine was played


def test_an_honest_engine_plays_a_game_to_its_end_by_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = FakeEngine(honest=True)
    monkeypatch.setitem(engines._ENGINES, "fake.so", engine)
    ballot = Ballot("ACF test", ("11-15", "23-19", "8-11"))
    game = engines.play("easy", "fake.so", "Fake", Color.WHITE, ballot, 0.01, seed=2)
    record = game.record
    assert (record.black, record.white) == ("Fake", "easy")
    assert not record.termination.startswith("forfeit")
    final = record.board()
    assert final.outcome() is not None or len(final.move_stack) >= MAX_PLIES
    assert len(game.engine_seconds) == len(game.engine_depths) == (len(record.moves) - 3) // 2
    # The engine is told a new game starts on its first move of each game, and only then.
    assert engine.new_games == [True] + [False] * (len(engine.new_games) - 1)
    engines.play("easy", "fake.so", "Fake", Color.BLACK, ballot, 0.01, seed=3)
    assert engine.new_games.count(True) == 2 and engine.new_games[len(game.engine_seconds)] is True


@pytest.mark.parametrize(
    ("status", "depth"),
    [("depth 13 eval 40", 13), ("Eval: 12  Depth: 16/36 (0/7)  Move: 11-15", 16), ("book move", None)],
)
def test_the_depth_is_read_from_the_status_lines_of_engines(status: str, depth: int | None) -> None:
    found = engines._DEPTH.search(status)
    assert (int(found.group(1)) if found else None) == depth


def test_the_report_says_who_crowned_first_and_how_those_games_ended() -> None:
    from ai.arena import GameRecord, MatchGame, MatchResult

    def record(moves: tuple[str, ...], result: str) -> GameRecord:
        fen = "W:W6,20:B25"  # White to move: 6-2 crowns at once; after 20-16, Black's 25-29 crowns
        return GameRecord("master", "Engine", "american", fen, moves, result, "test")

    white_first = record(("6-2", "25-29"), "0-1")
    black_first = record(("20-16", "25-29", "6-2"), "1/2-1/2")
    nobody = record(("20-16",), "1-0")
    assert engines.first_king(white_first) is Color.WHITE
    assert engines.first_king(black_first) is Color.BLACK
    assert engines.first_king(nobody) is None
    games = (
        MatchGame(1, Color.BLACK, white_first),  # master Black: the engine crowned first, and won
        MatchGame(2, Color.WHITE, white_first),  # master White: master crowned first, and won
        MatchGame(3, Color.BLACK, black_first),  # master crowned first, a draw
        MatchGame(4, Color.BLACK, nobody),  # no king, master won
    )
    summary = engines.crowning(MatchResult("master", "Engine", "american", games))
    assert summary == "master first 2 (+1 =1 -0), Engine first 1 (+0 =0 -1), no king 1 (+1 =0 -0)"
