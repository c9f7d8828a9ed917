"""The alert queue in the console: default queue, overdue highlighting, detail page, disposition action."""

from datetime import timedelta

import pytest
from django.utils import timezone

from monitoring.models import Alert, AssetPrice
from webhooks.models import Event

pytestmark = pytest.mark.django_db
EVM = "0x52908400098527886e0f7030069857d2e4169ee7"


@pytest.fixture
def alerts(api, org, key):
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    client = api(key(org))
    client.post("/v1/onboarding/entities", {"legal_name": "Queue Co", "entity_type": "business", "jurisdiction": "US",
                                             "wallets": [{"chain_id": 1, "address": EVM}]}, format="json")
    client.post("/v1/monitoring/transfers", {"from_address": f"0x{7:040x}", "to_address": EVM, "amount": "50000", "asset": "USDC",
                                             "chain_id": 1, "timestamp": "2026-03-01T10:00:00Z", "tx_hash": "0x1"}, format="json")
    return list(Alert.objects.all())


def test_queue_shows_open_work_and_marks_overdue(admin_client, alerts):
    Alert.objects.filter(pk=alerts[0].pk).update(sla_due_at=timezone.now() - timedelta(hours=1))
    Alert.objects.filter(pk=alerts[1].pk).update(status="closed", disposition="false_positive")
    page = admin_client.get("/admin/monitoring/alert/").content.decode()
    assert "(overdue)" in page and alerts[0].rule_name in page
    assert f"/admin/monitoring/alert/{alerts[1].pk}/change/" not in page  # closed: out of the default queue
    overdue = admin_client.get("/admin/monitoring/alert/?queue=overdue").content.decode()
    assert f"/admin/monitoring/alert/{alerts[0].pk}/change/" in overdue
    detail = admin_client.get(f"/admin/monitoring/alert/{alerts[0].pk}/change/").content.decode()
    assert "measured values" in detail.lower() and "0x1" in detail


def test_queue_puts_severe_and_due_work_first(admin_client, alerts):
    """Open first, then by severity, then by SLA due: the newest low alert does not come first."""
    Alert.objects.filter(pk=alerts[0].pk).update(severity="low", created_at=timezone.now() + timedelta(hours=1))
    Alert.objects.filter(pk=alerts[1].pk).update(severity="critical", created_at=timezone.now() - timedelta(days=1))
    page = admin_client.get("/admin/monitoring/alert/?queue=all").content.decode()
    links = [page.index(f"/admin/monitoring/alert/{alert.pk}/change/") for alert in alerts]
    ranks = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    by_pk_descending = sorted(Alert.objects.all(), key=lambda a: a.pk, reverse=True)  # the changelist's tie-break
    expected = sorted(by_pk_descending, key=lambda a: (a.status == "closed", ranks[a.severity], a.sla_due_at))
    assert [alert.pk for _, alert in sorted(zip(links, alerts, strict=True), key=lambda pair: pair[0])] == [a.pk for a in expected]
    assert expected[0].pk == alerts[1].pk and expected[0].created_at < alerts[0].created_at  # the oldest, critical, first


def test_disposition_action_uses_the_service(admin_client, alerts):
    target = alerts[0]
    confirm = admin_client.post("/admin/monitoring/alert/", {"action": "dispose", "_selected_action": [target.pk]})
    assert b"Close with this disposition" in confirm.content
    assert Alert.objects.get(pk=target.pk).status == "open"
    admin_client.post("/admin/monitoring/alert/", {"action": "dispose", "_selected_action": [target.pk], "apply": "1",
                                                   "disposition": "true_positive", "notes": "confirmed"}, follow=True)
    target.refresh_from_db()
    assert (target.status, target.disposition, target.disposition_notes) == ("closed", "true_positive", "confirmed")
    assert Event.objects.filter(type="alert.disposition_set", data__alert_id=str(target.pk)).exists()
    again = admin_client.post("/admin/monitoring/alert/?queue=all", {"action": "dispose", "_selected_action": [target.pk], "apply": "1",
                                                           "disposition": "false_positive", "notes": "second look"}, follow=True)
    assert b"already has the disposition" in again.content
    target.refresh_from_db()
    assert target.disposition == "true_positive"


