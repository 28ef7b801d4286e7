"""A puzzle's solution on the public replay page (``/puzzles/{id}``), served by the sandbox's HTTP side."""

from __future__ import annotations

import json
from html import unescape

import aiohttp

from ai.puzzles import load_puzzles
from bot.sandbox_runtime import SandboxRuntime


async def test_the_puzzle_page_replays_the_solution_from_the_position(sandbox: SandboxRuntime) -> None:
    shown = max(load_puzzles(), key=lambda p: len(p.solution))  # one with replies
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{sandbox.address}/puzzles/{shown.id}") as response:
            assert response.status == 200
            html = await response.text()
        data = json.loads(
            unescape(html.split('<script id="game-data" type="application/json">', 1)[1].split("</script>")[0])
        )
        positions = data["replay"]["positions"]
        assert positions[0]["fen"] == shown.fen, "it starts from the puzzle's position"
        assert [p["move"] for p in positions[1:]] == list(shown.solution)
        assert f"[PuzzleId &quot;{shown.id}&quot;]" in html or f'[PuzzleId "{shown.id}"]' in html
        for missing in ("00000000", "mabcdef1"):  # no such puzzle; the shape of a person's own
            async with session.get(f"{sandbox.address}/puzzles/{missing}") as response:
                assert response.status == 404
