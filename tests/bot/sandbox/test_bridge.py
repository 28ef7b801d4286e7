"""The sandbox bridge over a real websocket: the whole sandbox (composition root, embedded Redis, the real KingMeBot
on the local Discord emulator) and pages connected as alice and bob, as the browser page connects."""

from __future__ import annotations

import json
import re
from typing import Any

import aiohttp
import pytest

from bot.sandbox import REFUSED, SOCKET_PATH
from bot.sandbox_runtime import SandboxRuntime
from tests.bot.sandbox.conftest import PageSocket, Update, board_version, component

EPHEMERAL = 1 << 6


async def board_of(page: PageSocket) -> Update:
    """The newest board on the page (a game's board comes into its thread just after the command's answer)."""
    await page.wait_for(lambda u: board_version(u.get("message") or {}) is not None, what="a board")
    boards = [m for m in page.messages().values() if board_version(m) is not None]
    assert boards, "no board with a piece menu on the page"
    return boards[-1]


async def play_one_move(page: PageSocket, board: Update) -> None:
    """Choose the first piece, then its first move, with the select menus."""
    piece = component(board, "km:p:")
    assert piece is not None
    answer = await page.act(
        "select", message=board["id"], custom_id=piece["custom_id"], values=[piece["options"][0]["value"]]
    )
    assert answer["type"] == "done", answer
    board = page.messages()[board["id"]]
    move = component(board, "km:m:")
    assert move is not None, "no move menu after choosing a piece"
    answer = await page.act(
        "select", message=board["id"], custom_id=move["custom_id"], values=[move["options"][0]["value"]]
    )
    assert answer["type"] == "done", answer


async def test_serves_the_page_and_a_snapshot_of_the_channel(sandbox: SandboxRuntime, connect: Any) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(sandbox.address + "/") as response:
            assert response.status == 200
            html = await response.text()
        assert "<title>King Me sandbox</title>" in html and "{{" not in html
        entry = html.split('<script type="module" src="', 1)[1].split('"', 1)[0]
        modules = json.loads(html.split('<script type="importmap">', 1)[1].split("</script>", 1)[0])["imports"]
        assert entry in modules.values(), "the page's entry module is not versioned like the others"
        sources: dict[str, str] = {}
        for plain, versioned in modules.items():
            async with session.get(sandbox.address + versioned) as response:
                assert response.status == 200 and response.content_type == "text/javascript", plain
                sources[plain.rsplit("/", 1)[1]] = await response.text()
    imported = {name for source in sources.values() for name in re.findall(r'from "\./([\w-]+\.js)"', source)}
    assert imported and imported <= sources.keys(), f"imported, not in the import map: {imported - set(sources)}"
    assert any("new WebSocket" in source for source in sources.values())

    page = await connect("bob")
    snapshot = page.snapshot()
    assert snapshot["me"]["name"] == "bob"
    assert snapshot["players"] == ["alice", "bob", "carol"]
    assert [(c["name"], c["private"]) for c in snapshot["channels"]] == [
        ("checkers", False),
        ("King Me", True),  # bob's DM with the bot
        ("game night", True),  # the group DM of the sandbox's people
    ]
    assert snapshot["messages"] == []
    (checkers,) = [c for c in snapshot["commands"] if c["name"] == "checkers"]
    play = next(o for o in checkers["options"] if o["name"] == "play")
    level = next(o for o in play["options"] if o["name"] == "level")
    assert level["autocomplete"] is True, "the page needs to know which options ask the bot"


async def test_a_game_through_the_socket_with_ephemeral_refusals_only_for_their_user(connect: Any) -> None:
    alice = await connect("alice")
    bob = await connect("bob")
    answer = await alice.act("invoke", path=["checkers", "play"], options={"level": "easy"})
    assert answer["type"] == "done", answer
    board = await board_of(alice)
    assert board["embeds"] and not board["flags"] & EPHEMERAL
    await bob.wait_for(lambda u: u.get("message", {}).get("id") == board["id"], what="the board on bob's page")
    before = board_version(board)

    await play_one_move(alice, board)
    await alice.wait_for(
        lambda u: (
            u["type"] == "message_update"
            and u["message"]["id"] == board["id"]
            and board_version(u["message"]) not in (None, before)
            and "thinking" not in u["message"]["content"]
        ),
        what="the board after alice's move and the AI's answer",
    )

    # bob is no player of alice's game: the bot refuses his choice in a message only bob sees
    seen_by_alice = await alice.barrier()
    board = bob.messages()[board["id"]]
    piece = component(board, "km:p:")
    assert piece is not None
    answer = await bob.act(
        "select", message=board["id"], custom_id=piece["custom_id"], values=[piece["options"][0]["value"]]
    )
    assert answer["type"] == "done"
    refusal = next(m for m in bob.messages().values() if m["flags"] & EPHEMERAL)
    assert refusal["content"] and refusal["interaction_metadata"]["user"]["username"] == "bob"
    await alice.barrier()
    leaked = [u for u in alice.updates[seen_by_alice:] if u.get("message", {}).get("flags", 0) & EPHEMERAL]
    assert leaked == [], "bob's ephemeral reply reached alice's page"
    assert board_version(alice.messages()[board["id"]]) == board_version(board), "bob's choice changed the board"


