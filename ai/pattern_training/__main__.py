"""``python -m ai.pattern_training``: generate training positions, fit the pattern weights, show what was fitted, and
compare the patterns with a small network on the same positions (:mod:`ai.pattern_training.network`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ai.pattern_training", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="self-play positions into an .npz file")
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--games", type=int, default=16000)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--nodes", type=int, default=4000, help="the search's node budget a move (jittered ±50%%)")
    gen.add_argument("--jobs", type=int, default=1)
    again = sub.add_parser("relabel", help="search saved positions again at more nodes; write them with the new scores")
    again.add_argument("data", type=Path)
    again.add_argument("--out", type=Path, required=True)
    again.add_argument("--nodes", type=int, default=32000, help="the search's node budget a position")
    again.add_argument("--count", type=int, default=None, help="only the file's first COUNT positions")
    again.add_argument("--jobs", type=int, default=1)
    fit = sub.add_parser("fit", help="fit the pattern weights on generated positions")
    fit.add_argument("data", type=Path, nargs="+")
    fit.add_argument("--out", type=Path, default=None, help="the weights file (default: the shipped one)")
    fit.add_argument("--epochs", type=int, default=200)
    fit.add_argument("--l2", type=float, default=None)
    fit.add_argument("--mix", type=float, default=None, help="the result's share of the target (the rest: the score)")
    fit.add_argument("--seed", type=int, default=0)
    sub.add_parser("show", help="the shipped weights' size, checksum and fit")
    net = sub.add_parser("compare", help="held-out cross-entropy: patterns and a small network")
    net.add_argument("data", type=Path, nargs="+")
    net.add_argument("--epochs", type=int, default=12, help="the network's epochs (the patterns keep their 200)")
    net.add_argument("--hidden", type=int, nargs=2, default=(32, 32), metavar=("H1", "H2"))
    net.add_argument("--seed", type=int, default=0)
    fit_net = sub.add_parser("network", help="fit the small network master plays on the patterns; write its weights")
    fit_net.add_argument("data", type=Path, nargs="+")
    fit_net.add_argument("--out", type=Path, default=None, help="the weights file (default: the shipped one)")
    fit_net.add_argument("--epochs", type=int, default=30)
    fit_net.add_argument("--seed", type=int, default=0)
    fit_net.add_argument("--alone", action="store_true", help="fit what the features alone miss, not the patterns")
    fit_net.add_argument("--patterns", type=Path, default=None, help="the pattern weights beneath (default: shipped)")
    fit_net.add_argument(
        "--start", type=Path, default=None, help="a network's weights to go on fitting (default: random)"
    )
    for command in (net, fit_net):
        command.add_argument("--lr", type=float, default=1e-3, help="Adam's step")
        command.add_argument("--anneal", action="store_true", help="lower the step along a half cosine to 2%% of it")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.command == "generate":
        from ai.pattern_training.selfplay import run

        count = run(args.out, args.games, args.seed, args.nodes, args.jobs)
        print(f"{count} positions in {time.perf_counter() - started:.0f} s -> {args.out}")
        return 0
    if args.command == "relabel":
        from ai.pattern_training.selfplay import run_relabel

        count = run_relabel(args.data, args.out, args.nodes, args.jobs, args.count)
        print(f"{count} positions relabelled in {time.perf_counter() - started:.0f} s -> {args.out}")
        return 0
    from ai.pattern_training import fit as fitting

    if args.command == "compare":
        import json

        from ai.pattern_training.network import NetOptions, compare
        from ai.pattern_training.selfplay import load

        net_options = NetOptions(
            hidden=tuple(args.hidden), epochs=args.epochs, seed=args.seed, lr=args.lr, anneal=args.anneal
        )
        print(json.dumps(compare(load(args.data), fitting.Options(), net_options, log=sys.stderr), indent=1))
        return 0
    if args.command == "network":
        from ai.pattern_training import network
        from ai.patterns.network import NETWORK_FILE

        net_options = network.NetOptions(epochs=args.epochs, seed=args.seed, lr=args.lr, anneal=args.anneal)
        out = args.out or NETWORK_FILE
        if args.start is not None and not args.start.is_file():
            parser.error(f"--start: no network's weights at {args.start}")
        report = network.fit_files(
            args.data,
            net_options,
            out,
            log=sys.stderr,
            on_patterns=not args.alone,
            patterns=args.patterns,
            start=args.start,
        )
        print(report)
        return 0
    if args.command == "fit":
        options = fitting.Options(epochs=args.epochs, seed=args.seed)
        if args.l2 is not None:
            options.l2 = args.l2
        if args.mix is not None:
            options.mix = args.mix
        report = fitting.fit_files(args.data, options, args.out or fitting.WEIGHTS_FILE, log=sys.stderr)
        print(report)
        return 0
    print(fitting.describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
