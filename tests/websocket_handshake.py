"""A real websocket client's handshake on Reflex's ``/_event``, as socket.io's transport opens it.

wsproto (a dependency of the app) over a plain TCP socket, so the test decides every header:
the Origin a browser would send, or none, as a script may.
"""

from __future__ import annotations

import socket

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, RejectConnection, Request

EVENT_TARGET = "/_event/?EIO=4&transport=websocket"
ACCEPTED = 101


def handshake_status(port: int, origin: str | None, host: str | None = None) -> int:
    """The HTTP status a server on 127.0.0.1:``port`` answers a websocket handshake with (101: accepted).

    ``host`` is the Host header (``localhost:<port>`` unless given); ``origin`` None sends no Origin.
    """
    client = WSConnection(ConnectionType.CLIENT)
    headers = [("Origin", origin)] if origin is not None else []
    request = Request(host=host or f"localhost:{port}", target=EVENT_TARGET, extra_headers=headers)
    with socket.create_connection(("127.0.0.1", port), timeout=20) as connection:
        connection.sendall(client.send(request))
        while True:
            data = connection.recv(65536)
            client.receive_data(data or None)
            for event in client.events():
                if isinstance(event, AcceptConnection):
                    return ACCEPTED
                if isinstance(event, RejectConnection):
                    return event.status_code
            if not data:
                raise ConnectionError("the server closed the connection without answering the handshake")
