"""How current the lists are: `sanctions_status` (what `make run` prints) and /health's sanctions_lists."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from onboarding.models import SanctionsList, SanctionsRefresh
from onboarding.models.sanctions import RefreshOutcome
from onboarding.sanctions.loader import sanctions_list_load
from onboarding.sanctions.records import ParsedEntry, ParsedList, ParsedName, ParseReport

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_index")]


def load(source: str, *, published_days_ago: int | None):
    published = timezone.now() - timedelta(days=published_days_ago) if published_days_ago is not None else None
    entry = ParsedEntry(uid="1", kind="individual", primary_name="Ivan Testov", names=[ParsedName("Ivan Testov", "primary")])
    parsed = ParsedList(source=source, content_hash=f"hash-{source}", entries=[entry], report=ParseReport(), source_files=["x"],
                        published_at=published)
    sanctions_list_load(parsed)


def status_output() -> str:
    out = io.StringIO()
    call_command("sanctions_status", stdout=out)
    return out.getvalue()


def test_current_lists_are_ok(client):
    load("ofac_sdn", published_days_ago=2)
    load("un_consolidated", published_days_ago=30)

    body = client.get("/health").json()

    assert body["status"] == "ok" and body["sanctions_lists"]["ok"] and body["sanctions_lists"]["problems"] == []
    assert [(item["source"], item["entries"], item["stale"], item["version"]) for item in body["sanctions_lists"]["lists"]] == [
        ("ofac_sdn", 1, False, 1), ("un_consolidated", 1, False, 1)]
    output = status_output()
    assert "  OFAC Specially Designated Nationals (SDN) (ofac_sdn): published " in output and "entries, 2 days old" in output
    assert "1 entries" in output and "Warning" not in output and "python manage.py refresh_sanctions" in output


def test_a_list_older_than_30_days_is_stale_and_health_degraded(client):
    load("ofac_sdn", published_days_ago=2)
    load("un_consolidated", published_days_ago=45)

    response = client.get("/health")

    body = response.json()
    assert response.status_code == 200 and body["status"] == "degraded"
    assert body["sanctions_lists"]["problems"] == ["un_consolidated is 45 days old (more than 30)"]
    assert "Warning: 1 of 2 lists are more than 30 days old (un_consolidated): screening uses them" in status_output()
    with override_settings(SANCTIONS_STALE_DAYS=60):
        assert client.get("/health").json()["status"] == "ok"


def test_a_refresh_that_reached_the_publisher_makes_a_list_current(client):
    load("ofac_sdn", published_days_ago=400)
    SanctionsList.objects.filter(source="ofac_sdn").update(last_refresh_at=timezone.now(), last_refresh_outcome=RefreshOutcome.UNCHANGED)
    assert client.get("/health").json()["status"] == "ok"

    started = timezone.now().replace(microsecond=0)
    for source in ("ofac_sdn", "eu_fsf"):  # eu_fsf was never loaded: its first download failed
        SanctionsRefresh.objects.create(source=source, started_at=started, finished_at=started, outcome=RefreshOutcome.FAILED,
                                        message="HTTP 404 for sdn.csv")
    body = client.get("/health").json()

    assert body["status"] == "degraded"
    assert body["sanctions_lists"]["problems"] == [
        f"eu_fsf: the last refresh failed (1 in a row since {started:%Y-%m-%d %H:%M} UTC)",  # the error's text is not public
        f"ofac_sdn: the last refresh failed (1 in a row since {started:%Y-%m-%d %H:%M} UTC)"]
    assert "UTC): HTTP 404 for sdn.csv" in status_output()  # the operator's command says why


def test_no_list_loaded():
    assert "none loaded" in status_output()
