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


@pytest.mark.parametrize(
    ("env", "shards"),
    [
        ({}, None),
        ({"SHARD_COUNT": "3"}, (0, 1, 2)),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1, 0"}, (0, 1)),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "2", "REDIS_URL": "redis://redis:6379/0"}, (2,)),
    ],
)
def test_shard_settings_say_which_shards_this_process_runs(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], shards: tuple[int, ...] | None
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.shards == shards
    assert ("shards" in settings.summary()) == (shards is not None)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SHARD_IDS": "0"}, "needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "2", "REDIS_URL": "redis://r"}, "2 is not a shard of SHARD_COUNT=2"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "one"}, "shard numbers separated by commas"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "-1"}, "shard numbers separated by commas"),
        ({"SHARD_COUNT": "3", "SHARD_IDS": "1,1", "REDIS_URL": "redis://r"}, "names a shard twice"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1"}, "set REDIS_URL"),
        ({"SHARD_COUNT": "0"}, "greater than or equal to 1"),
    ],
)
def test_impossible_shard_settings_are_refused_with_a_clear_reason(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=message):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_health_and_metrics_listen_on_the_loopback_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """``/healthz`` and ``/metrics`` have a listener of their own, on the loopback by default; the public pages keep
    theirs, on every interface (a proxy or a container's port mapping reaches it)."""
    for name in ("HTTP_HOST", "HTTP_PORT", "OPS_HOST", "OPS_PORT"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.ops_host, settings.ops_port) == ("127.0.0.1", 8090)
    assert (settings.http_host, settings.http_port) == ("0.0.0.0", 8080)
    monkeypatch.setenv("OPS_HOST", "0.0.0.0")
    monkeypatch.setenv("OPS_PORT", "9100")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.ops_host, settings.ops_port) == ("0.0.0.0", 9100)
    assert "http 0.0.0.0:8080, ops 0.0.0.0:9100" in settings.summary()
