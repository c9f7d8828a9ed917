"""The oracle's status publisher against a real anvil: rows written by the onboarding services (through the
API) are published by compliance.onchain.publisher, and the contract says what the rows say."""

import io
import json

import pytest
from django.core.management import call_command

from compliance.models import Chain, ChainTransaction, OnchainStatusUpdate
from compliance.onchain.contracts import Flag, unpack_status
from compliance.onchain.publisher import publish_pass
from tests.compliance.onchain.publishing import (
    LOCAL,
    SIGNER,
    SIGNER_KEY,
    checksum,
    external_screening,
    new_addresses,
    onboard,
    updated_events,
)
from tests.onboarding.helpers import entity_url, screened

pytestmark = pytest.mark.django_db


def test_the_chain_seeds_and_the_deployment(chain, oracle):
    assert set(Chain.objects.values_list("chain_id", flat=True)) >= {11155111, 17000, 560048, 84532, 421614, 80002, LOCAL}
    assert not Chain.objects.filter(enabled=True).exclude(chain_id=LOCAL).exists()
    assert dict(Chain.objects.values_list("chain_id", "confirmations"))[11155111] == 2
    assert oracle.functions.owner().call() == SIGNER and oracle.functions.isOperator(SIGNER).call()


def test_flagged_wallets_are_published_then_cleared(client, chain, oracle, w3):
    addresses = new_addresses(2)
    entity = onboard(client, addresses)
    external_screening(client, entity, "fail")
    rows = OnchainStatusUpdate.objects.filter(entity_id=entity["id"], status="pending")
    assert sorted(r.address for r in rows) == sorted(addresses) and all(r.flagged for r in rows)

    result = publish_pass(LOCAL)
    assert len(result.signed) == 1 and result.published == 2 and result.confirmed == 2
    for address in addresses:
        assert oracle.functions.isFlagged(checksum(w3, address)).call()
        assert oracle.functions.isSanctioned(checksum(w3, address)).call()
        status = unpack_status(oracle.functions.packedStatusOf(checksum(w3, address)).call())
        row = OnchainStatusUpdate.objects.get(entity_id=entity["id"], address=address)
        assert status.flags & Flag.SANCTIONED and (status.risk_tier, status.version) == (row.risk_tier, row.version)
    published = {r.address: r for r in OnchainStatusUpdate.objects.filter(entity_id=entity["id"])}
    assert {r.status for r in published.values()} == {"confirmed"} and all(r.confirmed_at and r.tx_hash == result.signed[0]
                                                                          for r in published.values())

    external_screening(client, entity, "pass")
    publish_pass(LOCAL)
    for address in addresses:
        assert not oracle.functions.isFlagged(checksum(w3, address)).call()
        assert not oracle.functions.isSanctioned(checksum(w3, address)).call()
        status = unpack_status(oracle.functions.packedStatusOf(checksum(w3, address)).call())
        assert status.flags == 0 and status.version > published[address].version
    assert not OnchainStatusUpdate.objects.filter(entity_id=entity["id"]).exclude(status="confirmed").exists()


def test_a_suspension_is_published_with_the_suspended_bit(client, chain, oracle, w3, django_capture_on_commit_callbacks):
    [address] = new_addresses(1)
    entity = onboard(client, [address])
    screened(entity)
    assert client.post(entity_url(entity, "approve"), {}, format="json").status_code == 200
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert client.post(entity_url(entity, "suspend"), {"reason": "court order"}, format="json").status_code == 200
    # The publisher is enqueued on commit of the rows, for the enabled chain.
    enqueued = [(cb.args[0].name, cb.args[1]) for cb in callbacks if getattr(cb, "args", None) and hasattr(cb.args[0], "name")]
    assert ("compliance.publish_status", (LOCAL,)) in enqueued
    row = OnchainStatusUpdate.objects.get(entity_id=entity["id"])
    assert row.flagged and row.flags == Flag.SUSPENDED

    out = io.StringIO()
    call_command("publish_status", "--chain", str(LOCAL), stdout=out)
    assert "1 transactions signed, 1 rows published" in out.getvalue() and "confirmed" in out.getvalue()
    assert oracle.functions.isFlagged(checksum(w3, address)).call()
    assert not oracle.functions.isSanctioned(checksum(w3, address)).call()
    assert unpack_status(oracle.functions.packedStatusOf(checksum(w3, address)).call()).flags == Flag.SUSPENDED


