"""Travel-rule transfers: initiate → process (Celery, on commit) → acknowledged → chain confirmation →
completed → the customers' travel-rule record; validation (422, nothing stored), compliance refusals
(409), the threshold, idempotency, exact amounts, tenancy and roles."""

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from common.models import AuditLogEntry
from compliance.models import TravelRulePolicy, TravelRuleTransfer
from compliance.travel_rule import services, tasks
from compliance.travel_rule.commitment import commitment_of
from monitoring.models import AssetPrice
from onboarding.models import Entity, Wallet
from tests.compliance.travel_rule_helpers import (
    ALICE,
    BOB,
    CAROL,
    CHAIN,
    CHAIN_SECRET,
    INITIATE,
    beneficiary,
    confirm,
    customers,
    fixture,
    onboarded,
    originator,
    transfer_body,
)
from tests.onboarding.helpers import PERSON
from webhooks.models import Event, InboundCallback

pytestmark = pytest.mark.django_db
TX = "0x" + "5e" * 32


@pytest.fixture(autouse=True)
def prices(org, settings):
    settings.CHAIN_WEBHOOK_SECRET = CHAIN_SECRET
    AssetPrice.objects.create(organization=org, asset="USDC", usd_rate=1)


@pytest.fixture
def client(api, org, key):
    return api(key(org))


@pytest.fixture
def sides(client):
    return customers(client)


def initiate(client, body, capture=None):
    if capture is None:
        return client.post(INITIATE, body, format="json")
    with capture(execute=True):
        return client.post(INITIATE, body, format="json")


def status_of(client, transfer_id) -> dict:
    response = client.get(f"/v1/compliance/transfer/{transfer_id}")
    assert response.status_code == 200, response.json()
    return response.json()


def refused_422(response, *fields):
    assert response.status_code == 422, response.json()
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    named = {detail["field"] for detail in error["details"]}
    for field in fields:
        assert field in named, (field, error["details"])
    assert not TravelRuleTransfer.objects.exists()
    assert not AuditLogEntry.objects.filter(object_type="travelruletransfer").exists()
    return error


class TestTheWholeFlow:
    def test_initiate_poll_acknowledge_confirm_complete_and_read(self, client, api, sides, django_capture_on_commit_callbacks):
        alice, harbor = sides
        response = initiate(client, transfer_body(alice, harbor), django_capture_on_commit_callbacks)
        assert response.status_code == 200, response.json()
        body = response.json()
        stored = TravelRuleTransfer.objects.get()
        assert body == {"transfer_id": str(stored.pk), "salt": stored.salt, "status": "pending", "commitment": stored.commitment,
                        "travel_rule_required": True, "duplicate": False}
        assert stored.salt.startswith("0x") and len(stored.salt) == 66
        assert (stored.amount, stored.usd_value, stored.threshold_usd) == ("2500", Decimal("2500.00"), Decimal("1000.00"))
        assert stored.originator == originator() and stored.beneficiary == beneficiary()
        assert AuditLogEntry.objects.filter(object_id=str(stored.pk), action="travel_rule_transfer.initiated").exists()

        # The process ran on commit (eagerly, as the worker would): both compliant → acknowledged.
        polled = status_of(client, stored.pk)
        assert polled["status"] == "acknowledged" and polled["acknowledged_at"] and polled["tx_hash"] is None
        assert polled["originator_entity_id"] == alice["id"] and polled["beneficiary_entity_id"] == harbor["id"]
        assert polled["amount"] == "2500" and polled["usd_value"] == "2500.00" and polled["salt"] == body["salt"]
        stored.refresh_from_db()
        assert stored.expires_at - stored.acknowledged_at == timedelta(hours=24)
        assert AuditLogEntry.objects.filter(object_id=str(stored.pk), action="travel_rule_transfer.acknowledged",
                                            actor_type="system").exists()

        with django_capture_on_commit_callbacks(execute=True):
            assert confirm(api(), {"tx_hash": TX.upper().replace("0X", "0x"), "transfer_id": str(stored.pk)}).status_code == 200
        callback = InboundCallback.objects.get()
        assert callback.status == "processed" and "completed in block 7001" in callback.result, callback.result
        polled = status_of(client, stored.pk)
        assert polled["status"] == "completed" and polled["tx_hash"] == TX and polled["block_number"] == 7001
        assert polled["completed_at"] == "2026-11-20T10:00:00Z"
        event = Event.objects.get(type="transfer.confirmed")
        assert event.data["transfer_id"] == str(stored.pk) and event.data["entity_id"] == alice["id"] and event.data["tx_hash"] == TX

        mine = client.get(f"/v1/onboarding/entities/{alice['id']}/transfers/{TX}/travel-rule")
        assert mine.status_code == 200, mine.json()
        assert mine.json()["direction"] == "outgoing" and mine.json()["originator"] == originator()
        assert mine.json()["beneficiary"] == beneficiary() and mine.json()["status"] == "completed"
        theirs = client.get(f"/v1/onboarding/entities/{harbor['id']}/transfers/{TX.upper().replace('0X', '0x')}/travel-rule")
        assert theirs.status_code == 200 and theirs.json()["direction"] == "incoming"

    def test_the_commitment_is_recomputable_from_the_record(self, client, sides, django_capture_on_commit_callbacks):
        body = initiate(client, transfer_body(*sides), django_capture_on_commit_callbacks).json()
        assert body["commitment"] == commitment_of(uuid.UUID(body["transfer_id"]), body["salt"], originator(), beneficiary())
        assert body["commitment"] != commitment_of(uuid.UUID(body["transfer_id"]), "0x" + "00" * 32, originator(), beneficiary())

    def test_the_customer_record_is_hidden_from_unrelated_entities(self, client, sides, django_capture_on_commit_callbacks, api):
        alice, harbor = sides
        carol = onboarded(client, {**PERSON, "legal_name": "Carol Ng"}, CAROL)
        transfer_id = initiate(client, transfer_body(alice, harbor), django_capture_on_commit_callbacks).json()["transfer_id"]
        with django_capture_on_commit_callbacks(execute=True):
            confirm(api(), {"tx_hash": TX, "transfer_id": transfer_id})
        assert client.get(f"/v1/onboarding/entities/{carol['id']}/transfers/{TX}/travel-rule").status_code == 404
        assert client.get(f"/v1/onboarding/entities/{alice['id']}/transfers/{'0x' + '11' * 32}/travel-rule").status_code == 404
        assert client.get(f"/v1/onboarding/entities/{uuid.uuid4()}/transfers/{TX}/travel-rule").status_code == 404
        nul = client.get(f"/v1/onboarding/entities/{alice['id']}/transfers/{TX}%00/travel-rule")  # a 500 on PostgreSQL before
        assert nul.status_code == 422 and nul.json()["error"]["details"][0]["field"] == "tx_hash"


