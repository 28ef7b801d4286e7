"""The public pages are served by the sandbox's HTTP side in these tests: its fixture, shared."""

from tests.bot.sandbox.conftest import sandbox

__all__ = ["sandbox"]
