"""The console's sanctions lists: each list with its version in force and last refresh, the versions
with their diffs, the refresh log, and "Refresh now" (the platform operator's, through the service).
Everything else is read-only."""

import pytest
from django.urls import reverse

from common.models import AuditLogEntry
from onboarding.models import SanctionsList, SanctionsRefresh
from onboarding.sanctions.refresh import sanctions_list_refresh
from onboarding.sanctions.registry import list_spec, snapshot_blobs
from tests.onboarding.publisher import Publisher
from tests.onboarding.test_refresh_sanctions import BNC, NEW_ROW, edited

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sanctions_lists", "fresh_index")]

OFAC = list_spec("ofac_sdn")
LISTS = "/admin/onboarding/sanctionslist/"
VERSIONS = "/admin/onboarding/sanctionslistversion/"
REFRESHES = "/admin/onboarding/sanctionsrefresh/"


@pytest.fixture
def publisher(settings):
    with Publisher() as server:
        server.serve_snapshot(OFAC)
        settings.SANCTIONS_URLS = server.urls(OFAC, list_spec("un_consolidated"))  # the UN file is not served: a 404
        yield server


def ofac() -> SanctionsList:
    return SanctionsList.objects.get(source="ofac_sdn")


def page(client, url, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, url
    return response.content.decode()


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_the_lists_show_their_version_and_last_refresh(admin_client, publisher):
    publisher.files.pop("/ofac_sdn/sdn.csv")
    failed = sanctions_list_refresh(source="ofac_sdn", trigger="beat")
    version = ofac().versions.get(number=1)

    listing = page(admin_client, LISTS)

    for text in ("OFAC Specially Designated Nationals (SDN)", "UN Security Council Consolidated List", "8976", "1003", "sanctions",
                 f'href="{reverse("admin:onboarding_sanctionslistversion_change", args=[version.pk])}"', "version 1",
                 failed.message, "failed"):
        assert text in listing, text
    assert "Refresh now from the publisher" in listing
    assert "ofac_sdn" in page(admin_client, LISTS, last_refresh_outcome__exact="failed")
    assert "ofac_sdn" not in page(admin_client, LISTS, last_refresh_outcome__exact="loaded")

    detail = page(admin_client, f"{LISTS}{ofac().pk}/change/")
    for text in ("US Treasury (OFAC)", "Downloaded from", publisher.url("ofac_sdn", "sdn.csv"), "SANCTIONS_URL_OFAC_SDN_SDN_CSV",
                 "Refresh log", reverse("admin:onboarding_sanctionsrefresh_change", args=[failed.pk]), "beat",
                 f"{REFRESHES}?source=ofac_sdn", "Versions", f"{VERSIONS}?sanctions_list__source=ofac_sdn", "bundled"):
        assert text in detail, text
    assert 'name="_save"' not in detail  # read-only


def test_a_versions_page_shows_its_diff(admin_client, publisher, django_capture_on_commit_callbacks):
    publisher.serve("ofac_sdn", edited(snapshot_blobs(OFAC)[0], drop=["36"], replace=BNC, append=NEW_ROW))
    with django_capture_on_commit_callbacks(execute=True):
        refresh = sanctions_list_refresh(source="ofac_sdn")
    version = refresh.version

    listing = page(admin_client, VERSIONS, sanctions_list__source="ofac_sdn")
    assert "ofac_sdn v2" in listing and "ofac_sdn v1" in listing and "download" in listing and "un_consolidated v1" not in listing

    diff = page(admin_client, f"{VERSIONS}{version.pk}/change/")
    for text in ("Added entries", "99999", "TESTOVSKY, Boris Ignatievich", "Changed entries", "306", "BANCO NACIONAL DE CUBA",
                 "Removed entries", "<td>36</td>", "AEROCARIBBEAN AIRLINES", "Made by",
                 reverse("admin:onboarding_sanctionsrefresh_change", args=[refresh.pk])):
        assert text in diff, text
    first = page(admin_client, f"{VERSIONS}{ofac().versions.get(number=1).pk}/change/")
    assert "and 7976 more" in first  # a first load adds every entry: the first thousand are shown


def test_the_refresh_log_filters_by_list_and_outcome(admin_client, publisher):
    sanctions_list_refresh(source="ofac_sdn")
    publisher.files.pop("/ofac_sdn/sdn.csv")
    failed = sanctions_list_refresh(source="ofac_sdn", trigger="beat")
    sanctions_list_refresh(source="un_consolidated")  # no URL served for it: a 404

    shown = page(admin_client, REFRESHES, source="ofac_sdn", outcome="failed")
    assert shown.count('class="field-source"') == 1 and "HTTP 404" in shown
    assert page(admin_client, REFRESHES, source="ofac_sdn").count('class="field-source"') == 2
    assert page(admin_client, REFRESHES, outcome="failed").count('class="field-source"') == 2
    detail = page(admin_client, f"{REFRESHES}{failed.pk}/change/")
    assert failed.message in detail and publisher.url("ofac_sdn", "sdn.csv") in detail and 'name="_save"' not in detail


def test_refresh_now_calls_the_service_and_says_what_came_of_it(admin_client, publisher, django_capture_on_commit_callbacks):
    publisher.serve("ofac_sdn", edited(snapshot_blobs(OFAC)[0], append=NEW_ROW))
    chosen = SanctionsList.objects.filter(source__in=["ofac_sdn", "un_consolidated"])
    lists = {sanctions_list.source: sanctions_list.pk for sanctions_list in chosen}

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(LISTS, {"action": "refresh_now", "_selected_action": list(lists.values())}, follow=True)

    said = messages_of(response)  # queued for the worker (eager in the tests): the page does not wait for the downloads
    assert said == ["Refreshing ofac_sdn, un_consolidated from the publisher in the background: the outcome appears in each "
                    "list's last refresh and in the refresh log."]
    assert "HTTP 404" in SanctionsList.objects.get(source="un_consolidated").last_refresh_error
    assert list(SanctionsRefresh.objects.order_by("source").values_list("source", "trigger", "outcome")) == [
        ("ofac_sdn", "console", "loaded"), ("un_consolidated", "console", "failed")]
    assert ofac().entry_count == 8977
    audit = AuditLogEntry.objects.get(action="sanctions_list.refresh_loaded")
    assert (audit.actor_type, audit.actor_label) == ("user", response.wsgi_request.user.email)


def test_only_the_platform_operator_refreshes_and_nothing_is_edited(staff, org, admin_client, publisher):
    console = staff(org, "admin")  # every model permission, not a superuser
    listing = page(console, LISTS)
    assert "OFAC Specially Designated Nationals (SDN)" in listing and "Refresh now" not in listing

    response = console.post(LISTS, {"action": "refresh_now", "_selected_action": [ofac().pk]}, follow=True)

    assert response.status_code == 200 and not SanctionsRefresh.objects.exists()
    pk = ofac().pk
    for client in (console, admin_client):
        assert client.get(f"{LISTS}add/").status_code == 403
        assert client.post(f"{LISTS}{pk}/change/", {"source": "x"}).status_code == 403
        assert client.post(f"{LISTS}{pk}/delete/", {"post": "yes"}).status_code == 403
    assert SanctionsList.objects.filter(pk=pk, source="ofac_sdn").exists()
