"""GET /v1/onboarding/entities/{entity_id}/counterparty-graph on a hand-built neighbourhood: what two
hops reach (and what lies three hops away), the marks, the highlighted transfers, the cut, and the scoping."""

import itertools
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from filings.models import Case, CaseAlert
from monitoring.models import AddressTag, Alert, Transaction
from onboarding.models import Entity

pytestmark = pytest.mark.django_db
WALLET, CUSTOMER_WALLET = "0x" + "5a" * 20, "0x" + "c0" * 20
MIXER, PLAIN, LISTED, FAR1, FAR2, THREE_HOPS = ("0x" + f"{n:02x}" * 20 for n in (0xa1, 0xa2, 0xa3, 0xf1, 0xf2, 0xf3))
_hashes = itertools.count(1)


def url(entity_id, **query):
    tail = "&".join(f"{name}={value}" for name, value in query.items())
    return f"/v1/onboarding/entities/{entity_id}/counterparty-graph" + (f"?{tail}" if tail else "")


def make_entity(org, name, mode="test"):
    return Entity.objects.create(organization=org, mode=mode, legal_name=name, entity_type="business", jurisdiction="US")


def transfer(org, sender, receiver, usd, *, days_ago=1, mode="test", **fields) -> Transaction:
    n = next(_hashes)
    return Transaction.objects.create(organization=org, mode=mode, chain_id=1, tx_hash=f"0x{n:064x}", from_address=sender,
                                      to_address=receiver, amount=str(usd or 1), asset="USDC",
                                      usd_value=None if usd is None else Decimal(usd),
                                      timestamp=timezone.now() - timedelta(days=days_ago), **fields)


@pytest.fixture
def neighbourhood(org):
    """Nova (the subject) → mixer ×2, plain → Nova (one unpriced), Nova → Orion (a customer with an open alert);
    Orion → far1, mixer → far2, mixer → listed (sanctions tag); far1 → three_hops (out of reach); one
    transfer too old, one orphaned, one of the live mode."""
    nova, orion = make_entity(org, "Nova Traders"), make_entity(org, "Orion Metals")
    AddressTag.objects.create(organization=org, chain_id=1, address=MIXER, category="mixer")
    AddressTag.objects.create(organization=org, address=LISTED, category="sanctions")
    sent = [transfer(org, WALLET, MIXER, "100", from_entity=nova), transfer(org, WALLET, MIXER, "200", from_entity=nova)]
    transfer(org, PLAIN, WALLET, "50", to_entity=nova)
    transfer(org, PLAIN, WALLET, None, to_entity=nova)
    transfer(org, WALLET, CUSTOMER_WALLET, "1000", from_entity=nova, to_entity=orion)
    transfer(org, CUSTOMER_WALLET, FAR1, "70", from_entity=orion)
    transfer(org, MIXER, FAR2, "40")
    transfer(org, MIXER, LISTED, "10")
    transfer(org, FAR1, THREE_HOPS, "5")
    transfer(org, WALLET, FAR2, "999", from_entity=nova, days_ago=200)
    transfer(org, WALLET, FAR2, "999", from_entity=nova, orphaned=True)
    transfer(org, WALLET, FAR2, "999", mode="live")
    now = timezone.now()
    alert = Alert.objects.create(organization=org, mode="test", entity=nova, rule_number=7, rule_code="fan_out", rule_name="Fan out",
                                 severity="medium", description="d", first_triggered_at=now, last_triggered_at=now, sla_due_at=now)
    alert.transactions.set(sent)
    Alert.objects.create(organization=org, mode="test", entity=orion, rule_number=1, rule_code="large_transfer", rule_name="Large",
                         severity="medium", description="d", first_triggered_at=now, last_triggered_at=now, sla_due_at=now)
    return {"nova": nova, "orion": orion, "alert": alert}


def by_id(body):
    return {node["id"]: node for node in body["nodes"]}, {(e["source"], e["target"]): e for e in body["edges"]}


def node(address):
    return f"address:1:{address}"


