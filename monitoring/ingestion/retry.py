"""Retrying an ingestion transaction that PostgreSQL aborted to break a deadlock.

Concurrent batches take row locks in many places (their own inserts' foreign-key checks at commit,
alerts, cases opened for new alerts, wallets' first-seen times); PostgreSQL resolves a lock cycle by
aborting one transaction, and the client should not see that as a failure. The whole unit of work
runs again from the start: nothing of the aborted attempt remains (its rows and its on-commit
callbacks were rolled back with it). Should every attempt be chosen, the client gets a 503 with
Retry-After (nothing was stored, so sending the request again is safe), not a 500.
"""

import logging
import random
import time

import psycopg.errors
from django.db import OperationalError, connection, transaction

from common.errors import ServiceBusy

logger = logging.getLogger(__name__)

ATTEMPTS = 5
RETRIED = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)


def _retryable(exc: Exception) -> bool:
    return isinstance(exc, RETRIED) or isinstance(exc.__cause__, RETRIED)


def in_retried_transaction(work):
    """`work()` in its own transaction, again (up to ATTEMPTS times) when it is chosen as a deadlock
    victim. Inside a caller's transaction it runs once: only the outermost transaction can be retried."""
    if connection.in_atomic_block:
        with transaction.atomic():
            return work()
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with transaction.atomic():
                return work()
        except (OperationalError, *RETRIED) as exc:
            if not _retryable(exc):
                raise
            if attempt == ATTEMPTS:
                logger.warning("gave up after %d attempts, each aborted to break a lock cycle: %s", ATTEMPTS, exc)
                raise ServiceBusy() from exc
            time.sleep(random.uniform(0.005, 0.05) * attempt)  # let the other transaction finish
