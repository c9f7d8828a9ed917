"""Helpers for tests that hold two real PostgreSQL transactions open at once."""

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
