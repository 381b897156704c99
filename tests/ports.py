"""Free loopback ports for test servers, chosen where no outgoing connection can take them.

A port the kernel hands out for ``bind(0)`` lies in its ephemeral range, the same range it
picks from for every outgoing connection; between our probe and the server's own bind,
another process's connection can take it (a SeaweedFS start once failed exactly so). Ports
below that range are only ever taken by someone binding them on purpose.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

LOWEST_PORT = 20000
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _first_ephemeral_port() -> int:
    try:
        return int(EPHEMERAL_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports nobody listens on right now, below the ephemeral range."""
    ceiling = max(_first_ephemeral_port(), LOWEST_PORT + 1000)
    chosen: list[int] = []
    while len(chosen) < count:
        port = random.randrange(LOWEST_PORT, ceiling)
        if port in chosen:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        chosen.append(port)
    return chosen


def free_port() -> int:
    """A TCP port nobody listens on right now, below the ephemeral range."""
    return free_ports(1)[0]
