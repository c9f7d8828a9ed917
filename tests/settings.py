"""Test settings: config.settings with the environment a test run needs set first."""

import os
import tempfile

os.environ.setdefault("EMAIL_URL", "locmem://")
os.environ.setdefault("DATA_DIR", os.path.join(tempfile.gettempdir(), f"svc-test-{os.getpid()}"))

from config.settings import *  # noqa: E402,F403

# Speed: Argon2 is deliberately slow; the tests check behaviour, not hashing strength.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True

# Each pytest-xdist worker (a process) gets its own Redis namespace: tests clear theirs.
RATE_LIMIT_KEY_PREFIX = f"test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}"
CACHES["default"]["KEY_PREFIX"] = RATE_LIMIT_KEY_PREFIX  # noqa: F405
CELERY_TASK_EAGER_PROPAGATES = True

# A file, not memory, so that subprocesses the tests start (a real Celery worker, gunicorn) see
# the same test database. pytest-xdist appends the worker id to the name.
if IS_SQLITE:  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(DATA_DIR, "test.sqlite3")}  # noqa: F405

# No test may reach a sanctions publisher: a list's files are downloaded only from URLs a test sets
# (its publisher on loopback, tests/onboarding/publisher.py).
SANCTIONS_PUBLISHER_URLS = False

# The OpenID Provider the SSO tests start listens on http://127.0.0.1 (tests/accounts/sso_servers.py).
SSO_ALLOW_HTTP_LOOPBACK = True
