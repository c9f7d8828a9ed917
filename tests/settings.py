"""Test settings: config.settings with the environment a test run needs set first."""

import os
import tempfile

os.environ.setdefault("EMAIL_URL", "locmem://")
os.environ.setdefault("DATA_DIR", os.path.join(tempfile.gettempdir(), f"svc-test-{os.getpid()}"))
os.environ.setdefault("CACHE_KEY_PREFIX", f"test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}")

from config.settings import *  # noqa: E402,F403

# Speed: Argon2 is deliberately slow; the tests check behaviour, not hashing strength.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True

# A file, not memory, so that subprocesses the tests start (a real Celery worker, gunicorn) see
# the same test database. pytest-xdist appends the worker id to the name.
if IS_SQLITE:  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(DATA_DIR, "test.sqlite3")}  # noqa: F405
