"""Verified provider callbacks reach their owners: KYB and identity results become compliance
checks (with the flags, status and risk consequences of an external result); chain confirmations
confirm on-chain status updates."""

import json
import uuid

import pytest

from compliance.models import OnchainStatusUpdate
from onboarding.models import ComplianceCheck, Entity, Wallet
from tests.webhooks.test_inbound import post, provider_secrets, signed  # noqa: F401 - the autouse secrets fixture
from webhooks.models import Event, InboundCallback

pytestmark = pytest.mark.django_db
TX = "0x" + "ab" * 32


@pytest.fixture
def entity(org):
    entity = Entity.objects.create(organization=org, mode="live", legal_name="Ivy Person", entity_type="individual",
                                   jurisdiction="US")
    Wallet.objects.create(organization=org, mode="live", entity=entity, chain_id=11155111, address=f"0x{5:040x}")
    return entity


def deliver(client, provider, payload, capture):
    body = json.dumps(payload).encode()
    with capture(execute=True):
        response = post(client, provider, body, signed(provider, body))
    assert response.status_code == 200, response.content
    return InboundCallback.objects.get(external_id=payload["event_id"])


def test_kyb_result_becomes_a_check(client, entity, django_capture_on_commit_callbacks):
    callback = deliver(client, "kyb-provider", {"event_id": "k1", "entity_id": str(entity.pk), "check_type": "kyb", "result": "pass",
                                                "score": 0.1, "provider_reference": "case-9", "completed_at": "2026-01-02T03:04:05Z"},
                       django_capture_on_commit_callbacks)
    assert callback.status == "processed", callback.result
    check = ComplianceCheck.objects.get(entity=entity, check_type="kyb")
    assert (check.result, check.provider, check.details["provider_reference"]) == ("pass", "kyb-provider", "case-9")
    entity.refresh_from_db()
    assert (entity.kyb_check_id, entity.kyb_verified_at) == (check.pk, check.created_at)  # a passing KYB renews the verification


def test_declined_identity_flags_a_pending_individual_for_review(client, entity, django_capture_on_commit_callbacks):
    callback = deliver(client, "identity-provider", {"event_id": "i1", "entity_id": str(entity.pk), "verification_id": "v1",
                                                     "status": "declined", "completed_at": "2026-01-02T03:04:05Z"},
                       django_capture_on_commit_callbacks)
    assert callback.status == "processed", callback.result
    assert ComplianceCheck.objects.get(entity=entity, provider="identity-provider").result == "fail"
    entity.refresh_from_db()
    assert entity.status == "under_review"


def test_chain_confirmation_confirms_the_update(client, entity, django_capture_on_commit_callbacks):
    wallet = entity.wallets.get()
    update = OnchainStatusUpdate.objects.create(organization=entity.organization, mode="live", wallet=wallet, entity=entity,
                                                chain_id=wallet.chain_id, address=wallet.address, flagged=True, status="published")
    callback = deliver(client, "chain-confirmation", {"event_id": "c1", "chain_id": 11155111, "tx_hash": TX, "status": "confirmed",
                                                      "block_number": 77, "confirmations": 12, "status_update_id": str(update.pk),
                                                      "confirmed_at": "2026-01-02T03:04:05Z"}, django_capture_on_commit_callbacks)
    assert callback.status == "processed", callback.result
    update.refresh_from_db()
    assert (update.status, update.tx_hash) == ("confirmed", TX)
    event = Event.objects.get(type="transfer.confirmed")
    assert (event.data["transfer_id"], event.data["block_number"]) == (str(update.pk), 77)


def test_reverted_publication_goes_back_to_pending(client, entity, django_capture_on_commit_callbacks):
    wallet = entity.wallets.get()
    update = OnchainStatusUpdate.objects.create(organization=entity.organization, mode="live", wallet=wallet, entity=entity,
                                                chain_id=wallet.chain_id, address=wallet.address, flagged=True, status="published",
                                                tx_hash=TX)
    callback = deliver(client, "chain-confirmation", {"event_id": "c2", "chain_id": 11155111, "tx_hash": TX, "status": "reverted",
                                                      "confirmed_at": "2026-01-02T03:04:05Z"}, django_capture_on_commit_callbacks)
    assert callback.status == "processed"
    update.refresh_from_db()
    assert update.status == "pending" and "reverted" in update.reason
    assert not Event.objects.filter(type="transfer.confirmed").exists()


def test_unknown_entity_fails_with_the_reason_and_changes_nothing(client, django_capture_on_commit_callbacks):
    callback = deliver(client, "kyb-provider", {"event_id": "k9", "entity_id": str(uuid.uuid4()), "check_type": "kyb",
                                                "result": "fail", "completed_at": "2026-01-02T03:04:05Z"},
                       django_capture_on_commit_callbacks)
    assert callback.status == "failed" and "No entity" in callback.result
    assert not ComplianceCheck.objects.exists()


class WorkerDied(BaseException):
    """The worker's process ends at this point (killed, out of memory): nothing after it runs."""


def test_a_worker_dying_as_it_marks_a_callback_processed_does_not_leave_the_work_to_be_done_twice(
        client, entity, clock, django_capture_on_commit_callbacks, monkeypatch):
    from django.db.models import QuerySet

    from webhooks.inbound import services as inbound

    real_update, died = QuerySet.update, []

    def update(self, **changes):
        if self.model is InboundCallback and changes.get("status") == "processed" and not died:
            died.append(True)
            raise WorkerDied
        return real_update(self, **changes)

    monkeypatch.setattr(QuerySet, "update", update)
    payload = {"event_id": "k9", "entity_id": str(entity.pk), "check_type": "kyb", "result": "fail",
               "completed_at": "2026-01-02T03:04:05Z"}
    body = json.dumps(payload).encode()
    with django_capture_on_commit_callbacks(execute=False):  # the worker's task is run below, by hand
        post(client, "kyb-provider", body, signed("kyb-provider", body))
    callback = InboundCallback.objects.get()
    with pytest.raises(WorkerDied):
        inbound.callback_ingest(callback.pk)
    callback.refresh_from_db()
    assert callback.status == "processing"
    assert not ComplianceCheck.objects.filter(entity=entity).exists()  # the handler's work went with it

    clock.advance(minutes=11)  # the sweeper hands a callback stuck in processing to another worker
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.callback_sweep() == [str(callback.pk)]

    callback.refresh_from_db()
    assert (callback.status, callback.attempts) == ("processed", 2), callback.result
    assert ComplianceCheck.objects.filter(entity=entity).count() == 1  # a non-idempotent handler ran once
