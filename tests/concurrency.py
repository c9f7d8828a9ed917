"""Helpers for tests that hold two real PostgreSQL transactions open at once."""

import threading
import time

from django.db import connection


def waits_on_a_lock(thread, timeout: float = 30) -> bool:
    """Whether a session of this test database comes to wait on a lock while `thread` runs (polled
    until one does, the thread ends, or `timeout` seconds pass): the moment to let the transaction
    it waits for go on."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline and thread.is_alive():
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.05)
    return False


def second_waits_for_first(holder, waiter, *, held, release, lock_timeout: float = 30, timeout: float = 60) -> bool:
    """Two transactions at once: `holder` runs in a thread until it sets `held` (its transaction
    now holds the locks in question) and then waits for `release`; `waiter` then runs in another
    thread; once it waits on a lock (or has finished), `release` is set and both are joined. Each
    runs on a connection of its own, closed when it ends. Returns whether the waiter came to wait."""
    def on_own_connection(work):
        def run():
            try:
                work()
            finally:
                connection.close()

        return threading.Thread(target=run)

    first = on_own_connection(holder)
    first.start()
    assert held.wait(timeout)
    second = on_own_connection(waiter)
    second.start()
    waited = waits_on_a_lock(second, lock_timeout)
    release.set()
    first.join(timeout)
    second.join(timeout)
    return waited