class TestThreshold:
    def test_below_the_threshold_no_travel_rule_data_is_needed(self, client, sides, django_capture_on_commit_callbacks):
        body = transfer_body(*sides, amount="999.99", originator=..., beneficiary=...)
        response = initiate(client, body, django_capture_on_commit_callbacks)
        assert response.status_code == 200 and response.json()["travel_rule_required"] is False
        stored = TravelRuleTransfer.objects.get()
        assert stored.originator is None and stored.beneficiary is None
        assert status_of(client, stored.pk)["status"] == "acknowledged"

    def test_below_the_threshold_given_data_is_still_validated_and_kept(self, client, sides, django_capture_on_commit_callbacks):
        response = initiate(client, transfer_body(*sides, amount="10"), django_capture_on_commit_callbacks)
        assert response.status_code == 200 and TravelRuleTransfer.objects.get().originator == originator()
        bad = originator()
        bad["originatorPersons"][0]["naturalPerson"]["countryOfResidence"] = "ZZ"
        assert client.post(INITIATE, transfer_body(*sides, amount="10", originator=bad), format="json").status_code == 422

    @pytest.mark.parametrize("amount", ["1000", "1000.00", "25000"])
    def test_at_or_above_the_threshold_both_sides_are_required(self, client, sides, amount):
        error = refused_422(client.post(INITIATE, transfer_body(*sides, amount=amount, originator=..., beneficiary=None), format="json"),
                            "originator", "beneficiary")
        assert "threshold of 1000.00 USD" in error["message"]

    def test_an_unpriced_asset_needs_the_data(self, client, sides):
        error = refused_422(client.post(INITIATE, transfer_body(*sides, asset="WETH", amount="1", beneficiary=...), format="json"),
                            "beneficiary")
        assert "no USD price" in error["details"][0]["message"]

    def test_the_organizations_threshold_applies(self, client, org, sides, django_capture_on_commit_callbacks):
        TravelRulePolicy.objects.create(organization=org, threshold_usd=Decimal("3000"))
        response = initiate(client, transfer_body(*sides, amount="2999.99", originator=..., beneficiary=...),
                            django_capture_on_commit_callbacks)
        assert response.status_code == 200 and response.json()["travel_rule_required"] is False
        assert TravelRuleTransfer.objects.get().threshold_usd == Decimal("3000.00")


