"""The JSON the HTTP side answers with, as one type: what every ``as_json`` returns (the public pages' too)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSON: TypeAlias = "str | int | float | bool | Sequence[JSON] | Mapping[str, JSON] | None"
"""A JSON value (read-only containers, so that a ``dict[str, str]`` or a ``list[int]`` is one too)."""
