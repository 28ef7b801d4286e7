"""A dict that keeps at most a fixed number of entries, forgetting the least recently used: every in-process cache of
King Me is one (or is emptied as its entries end), so a long-running process never grows without bound."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator, MutableMapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedDict(MutableMapping[K, V]):
    """A mapping of at most ``maxsize`` entries; reading or writing an entry makes it the most recently used, and
    adding one past ``maxsize`` drops the least recently used. Only for caches: a dropped entry must be one that can be
    read again from where it came from (or whose loss only costs a little work)."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        value = self._data[key]
        self._data.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data