class TestValidation:
    @pytest.mark.parametrize(("overrides", "fields"), [
        ({"originator_entity_id": ...}, ["originator_entity_id"]),
        ({"beneficiary_entity_id": "not-a-uuid"}, ["beneficiary_entity_id"]),
        ({"chain_id": 0}, ["chain_id"]),
        ({"chain_id": 2**63}, ["chain_id"]),
        ({"chain_id": "one"}, ["chain_id"]),
        ({"asset": ...}, ["asset"]),
        ({"asset": "X" * 21}, ["asset"]),
        ({"amount": ...}, ["amount"]),
        ({"amount": 2500}, ["amount"]),
        ({"amount": "-5"}, ["amount"]),
        ({"amount": "1e5"}, ["amount"]),
        ({"amount": "0"}, ["amount"]),
        ({"amount": "1,000"}, ["amount"]),
        ({"amount": str(2**256)}, ["amount"]),
        ({"amount": "1." + "1" * 37}, ["amount"]),
        ({"amount": "\u0662\u0665\u0660\u0660"}, ["amount"]),  # Arabic-Indic 2500: stored as another string than 2500 before
        ({"from_address": "0x1234"}, ["from_address"]),
        ({"to_address": "0x52908400098527886E0F7030069857D2E4169Ee7"}, ["to_address"]),  # bad EIP-55 checksum
        ({"from_address": ..., "to_address": ""}, ["from_address", "to_address"]),
        ({"memo": "hi", "chain_id": -1}, ["memo", "chain_id"]),
        ({"reference": "r" * 201}, ["reference"]),
        ({"originator": []}, ["originator"]),
        ({"beneficiary": "Bob"}, ["beneficiary"]),
    ])
    def test_bad_fields_are_422_with_details_and_nothing_stored(self, client, sides, overrides, fields):
        refused_422(client.post(INITIATE, transfer_body(*sides, **overrides), format="json"), *fields)

    def test_an_unknown_entity_or_another_organizations_is_422(self, client, api, key, other_org, sides):
        outsider = onboarded(api(key(other_org)), PERSON, CAROL)
        refused_422(client.post(INITIATE, transfer_body(*sides, originator_entity_id=str(uuid.uuid4())), format="json"),
                    "originator_entity_id")
        refused_422(client.post(INITIATE, transfer_body(*sides, beneficiary_entity_id=outsider["id"]), format="json"),
                    "beneficiary_entity_id")

    def test_addresses_must_be_wallets_of_their_side(self, client, sides):
        alice, harbor = sides
        error = refused_422(client.post(INITIATE, transfer_body(alice, harbor, from_address=BOB, originator=originator(BOB)),
                                        format="json"), "from_address")
        assert "not a wallet of the originator" in error["message"]
        refused_422(client.post(INITIATE, transfer_body(alice, harbor, to_address=CAROL, beneficiary=beneficiary(CAROL)),
                                format="json"), "to_address")
        refused_422(client.post(INITIATE, transfer_body(alice, harbor, chain_id=1), format="json"), "from_address", "to_address")

    def test_an_evm_address_is_matched_whatever_its_case(self, client, sides, django_capture_on_commit_callbacks):
        upper = "0x" + ALICE[2:].upper()
        response = initiate(client, transfer_body(*sides, from_address=upper, originator=originator(upper)),
                            django_capture_on_commit_callbacks)
        assert response.status_code == 200, response.json()
        assert TravelRuleTransfer.objects.get().from_address == ALICE

    def test_account_numbers_must_name_the_transfers_addresses(self, client, sides):
        refused_422(client.post(INITIATE, transfer_body(*sides, originator=originator(CAROL)), format="json"),
                    "originator.accountNumber")

    @pytest.mark.parametrize("junk", [b"not json", b"[1, 2]", b"null", b'"text"', b"{", b'{"amount": {"$gt": 1}}',
                                      b'{"originator": {"originatorPersons": [[[[[[]]]]]]}}', b"\xff\xfe"])
    def test_junk_bodies_are_4xx_never_500(self, client, sides, junk):
        response = client.generic("POST", INITIATE, junk, content_type="application/json")
        assert 400 <= response.status_code < 500, response.content
        assert response.json()["error"]["code"] in ("BAD_REQUEST", "VALIDATION_ERROR")
        assert not TravelRuleTransfer.objects.exists()


def _person(kind: str = "naturalPerson") -> dict:
    return fixture("person_natural_person.json" if kind == "naturalPerson" else "person_legal_person.json")


def _natural(**changes) -> dict:
    person = _person()
    person["naturalPerson"].update(changes)
    return person


def _legal(**changes) -> dict:
    person = _person("legalPerson")
    person["legalPerson"].update(changes)
    return person


