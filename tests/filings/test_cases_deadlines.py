"""Deadlines: the 30-day SAR deadline from initial detection, SLAs by priority, and the beat task
that raises one `sla_breach` notification per breach for alerts and cases."""

from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery import app
from filings.cases.attach import cases_attach_alerts
from filings.models import Case, CaseEvent
from filings.tasks import sweep_sla_breaches
from monitoring.models import Alert, Notification
from tests.filings.conftest import BASE, make_alert, open_case

pytestmark = pytest.mark.django_db


def test_the_sweep_is_on_the_beat_schedule():
    assert app.conf.beat_schedule["filings.sweep_sla_breaches"]["task"] == "filings.sweep_sla_breaches"


def test_report_deadline_is_30_days_from_the_earliest_alert(org, onboard):
    entity = onboard()
    detected = timezone.now() - timedelta(days=10)
    case = open_case(entity, created_at=detected, severity="low")
    assert case.detected_at == detected and case.report_due_at == detected + timedelta(days=30)
    assert case.sla_due_at == case.report_due_at  # low priority: 30 days, capped at the filing deadline
    older = make_alert(entity, created_at=detected - timedelta(days=5), severity="critical")
    cases_attach_alerts(organization=org, mode="test", alerts=[older])
    case.refresh_from_db()
    assert case.detected_at == older.created_at and case.report_due_at == older.created_at + timedelta(days=30)
    assert case.priority == "critical" and case.sla_due_at == case.sla_started_at + timedelta(days=5)


def test_the_deadline_shows_on_the_case_and_the_draft(officer, onboard):
    case = open_case(onboard(), created_at=timezone.now() - timedelta(days=31))
    listed = officer.get(f"{BASE}/entities/{case.entity_id}/cases").json()["data"][0]
    assert listed["deadline"]["overdue"] is True and listed["deadline"]["days_remaining"] == -1
    draft = officer.get(f"{BASE}/cases/{case.pk}/sar-draft").json()
    assert draft["deadline"] == listed["deadline"]


class TestSweep:
    def test_overdue_alert_notified_once(self, onboard):
        alert = make_alert(onboard())
        Alert.objects.filter(pk=alert.pk).update(sla_due_at=timezone.now() - timedelta(minutes=1))
        sweep_sla_breaches.delay()
        sweep_sla_breaches.delay()
        notification = Notification.objects.get(type="sla_breach")
        assert notification.alert_id == alert.pk and notification.case_id is None and "still open" in notification.body
        assert Alert.objects.get(pk=alert.pk).sla_breach_notified_at is not None

    def test_overdue_case_notified_once_and_again_after_a_reopen(self, api, key, org, onboard):
        case = open_case(onboard())
        Alert.objects.update(sla_due_at=timezone.now() + timedelta(days=1))
        Case.objects.filter(pk=case.pk).update(sla_due_at=timezone.now() - timedelta(minutes=1))
        sweep_sla_breaches()
        sweep_sla_breaches()
        notification = Notification.objects.get(type="sla_breach")
        assert notification.case_id == case.pk and case.reference in notification.title
        assert CaseEvent.objects.filter(case=case, kind="sla_breached").count() == 1
        client = api(key(org, role="l3_officer"))
        client.post(f"{BASE}/cases/{case.pk}/status", {"status": "closed", "reason": "No SAR: explained."}, format="json")
        client.post(f"{BASE}/cases/{case.pk}/status", {"status": "investigating", "reason": "New facts."}, format="json")
        case.refresh_from_db()
        assert case.sla_breach_notified_at is None and case.sla_due_at > timezone.now()
        Case.objects.filter(pk=case.pk).update(sla_due_at=timezone.now() - timedelta(minutes=1))
        sweep_sla_breaches()
        assert Notification.objects.filter(type="sla_breach", case_id=case.pk).count() == 2

    def test_closed_work_is_not_notified(self, onboard):
        case = open_case(onboard())
        past = timezone.now() - timedelta(days=1)
        Case.objects.filter(pk=case.pk).update(status="closed", sla_due_at=past)
        Alert.objects.update(status="closed", disposition="false_positive", sla_due_at=past)
        sweep_sla_breaches()
        assert not Notification.objects.filter(type="sla_breach").exists()
