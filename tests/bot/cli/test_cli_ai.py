"""``kingme bestmove`` and ``kingme arena``, run in-process through ``bot.cli.main``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ai.api import levels
from bot.cli import main
from core import Board
from core.pdn import read_pdn


@pytest.mark.parametrize(
    ("fen", "variant"),
    [
        ("start", "american"),
        ("W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,15", "american"),
        ("B:WK10,18,24,27,28:B12,16,20,K22,K25,K29", "american"),
        ("start", "mini"),
        ("start", "capture-all"),
    ],
)
def test_bestmove_prints_a_legal_move(fen: str, variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", fen, "--level", "easy", "--variant", variant]) == 0
    out = capsys.readouterr().out
    board = Board(None if fen == "start" else fen, variant)
    assert out.strip() in {m.text() for m in board.legal_moves}
    assert out.count("\n") == 1


def test_levels_lists_the_levels_weakest_first_with_their_strength(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["levels"]) == 0
    out = capsys.readouterr().out.splitlines()
    shown = [line.split(maxsplit=2) for line in out[: len(levels())]]
    assert shown == [[name, str(level.rating), level.summary] for name, level in levels().items()]
    ratings = [int(rating) for _, rating, _ in shown]
    assert ratings == sorted(ratings) and shown[0][:2] == ["easy", "1000"]
    assert out[-1].startswith("measured by: python -m benchmarks.strength --games ")


def test_bestmove_takes_the_only_legal_move(capsys: pytest.CaptureFixture[str]) -> None:
    # Black's man on 15 must take the White man on 18 (15x22): the only legal move.
    fen = "B:W18,30:B15"
    assert [m.text() for m in Board(fen).legal_moves] == ["15x22"]
    assert main(["bestmove", fen, "--level", "easy", "--time", "0.5"]) == 0
    assert capsys.readouterr().out == "15x22\n"


def test_bestmove_info_says_what_the_search_did(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "W:W6,14,18,22,24,25,26,27,30,32:B3,4,5,8,9,11,16,20"  # out of the opening book and the endgame database
    assert main(["bestmove", fen, "--level", "master", "--time", "1", "--info"]) == 0  # deep enough on a busy machine
    move, info = capsys.readouterr().out.splitlines()
    match = re.fullmatch(r"source search depth (\d+) nodes (\d+) nps (\d+) score (-?[\d.]+) pv (.+)", info)
    assert match, info
    depth, nodes, nps = (int(match[i]) for i in (1, 2, 3))
    assert depth >= 1 and nodes > 0 and nps > 0
    pv = match[5].split()
    assert pv[0] == move and len(pv) >= 2
    board = Board(fen)
    for text in pv:
        board.push_text(text)  # the line is legal


@pytest.mark.parametrize(("variant", "source"), [("american", "book"), ("mini", "solved")])
def test_bestmove_info_says_where_a_move_not_searched_came_from(
    variant: str, source: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """From the start master plays its opening book (American) or the solver (mini): the line says so, where it said
    ``depth 0 nodes 0`` (or ``depth 99``) with no word of why."""
    assert main(["bestmove", "start", "--level", "master", "--variant", variant, "--info"]) == 0
    _move, info = capsys.readouterr().out.splitlines()
    assert info.startswith(f"source {source} depth "), info


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bestmove", "not a fen", "--level", "easy"], "is not a FEN"),
        (["bestmove", "start", "--level", "grandmaster-9000"], "unknown AI level"),
        (["bestmove", "start", "--level", "easy", "--variant", "chess"], "unknown variant"),
        (["bestmove", "W:W:B1,2", "--level", "easy"], "game is over"),
        (["bestmove", "W:W5:B1", "--level", "easy"], "game is over"),  # White is blocked
        (["bestmove", "start", "--level", "easy", "--time", "-1"], "--time"),
        (["arena", "easy", "nobody", "--games", "2"], "unknown AI level"),
        (["arena", "easy", "easy", "--games", "3"], "even"),
        (["arena", "easy", "easy", "--games", "2", "--variant", "go"], "unknown variant"),
        (["arena", "easy", "easy", "--games", "2", "--jobs", "0"], "--jobs"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("kingme: ")
    assert message in err


def test_missing_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bestmove", "start"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_arena_prints_the_match_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdn = tmp_path / "games.pdn"
    assert main(["arena", "easy", "easy", "--games", "2", "--jobs", "1", "--pdn", str(pdn)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    wdl = next(line for line in lines if line.startswith("W/D/L: "))
    w, d, l = (int(n) for n in wdl.split()[1].split("/"))
    assert w + d + l == 2
    assert any(line.startswith("Score: ") and "%" in line for line in lines)
    elo = next(line for line in lines if line.startswith("Elo difference: "))
    assert re.fullmatch(r"Elo difference: (at least [+-]\d+|at most [+-]\d+|[+-]\d+) .*\)", elo), elo
    assert "inf" not in elo
    assert "2/2" in err  # the progress bar, on stderr
    assert len(read_pdn(pdn.read_text())) == 2


def test_arena_with_a_perfect_score_prints_a_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "master", "easy", "--games", "2", "--time", "0.05", "--jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "W/D/L: 2/0/0" in out
    elo = next(line for line in out.splitlines() if line.startswith("Elo difference:"))
    # 2 games won of 2 say little: the bound is below zero, and the line says why (it read "at least -216" alone)
    assert re.fullmatch(
        r"Elo difference: at least -\d+ \(95% confidence: every game won, so no upper bound; too few games to tell "
        r"which side is stronger\)",
        elo,
    ), elo
    assert "inf" not in out


def test_trained_weights_go_to_the_data_folder_and_can_be_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KINGME_DATA", str(tmp_path / "data"))
    assert main(["train", "sarsa", "--games", "2", "--eval-games", "0", "--quiet"]) == 0
    weights = tmp_path / "data" / "weights" / "sarsa.json"
    out = capsys.readouterr().out
    assert f"weights written to {weights}\n" in out
    assert f"play them: kingme bestmove start --level sarsa --weights {weights}\n" in out
    assert main(["bestmove", "start", "--level", "sarsa", "--weights", str(weights)]) == 0
    assert capsys.readouterr().out.strip() in {m.text() for m in Board().legal_moves}
    args = ["arena", "sarsa", "easy", "--weights-a", str(weights), "--games", "2", "--jobs", "1", "--quiet"]
    assert main(args) == 0
    assert f"sarsa@{weights} vs easy: 2 games" in capsys.readouterr().out
    assert main(["bestmove", "start", "--level", "master", "--weights", str(weights)]) == 2
    assert "only the learning levels" in capsys.readouterr().err
    assert main(["bestmove", "start", "--level", "lms", "--weights", str(weights)]) == 2
    assert "holds sarsa weights, not lms weights" in capsys.readouterr().err


def test_weights_files_are_not_game_options() -> None:
    from ai.api import UnknownLevelError, get_level

    with pytest.raises(UnknownLevelError):
        get_level("lms@/etc/passwd", hidden=False)


def test_egdb_build_writes_a_database_that_probe_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egdb", "build", "--pieces", "3", "--out", str(tmp_path), "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "199,520 positions of up to 3 pieces" in out and (tmp_path / "american-3.egdb").is_file()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EGDB_DIR", str(tmp_path))
        assert main(["egdb", "probe", "W:WK19:BK31,K32"]) == 0  # two kings against one: lost for the lone king
        assert capsys.readouterr().out == "loss for White\n"
        assert main(["egdb", "probe", "B:W5,6,7,8:B1,2,3,4"]) == 2
        assert "up to 3 pieces" in capsys.readouterr().err


def test_egdb_build_of_a_part_of_the_largest_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for wrong in (["--sides", "3v3"], ["--sides", "2x2"], ["--sides", "2v2", "--max-men", "3"], ["--max-men", "1"]):
        assert main(["egdb", "build", "--pieces", "4", "--out", str(tmp_path), *wrong]) == 2, wrong
        assert "--" in capsys.readouterr().err
    assert not list(tmp_path.iterdir()), "nothing built from a wrong request"
    args = ["egdb", "build", "--pieces", "4", "--sides", "2v2", "--max-men", "1", "--out", str(tmp_path)]
    assert main([*args, "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "of up to 4 pieces (of 4 pieces only 2v2, at most 1 man a side)" in out, out
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EGDB_DIR", str(tmp_path))
        assert main(["egdb", "probe", "B:W21,22:B9,10"]) == 2  # two men a side: not in the part
        assert "a part of its 4-piece tables" in capsys.readouterr().err
        assert main(["egdb", "probe", "W:WK19:BK31,K32"]) == 0  # three pieces: every table
        assert capsys.readouterr().out == "loss for White\n"


def test_bestmove_stdin_answers_each_line_in_one_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    lines = "11-15\n\n11-15 23-19 9-14\n11-15 99-98\n1. 11-15 23-19\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert main(["bestmove", "--stdin", "--level", "master", "--time", "0.05"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4
    for answer, moves in zip(out, (["11-15"], ["11-15", "23-19", "9-14"], None, ["11-15", "23-19"]), strict=True):
        if moves is None:
            assert answer.startswith("error ")
            continue
        board = Board()
        for move in moves:
            board.push_text(move)
        assert answer in {m.text() for m in board.legal_moves}


def test_bestmove_game_reads_the_position_at_the_end_of_a_pdn_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "game.pdn"
    game.write_text('[Event "x"]\n[Result "*"]\n1. 11-15 23-19 2. 8-11 22-17 *\n', encoding="utf-8")
    assert main(["bestmove", "--game", str(game), "--level", "easy"]) == 0
    board = read_pdn(game.read_text(encoding="utf-8"))[0].board
    assert capsys.readouterr().out.strip() in {m.text() for m in board.legal_moves}
    assert main(["bestmove", "--game", str(tmp_path / "missing.pdn"), "--level", "easy"]) != 0
