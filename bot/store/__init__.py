"""Persistence layer of the bot (Redis)."""