def _strip_none(person: dict) -> dict:
    for kind in ("naturalPerson", "legalPerson"):
        if kind in person:
            person[kind] = {key: value for key, value in person[kind].items() if value is not None}
    return person


ADDRESS = fixture("address.json")
INVALID_PERSONS = [
    ("both persons", fixture("person_both_persons.json"), "originator.originatorPersons.0", "exactly one of"),
    ("neither person", {}, "originator.originatorPersons.0", "exactly one of"),
    ("no legal name", _natural(name={"nameIdentifier": [{"primaryIdentifier": "Sanders", "nameIdentifierType": "ALIA"}]}),
     "originator.originatorPersons.0.naturalPerson.name.nameIdentifier", "LEGL"),
    ("unknown name type", _natural(name={"nameIdentifier": [{"primaryIdentifier": "Sanders", "nameIdentifierType": "LEGAL"}]}),
     "originator.originatorPersons.0.naturalPerson.name.nameIdentifier.0.nameIdentifierType", "codes are"),
    ("name too long", _natural(name={"nameIdentifier": [{"primaryIdentifier": "S" * 101, "nameIdentifierType": "LEGL"}]}),
     "originator.originatorPersons.0.naturalPerson.name.nameIdentifier.0.primaryIdentifier", "Max100Text"),
    ("no name", _strip_none(_natural(name=None)), "originator.originatorPersons.0.naturalPerson.name", "required"),
    ("three-letter country", _natural(countryOfResidence="USA"), "originator.originatorPersons.0.naturalPerson.countryOfResidence",
     "ISO 3166-1"),
    ("future birth", _natural(dateAndPlaceOfBirth={"dateOfBirth": "2999-01-01", "placeOfBirth": "Oslo"}),
     "originator.originatorPersons.0.naturalPerson.dateAndPlaceOfBirth.dateOfBirth", "past"),
    ("birth date format", _natural(dateAndPlaceOfBirth={"dateOfBirth": "18/02/1975", "placeOfBirth": "Oslo"}),
     "originator.originatorPersons.0.naturalPerson.dateAndPlaceOfBirth.dateOfBirth", "does not match"),
    ("no street or line", _natural(geographicAddress=[{"addressType": "HOME", "townName": "Oslo", "country": "NO"}]),
     "originator.originatorPersons.0.naturalPerson.geographicAddress.0", "addressLine"),
    ("eight address lines", _natural(geographicAddress=[{"addressType": "GEOG", "addressLine": ["x"] * 8, "country": "NO"}]),
     "originator.originatorPersons.0.naturalPerson.geographicAddress.0.addressLine", "At most 7"),
    ("unknown field", _natural(nickname="Al"), "originator.originatorPersons.0.naturalPerson.nickname", "Not a field"),
    ("address not a list", _natural(geographicAddress=ADDRESS), "originator.originatorPersons.0.naturalPerson.geographicAddress",
     "Expected a list"),
    ("legal originator without identification",
     _strip_none(_legal(geographicAddress=None, customerNumber=None, nationalIdentification=None)),
     "originator.originatorPersons.0.legalPerson", "GEOG"),
    ("legal identifier with a country of issue",
     _legal(nationalIdentification={"nationalIdentifier": "X1", "nationalIdentifierType": "RAID", "countryOfIssue": "GB",
                                    "registrationAuthority": "RA000585"}),
     "originator.originatorPersons.0.legalPerson.nationalIdentification.countryOfIssue", "no countryOfIssue"),
    ("legal identifier without authority", _legal(nationalIdentification={"nationalIdentifier": "X1", "nationalIdentifierType": "TXID"}),
     "originator.originatorPersons.0.legalPerson.nationalIdentification.registrationAuthority", "other than LEIX"),
    ("legal person with a passport", _legal(nationalIdentification={"nationalIdentifier": "X1", "nationalIdentifierType": "CCPT",
                                                                    "registrationAuthority": "RA000585"}),
     "originator.originatorPersons.0.legalPerson.nationalIdentification.nationalIdentifierType", "RAID"),
    ("bad LEI", _legal(nationalIdentification={"nationalIdentifier": "213800AQUAUP6I215NXX", "nationalIdentifierType": "LEIX"}),
     "originator.originatorPersons.0.legalPerson.nationalIdentification.nationalIdentifier", "LEI"),
    ("bad registration authority", _natural(nationalIdentification={"nationalIdentifier": "1", "nationalIdentifierType": "SOCS",
                                                                    "registrationAuthority": "GLEIF"}),
     "originator.originatorPersons.0.naturalPerson.nationalIdentification.registrationAuthority", "RA followed by 6 digits"),
    ("registration authority in other digits", _natural(nationalIdentification={
        "nationalIdentifier": "1", "nationalIdentifierType": "SOCS", "registrationAuthority": "RA\u0660\u0660\u0660\u0665\u0668\u0665"}),
     "originator.originatorPersons.0.naturalPerson.nationalIdentification.registrationAuthority", "RA followed by 6 digits"),
]


