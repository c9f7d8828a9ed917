"""What the oracle holds, as the service shows it, against a real anvil: the compliance status responses'
`onchain` (entity, wallet, batch; tenancy; one query), the rule for an address registered in several
organizations or modes, /health's `oracle` (reachable, unreachable, a stale pending update) and the console's
chain page (signer balance, counts, recent transactions)."""

import socket
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from compliance.models import Chain, OnchainStatusUpdate
from compliance.onchain.contracts import Flag, unpack_status
from compliance.onchain.publisher import publish_pass
from onboarding.models import Entity, Wallet
from tests.compliance.onchain.publishing import LOCAL, SIGNER, checksum, external_screening, new_addresses, onboard

pytestmark = pytest.mark.django_db
BATCH = "/v1/compliance/batch/status"
UPDATES_TABLE = OnchainStatusUpdate._meta.db_table


def entity_status(client, entity) -> dict:
    response = client.get(f"/v1/compliance/status/{entity['id']}")
    assert response.status_code == 200, response.json()
    return response.json()


def onchain_of(body: dict) -> dict[str, dict]:
    return {wallet["address"]: wallet["onchain"] for wallet in body["wallets"]}


def assert_matches_row(view: dict, row: OnchainStatusUpdate) -> None:
    """The response's `onchain` says what the stored row says."""
    assert view["state"] == row.status and view["flagged"] is row.flagged and view["version"] == row.version
    assert view["tx_hash"] == (row.tx_hash or None)
    for name in ("published_at", "confirmed_at"):
        stored = getattr(row, name)
        assert (parse_datetime(view[name]) if view[name] else None) == stored, name


def latest_row(address: str, **scope) -> OnchainStatusUpdate:
    return OnchainStatusUpdate.objects.filter(address=address, **scope).exclude(status="superseded").latest("created_at")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class TestStatusResponses:
    def test_pending_then_confirmed_with_the_transaction(self, client, chain, oracle, w3):
        addresses = new_addresses(2)
        entity = onboard(client, addresses)
        assert set(v["state"] for v in onchain_of(entity_status(client, entity)).values()) == {"not_published"}

        external_screening(client, entity, "fail")
        body = entity_status(client, entity)
        for address, view in onchain_of(body).items():
            row = latest_row(address)
            assert view["state"] == "pending" and row.status == "pending" and view["flagged"] is True
            assert view["version"] is None and view["tx_hash"] is None and view["published_at"] is None
            assert_matches_row(view, row)

        result = publish_pass(LOCAL)
        body = entity_status(client, entity)
        for address, view in onchain_of(body).items():
            row = latest_row(address)
            assert view["state"] == "confirmed" and view["tx_hash"] == result.signed[0] and view["confirmed_at"]
            assert_matches_row(view, row)
            assert unpack_status(oracle.functions.packedStatusOf(checksum(w3, address)).call()).version == view["version"]

        wallet = client.get(f"/v1/compliance/status/wallet/{LOCAL}/{checksum(w3, addresses[0])}").json()
        assert wallet["wallets"][0]["onchain"] == onchain_of(body)[addresses[0]]
        batch = client.post(BATCH, {"wallets": [{"chain_id": LOCAL, "address": addresses[1]}], "entity_ids": [entity["id"]]},
                            format="json").json()
        assert batch[0]["wallets"][0]["onchain"] == onchain_of(body)[addresses[1]]
        assert onchain_of(batch[1]) == onchain_of(body)

    def test_published_until_deep_enough(self, client, chain, w3):
        Chain.objects.filter(pk=chain.pk).update(confirmations=2)  # anvil mines one block per transaction
        [address] = new_addresses(1)
        entity = onboard(client, [address])
        external_screening(client, entity, "fail")
        result = publish_pass(LOCAL)
        view = onchain_of(entity_status(client, entity))[address]
        assert view["state"] == "published" and view["tx_hash"] == result.signed[0] and view["confirmed_at"] is None
        assert_matches_row(view, latest_row(address))

    def test_a_newer_pending_row_is_what_the_response_says(self, client, chain):
        [address] = new_addresses(1)
        entity = onboard(client, [address])
        external_screening(client, entity, "fail")
        publish_pass(LOCAL)
        external_screening(client, entity, "pass")
        view = onchain_of(entity_status(client, entity))[address]
        assert view["state"] == "pending" and view["flagged"] is False
        assert latest_row(address).status == "pending"
        assert OnchainStatusUpdate.objects.filter(address=address, status="confirmed", flagged=True).count() == 1

    def test_a_row_waiting_on_a_disabled_chain_is_not_published(self, client, chain):
        [address] = new_addresses(1)
        entity = onboard(client, [address])
        external_screening(client, entity, "fail")
        Chain.objects.filter(pk=chain.pk).update(enabled=False)
        view = onchain_of(entity_status(client, entity))[address]
        assert view["state"] == "not_published" and view["version"] is None
        assert latest_row(address).status == "pending"  # kept: it is sent once the chain is enabled again

    def test_one_query_for_the_wallets_of_a_response(self, client, chain):
        entities = [onboard(client, new_addresses(3)) for _ in range(3)]
        for entity in entities:
            external_screening(client, entity, "fail")
        body = {"entity_ids": [entity["id"] for entity in entities],
                "wallets": [{"chain_id": LOCAL, "address": wallet["address"]} for wallet in entities[0]["wallets"]]}
        client.post(BATCH, body, format="json")  # warm the key cache
        with CaptureQueriesContext(connection) as queries:
            response = client.post(BATCH, body, format="json")
        assert response.status_code == 200
        assert all(wallet["onchain"]["state"] == "pending" for item in response.json() for wallet in item["wallets"])
        assert len([q for q in queries.captured_queries if UPDATES_TABLE in q["sql"]]) == 1

    def test_tenancy(self, client, chain, api, org, other_org, key):
        """Another organization or mode neither reads the entity nor sees rows of the same address."""
        [address] = new_addresses(1)
        entity = onboard(client, [address])
        external_screening(client, entity, "fail")
        publish_pass(LOCAL)
        assert api(key(other_org)).get(f"/v1/compliance/status/{entity['id']}").status_code == 404
        assert api(key(org, mode="live")).get(f"/v1/compliance/status/{entity['id']}").status_code == 404
        other = api(key(other_org, role="l2_investigator"))
        theirs = onboard(other, [address])  # the same address, registered by another organization: no row of theirs yet
        view = onchain_of(entity_status(other, theirs))[address]
        assert view["state"] == "not_published"
        assert not OnchainStatusUpdate.objects.filter(organization=other_org).exists()
        assert latest_row(address, organization=org).status == "confirmed"


