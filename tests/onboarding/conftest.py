"""Fixtures for the sanctions tests: the real OFAC SDN and UN lists, loaded once per test worker.

The lists are loaded with the real `load_sanctions` command into the worker's test database,
outside any test transaction, so every test of the worker sees them and rolls back only its own
changes. (pytest-xdist with --dist loadfile: each worker loads them once, about ten seconds.)
"""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from onboarding.models import SanctionsList
from onboarding.sanctions.files import read_blob
from onboarding.sanctions.registry import SNAPSHOT_DIR
from onboarding.screening.index import get_index, invalidate_index

# The bundled snapshot (gzip-compressed files; the parsers read them as they are).
OFAC_DIR = SNAPSHOT_DIR / "ofac_sdn"
UN_FILE = SNAPSHOT_DIR / "un_consolidated" / "consolidated.xml.gz"


@pytest.fixture(scope="module")
def sanctions_load_output(django_db_setup, django_db_blocker):
    """Load both real lists for the module; the command's output, for the tests that read it.

    Committed outside the tests' transactions, so every test of the module sees them; deleted when
    the module ends, so test modules that run later on the same worker start without them."""
    out = io.StringIO()
    with django_db_blocker.unblock():
        call_command("load_sanctions", stdout=out)
        invalidate_index()
    yield out.getvalue()
    with django_db_blocker.unblock():
        SanctionsList.objects.all().delete()
        invalidate_index()


@pytest.fixture(scope="module")
def sanctions_index(sanctions_load_output, django_db_blocker):
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
