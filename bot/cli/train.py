"""``kingme train``: train one of the learning levels and print its learning curve.

    kingme train {qlearning,lms,sarsa} --games N [--variant V] [--seed S] [--opponent O] [--out PATH]
                 [--eval-every K] [--eval-games G]

The weights go to ``--out`` as a weights file (see :mod:`ai.learners`), by default ``KINGME_DATA/weights/LEARNER.json``;
other variants' models already in that file are kept, so one file can hold a model per variant. The command says where
the weights went and how to play them (``kingme bestmove FEN --level LEARNER --weights FILE``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ai.learners import WeightsFileError, read_weights, weights_document
from ai.training import CurvePoint, learner_names, parse_opponents, train
from bot.cli._command import CommandError, Commands, add_variant_option, load_settings
from core import get_variant


def register(commands: Commands) -> None:
    p = commands.add("train", _train)
    p.add_argument("learner", choices=learner_names(), help="which learner to train")
    p.add_argument("--games", type=int, required=True, help="training games to play")
    add_variant_option(p)
    p.add_argument("--seed", type=int, default=0, help="random seed (the same seed gives the same weights)")
    p.add_argument(
        "--opponent", default="self", help="self (self-play), a level name, or a comma-separated mix such as self,easy"
    )
    p.add_argument(
        "--out",
        type=Path,
        help="weights file to write (its other variants' models are kept; default KINGME_DATA/weights/LEARNER.json)",
    )
    p.add_argument("--eval-every", type=int, default=0, help="measure the curve every K games (0: at the end only)")
    p.add_argument("--eval-games", type=int, default=20, help="games against each level per curve point")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _train(args: argparse.Namespace) -> int:
    """train a learning AI level (qlearning, lms or sarsa) and show its curve"""
    from tqdm import tqdm

    if args.games < 1:
        raise CommandError("--games must be 1 or more")
    if args.eval_every < 0:
        raise CommandError("--eval-every must be 0 or more")
    if args.eval_games < 0:
        raise CommandError("--eval-games must be 0 or more")
    out: Path = args.out if args.out is not None else load_settings().kingme_data / "weights" / f"{args.learner}.json"
    if out.exists() and out.is_dir():
        raise CommandError(f"--out {out} is a directory")
    get_variant(args.variant)
    parse_opponents(args.opponent)
    existing = _read_existing(out, args.learner)

    with tqdm(total=args.games, unit="game", disable=args.quiet, dynamic_ncols=True) as bar:

        def progress(done: int, point: CurvePoint | None) -> None:
            bar.update(1)
            if point is not None:
                bar.set_postfix({name: f"{rate:.0%}" for name, rate in point.win_rates().items()})

        model, curve = train(
            args.learner,
            args.games,
            variant=args.variant,
            seed=args.seed,
            opponent=args.opponent,
            eval_every=args.eval_every,
            on_progress=progress,
            eval_games=args.eval_games,
        )
    print(format_curve(curve))
    existing[model["meta"]["variant"]] = model
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(weights_document(args.learner, existing), separators=(",", ":")) + "\n")
    except OSError as exc:
        raise CommandError(f"cannot write the weights to {out}: {exc.strerror}") from None
    print(f"weights written to {out}")
    variant = "" if args.variant == "american" else f" --variant {args.variant}"
    print(f"play them: kingme bestmove start --level {args.learner} --weights {out}{variant}")
    return 0


def _read_existing(path: Path, learner: str) -> dict[str, dict[str, object]]:
    """The models already in the weights file at ``path`` (none if there is no file)."""
    if not path.exists():
        return {}
    try:
        return read_weights(path, learner)
    except WeightsFileError as exc:
        raise CommandError(f"--out: {exc}") from None


def format_curve(curve: list[CurvePoint]) -> str:
    """The learning curve as a text table: games played, then the win rate (W/D/L) against each level."""
    if not curve:
        return "(no learning curve measured)"
    names = list(curve[0].scores)
    header = ["games", *(f"vs {name}" for name in names)]
    rows = [
        [
            str(p.games),
            *(
                f"{p.scores[n].win_rate:.0%} ({p.scores[n].wins}/{p.scores[n].draws}/{p.scores[n].losses})"
                for n in names
            ),
        ]
        for p in curve
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("win rate (wins/draws/losses) per curve point")
    return "\n".join(lines)
