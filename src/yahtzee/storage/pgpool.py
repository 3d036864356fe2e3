"""What the two PostgreSQL connection pools share (the games' async one in
:mod:`yahtzee.storage.postgres`, the feature tables' in :mod:`yahtzee.storage.feature_db`):
how they reconnect after the database went away, and the test a pooled connection passes
before a request gets it. Imported only for a PostgreSQL URL.

Two things psycopg_pool does by default made the first requests after a database restart
fail (the PostgreSQL crash test's 1 run in 10 on the loaded machine):

* **The reconnection backoff.** A lost connection is replaced by a background attempt that,
  while the server is down, retries after 1, 2, 4, 8, 16 … s (±10 %) for 5 minutes
  (``reconnect_timeout``). After an outage of 10–20 s the next attempt could come 10–16 s
  after the database was back, and until then every request waited its whole timeout for a
  connection and answered 503. :func:`pool_options` makes a reconnection give up after the
  request timeout (no wait between two attempts is then longer than half of it), and once
  it has given up the pool opens a connection *at once* for the next request that has to
  wait.
* **Dead idle connections.** After a restart every idle pooled connection is closed at the
  server's end, but the pool hands it out as it is; a write on it failed with 503 (a read
  was retried) although the database was there again. :func:`idle_connection_gone` finds
  them without a round trip: an idle connection has nothing to say, so a socket with data
  (the server's goodbye or its end of the stream) is one the server has closed.

Nothing is ever sent on a connection found gone, so taking another is safe for a write as
well; a connection that dies *during* a statement is still 503 for a write (it may have
committed: the client reads the game again, F6), and once more for a read.
"""

from __future__ import annotations

import contextlib
import select
from typing import Any

import psycopg
from psycopg import pq

#: Seconds a PostgreSQL connection attempt may take (libpq's ``connect_timeout``; its
#: default waits for ever on a host that does not answer).
CONNECT_TIMEOUT = 2


def pool_options(timeout: float) -> dict[str, Any]:
    """The options of a psycopg pool whose requests wait at most ``timeout`` seconds for a
    connection: autocommit connections, a bounded connection attempt, and reconnection
    attempts that give up after ``timeout`` (see the module docstring)."""
    return {
        "kwargs": {"autocommit": True, "connect_timeout": max(CONNECT_TIMEOUT, round(timeout))},
        "timeout": timeout,
        "reconnect_timeout": timeout,
    }


def idle_connection_gone(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> bool:
    """Whether the idle pooled ``conn`` is closed: libpq knows it is, or its socket is
    readable (a poll that does not wait, no round trip)."""
    if conn.closed or conn.pgconn.status != pq.ConnStatus.OK:
        return True
    poller = select.poll()  # (not select.select: the socket's number may be above 1024)
    poller.register(conn.pgconn.socket, select.POLLIN)
    return bool(poller.poll(0))


class ConnectionGoneError(psycopg.OperationalError):
    """A pooled connection was found closed before use (the pool replaces it)."""


async def check_idle_async(conn: psycopg.AsyncConnection[Any], pool: Any) -> None:
    """An asynchronous pool's test of ``conn`` before a request gets it (no round trip):
    one the server has closed is closed here too (so ``pool`` replaces it), and since the
    others in the pool were most likely closed with it (a restart), they are tested at
    once, before the pool hands out the next."""
    if idle_connection_gone(conn):
        await conn.close()
        with contextlib.suppress(psycopg.Error):
            await pool.check()
        raise ConnectionGoneError("the server closed this idle connection")