def test_alert_entity_and_case_link_to_each_other_and_search_finds_them(admin_client, alerts):
    alert = Alert.objects.select_related("entity", "case_link__case").get(pk=alerts[0].pk)
    detail = admin_client.get(f"/admin/monitoring/alert/{alert.pk}/change/").content.decode()
    assert f"/admin/onboarding/entity/{alert.entity_id}/change/" in detail and f"on Queue Co ({alert.status})" in detail
    assert f"/admin/filings/case/{alert.case_link.case_id}/change/" in detail and alert.case_link.case.reference in detail
    by_hash = admin_client.get("/admin/monitoring/alert/", {"q": "0x1", "queue": "all"}).content.decode()
    assert f"/admin/monitoring/alert/{alert.pk}/change/" in by_hash
    entity_page = admin_client.get(f"/admin/onboarding/entity/{alert.entity_id}/change/").content.decode()
    assert f"/admin/monitoring/alert/?entity={alert.entity_id}&amp;queue=all" in entity_page and 'name="_save"' not in entity_page
    assert "{&quot;" in entity_page and "{&#x27;" not in entity_page  # the audit trail's "after" as JSON, not a Python dict
    listed = admin_client.get(f"/admin/monitoring/alert/?entity={alert.entity_id}&queue=all").content.decode()
    assert f"/admin/monitoring/alert/{alert.pk}/change/" in listed
    by_wallet = admin_client.get("/admin/onboarding/entity/", {"q": EVM.upper().replace("0X", "0x")}).content.decode()
    assert f"/admin/onboarding/entity/{alert.entity_id}/change/" in by_wallet
    by_reference = admin_client.get("/admin/filings/case/", {"q": alert.case_link.case.reference, "queue": "all"}).content.decode()
    assert f"/admin/filings/case/{alert.case_link.case_id}/change/" in by_reference


def test_an_alert_is_disposed_from_its_own_page(admin_client, alerts):
    target = alerts[0]
    url = f"/admin/monitoring/alert/{target.pk}/dispose/"
    assert url in admin_client.get(f"/admin/monitoring/alert/{target.pk}/change/").content.decode()
    form = admin_client.get(url).content.decode()
    assert "— choose —" in form and 'value="true_positive" selected' not in form
    unchosen = admin_client.post(url, {"action": "dispose", "_selected_action": [target.pk], "apply": "1", "disposition": ""})
    assert unchosen.status_code == 200 and Alert.objects.get(pk=target.pk).status == "open"
    no_reason = admin_client.post(url, {"action": "dispose", "_selected_action": [target.pk], "apply": "1",
                                        "disposition": "false_positive", "notes": "  "})
    assert no_reason.status_code == 200 and "Say why: what you reviewed" in no_reason.content.decode()
    assert Alert.objects.get(pk=target.pk).status == "open"
    done = admin_client.post(url, {"action": "dispose", "_selected_action": [target.pk], "apply": "1",
                                   "disposition": "false_positive", "notes": "payroll"}, follow=True)
    assert done.redirect_chain[-1][0] == f"/admin/monitoring/alert/{target.pk}/change/"
    assert "1 alert closed as false positive." in done.content.decode()
    target.refresh_from_db()
    assert (target.status, target.disposition, target.disposition_notes) == ("closed", "false_positive", "payroll")
    page = admin_client.get(f"/admin/monitoring/alert/{target.pk}/change/").content.decode()
    assert url not in page
    assert "Disposed by:" in page and "SLA due:" in page
    assert "Sla due" not in page and "Disposed by label" not in page and "what it adds to the entity's risk score" in page
    # A closed alert's disposition page (an old link, a second tab) shows no form: back to the alert, saying so.
    for again in (admin_client.get(url, follow=True), admin_client.post(url, {"action": "dispose", "_selected_action": [target.pk],
                  "apply": "1", "disposition": "true_positive", "notes": "second look"}, follow=True)):
        assert again.redirect_chain[-1][0] == f"/admin/monitoring/alert/{target.pk}/change/"
        assert "This alert is closed already: false positive, by " in again.content.decode()
    target.refresh_from_db()
    assert (target.disposition, target.disposition_notes) == ("false_positive", "payroll")