class TestCounterpartyGraph:
    def test_two_hops_reach_the_counterparties_of_counterparties_and_no_further(self, api, org, key, neighbourhood):
        nova, orion = neighbourhood["nova"], neighbourhood["orion"]
        response = api(key(org, role="viewer")).get(url(nova.pk))
        assert response.status_code == 200, response.json()
        body = response.json()
        nodes, edges = by_id(body)
        subject, customer = f"entity:{nova.pk}", f"entity:{orion.pk}"
        assert {key: n["hop"] for key, n in nodes.items()} == {
            subject: 0, customer: 1, node(MIXER): 1, node(PLAIN): 1, node(FAR1): 2, node(FAR2): 2, node(LISTED): 2}
        assert {pair: (e["amount_usd"], e["transfer_count"], e["unpriced_count"]) for pair, e in edges.items()} == {
            (subject, node(MIXER)): ("300.00", 2, 0), (node(PLAIN), subject): ("50.00", 2, 1), (subject, customer): ("1000.00", 1, 0),
            (customer, node(FAR1)): ("70.00", 1, 0), (node(MIXER), node(FAR2)): ("40.00", 1, 0),
            (node(MIXER), node(LISTED)): ("10.00", 1, 0)}
        # The marks: the customer, its open alert, the mixer tag, the sanctions listing.
        assert (nodes[subject]["kind"], nodes[subject]["label"], nodes[subject]["open_alerts"]) == ("subject", "Nova Traders", 1)
        assert (nodes[customer]["kind"], nodes[customer]["label"], nodes[customer]["open_alerts"]) == ("customer", "Orion Metals", 1)
        assert (nodes[node(MIXER)]["tags"], nodes[node(MIXER)]["sanctioned"], nodes[node(MIXER)]["kind"]) == (["mixer"], None, "address")
        assert nodes[node(LISTED)]["sanctioned"] == "address tag: sanctions"
        assert nodes[node(MIXER)]["label"] == MIXER[:6] + "…" + MIXER[-4:] and nodes[node(MIXER)]["address"] == MIXER
        assert body["cut"] == {"ranked_by": "USD amount, then number of transfers", "counterparties_total": 3, "counterparties_shown": 3,
                               "second_hop_total": 3, "second_hop_shown": 3, "edges_total": 6, "edges_shown": 6, "truncated": False}
        assert (body["hops"], body["days"], body["limit"], body["highlighted_transfers"]) == (2, 90, 50, 0)
        assert not any(n["highlighted"] for n in body["nodes"]) and not any(e["highlighted"] for e in body["edges"])

    def test_one_hop_and_a_shorter_period(self, api, org, key, neighbourhood):
        nova = neighbourhood["nova"]
        nodes, edges = by_id(api(key(org)).get(url(nova.pk, hops=1)).json())
        assert set(nodes) == {f"entity:{nova.pk}", f"entity:{neighbourhood['orion'].pk}", node(MIXER), node(PLAIN)}
        transfer(org, WALLET, FAR2, "5", from_entity=nova, days_ago=20)
        nodes, _ = by_id(api(key(org)).get(url(nova.pk, hops=1, days=30)).json())
        assert node(FAR2) in nodes
        nodes, _ = by_id(api(key(org)).get(url(nova.pk, hops=1, days=10)).json())
        assert node(FAR2) not in nodes

    def test_the_alerts_transfers_are_highlighted_and_kept_through_the_cut(self, api, org, key, neighbourhood):
        nova, alert = neighbourhood["nova"], neighbourhood["alert"]
        body = api(key(org)).get(url(nova.pk, hops=1, limit=1, alert_id=alert.pk)).json()
        nodes, edges = by_id(body)
        # The mixer (300 USD) is not the largest counterparty (Orion, 1,000) but carries the alert's two transfers.
        assert set(nodes) == {f"entity:{nova.pk}", node(MIXER)} and nodes[node(MIXER)]["highlighted"]
        assert edges[(f"entity:{nova.pk}", node(MIXER))]["highlighted"] and body["highlighted_transfers"] == 2
        assert body["cut"]["truncated"] and body["cut"]["counterparties_total"] == 3 and body["cut"]["counterparties_shown"] == 1

    def test_a_cases_transfers_are_highlighted(self, api, org, key, neighbourhood):
        nova, alert = neighbourhood["nova"], neighbourhood["alert"]
        now = timezone.now()
        case = Case.objects.create(organization=org, mode="test", number=1, entity=nova, detected_at=now, sla_started_at=now,
                                   sla_due_at=now)
        CaseAlert.objects.create(case=case, alert=alert)
        body = api(key(org)).get(url(nova.pk, case_id=case.pk)).json()
        assert body["highlighted_transfers"] == 2
        assert [(e["source"], e["target"]) for e in body["edges"] if e["highlighted"]] == [(f"entity:{nova.pk}", node(MIXER))]

    def test_a_large_neighbourhood_is_cut_to_the_limit(self, api, org, key):
        nova = make_entity(org, "Hub")
        now = timezone.now()
        Transaction.objects.bulk_create(Transaction(
            organization=org, mode="test", chain_id=1, tx_hash=f"0x{i:064x}", from_address=WALLET, to_address=f"0x{i:040x}",
            amount=str(i), asset="USDC", usd_value=Decimal(i), timestamp=now - timedelta(hours=1), from_entity=nova) for i in range(1, 301))
        body = api(key(org)).get(url(nova.pk, limit=20)).json()
        assert len(body["nodes"]) == 1 + 10  # hops=2: half of the limit for hop 1; hop 2 is empty, nothing else is there
        assert body["cut"]["counterparties_total"] == 300 and body["cut"]["counterparties_shown"] == 10 and body["cut"]["truncated"]
        amounts = sorted((Decimal(n["amount_usd"]) for n in body["nodes"] if n["hop"] == 1), reverse=True)
        assert amounts == [Decimal(i) for i in range(300, 290, -1)]  # the largest
        body = api(key(org)).get(url(nova.pk, limit=20, hops=1)).json()
        assert len(body["nodes"]) == 21 and len(body["edges"]) == 20