def test_changes_before_a_run_coalesce_into_one_write_of_the_latest(client, chain, oracle, w3):
    [address] = new_addresses(1)
    entity = onboard(client, [address])
    for result in ("fail", "pass", "fail", "pass", "fail"):
        external_screening(client, entity, result)
    assert OnchainStatusUpdate.objects.filter(entity_id=entity["id"], status="pending").count() == 5

    result = publish_pass(LOCAL)
    assert len(result.signed) == 1 and result.published == 1 and result.superseded == 4
    assert len(updated_events(oracle, address)) == 1
    assert oracle.functions.isFlagged(checksum(w3, address)).call()
    rows = OnchainStatusUpdate.objects.filter(entity_id=entity["id"]).order_by("created_at", "id")
    assert [r.status for r in rows] == ["superseded"] * 4 + ["confirmed"]


def test_a_second_run_is_harmless(client, chain, oracle, w3):
    addresses = new_addresses(3)
    entity = onboard(client, addresses)
    external_screening(client, entity, "fail")
    Chain.objects.filter(pk=chain.pk).update(batch_size=2)
    first = publish_pass(LOCAL)
    assert len(first.signed) == 2 and first.published == 3
    nonces = sorted(ChainTransaction.objects.filter(tx_hash__in=first.signed).values_list("nonce", flat=True))
    assert nonces[1] == nonces[0] + 1
    sent = w3.eth.get_transaction_count(SIGNER)
    assert sent == nonces[1] + 1 and Chain.objects.get(pk=chain.pk).next_nonce == sent

    second = publish_pass(LOCAL)
    assert second.signed == [] and second.published == 0 and second.rebroadcast == 0
    assert w3.eth.get_transaction_count(SIGNER) == sent and ChainTransaction.objects.count() == 2
    assert sum(len(updated_events(oracle, a)) for a in addresses) == 3


def test_a_lost_broadcast_is_sent_again_with_the_same_bytes(client, chain, oracle, w3, anvil):
    """A transaction stored but never broadcast (the worker died between the two) is sent by the next pass, identical."""
    [address] = new_addresses(1)
    entity = onboard(client, [address])
    external_screening(client, entity, "fail")
    anvil.rpc("evm_setAutomine", [False])
    try:
        first = publish_pass(LOCAL)
        assert len(first.signed) == 1
        anvil.rpc("anvil_dropAllTransactions")  # the broadcast is lost
        stored = ChainTransaction.objects.get(tx_hash=first.signed[0])
        assert stored.status == "sent" and OnchainStatusUpdate.objects.get(entity_id=entity["id"]).status == "published"
    finally:
        anvil.rpc("evm_setAutomine", [True])
    second = publish_pass(LOCAL)
    assert second.signed == [] and second.rebroadcast == 1
    assert w3.eth.get_transaction(first.signed[0])["nonce"] == stored.nonce
    assert oracle.functions.isFlagged(checksum(w3, address)).call()
    assert ChainTransaction.objects.get(pk=stored.pk).status == "confirmed"


def test_the_signer_key_is_never_stored_or_shown(client, chain, admin_client):
    entity = onboard(client, new_addresses(2))
    external_screening(client, entity, "fail")
    publish_pass(LOCAL)
    dump = io.StringIO()
    call_command("dumpdata", "compliance", "onboarding", "webhooks", "common", stdout=dump)
    objects = json.loads(dump.getvalue())
    key = SIGNER_KEY.removeprefix("0x")
    assert key not in json.dumps(objects).lower()
    # The signer's (public) address is kept where key rotation needs it, and nowhere else.
    holding = {(item["model"], name) for item in objects for name, value in item["fields"].items()
               if SIGNER.lower() in json.dumps(value).lower().replace(chain.oracle_address.lower(), "")}
    assert holding == {("compliance.chain", "nonce_signer"), ("compliance.chaintransaction", "sender")}
    listing = admin_client.get("/admin/compliance/chain/").content.decode()
    page = admin_client.get(f"/admin/compliance/chain/{chain.pk}/change/").content.decode()
    for html in (listing, page):
        assert SIGNER in html and key not in html.lower()
    assert "confirmed" in listing