async def test_a_game_in_the_group_dm_and_the_dms_only_their_people_see(connect: Any) -> None:
    alice = await connect("alice")
    bob = await connect("bob")
    channels = {c["name"]: c for c in alice.snapshot()["channels"]}
    group, own_dm = channels["game night"]["id"], channels["King Me"]["id"]
    bobs_dm = next(c["id"] for c in bob.snapshot()["channels"] if c["name"] == "King Me")
    assert own_dm != bobs_dm, "each person has a DM of their own with the bot"

    answer = await alice.act("invoke", path=["checkers", "play"], options={"level": "easy"}, channel=group)
    assert answer["type"] == "done", answer
    board = await board_of(alice)
    assert board["channel_id"] == group, "the board is the command's answer in the group DM: no thread"
    await bob.wait_for(lambda u: u.get("message", {}).get("id") == board["id"], what="the board on bob's page")
    before = board_version(board)
    await play_one_move(alice, board)
    await alice.wait_for(
        lambda u: (
            u["type"] == "message_update"
            and u["message"]["id"] == board["id"]
            and board_version(u["message"]) not in (None, before)
            and "thinking" not in u["message"]["content"]
        ),
        what="the AI's answer edited into the board through the click's interaction",
    )

    seen_by_bob = await bob.barrier()
    answer = await alice.act("invoke", path=["checkers", "help"], options={}, channel=own_dm)
    assert answer["type"] == "done", answer
    await bob.barrier()
    leaked = [u for u in bob.updates[seen_by_bob:] if u.get("message", {}).get("channel_id") == own_dm]
    assert leaked == [], "alice's DM with the bot reached bob's page"
    refused = await bob.act("invoke", path=["checkers", "help"], options={}, channel=own_dm)
    assert refused["type"] == "error" and "gone" in refused["text"]


async def test_autocomplete_asks_the_bot(connect: Any) -> None:
    page = await connect("alice")
    answer = await page.act("autocomplete", path=["checkers", "play"], options={"level": "eas"}, focused="level")
    assert answer["type"] == "choices"
    assert [c["value"] for c in answer["choices"]] == ["easy"]


async def test_refusals_come_back_as_errors_and_the_socket_stays_open(connect: Any) -> None:
    page = await connect("alice")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"op": "dance"}, "unknown action"),
        ({"op": "invoke", "path": ["checkers", "fly"], "options": {}}, "no subcommand 'fly'"),
        ({"op": "invoke", "path": ["checkers", "move"], "options": {}}, "required options missing"),
        ({"op": "invoke", "path": ["checkers", "play"], "options": {"colour": "green"}}, "not one of its choices"),
        ({"op": "invoke", "path": "checkers", "options": {}}, "a command path is a list"),
        ({"op": "click", "message": "12345", "custom_id": "x"}, "that message is gone"),
        ({"op": "click", "message": "not-a-number", "custom_id": "x"}, "is not a message id"),
        ({"op": "as", "user": "mallory"}, "there is no user 'mallory'"),
        ({"op": "as", "user": "King Me"}, "cannot act as the bot"),
    ]
    for request, expected in cases:
        op = request.pop("op")
        answer = await page.act(op, **request)
        assert answer["type"] == "error" and expected in answer["text"], (op, request, answer)
    await page.socket.send_str("{not json")
    error = await page.wait_for(lambda u: u["type"] == "error" and u.get("ref") is None, what="error for bad JSON")
    assert error["text"]

    # a component the message does not have, on a real message
    await page.act("invoke", path=["checkers", "play"], options={"level": "easy"})
    board = await board_of(page)
    answer = await page.act(
        "select", message=board["id"], custom_id=component(board, "km:p:")["custom_id"], values=["99"]
    )
    assert answer["type"] == "error" and "not among its options" in answer["text"]
    answer = await page.act("click", message=board["id"], custom_id="km:b:nothing")
    assert answer["type"] == "error" and "has no component" in answer["text"]
    assert (await page.act("commands"))["type"] == "commands"


