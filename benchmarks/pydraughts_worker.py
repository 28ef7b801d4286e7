"""A py-draughts engine behind a pipe: run with the interpreter of a throwaway venv that has ``py-draughts==1.10.1``.

py-draughts is never a dependency of King Me: :func:`start` creates (or reuses) ``.bench-venv`` next to the project
and starts this file there. The protocol is JSON lines: ``{"fen": ..., "time": seconds}`` in, ``{"move", "nodes",
"depth", "time"}`` out. py-draughts's ``AmericanBoard`` lets captures be skipped, so the board used here filters its
legal moves to the captures whenever there is one (the rules of English draughts). Its FEN and square numbers are the
same as King Me's (square 1 at the top left, Black's men on 1-12 moving down).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def venv_python() -> Path:
    """The throwaway venv's interpreter (``benchmarks/_peer.py`` creates it with py-draughts on first use)."""
    from benchmarks._peer import peer_python

    return peer_python()


class Client:
    """A running worker process."""

    def __init__(self) -> None:
        from benchmarks._pipe import Pipe

        self.pipe = Pipe([str(venv_python()), __file__, "--serve"])

    def search(self, fen: str, seconds: float) -> dict[str, Any]:
        return self.pipe.ask({"fen": fen, "time": seconds})

    def close(self) -> None:
        self.pipe.close(timeout=10)


def serve() -> None:  # pragma: no cover - runs inside the bench venv
    import logging

    from draughts import AmericanBoard, SimpleEngine  # type: ignore[import-not-found, unused-ignore]
    from draughts.boards.american import _CORE  # type: ignore[import-not-found, unused-ignore]

    logging.disable(logging.CRITICAL)

    class CompulsoryBoard(AmericanBoard):  # type: ignore[misc, valid-type, unused-ignore]
        @property
        def legal_moves(self) -> list[Any]:
            moves = self._legal_moves_from_core(_CORE, max_capture=False, captures_optional=True)
            captures = [m for m in moves if m.captured_list]
            return captures or moves

    class Measured(SimpleEngine):  # type: ignore[misc, valid-type, unused-ignore]
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.level = 0
            self.completed = 0

        def negamax(self, board: Any, depth: int, alpha: float, beta: float, h: int) -> float:
            self.level += 1
            try:
                value: float = super().negamax(board, depth, alpha, beta, h)
            finally:
                self.level -= 1
            if self.level == 0 and not self.stop_search:
                self.completed = depth
            return value

    engines: dict[float, Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        seconds = float(request["time"])
        engine = engines.get(seconds)
        if engine is None:
            engine = engines[seconds] = Measured(depth_limit=64, time_limit=seconds)
        board = CompulsoryBoard.from_fen(request["fen"])
        board.__class__ = CompulsoryBoard
        engine.completed = 0
        start = time.perf_counter()
        move = engine.get_best_move(board)
        elapsed = time.perf_counter() - start
        reply = {"move": str(move), "nodes": engine.nodes, "depth": engine.completed, "time": elapsed}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
