"""Settings of the Celery worker subprocess that test_worker starts: the real settings (database and
broker from the environment it is given), with the sweeper re-sending a message after one second.
The lease stays long (30 s): the restarted worker hands back the killed one's lease at once, and a
lease shorter than a batch can take on a loaded machine would let a second worker send it again."""

from config.settings import *  # noqa: F403

WEBHOOK_DELIVERY_LEASE_SECONDS = 30
WEBHOOK_REQUEUE_AFTER_SECONDS = 1
