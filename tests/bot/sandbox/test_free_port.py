"""The sandbox's own port (``HTTP_PORT=0``): free when chosen, and below the system's ephemeral ports, which the
system hands to outgoing connections and to every ``bind`` to port 0 (so none of them takes it before the sandbox
listens on it)."""

from __future__ import annotations

import socket

from bot.sandbox_runtime import EPHEMERAL_PORTS, LOWEST_CHOSEN_PORT, free_port


def test_a_chosen_port_is_free_and_below_the_systems_own() -> None:
    first_ephemeral = int(EPHEMERAL_PORTS.read_text().split()[0])
    assert first_ephemeral > LOWEST_CHOSEN_PORT, "this machine's ephemeral range leaves room below it"
    ports = {free_port("127.0.0.1") for _ in range(20)}
    assert all(LOWEST_CHOSEN_PORT <= port < first_ephemeral for port in ports)
    assert len(ports) > 1, "chosen at random, not the same one each time"
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", port))  # free: nothing listens there


def test_a_port_in_use_is_never_chosen() -> None:
    taken = []
    try:
        for _ in range(200):  # hold 200 of the chosen ports: none is ever chosen twice while held
            port = free_port("127.0.0.1")
            holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            holder.bind(("127.0.0.1", port))
            holder.listen()
            taken.append(holder)
    finally:
        for holder in taken:
            holder.close()