class TestCounterpartyGraphScope:
    def test_another_organizations_entity_is_a_404(self, api, org, other_org, key, neighbourhood):
        response = api(key(other_org)).get(url(neighbourhood["nova"].pk))
        assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"

    def test_the_other_modes_entity_is_a_404(self, api, org, key, neighbourhood):
        assert api(key(org, mode="live")).get(url(neighbourhood["nova"].pk)).status_code == 404

    def test_another_entitys_alert_or_case_is_a_404(self, api, org, key, neighbourhood):
        orion_alert = Alert.objects.get(entity=neighbourhood["orion"])
        response = api(key(org)).get(url(neighbourhood["nova"].pk, alert_id=orion_alert.pk))
        assert response.status_code == 404 and "alert" in response.json()["error"]["message"]
        assert api(key(org)).get(url(neighbourhood["nova"].pk, case_id="00000000-0000-0000-0000-000000000000")).status_code == 404

    @pytest.mark.parametrize("query", [{"hops": 3}, {"limit": 0}, {"limit": 201}, {"days": 0}, {"days": "x"}, {"alert_id": "nope"},
                                       {"depth": 2}])
    def test_bad_input_is_a_422(self, api, org, key, neighbourhood, query):
        response = api(key(org)).get(url(neighbourhood["nova"].pk, **query))
        assert response.status_code == 422 and response.json()["error"]["code"] == "VALIDATION_ERROR"

    def test_anonymous_is_a_401(self, api, neighbourhood):
        assert api().get(url(neighbourhood["nova"].pk)).status_code == 401

    def test_the_operation_is_in_the_openapi_document(self, api):
        paths = api().get("/v1/openapi.json").json()["paths"]
        operation = paths["/v1/onboarding/entities/{entity_id}/counterparty-graph"]["get"]
        assert {p["name"] for p in operation["parameters"]} >= {"entity_id", "days", "hops", "limit", "alert_id", "case_id"}