class TestOneStatusPerAddress:
    """The contract holds one status per address and chain: the most restrictive over every active registration."""

    def test_another_organizations_approval_does_not_clear_a_flag(self, client, chain, oracle, w3, api, org, other_org, key):
        [address] = new_addresses(1)
        ours = onboard(client, [address])
        other = api(key(other_org, role="l2_investigator"))
        theirs = onboard(other, [address])
        external_screening(client, ours, "fail")
        publish_pass(LOCAL)
        assert oracle.functions.isSanctioned(checksum(w3, address)).call()

        external_screening(other, theirs, "pass")  # their customer passes: the address stays flagged
        row = latest_row(address, organization=other_org)
        assert row.flagged and row.flags & Flag.SANCTIONED and "another registration" in row.reason
        publish_pass(LOCAL)
        assert oracle.functions.isSanctioned(checksum(w3, address)).call()
        row.refresh_from_db()
        view = onchain_of(entity_status(other, theirs))[address]
        assert view["state"] == "confirmed" and view["flagged"] is True
        assert_matches_row(view, row)

        external_screening(client, ours, "pass")  # the flagging organization clears it: nothing else flags the address
        assert not latest_row(address, organization=org).flagged
        publish_pass(LOCAL)
        assert not oracle.functions.isFlagged(checksum(w3, address)).call()

    def test_modes_and_risk_tiers_combine(self, client, chain, api, org, key):
        [address] = new_addresses(1)
        test_mode = onboard(client, [address])
        live = api(key(org, role="l2_investigator", mode="live"))
        live_entity = onboard(live, [address])
        external_screening(live, live_entity, "fail")
        Wallet.objects.filter(address=address, mode="live").update(status="inactive")  # an inactive registration counts no more
        external_screening(client, test_mode, "pass")
        assert not latest_row(address, mode="test").flagged

        Wallet.objects.filter(address=address, mode="live").update(status="active")
        Entity.objects.filter(pk=live_entity["id"]).update(risk_tier="high")
        external_screening(client, test_mode, "pass")
        row = latest_row(address, mode="test")
        assert Entity.objects.get(pk=test_mode["id"]).risk_tier != "high"
        assert row.flagged and row.flags == Flag.SANCTIONED | Flag.HIGH_RISK and row.risk_tier == 3  # the live entity's tier