class TestIvms101:
    @pytest.mark.parametrize(("person", "field", "message"), [case[1:] for case in INVALID_PERSONS],
                             ids=[case[0] for case in INVALID_PERSONS])
    def test_invalid_persons_are_refused_naming_the_field(self, client, sides, person, field, message):
        data = {"originatorPersons": [person], "accountNumber": [ALICE]}
        error = refused_422(client.post(INITIATE, transfer_body(*sides, originator=data), format="json"), field)
        assert any(message in detail["message"] for detail in error["details"] if detail["field"] == field), error["details"]

    def test_the_references_alternative_field_names_are_not_ivms101(self, client, sides):
        """identity_payload_alt.json spells fields as some implementations do (lastName, geographicAddresses):
        refused, so what is stored is the standard's form."""
        alt = fixture("identity_payload_alt.json")
        error = refused_422(client.post(INITIATE, transfer_body(*sides, originator=alt["originator"], beneficiary=alt["beneficiary"]),
                                        format="json"), "originator.originatorPersons.0.naturalPerson.geographicAddresses")
        assert any(detail["field"].startswith("beneficiary.") for detail in error["details"])

    def test_the_references_identity_payload_is_accepted(self, client, sides, django_capture_on_commit_callbacks):
        payload = fixture("identity_payload.json")
        payload["originator"]["accountNumber"], payload["beneficiary"]["accountNumber"] = [ALICE], [BOB]
        response = initiate(client, transfer_body(*sides, originator=payload["originator"], beneficiary=payload["beneficiary"]),
                            django_capture_on_commit_callbacks)
        assert response.status_code == 200, response.json()
        assert TravelRuleTransfer.objects.get().beneficiary == payload["beneficiary"]


class TestCompliance:
    def test_a_pending_originator_is_refused_naming_the_side(self, client, sides):
        alice, harbor = sides
        pending = onboarded(client, {**PERSON, "legal_name": "Pat Pending"}, CAROL, approve=False)
        response = client.post(INITIATE, transfer_body(pending, harbor, from_address=CAROL, originator=originator(CAROL)), format="json")
        assert response.status_code == 409, response.json()
        error = response.json()["error"]
        assert error["code"] == "NOT_COMPLIANT"
        assert error["details"] == [{"field": "originator_entity_id",
                                     "message": "The originator (Pat Pending) is not compliant: the entity is pending, not active."}]
        assert not TravelRuleTransfer.objects.exists()

    def test_a_suspended_or_sanctioned_beneficiary_is_refused(self, client, sides):
        alice, harbor = sides
        Entity.objects.filter(pk=harbor["id"]).update(status="suspended", sanctioned=True)
        error = client.post(INITIATE, transfer_body(alice, harbor), format="json").json()["error"]
        assert error["code"] == "NOT_COMPLIANT" and [d["field"] for d in error["details"]] == ["beneficiary_entity_id"]
        assert "suspended, not active" in error["message"] and "sanctioned" in error["message"]

    def test_a_flagged_wallet_makes_its_side_non_compliant(self, client, sides):
        Wallet.objects.filter(address=ALICE).update(flagged=True, flag_reason="mixer exposure")
        Wallet.objects.filter(address=BOB).update(status="inactive")
        error = client.post(INITIATE, transfer_body(*sides), format="json").json()["error"]
        assert [d["field"] for d in error["details"]] == ["originator_entity_id", "beneficiary_entity_id"]
        assert "flagged (mixer exposure)" in error["details"][0]["message"] and "is inactive" in error["details"][1]["message"]

    def test_the_process_rejects_a_side_no_longer_compliant(self, client, sides):
        alice, harbor = sides
        response = client.post(INITIATE, transfer_body(alice, harbor), format="json")  # the on-commit process not run
        assert response.status_code == 200 and response.json()["status"] == "pending"
        Entity.objects.filter(pk=harbor["id"]).update(status="suspended")
        tasks.process_transfer(response.json()["transfer_id"])
        polled = status_of(client, response.json()["transfer_id"])
        assert polled["status"] == "rejected" and polled["rejected_at"] and polled["acknowledged_at"] is None
        assert "beneficiary is not compliant: the entity is suspended" in polled["status_reason"]
        tasks.process_transfer(response.json()["transfer_id"])  # again: harmless
        assert status_of(client, response.json()["transfer_id"])["status"] == "rejected"
        assert AuditLogEntry.objects.filter(action="travel_rule_transfer.rejected").count() == 1


