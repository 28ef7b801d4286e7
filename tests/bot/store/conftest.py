"""The store's tests use the game service's fixtures: the real Redis store, a real in-process AI, the test's clock."""

from tests.bot.service.conftest import chooser, clock, events, make_service, service

__all__ = ["chooser", "clock", "events", "make_service", "service"]
