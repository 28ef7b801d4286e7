"""The emulator's application emojis as Discord keeps them: discord.py's own calls (fetch, create, edit, delete),
Discord's validation and limit, and the CDN route that serves their images."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest

from bot.emulator import DiscordEmulator
from bot.games import _tiles
from core import Color

PNG = _tiles.png(_tiles.piece(Color.WHITE, True))


@pytest.fixture
async def client(emulator: DiscordEmulator) -> AsyncIterator[discord.Client]:
    """A logged-in discord.py client (REST only: no gateway connection is needed for application emojis)."""
    bot = discord.Client(intents=discord.Intents.none())
    await bot.login(emulator.token)
    try:
        yield bot
    finally:
        await bot.close()


async def test_discord_py_creates_lists_renames_and_deletes_application_emojis(
    emulator: DiscordEmulator, client: discord.Client
) -> None:
    assert await client.fetch_application_emojis() == []
    made = await client.create_application_emoji(name="km1_wk", image=PNG)
    assert str(made) == f"<:km1_wk:{made.id}>"
    assert [(e.id, e.name) for e in await client.fetch_application_emojis()] == [(made.id, "km1_wk")]
    assert (await client.fetch_application_emoji(made.id)).name == "km1_wk"
    renamed = await made.edit(name="white_king")
    assert renamed.name == "white_king"

    async with aiohttp.ClientSession() as session, session.get(f"{emulator.cdn_url}/emojis/{made.id}.png") as image:
        assert image.status == 200 and image.content_type == "image/png" and await image.read() == PNG

    await made.delete()
    assert await client.fetch_application_emojis() == []
    with pytest.raises(discord.NotFound):
        await client.fetch_application_emoji(made.id)
    async with aiohttp.ClientSession() as session, session.get(f"{emulator.cdn_url}/emojis/{made.id}.png") as image:
        assert image.status == 404


@pytest.mark.parametrize(
    ("name", "image", "problem"),
    [
        ("k", PNG, "name"),
        ("k" * 33, PNG, "name"),
        ("king me", PNG, "name"),
        ("king", PNG + b"\0" * (256 * 1024), "image"),
    ],
    ids=["short-name", "long-name", "space-in-name", "over-256-KiB"],
)
async def test_an_invalid_emoji_is_refused_as_discord_does(
    emulator: DiscordEmulator, client: discord.Client, name: str, image: bytes, problem: str
) -> None:
    with pytest.raises(discord.HTTPException) as refused:
        await client.create_application_emoji(name=name, image=image)
    assert refused.value.status == 400 and refused.value.code == 50035 and problem in refused.value.text
    assert emulator.emojis.emojis == {}


async def test_an_application_owns_at_most_its_limit_of_emojis(
    emulator: DiscordEmulator, client: discord.Client
) -> None:
    emulator.emojis.limit = 2
    for name in ("one", "two"):
        await client.create_application_emoji(name=name, image=PNG)
    with pytest.raises(discord.HTTPException) as refused:
        await client.create_application_emoji(name="three", image=PNG)
    assert refused.value.status == 400 and refused.value.code == 30008
    assert sorted(e.name for e in await client.fetch_application_emojis()) == ["one", "two"]


async def test_emoji_routes_want_the_bot_s_token_its_own_application_and_an_image(emulator: DiscordEmulator) -> None:
    api = f"{emulator.api_url}/applications/{emulator.bot_user.id}/emojis"
    image = "data:image/png;base64," + base64.b64encode(PNG).decode()
    async with aiohttp.ClientSession() as session:
        async with session.get(api) as anonymous:
            assert anonymous.status == 401
        headers = {"Authorization": f"Bot {emulator.token}"}
        async with session.get(api.replace(str(emulator.bot_user.id), "1"), headers=headers) as other:
            assert other.status == 403
        not_png = "data:image/png;base64," + base64.b64encode(b"GIF89a").decode()
        for body in ({"name": "ok", "image": not_png}, {"name": "ok", "image": "https://example.com/a.png"}):
            async with session.post(api, json=body, headers=headers) as refused:
                assert refused.status == 400 and (await refused.json())["code"] == 50035
        async with session.post(api, json={"name": "ok", "image": image}, headers=headers) as made:
            assert made.status == 201 and (await made.json())["name"] == "ok"