async def test_switching_user_shows_what_that_user_sees(connect: Any) -> None:
    page = await connect("alice")
    assert (await page.act("invoke", path=["checkers", "help"], options={}))["type"] == "done"
    (help_message,) = page.messages().values()
    assert help_message["flags"] & EPHEMERAL, "/checkers help answers only its user"

    count = len(page.updates)
    page.send("as", user="bob")
    snapshot = await page.wait_for(lambda u: u["type"] == "snapshot", after=count, what="bob's snapshot")
    assert snapshot["me"]["name"] == "bob" and snapshot["messages"] == []

    count = len(page.updates)
    page.send("as", user="alice")
    snapshot = await page.wait_for(lambda u: u["type"] == "snapshot", after=count, what="alice's snapshot")
    assert [m["id"] for m in snapshot["messages"]] == [help_message["id"]]


async def test_a_challenge_opens_a_thread_on_every_page(sandbox: SandboxRuntime, connect: Any) -> None:
    alice = await connect("alice")
    bob = await connect("bob")
    bob_id = bob.snapshot()["me"]["id"]
    assert (await alice.act("invoke", path=["checkers", "challenge"], options={"opponent": bob_id}))["type"] == "done"
    challenge = await bob.wait_for(
        lambda u: u["type"] == "message_create" and component(u["message"], "km:c:accept") is not None,
        what="the challenge on bob's page",
    )
    accept = component(challenge["message"], "km:c:accept")
    assert accept is not None
    assert (await bob.act("click", message=challenge["message"]["id"], custom_id=accept["custom_id"]))["type"] == "done"
    for page in (alice, bob):
        thread = (await page.wait_for(lambda u: u["type"] == "channel", what="the game's thread"))["channel"]
        assert thread["thread"] and thread["parent_id"] == page.snapshot()["channel_id"]
        board = await page.wait_for(
            lambda u, t=thread: u["type"] == "message_create" and u["message"]["channel_id"] == t["id"],
            what="the board in the thread",
        )
        assert board_version(board["message"]) is not None


async def test_only_the_pages_own_origin_with_the_key_gets_a_socket(sandbox: SandboxRuntime) -> None:
    """Another page in the user's browser (another origin, or one that resolves to this machine but lacks the key
    printed at start) gets no update: a page of another origin is refused at the handshake; a request without the key
    (or with a wrong one) gets only the line that says what to do, in its user's language, and the close code that
    tells the page not to reconnect; the page itself connects."""
    url = f"{sandbox.address}{SOCKET_PATH}"
    own = sandbox.address
    sandbox.emulator.user("bob").locale = "fr"
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            # a page elsewhere that somehow knows the key
            await session.ws_connect(f"{url}?key={sandbox.bridge.key}", headers={"Origin": "http://evil.example"})
        assert refused.value.status == 403
        for query, origin, says in (
            ("", own, "This address has no key: open the one kingme printed"),
            ("?key=guess", own, "This page's key is not the running sandbox's"),
            ("?key=guess", None, "This page's key is not the running sandbox's"),  # a script outside any browser
            (f"?key={sandbox.bridge.key[:-1]}", own, "This page's key is not the running sandbox's"),
            ("?as=bob", own, "Cette adresse n'a pas de clé"),
            (f"?as={sandbox.emulator.bot_user.name}", own, "This address has no key"),  # nobody a page may act as
        ):
            headers = {"Origin": origin} if origin is not None else {}
            async with session.ws_connect(url + query, headers=headers) as socket:
                frames = [frame async for frame in socket]
            assert [json.loads(frame.data)["type"] for frame in frames] == ["refused"], (query, frames)
            text = json.loads(frames[0].data)["text"]
            assert text.startswith(says) and "\n" not in text and sandbox.bridge.key not in text, text
            assert socket.close_code == REFUSED
        async with session.ws_connect(f"{url}?key={sandbox.bridge.key}", headers={"Origin": own}) as socket:
            first = await socket.receive_json(timeout=10)
            assert first["type"] == "snapshot"
    assert sandbox.page_url == f"{sandbox.address}/?key={sandbox.bridge.key}"
