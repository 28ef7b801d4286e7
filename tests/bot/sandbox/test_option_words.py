"""Option values typed on the sandbox page that the Discord client would never send (a person nobody knows, a number
that is not one) are refused in the product's words, never in Python's ("invalid literal for int()")."""

from __future__ import annotations

from typing import Any

import pytest

PYTHON_WORDS = ("invalid literal", "could not convert", "int()", "float()", "Traceback", "Error")


@pytest.mark.parametrize(
    ("path", "options", "expected"),
    [
        (
            ["checkers", "challenge"],
            {"opponent": "nobody"},
            "opponent: there is nobody called 'nobody' here; pick one of alice, bob, carol",
        ),
        (["checkers", "play"], {"think": "abc"}, "think takes a number, not 'abc'"),
        (["checkers", "challenge"], {"opponent": "bob", "turn_time": "soon"}, "turn_time takes a number, not 'soon'"),
        (["checkers", "board"], {"text": "maybe"}, "text takes true or false, not 'maybe'"),
    ],
)
async def test_a_value_of_the_wrong_kind_is_refused_in_our_words(
    connect: Any, path: list[str], options: dict[str, str], expected: str
) -> None:
    page = await connect("alice")
    answer = await page.act("invoke", path=path, options=options)
    assert answer["type"] == "error", answer
    assert answer["text"].startswith(expected), answer["text"]
    assert not any(word in answer["text"] for word in PYTHON_WORDS), answer["text"]


async def test_a_person_named_or_mentioned_is_sent_as_their_id(connect: Any) -> None:
    page = await connect("alice")
    answer = await page.act("invoke", path=["checkers", "challenge"], options={"opponent": "@bob"})
    assert answer["type"] == "done", answer
    challenge = next(m for m in page.messages().values() if "challenges you" in m["content"])
    bob = next(u for u in page.snapshot()["users"] if u["name"] == "bob")
    assert f"<@{bob['id']}>" in challenge["content"]


async def test_a_french_viewer_is_refused_in_french(connect: Any, sandbox: Any) -> None:
    sandbox.emulator.user("alice").locale = "fr"
    page = await connect("alice")
    answer = await page.act("invoke", path=["checkers", "play"], options={"think": "abc"})
    assert answer["type"] == "error" and answer["text"] == "think attend un nombre, pas 'abc'", answer
    answer = await page.act("invoke", path=["checkers", "challenge"], options={"opponent": "nobody"})
    assert (
        answer["text"]
        == "opponent\u00a0: personne ne s'appelle 'nobody' ici\u00a0; choisissez un nom parmi alice, bob, carol"
    )
