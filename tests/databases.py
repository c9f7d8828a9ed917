"""The test database as a DATABASE_URL, for the subprocesses tests start (a Celery worker, a management command)."""

from django.db import connection


def database_url() -> str:
    """The test database, for the subprocess (a file on SQLite, the test database on PostgreSQL)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    credentials = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
