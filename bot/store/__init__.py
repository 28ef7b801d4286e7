"""Persistence layer of the bot (Redis)."""

from bot.store._connection import connect as connect
from bot.store._connection import connect_probe as connect_probe
from bot.store._lease import RedisLease as RedisLease
from bot.store._redis_store import NAMESPACE as NAMESPACE
from bot.store._redis_store import RedisGameStore as RedisGameStore
