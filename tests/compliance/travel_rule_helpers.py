"""Shared by the travel-rule tests: two compliant customers with wallets, IVMS101 data from the
reference's own fixtures, initiation, and signed chain confirmations."""

import copy
import hashlib
import hmac
import json
import time
from pathlib import Path

from tests.onboarding.helpers import COMPANY, PERSON, entity_url, screened

# TRISA's IVMS101 JSON fixtures, carried with the tests (MANIFEST.json there: source, licence, SHA-256).
TESTDATA = Path(__file__).resolve().parent / "ivms101_testdata"
ALICE = "0x" + "a1" * 20
BOB = "0x" + "b2" * 20
CAROL = "0x" + "c3" * 20
CHAIN = 11155111
CHAIN_SECRET = "chain-secret-travel"
INITIATE = "/v1/compliance/transfer/initiate"


def fixture(name: str):
    return json.loads((TESTDATA / name).read_text(encoding="utf-8"))


def originator(account: str = ALICE) -> dict:
    return {"originatorPersons": [fixture("person_natural_person.json")], "accountNumber": [account]}


def beneficiary(account: str = BOB) -> dict:
    return {"beneficiaryPersons": [fixture("person_legal_person.json")], "accountNumber": [account]}


def onboarded(client, body: dict, address: str, *, approve: bool = True) -> dict:
    response = client.post("/v1/onboarding/entities", {**body, "wallets": [{"chain_id": CHAIN, "address": address}]}, format="json")
    assert response.status_code == 201, response.json()
    entity = response.json()
    if approve:
        screened(entity)
        approved = client.post(entity_url(entity, "approve"), {}, format="json")
        assert approved.status_code == 200, approved.json()
    return entity


def customers(client) -> tuple[dict, dict]:
    """(Alice, an approved individual with wallet ALICE; Blue Harbor, an approved business with wallet BOB)."""
    return onboarded(client, PERSON, ALICE), onboarded(client, COMPANY, BOB)


def transfer_body(alice: dict, harbor: dict, **overrides) -> dict:
    body = {"originator_entity_id": alice["id"], "beneficiary_entity_id": harbor["id"], "chain_id": CHAIN, "asset": "USDC",
            "amount": "2500", "from_address": ALICE, "to_address": BOB, "originator": originator(), "beneficiary": beneficiary()}
    body.update(copy.deepcopy(overrides))
    return {name: value for name, value in body.items() if value is not ...}


def confirm(client, payload: dict):
    """POST a chain confirmation signed with CHAIN_SECRET (settings.CHAIN_WEBHOOK_SECRET must be it)."""
    body = json.dumps({"event_id": f"evt_{time.time_ns()}", "chain_id": CHAIN, "status": "confirmed", "block_number": 7001,
                       "confirmations": 12, "confirmed_at": "2026-11-20T10:00:00Z", **payload}).encode()
    timestamp = str(int(time.time()))
    digest = hmac.new(CHAIN_SECRET.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return client.generic("POST", "/v1/webhooks/chain-confirmation", body, content_type="application/json",
                          HTTP_X_WEBHOOK_SIGNATURE=digest, HTTP_X_WEBHOOK_TIMESTAMP=timestamp)