class TestIdempotency:
    def test_the_same_reference_and_body_return_the_same_transfer(self, client, sides, django_capture_on_commit_callbacks):
        body = transfer_body(*sides, reference="payout-77")
        first = initiate(client, body, django_capture_on_commit_callbacks).json()
        again = initiate(client, body, django_capture_on_commit_callbacks).json()
        assert again["transfer_id"] == first["transfer_id"] and again["salt"] == first["salt"]
        assert (first["duplicate"], again["duplicate"], again["status"]) == (False, True, "acknowledged")
        assert TravelRuleTransfer.objects.count() == 1
        assert AuditLogEntry.objects.filter(action="travel_rule_transfer.initiated").count() == 1

    def test_the_same_reference_with_another_body_is_409(self, client, sides, django_capture_on_commit_callbacks):
        initiate(client, transfer_body(*sides, reference="payout-78"), django_capture_on_commit_callbacks)
        response = client.post(INITIATE, transfer_body(*sides, reference="payout-78", amount="2600"), format="json")
        assert response.status_code == 409 and response.json()["error"]["details"][0]["field"] == "reference"
        assert TravelRuleTransfer.objects.count() == 1

    def test_without_a_reference_each_call_is_a_new_transfer(self, client, sides):
        ids = {client.post(INITIATE, transfer_body(*sides), format="json").json()["transfer_id"] for _ in range(2)}
        assert len(ids) == 2


class TestAmounts:
    @pytest.mark.parametrize(("given", "stored"), [
        (str(2**256 - 1), str(2**256 - 1)),
        (str(2**256 - 1) + ".000000000000000000000000000000000001", str(2**256 - 1) + ".000000000000000000000000000000000001"),
        ("000123.4500", "123.45"),
        ("7" * 78, None),
    ])
    def test_amounts_round_trip_exactly(self, client, sides, given, stored, django_capture_on_commit_callbacks):
        if stored is None and int(given) > 2**256 - 1:
            refused_422(client.post(INITIATE, transfer_body(*sides, amount=given, asset="WEI"), format="json"), "amount")
            return
        response = initiate(client, transfer_body(*sides, amount=given, asset="WEI"), django_capture_on_commit_callbacks)
        assert response.status_code == 200, response.json()
        row = TravelRuleTransfer.objects.get()
        row.refresh_from_db()
        assert row.amount == stored and status_of(client, row.pk)["amount"] == stored
        assert row.usd_value is None and row.travel_rule_required is True  # no price for WEI

    def test_a_huge_priced_amount_keeps_its_value_capped(self, client, sides, django_capture_on_commit_callbacks):
        response = initiate(client, transfer_body(*sides, amount=str(2**256 - 1)), django_capture_on_commit_callbacks)
        assert response.status_code == 200
        assert TravelRuleTransfer.objects.get().usd_value == services.USD_VALUE_CAP


