"""Maximum matching in a general graph (Edmonds' blossom algorithm), as the oracle the pairings ask "can the rest
still be paired?".

The pairings choose their pairs one at a time, in their own order of preference (the Dutch system's, the arena's
closeness), and keep a pair only if the players left can still be paired as fully as before. :class:`Matcher` answers
that cheaply: it keeps one maximum matching of the players left; taking a pair out of the graph frees at most two
vertices, and a maximum matching of the rest is back after at most two augmenting-path searches (Berge's theorem: a
matching is maximum exactly when no augmenting path exists, and any new one must start at a freed vertex). So a
choice is never made that leaves the rest unpairable, and no search backtracks.

Vertices are ``0..n-1``; the search is the classic one with blossom contraction through a ``base`` array, O(V·E) a
search.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_FREE = -1


class Matcher:
    """A maximum matching of a graph whose vertices can be taken out, kept maximum as they go."""

    def __init__(self, neighbours: Sequence[Iterable[int]]) -> None:
        self._n = len(neighbours)
        self._adjacent = [sorted(set(row)) for row in neighbours]
        self._alive = [True] * self._n
        self._mate = [_FREE] * self._n
        for v in range(self._n):  # a greedy start: fewer searches after
            if self._mate[v] == _FREE:
                for w in self._adjacent[v]:
                    if self._mate[w] == _FREE and w != v:
                        self._mate[v], self._mate[w] = w, v
                        break
        for v in range(self._n):
            if self._mate[v] == _FREE:
                self._augment(v)
        self.size = sum(1 for v in range(self._n) if self._mate[v] != _FREE) // 2
        """How many pairs a maximum matching of the vertices left has."""

    def mate(self, v: int) -> int | None:
        """``v``'s partner in the matching kept (one maximum matching among many)."""
        w = self._mate[v]
        return None if w == _FREE else w

    def pairs(self) -> list[tuple[int, int]]:
        return [(v, w) for v, w in enumerate(self._mate) if w != _FREE and v < w]

    def remove(self, vertices: Iterable[int], losing: int) -> bool:
        """Take ``vertices`` out if the rest still has a matching of ``size - losing`` pairs, and return True;
        otherwise change nothing and return False.

        ``remove((p, q), 1)`` asks whether some maximum matching pairs ``p`` with ``q`` (the caller checks that they
        are adjacent); ``remove((v,), 0)`` whether some maximum matching leaves ``v`` out (a bye)."""
        gone = set(vertices)
        mate, alive = list(self._mate), list(self._alive)
        freed = []
        for v in gone:
            self._alive[v] = False
            w = self._mate[v]
            if w != _FREE:
                self._mate[v] = self._mate[w] = _FREE
                if w not in gone:
                    freed.append(w)
        size = sum(1 for v in range(self._n) if self._alive[v] and self._mate[v] != _FREE) // 2
        for v in sorted(freed):
            if self._mate[v] == _FREE and size < self.size - losing and self._augment(v):
                size += 1
        if size >= self.size - losing:
            self.size = size
            return True
        self._mate, self._alive = mate, alive
        return False

    def _augment(self, root: int) -> bool:
        """Look for an augmenting path from the free vertex ``root``; flip it and return True if there is one."""
        n, mate, alive, adjacent = self._n, self._mate, self._alive, self._adjacent
        base = list(range(n))
        parent = [_FREE] * n
        used = [False] * n
        used[root] = True
        queue = [root]

        def lca(a: int, b: int) -> int:
            seen = [False] * n
            while True:
                a = base[a]
                seen[a] = True
                if mate[a] == _FREE:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[mate[b]]

        def mark(v: int, stem: int, child: int, blossom: list[bool]) -> None:
            while base[v] != stem:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        head = 0
        while head < len(queue):
            v = queue[head]
            head += 1
            for to in adjacent[v]:
                if not alive[to] or base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != _FREE and parent[mate[to]] != _FREE):
                    stem = lca(v, to)
                    blossom = [False] * n
                    mark(v, stem, to, blossom)
                    mark(to, stem, v, blossom)
                    for i in range(n):
                        if blossom[base[i]]:
                            base[i] = stem
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == _FREE:
                    parent[to] = v
                    if mate[to] == _FREE:
                        while to != _FREE:
                            previous = parent[to]
                            following = mate[previous]
                            mate[to], mate[previous] = previous, to
                            to = following
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False
