"""Fixtures for the sanctions tests: the real OFAC SDN and UN lists, loaded once per test worker.

The lists are loaded with the real `load_sanctions` command into the worker's test database,
outside any test transaction, so every test of the module sees them and rolls back only its own
changes. The command runs once per worker process (and in each module that reads its output); later
modules get the rows it wrote back from memory (tests/onboarding/lists_snapshot.py), in about a
second instead of 15 to 50.
"""

from pathlib import Path

import pytest

from onboarding.models import SanctionsList
from onboarding.sanctions.files import read_blob
from onboarding.sanctions.registry import SNAPSHOT_DIR
from onboarding.screening.index import get_index, invalidate_index
from tests.onboarding.lists_snapshot import SnapshotRows

# The bundled snapshot (gzip-compressed files; the parsers read them as they are).
OFAC_DIR = SNAPSHOT_DIR / "ofac_sdn"
UN_FILE = SNAPSHOT_DIR / "un_consolidated" / "consolidated.xml.gz"


_snapshot: SnapshotRows | None = None  # what this process's last real load wrote
_LIST_FIXTURES = frozenset(("sanctions_lists", "sanctions_index", "sanctions_load_output"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A test that reads the real lists needs the test database even when it writes nothing: pytest-django creates the
    databases only for the selected tests marked `django_db`, so a `-k` selection of screening tests that are not would
    find no tables. Such tests are marked here."""
    for item in items:
        if _LIST_FIXTURES & set(getattr(item, "fixturenames", ())) and item.get_closest_marker("django_db") is None:
            item.add_marker(pytest.mark.django_db)


def _loaded_for_module(django_db_blocker, *, real: bool):
    """Load the real lists, committed outside the tests' transactions so every test of the module
    sees them; yield the command's output; delete them when the module ends, so test modules that
    run later on the same worker start without them. With `real`, or the first time in the process,
    the command runs; otherwise the rows it wrote are written back."""
    global _snapshot
    with django_db_blocker.unblock():
        if real or _snapshot is None:
            _snapshot = SnapshotRows.capture()
        else:
            _snapshot.restore()
        invalidate_index()
    yield _snapshot.output
    with django_db_blocker.unblock():
        SanctionsList.objects.all().delete()
        invalidate_index()


@pytest.fixture(scope="module")
def sanctions_load_output(django_db_setup, django_db_blocker):
    """Both real lists loaded for the module by the real command; its output, for the tests that read it."""
    yield from _loaded_for_module(django_db_blocker, real=True)


@pytest.fixture(scope="module")
def sanctions_lists(django_db_setup, django_db_blocker):
    """The real lists in place for the module, as `load_sanctions` writes them (written back from memory
    after the process's first real load)."""
    yield from _loaded_for_module(django_db_blocker, real=False)


@pytest.fixture(scope="module")
def sanctions_index(sanctions_lists, django_db_blocker):
    """The in-memory screening index built from the real lists."""
    with django_db_blocker.unblock():
        invalidate_index()
        return get_index(max_age=0)


@pytest.fixture
def fresh_index():
    """Drop the process's index before and after a test that changes lists inside its transaction,
    so no later test screens against a state that was rolled back."""
    invalidate_index()
    yield
    invalidate_index()


@pytest.fixture
def ofac_copy(tmp_path) -> Path:
    """A writable copy of the real OFAC CSV set."""
    target = tmp_path / "ofac"
    target.mkdir()
    for path in OFAC_DIR.glob("*.gz"):
        (target / path.name.removesuffix(".gz")).write_bytes(read_blob(path))
    return target


@pytest.fixture
def un_copy(tmp_path) -> Path:
    target = tmp_path / "UN_consolidated.xml"
    target.write_bytes(read_blob(UN_FILE))
    return target
