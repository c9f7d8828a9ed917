"""The platform's fast paths keep their behaviour: the limiter's lean Redis connection (script
reloaded after a flush, connection reopened after it was cut, authentication and database from the
URL) and the prepared status look-ups (which double as the connection health check)."""

import pytest
import redis
from django.conf import settings
from django.db import connection

from common import prepared
from common.redis_wire import ScriptRunner

SCRIPT = "return {redis.call('INCR', KEYS[1]), ARGV[1]}"

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="runs against the Redis of REDIS_URL")
needs_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")


@pytest.fixture
def runner():
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete("test:wire")
    yield ScriptRunner.for_url(settings.REDIS_URL, SCRIPT), client
    client.delete("test:wire")


def test_only_plain_redis_urls_get_the_lean_connection():
    assert ScriptRunner.for_url("rediss://cache.example:6380/0", SCRIPT) is None
    assert ScriptRunner.for_url("unix:///run/redis.sock", SCRIPT) is None
    lean = ScriptRunner.for_url("redis://user:p%40ss@cache.example:6380/4", SCRIPT)
    assert (lean.address, lean.db, lean.username, lean.password) == (("cache.example", 6380), 4, "user", "p@ss")


@needs_redis
def test_script_runs_in_the_urls_database_and_survives_a_script_flush(runner):
    lean, client = runner
    assert lean(["test:wire"], ["a"]) == [1, b"a"]
    client.script_flush()  # the server forgets the script: EVALSHA answers NOSCRIPT, EVAL loads it again
    assert lean(["test:wire"], ["b"]) == [2, b"b"]
    assert int(client.get("test:wire")) == 2  # the same database as redis-py's client of that URL


@needs_redis
def test_a_cut_connection_is_reopened(runner):
    lean, client = runner
    lean(["test:wire"], ["a"])
    for info in client.client_list():
        if info["cmd"] in ("evalsha", "eval"):
            client.client_kill_filter(_id=info["id"])
    assert lean(["test:wire"], ["b"]) == [2, b"b"]


@needs_redis
def test_script_errors_are_raised(runner):
    lean = ScriptRunner.for_url(settings.REDIS_URL, "return redis.error_reply('nope')")
    with pytest.raises(redis.exceptions.ResponseError, match="nope"):
        lean(["test:wire"], [])


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_prepared_lookup_is_prepared_once_and_is_the_health_check():
    assert prepared.fetchall("SELECT %s::int + 1", [1]) == [(2,)]
    assert prepared.fetchall("SELECT %s::int + 1", [2]) == [(3,)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int + 1%%'")
        assert cursor.fetchone()[0] == 1
    # A new request on a connection the server has cut since: the look-up reconnects and answers.
    pid = connection.connection.info.backend_pid
    with second_connection() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    connection.health_check_done = False  # what Django does at the start of each request
    assert prepared.fetchall("SELECT %s::int + 1", [3]) == [(4,)]
    assert connection.connection.info.backend_pid != pid


def second_connection():
    import psycopg

    params = connection.get_connection_params()
    return psycopg.connect(**{k: v for k, v in params.items() if k in ("dbname", "user", "password", "host", "port")},
                           autocommit=True)
