"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013), one game per rating period.

The ``glicko2`` package on PyPI (2.1.0) computes the volatility with the player's *rating* where the formula has the
rating *deviation* (``_f`` uses ``self.__rating**2`` for φ²), so it is right only for a player rated exactly 1500. This
module is the small, tested replacement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.service._models import Rating

SCALE = 173.7178
TAU = 0.5
EPSILON = 1e-6
PROVISIONAL_RD = 110.0
MAX_RD = 350.0
MIN_RD = 45.0


def is_provisional(rating: Rating) -> bool:
    """A rating is provisional while its deviation is above 110."""
    return rating.rd > PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``results``: (opponent before the period, score 1/0.5/0).

    The record counters (games, wins, ...) are not touched; see :func:`after_game`.
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.rd / SCALE
    sigma = player.vol
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(MAX_RD, phi_star * SCALE), sigma, *_record(player))
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.rd / SCALE
        e = _e(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum

    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    rd = min(MAX_RD, max(MIN_RD, new_phi * SCALE))
    return Rating(new_mu * SCALE + 1500.0, rd, new_sigma, *_record(player))


def _record(r: Rating) -> tuple[int, int, int, int]:
    return r.games, r.wins, r.losses, r.draws


def after_game(player: Rating, opponent: Rating, score: float) -> Rating:
    """The player's new rating and record after one game scored 1 (win), 0.5 (draw) or 0 (loss)."""
    new = update(player, [(opponent, score)])
    return Rating(
        new.rating,
        new.rd,
        new.vol,
        player.games + 1,
        player.wins + (score == 1.0),
        player.losses + (score == 0.0),
        player.draws + (score == 0.5),
    )
