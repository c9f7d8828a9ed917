"""Two organizations of this service, each the other's counterparty VASP, over real HTTP: the live
server behind a TLS front on loopback (inquiry URLs are https only). Acme's customer Alice sends to
Globex's customer; Globex answers the signed inquiry at once; Acme's transfer is acknowledged, and
Globex keeps the inbound record its customer can read."""

import time

import pytest
import requests
from rest_framework.test import APIClient

from compliance.models import InboundTravelRuleTransfer, TravelRuleTransfer
from monitoring.models import AssetPrice
from tests.compliance.travel_rule_helpers import ALICE, CAROL, CHAIN, INITIATE, beneficiary, onboarded, originator
from tests.compliance.vasp_helpers import TlsFront
from tests.onboarding.helpers import COMPANY, PERSON
from tests.webhooks.receiver import make_tls_files

DAVE = "0x" + "d4" * 20
VASPS = "/v1/compliance/vasps"


@pytest.fixture
def front(live_server, settings, tmp_path):
    tls = make_tls_files(tmp_path)
    host, port = live_server.thread.host, live_server.thread.port
    proxy = TlsFront(tls, host, port)
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_CA_BUNDLE = str(tls.ca)
    settings.PUBLIC_URL = proxy.url
    yield proxy
    proxy.stop()
    time.sleep(0.5)  # the live server's threads see their connections end


def keyed(key, organization) -> tuple[APIClient, str]:
    secret = key(organization)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client, secret


@pytest.mark.django_db(transaction=True)
def test_two_organizations_exchange_travel_rule_messages_over_https(front, live_server, org, other_org, key):
    acme, acme_key = keyed(key, org)
    globex, _ = keyed(key, other_org)
    AssetPrice.objects.create(organization=org, asset="USDC", usd_rate=1)
    alice = onboarded(acme, PERSON, ALICE)
    dave = onboarded(globex, COMPANY, DAVE)
    # Acme registers Globex (a placeholder URL until Globex has its record of Acme), Globex registers Acme with
    # the secret Acme made and Acme's inquiry URL for it; Acme then points its record at Globex's.
    placeholder = f"{front.url}/v1/travel-rule/vasps/00000000-0000-0000-0000-000000000000/inquiry"
    globex_at_acme = acme.post(VASPS, {"name": "Globex", "inquiry_url": placeholder}, format="json").json()
    acme_at_globex = globex.post(VASPS, {"name": "Acme", "inquiry_url": globex_at_acme["our_inquiry_url"],
                                         "shared_secret": globex_at_acme["shared_secret"]}, format="json").json()
    assert acme_at_globex["shared_secret"] == globex_at_acme["shared_secret"]
    updated = acme.patch(f"{VASPS}/{globex_at_acme['id']}", {"inquiry_url": acme_at_globex["our_inquiry_url"]}, format="json")
    assert updated.status_code == 200, updated.json()

    body = {"originator_entity_id": alice["id"], "beneficiary_vasp_id": globex_at_acme["id"], "chain_id": CHAIN, "asset": "USDC",
            "amount": "2500", "from_address": ALICE, "to_address": DAVE, "originator": originator(),
            "beneficiary": beneficiary(DAVE)}
    headers = {"Authorization": f"Bearer {acme_key}"}
    response = requests.post(live_server.url + INITIATE, json=body, headers=headers, timeout=60)
    assert response.status_code == 200, response.json()
    started = response.json()
    transfer = TravelRuleTransfer.objects.get(pk=started["transfer_id"])
    assert transfer.status == "acknowledged", (transfer.status, transfer.vasp_last_error)
    assert transfer.organization == org and transfer.beneficiary_vasp_id is not None

    record = InboundTravelRuleTransfer.objects.get()
    assert record.organization == other_org and record.decision == "approved" and str(record.beneficiary_entity_id) == dave["id"]
    assert record.external_transfer_id == started["transfer_id"] and record.commitment == started["commitment"]
    seen = globex.get(f"/v1/onboarding/entities/{dave['id']}/transfers/{started['commitment']}/travel-rule").json()
    assert seen["direction"] == "incoming" and seen["counterparty_vasp"]["name"] == "Acme" and seen["originator"] == originator()

    # To an address that is none of Globex's customers: Globex rejects, saying why.
    refused = requests.post(live_server.url + INITIATE, headers=headers, timeout=60,
                            json={**body, "to_address": CAROL, "beneficiary": beneficiary(CAROL)}).json()
    transfer = TravelRuleTransfer.objects.get(pk=refused["transfer_id"])
    assert transfer.status == "rejected" and "not a wallet of one of our customers" in transfer.status_reason
    assert InboundTravelRuleTransfer.objects.filter(decision="rejected", organization=other_org).count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_same_inquiry_raced_is_recorded_once(live_server, org, key, settings):
    import threading
    import uuid

    from tests.compliance.vasp_helpers import signed

    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    client, _ = keyed(key, org)
    onboarded(client, COMPANY, DAVE)
    sender = client.post(VASPS, {"name": "Sender", "inquiry_url": "https://127.0.0.1:9/x", "shared_secret": "r" * 40},
                         format="json").json()
    message = {"version": "1", "type": "transfer_inquiry", "transfer_id": str(uuid.uuid4()), "chain_id": CHAIN, "asset": "USDC",
               "amount": "2500", "from_address": ALICE, "to_address": DAVE, "originator": originator(),
               "beneficiary": beneficiary(DAVE)}
    request = signed("r" * 40, message)
    headers = {"Content-Type": "application/json", "x-travel-rule-timestamp": request["HTTP_X_TRAVEL_RULE_TIMESTAMP"],
               "x-travel-rule-signature": request["HTTP_X_TRAVEL_RULE_SIGNATURE"]}
    barrier, answers = threading.Barrier(4), []

    def post():
        barrier.wait()
        response = requests.post(f"{live_server.url}/v1/travel-rule/vasps/{sender['id']}/inquiry", data=request["data"],
                                 headers=headers, timeout=60)
        answers.append((response.status_code, response.json().get("decision")))

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [(200, "approved")] * 4, answers
    assert InboundTravelRuleTransfer.objects.count() == 1