class TestChainConfirmation:
    @pytest.fixture
    def acknowledged(self, client, sides, django_capture_on_commit_callbacks) -> TravelRuleTransfer:
        transfer_id = initiate(client, transfer_body(*sides), django_capture_on_commit_callbacks).json()["transfer_id"]
        return TravelRuleTransfer.objects.get(pk=transfer_id, status="acknowledged")

    def deliver(self, api, capture, **payload) -> InboundCallback:
        with capture(execute=True):
            assert confirm(api(), payload).status_code == 200
        return InboundCallback.objects.order_by("-created_at").first()

    def test_by_commitment_then_again_by_hash(self, api, acknowledged, django_capture_on_commit_callbacks):
        callback = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX,
                                transfer_id="0x" + acknowledged.commitment[2:].upper())
        assert callback.status == "processed"
        acknowledged.refresh_from_db()
        assert (acknowledged.status, acknowledged.tx_hash, acknowledged.confirmations) == ("completed", TX, 12)
        again = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX)
        assert again.status == "processed" and "already completed" in again.result
        assert Event.objects.filter(type="transfer.confirmed").count() == 1

    def test_a_reverted_transaction_leaves_it_acknowledged(self, api, client, acknowledged, django_capture_on_commit_callbacks):
        callback = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX, transfer_id=str(acknowledged.pk), status="reverted")
        assert callback.status == "processed" and "stays acknowledged" in callback.result
        polled = status_of(client, acknowledged.pk)
        assert polled["status"] == "acknowledged" and polled["tx_hash"] is None and "reverted" in polled["status_reason"]
        assert not Event.objects.filter(type="transfer.confirmed").exists()

    def test_another_chain_or_an_unknown_transfer_fails_the_callback(self, api, acknowledged, django_capture_on_commit_callbacks):
        wrong_chain = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX, transfer_id=str(acknowledged.pk), chain_id=1)
        assert wrong_chain.status == "failed" and "is on chain 11155111" in wrong_chain.result
        unknown = self.deliver(api, django_capture_on_commit_callbacks, tx_hash="0x" + "77" * 32, transfer_id=str(uuid.uuid4()))
        assert unknown.status == "failed" and "NotFound" in unknown.result
        acknowledged.refresh_from_db()
        assert acknowledged.status == "acknowledged"

    def test_execution_of_an_expired_transfer_is_recorded_not_completed(self, api, client, acknowledged,
                                                                        django_capture_on_commit_callbacks):
        TravelRuleTransfer.objects.filter(pk=acknowledged.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
        with django_capture_on_commit_callbacks(execute=True):
            tasks.sweep_transfers()
        assert status_of(client, acknowledged.pk)["status"] == "expired"
        assert AuditLogEntry.objects.filter(action="travel_rule_transfer.expired", object_id=str(acknowledged.pk)).exists()
        callback = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX, transfer_id=str(acknowledged.pk))
        assert callback.status == "processed" and "executed while expired" in callback.result
        polled = status_of(client, acknowledged.pk)
        assert polled["status"] == "expired" and polled["tx_hash"] == TX and "never acknowledged" in polled["status_reason"]

    def test_a_confirmation_after_expires_at_expires_it_even_before_the_sweep(self, api, client, sides, acknowledged,
                                                                               django_capture_on_commit_callbacks):
        """docs/travel-rule.md: `expired` is acknowledged but not confirmed on chain by expires_at, whether or not the
        sweep has run yet; the late execution is recorded, not completed."""
        expires_at = timezone.now() - timedelta(seconds=5)
        TravelRuleTransfer.objects.filter(pk=acknowledged.pk).update(expires_at=expires_at)
        callback = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX, transfer_id=str(acknowledged.pk),
                                confirmed_at=timezone.now().isoformat().replace("+00:00", "Z"))
        assert callback.status == "processed" and "executed while expired" in callback.result
        polled = status_of(client, acknowledged.pk)
        assert (polled["status"], polled["tx_hash"], polled["completed_at"]) == ("expired", TX, None)
        assert polled["expired_at"] is not None and "expired" in polled["status_reason"]
        assert AuditLogEntry.objects.filter(action="travel_rule_transfer.expired", object_id=str(acknowledged.pk)).exists()
        assert not Event.objects.filter(type="transfer.confirmed").exists()

        in_time = initiate(client, transfer_body(*sides), django_capture_on_commit_callbacks).json()["transfer_id"]
        TravelRuleTransfer.objects.filter(pk=in_time).update(expires_at=timezone.now() - timedelta(seconds=5))
        confirmed = (expires_at - timedelta(seconds=60)).isoformat().replace("+00:00", "Z")  # in time; the callback came late
        self.deliver(api, django_capture_on_commit_callbacks, tx_hash="0x" + "55" * 32, transfer_id=in_time, confirmed_at=confirmed)
        assert status_of(client, in_time)["status"] == "completed"

    def test_the_on_chain_status_update_path_is_unchanged(self, api, acknowledged, django_capture_on_commit_callbacks):
        from compliance.models import OnchainStatusUpdate

        wallet = Wallet.objects.get(address=ALICE)
        update = OnchainStatusUpdate.objects.create(organization=wallet.organization, mode=wallet.mode, wallet=wallet, entity=wallet.entity,
                                                    chain_id=CHAIN, address=ALICE, flagged=True, status="published", tx_hash=TX)
        callback = self.deliver(api, django_capture_on_commit_callbacks, tx_hash=TX)
        assert callback.status == "processed" and f"on-chain update {update.pk} confirmed" in callback.result
        acknowledged.refresh_from_db()
        assert acknowledged.status == "acknowledged"


class TestSweep:
    def test_a_pending_transfer_whose_message_was_lost_is_processed(self, client, sides, django_capture_on_commit_callbacks):
        transfer_id = client.post(INITIATE, transfer_body(*sides), format="json").json()["transfer_id"]  # message "lost"
        with django_capture_on_commit_callbacks(execute=True):
            tasks.sweep_transfers()
        assert status_of(client, transfer_id)["status"] == "pending"  # too recent: its message may be in flight
        TravelRuleTransfer.objects.filter(pk=transfer_id).update(created_at=timezone.now() - timedelta(minutes=5))
        with django_capture_on_commit_callbacks(execute=True):
            tasks.sweep_transfers()
        assert status_of(client, transfer_id)["status"] == "acknowledged"

    def test_the_beat_schedule_names_the_sweep(self):
        from config.celery import app

        assert app.conf.beat_schedule["compliance.sweep_transfers"]["task"] == tasks.sweep_transfers.name


