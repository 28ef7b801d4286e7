"""The settings keep their secrets: neither the bot token nor a password inside ``REDIS_URL`` shows in any text form
of the settings (repr, str, the startup summary, a JSON dump), and the values still reach the parts that use them."""

from __future__ import annotations

import pytest

from bot.settings import Settings

TOKEN = "token-that-must-not-show"
PASSWORD = "hunter2-must-not-show"
URL = f"redis://kingme:{PASSWORD}@redis.internal:6379/0"


def test_no_text_form_of_the_settings_shows_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("REDIS_URL", URL)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    for shown in (repr(settings), str(settings), settings.summary(), settings.model_dump_json(), f"{settings!r}"):
        assert TOKEN not in shown and PASSWORD not in shown, shown
    assert settings.discord_token is not None and settings.discord_token.get_secret_value() == TOKEN
    assert settings.redis_url is not None and settings.redis_url.get_secret_value() == URL
    assert "redis external" in settings.summary()
