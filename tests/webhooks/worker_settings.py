"""Settings of the Celery worker subprocess that test_worker starts: the real settings (database and
broker from the environment it is given), with a short lease so a killed attempt is handed out again
within seconds instead of a minute."""

from config.settings import *  # noqa: F403

WEBHOOK_DELIVERY_LEASE_SECONDS = 8
WEBHOOK_REQUEUE_AFTER_SECONDS = 1