class TestTenancyAndRoles:
    def test_other_organizations_and_modes_see_404(self, client, api, key, org, other_org, sides, django_capture_on_commit_callbacks):
        transfer_id = initiate(client, transfer_body(*sides), django_capture_on_commit_callbacks).json()["transfer_id"]
        url = f"/v1/compliance/transfer/{transfer_id}"
        assert api(key(other_org)).get(url).status_code == 404
        live = api(key(org, mode="live")).get(url)
        assert live.status_code == 404 and "test-mode" not in live.json()["error"]["message"]
        assert client.get(f"/v1/compliance/transfer/{uuid.uuid4()}").status_code == 404
        assert client.get("/v1/compliance/transfer/not-a-uuid").status_code == 404
        alice = sides[0]
        TravelRuleTransfer.objects.filter(pk=transfer_id).update(tx_hash=TX)
        assert api(key(org, mode="live")).get(f"/v1/onboarding/entities/{alice['id']}/transfers/{TX}/travel-rule").status_code == 404

    def test_a_live_key_cannot_use_test_customers(self, api, key, org, sides):
        response = api(key(org, mode="live")).post(INITIATE, transfer_body(*sides), format="json")
        assert response.status_code == 422 and not TravelRuleTransfer.objects.exists()

    def test_roles(self, api, key, org, sides, client, django_capture_on_commit_callbacks):
        assert api().post(INITIATE, transfer_body(*sides), format="json").status_code == 401
        viewer = api(key(org, role="viewer"))
        assert viewer.post(INITIATE, transfer_body(*sides), format="json").status_code == 403
        analyst = api(key(org, role="l1_analyst"))
        response = initiate(analyst, transfer_body(*sides), django_capture_on_commit_callbacks)
        assert response.status_code == 200
        assert viewer.get(f"/v1/compliance/transfer/{response.json()['transfer_id']}").status_code == 200

    def test_the_policy_service_needs_an_admin_and_audits(self, org):
        from tests.webhooks.conftest import principal_of

        with pytest.raises(Exception) as refused:
            services.travel_rule_policy_set(principal=principal_of(org, "l3_officer"), threshold_usd=Decimal("3000"),
                                            acknowledgement_valid_hours=24)
        assert type(refused.value).__name__ == "Forbidden"
        policy = services.travel_rule_policy_set(principal=principal_of(org), threshold_usd=Decimal("3000"), acknowledgement_valid_hours=2)
        assert (policy.threshold_usd, policy.acknowledgement_valid_hours) == (Decimal("3000"), 2)
        assert AuditLogEntry.objects.filter(action="travel_rule_policy.updated", object_id=str(policy.pk)).exists()


class TestOpenAPI:
    def test_the_operations_and_their_schemas_are_published(self, client):
        document = client.get("/v1/openapi.json").json()
        paths, components = document["paths"], document["components"]["schemas"]
        initiate_op = paths["/v1/compliance/transfer/initiate"]["post"]
        assert initiate_op["operationId"] == "compliance_transfer_initiate" and {"200", "409", "422"} <= set(initiate_op["responses"])
        request = components["InitiateTransferRequest"]
        assert request["additionalProperties"] is False
        assert set(request["required"]) == {"originator_entity_id", "chain_id", "asset", "amount", "from_address", "to_address"}
        assert {"beneficiary_entity_id", "beneficiary_vasp_id"} <= set(request["properties"])  # exactly one of the two
        person = request["properties"]["originator"]["properties"]["originatorPersons"]["items"]
        assert set(person["properties"]) == {"naturalPerson", "legalPerson"}
        name_id = person["properties"]["naturalPerson"]["properties"]["name"]["properties"]["nameIdentifier"]["items"]
        assert name_id["properties"]["nameIdentifierType"]["enum"] == ["MISC", "ALIA", "BIRT", "MAID", "LEGL"]
        assert {"transfer_id", "salt", "status"} <= set(components["TransferIdResponse"]["required"])
        assert paths["/v1/compliance/transfer/{transfer_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/TravelRuleStatusResponse"}
        travel = paths["/v1/onboarding/entities/{entity_id}/transfers/{tx_hash}/travel-rule"]["get"]
        assert travel["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/CustomerTravelRuleResponse")