class TestHealth:
    def test_no_chain_enabled(self, client):
        Chain.objects.update(enabled=False)
        body = client.get("/health").json()["oracle"]
        assert body["ok"] is True and body["chains"] == [] and body["oldest_pending_age_seconds"] is None

    def test_a_reachable_chain_and_its_oldest_pending_update(self, client, chain, anvil, settings):
        [address] = new_addresses(1)
        entity = onboard(client, [address])
        external_screening(client, entity, "fail")
        OnchainStatusUpdate.objects.filter(address=address).update(created_at=timezone.now() - timedelta(seconds=120))
        body = client.get("/health").json()
        [local] = body["oracle"]["chains"]
        assert local["chain_id"] == LOCAL and local["reachable"] is True and local["block_number"] == anvil.web3().eth.block_number
        assert 120 <= local["oldest_pending_age_seconds"] < 180 and body["oracle"]["oldest_pending_age_seconds"] == local[
            "oldest_pending_age_seconds"]
        assert body["oracle"]["ok"] is True and body["oracle"]["problems"] == []

        settings.ONCHAIN_PENDING_STALE_SECONDS = 60
        response = client.get("/health")
        assert response.status_code == 200 and response.json()["status"] == "degraded"
        assert "an update has been pending for" in response.json()["oracle"]["problems"][0]

        publish_pass(LOCAL)
        local = client.get("/health").json()["oracle"]["chains"][0]
        assert local["oldest_pending_age_seconds"] is None and not OnchainStatusUpdate.objects.filter(status="pending").exists()

    def test_an_unreachable_chain_makes_health_degraded_quickly(self, client, chain, monkeypatch):
        port = closed_port()
        monkeypatch.setenv(f"CHAIN_RPC_URL_{LOCAL}", f"http://127.0.0.1:{port}/secret-key-in-path")
        started = time.monotonic()
        response = client.get("/health")
        assert time.monotonic() - started < 2.5
        body = response.json()
        assert response.status_code == 200 and body["status"] == "degraded" and body["oracle"]["ok"] is False
        [local] = body["oracle"]["chains"]
        assert local["reachable"] is False and local["block_number"] is None and "unreachable" in local["problem"]
        assert f"chain {LOCAL}" in body["oracle"]["problems"][0]
        assert str(port) not in response.content.decode() and "secret-key" not in response.content.decode()


    def test_an_rpc_that_never_answers_is_cut_at_2_seconds(self, client, chain, monkeypatch):
        with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
            silent.bind(("127.0.0.1", 0))
            silent.listen(8)
            port = silent.getsockname()[1]
            monkeypatch.setenv(f"CHAIN_RPC_URL_{LOCAL}", f"http://127.0.0.1:{port},http://127.0.0.1:{port}/second")
            started = time.monotonic()
            body = client.get("/health").json()
            assert time.monotonic() - started < 2.8
        [local] = body["oracle"]["chains"]
        assert body["status"] == "degraded" and local["reachable"] is False
        # Cut by the outer wait, or by the look-up itself when its read timeout used the 2 s first.
        assert local["problem"] in ("unreachable (no answer within 2 s)",
                                    "unreachable (no answer within 2 s (URL 1: ReadTimeout; URL 2: not tried))"), local["problem"]


class TestConsole:
    def test_the_chain_page(self, client, chain, admin_client):
        entity = onboard(client, new_addresses(2))
        external_screening(client, entity, "fail")
        result = publish_pass(LOCAL)
        external_screening(client, entity, "pass")  # two pending rows again
        page = admin_client.get(f"/admin/compliance/chain/{chain.pk}/change/")
        html = page.content.decode()
        assert page.status_code == 200 and SIGNER in html and chain.oracle_address in html
        assert " ETH (" in html and "wei)" in html  # the signer's balance, read from anvil
        assert result.signed[0] in html  # recent transactions
        counts = {row["status"]: row["n"] for row in _counts(LOCAL)}
        assert counts == {"pending": 2, "confirmed": 2}
        listing = admin_client.get("/admin/compliance/chain/").content.decode()
        assert "Local (anvil)" in listing and ">2<" in listing

    def test_an_unreachable_rpc_says_so(self, chain, admin_client, monkeypatch):
        monkeypatch.setenv(f"CHAIN_RPC_URL_{LOCAL}", f"http://127.0.0.1:{closed_port()}")
        Chain.objects.filter(pk=chain.pk).update(last_error="ConnectionError: refused")
        started = time.monotonic()
        html = admin_client.get(f"/admin/compliance/chain/{chain.pk}/change/").content.decode()
        assert time.monotonic() - started < 2.5
        assert "unreachable: the RPC did not answer within 2 s" in html and "ConnectionError: refused" in html
        assert "none yet" in html  # no transaction besides the deployment's

    def test_only_the_platform_operator(self, chain, staff, org):
        console = staff(org)
        assert console.get(f"/admin/compliance/chain/{chain.pk}/change/").status_code in (302, 403)
        assert console.get("/admin/compliance/chain/").status_code in (302, 403)


def _counts(chain_id: int) -> list[dict]:
    from django.db.models import Count

    return list(OnchainStatusUpdate.objects.filter(chain_id=chain_id).exclude(status="superseded").values("status")
                .annotate(n=Count("id")).order_by("status"))
