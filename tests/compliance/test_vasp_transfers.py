"""Travel-rule transfers whose beneficiary is at another VASP (docs/travel-rule.md, "Beneficiaries at
another VASP"): the counterparty VASP directory, the signed inquiry to a real HTTPS server on
loopback playing the other VASP (approving, rejecting, answering later by callback, timing out,
failing then approving on a retry), and the inbound side (we are the beneficiary's VASP)."""

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from common.models import AuditLogEntry
from compliance.models import CounterpartyVasp, InboundTravelRuleTransfer, TravelRuleTransfer
from compliance.travel_rule import services, tasks, vasp_protocol
from compliance.travel_rule.commitment import commitment_of
from monitoring.models import AssetPrice
from onboarding.models import Entity
from organizations.choices import Role
from tests.compliance.travel_rule_helpers import ALICE, BOB, CAROL, CHAIN, INITIATE, beneficiary, customers, originator
from tests.compliance.vasp_helpers import HANG, CounterpartyServer, signed
from tests.webhooks.receiver import make_tls_files
from webhooks import signing

pytestmark = pytest.mark.django_db
VASPS = "/v1/compliance/vasps"
LEI = "5493001KJTIIGC8Y1R12"
DAVE = "0x" + "d4" * 20  # a wallet at the other VASP


@pytest.fixture(scope="session")
def tls(tmp_path_factory):
    return make_tls_files(tmp_path_factory.mktemp("vasp-tls"))


@pytest.fixture(autouse=True)
def local_vasps(settings, tls, org):
    """The other VASP listens on loopback with the test CA: the switch webhook tests use for local receivers."""
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_CA_BUNDLE = str(tls.ca)
    settings.PUBLIC_URL = "https://compliance.example"
    AssetPrice.objects.create(organization=org, asset="USDC", usd_rate=1)


@pytest.fixture
def server(tls):
    started = []

    def make(reply, **kwargs) -> CounterpartyServer:
        started.append(CounterpartyServer(tls, reply, **kwargs))
        return started[-1]

    yield make
    for running in started:
        running.stop()


@pytest.fixture
def client(api, org, key):
    return api(key(org))


@pytest.fixture
def alice(client):
    return customers(client)[0]


def make_vasp(client, url, **fields) -> dict:
    response = client.post(VASPS, {"name": "Harbor Exchange", "inquiry_url": url, **fields}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def vasp_body(alice, vasp, **overrides) -> dict:
    body = {"originator_entity_id": alice["id"], "beneficiary_vasp_id": vasp["id"], "chain_id": CHAIN, "asset": "USDC",
            "amount": "2500", "from_address": ALICE, "to_address": DAVE, "originator": originator(),
            "beneficiary": beneficiary(DAVE)}
    body.update(overrides)
    return {name: value for name, value in body.items() if value is not ...}


def initiate(client, capture, body):
    with capture(execute=True):
        return client.post(INITIATE, body, format="json")


def reply(request, decision, reason="") -> tuple[int, dict]:
    return 200, vasp_protocol.reply(request.body["transfer_id"], decision, reason)


def stored(transfer_id) -> TravelRuleTransfer:
    return TravelRuleTransfer.objects.get(pk=transfer_id)


class TestDirectory:
    def test_create_shows_the_secret_once_and_reads_never(self, client, api, key, org, server):
        other = server(lambda n, r: (200, {}))
        created = make_vasp(client, other.url, lei=LEI.lower())
        assert created["shared_secret"].startswith("trsec_") and created["lei"] == LEI and created["status"] == "active"
        assert created["our_inquiry_url"] == f"https://compliance.example/v1/travel-rule/vasps/{created['id']}/inquiry"
        viewer = api(key(org, role=Role.VIEWER))
        detail = viewer.get(f"{VASPS}/{created['id']}").json()
        assert "shared_secret" not in detail and detail["inquiry_url"] == other.url
        assert [item["id"] for item in viewer.get(VASPS).json()["data"]] == [created["id"]]
        vasp = CounterpartyVasp.objects.get()
        assert vasp.shared_secret == created["shared_secret"] and vasp.organization == org
        entry = AuditLogEntry.objects.get(action="counterparty_vasp.created")
        assert created["shared_secret"] not in json.dumps(entry.after)

    def test_the_other_vasps_secret_may_be_given(self, client, server):
        created = make_vasp(client, server(lambda n, r: (200, {})).url, shared_secret="s" * 40)
        assert created["shared_secret"] == "s" * 40 == CounterpartyVasp.objects.get().shared_secret

    @pytest.mark.parametrize("role", [Role.VIEWER, Role.L1_ANALYST, Role.L2_INVESTIGATOR])
    def test_writes_need_the_admin_role(self, api, key, org, role, client, server):
        url = server(lambda n, r: (200, {})).url
        vasp = make_vasp(client, url)
        caller = api(key(org, role=role))
        assert caller.post(VASPS, {"name": "X", "inquiry_url": url}, format="json").status_code == 403
        assert caller.patch(f"{VASPS}/{vasp['id']}", {"name": "Y"}, format="json").status_code == 403
        assert caller.post(f"{VASPS}/{vasp['id']}/disable").status_code == 403
        assert CounterpartyVasp.objects.get().name == "Harbor Exchange" and CounterpartyVasp.objects.get().status == "active"

    @pytest.mark.parametrize("fields, field", [
        ({"lei": "5493001KJTIIGC8Y1R13"}, "lei"),  # a check digit off
        ({"lei": "ABC"}, "lei"),
        ({"inquiry_url": "http://127.0.0.1:9/x"}, "inquiry_url"),
        ({"inquiry_url": "https://user:pw@127.0.0.1/x"}, "inquiry_url"),
        ({"inquiry_url": "https://no-such-host.invalid/x"}, "inquiry_url"),
        ({"name": "  "}, "name"),
        ({"name": "a\x00b"}, "name"),
        ({"shared_secret": "short"}, "shared_secret"),
        ({"status": "paused"}, "status"),
        ({"extra": 1}, "extra"),
    ])
    def test_bad_fields_are_422_and_nothing_stored(self, client, fields, field):
        response = client.post(VASPS, {"name": "Harbor", "inquiry_url": "https://127.0.0.1:8443/x", **fields}, format="json")
        assert response.status_code == 422, response.json()
        assert field in {detail["field"] for detail in response.json()["error"]["details"]}
        assert not CounterpartyVasp.objects.exists() and not AuditLogEntry.objects.filter(object_type="counterpartyvasp").exists()

    def test_a_private_address_is_refused_when_private_networks_are_not_allowed(self, client, settings):
        settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
        for url in ("https://127.0.0.1/x", "https://localhost/x", "https://10.0.0.8/x"):
            response = client.post(VASPS, {"name": "Harbor", "inquiry_url": url}, format="json")
            assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "inquiry_url"
        assert not CounterpartyVasp.objects.exists()

    def test_update_and_disable_are_audited(self, client, server):
        vasp = make_vasp(client, server(lambda n, r: (200, {})).url)
        response = client.patch(f"{VASPS}/{vasp['id']}", {"name": "Harbor Exchange AG", "lei": LEI}, format="json")
        assert response.status_code == 200 and response.json()["name"] == "Harbor Exchange AG" and response.json()["lei"] == LEI
        response = client.post(f"{VASPS}/{vasp['id']}/disable")
        assert response.status_code == 200 and response.json()["status"] == "disabled"
        assert CounterpartyVasp.objects.get().status == "disabled"
        actions = list(AuditLogEntry.objects.filter(object_type="counterpartyvasp").order_by("id").values_list("action", flat=True))
        assert actions == ["counterparty_vasp.created", "counterparty_vasp.updated", "counterparty_vasp.updated"]

    def test_another_organizations_or_modes_vasp_is_404(self, client, api, key, other_org, org, server):
        vasp = make_vasp(client, server(lambda n, r: (200, {})).url)
        for caller in (api(key(other_org)), api(key(org, mode="live"))):
            assert caller.get(f"{VASPS}/{vasp['id']}").status_code == 404
            assert caller.patch(f"{VASPS}/{vasp['id']}", {"name": "Mine"}, format="json").status_code == 404
            assert caller.post(f"{VASPS}/{vasp['id']}/disable").status_code == 404
            assert caller.get(VASPS).json()["data"] == []
        assert CounterpartyVasp.objects.get().name == "Harbor Exchange"


class TestOutbound:
    def test_approved_in_the_answer_acknowledges(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: reply(request, "approved"))
        vasp = make_vasp(client, other.url, shared_secret="k" * 40)
        response = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, vasp))
        assert response.status_code == 200, response.json()
        transfer_id = response.json()["transfer_id"]
        status = client.get(f"/v1/compliance/transfer/{transfer_id}").json()
        assert status["status"] == "acknowledged" and status["beneficiary_vasp_id"] == vasp["id"]
        assert status["beneficiary_entity_id"] is None and status["vasp_attempts"] == 1 and status["vasp_delivered_at"]
        (request,) = other.requests
        timestamp = request.headers["x-travel-rule-timestamp"]
        assert signing.signature_matches("k" * 40, timestamp, request.raw, request.headers["x-travel-rule-signature"])
        message = request.body
        assert message["type"] == "transfer_inquiry" and message["version"] == "1" and message["transfer_id"] == transfer_id
        assert message["to_address"] == DAVE and message["amount"] == "2500" and message["chain_id"] == CHAIN
        assert message["originator"] == originator() and message["beneficiary"] == beneficiary(DAVE)
        name = message["originating_vasp"]["originatingVasp"]["legalPerson"]["name"]["nameIdentifier"][0]["legalPersonName"]
        assert name == "Acme"
        assert message["callback_url"] == f"https://compliance.example/v1/travel-rule/vasps/{vasp['id']}/reply"
        assert message["commitment"] == commitment_of(uuid.UUID(transfer_id), message["salt"], originator(), beneficiary(DAVE))
        transfer = stored(transfer_id)
        assert transfer.expires_at > timezone.now() + timedelta(hours=23)
        assert AuditLogEntry.objects.filter(object_id=transfer_id, action="travel_rule_transfer.acknowledged").exists()

    def test_below_the_threshold_the_originator_data_may_be_left_out(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: reply(request, "approved"))
        response = initiate(client, django_capture_on_commit_callbacks,
                            vasp_body(alice, make_vasp(client, other.url), amount="5", originator=None))
        assert response.status_code == 200 and response.json()["travel_rule_required"] is False
        assert other.requests[0].body["originator"] is None and stored(response.json()["transfer_id"]).status == "acknowledged"

    def test_the_filer_profile_names_the_originating_vasp(self, client, org, alice, server, django_capture_on_commit_callbacks):
        org.filer_profile = {"legal_name": "Acme Payments Inc.", "lei": LEI}
        org.save()
        other = server(lambda n, request: reply(request, "approved"))
        initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, make_vasp(client, other.url)))
        person = other.requests[0].body["originating_vasp"]["originatingVasp"]["legalPerson"]
        assert person["name"]["nameIdentifier"][0]["legalPersonName"] == "Acme Payments Inc."
        assert person["nationalIdentification"] == {"nationalIdentifier": LEI, "nationalIdentifierType": "LEIX"}

    def test_rejected_in_the_answer_rejects_with_the_reason(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: reply(request, "rejected", "Unknown beneficiary account"))
        response = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, make_vasp(client, other.url)))
        status = client.get(f"/v1/compliance/transfer/{response.json()['transfer_id']}").json()
        assert status["status"] == "rejected" and status["rejected_at"]
        assert status["status_reason"] == "Rejected by the beneficiary VASP Harbor Exchange: Unknown beneficiary account"

    def test_pending_then_the_signed_callback_decides(self, client, api, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: reply(request, "pending"))
        vasp = make_vasp(client, other.url)
        transfer_id = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, vasp)).json()["transfer_id"]
        transfer = stored(transfer_id)
        assert transfer.status == "pending" and transfer.vasp_delivered_at and transfer.vasp_next_attempt_at is None
        callback = other.requests[0].body["callback_url"].removeprefix("https://compliance.example")
        message = vasp_protocol.reply(transfer_id, "approved")
        anonymous = api()
        refused = [anonymous.generic("POST", callback, **signed("wrong" * 8, message)),
                   anonymous.generic("POST", callback, **signed(vasp["shared_secret"], message, timestamp=1_600_000_000)),
                   anonymous.generic("POST", f"/v1/travel-rule/vasps/{uuid.uuid4()}/reply", **signed(vasp["shared_secret"], message))]
        for response in refused:
            assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHENTICATED"
        assert stored(transfer_id).status == "pending"
        answered = anonymous.generic("POST", callback, **signed(vasp["shared_secret"], message))
        assert answered.status_code == 200, answered.json()
        assert answered.json() == {"transfer_id": transfer_id, "status": "acknowledged"}
        assert stored(transfer_id).status == "acknowledged"
        again = anonymous.generic("POST", callback, **signed(vasp["shared_secret"], message))
        assert again.status_code == 200 and again.json()["status"] == "acknowledged"
        contrary = anonymous.generic("POST", callback, **signed(vasp["shared_secret"], vasp_protocol.reply(transfer_id, "rejected", "no")))
        assert contrary.status_code == 409 and stored(transfer_id).status == "acknowledged"

    def test_a_callback_for_another_vasps_transfer_is_404(self, client, api, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: reply(request, "pending"))
        first, second = make_vasp(client, other.url), make_vasp(client, other.url, name="Second")
        transfer_id = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, first)).json()["transfer_id"]
        response = api().generic("POST", f"/v1/travel-rule/vasps/{second['id']}/reply",
                                 **signed(second["shared_secret"], vasp_protocol.reply(transfer_id, "approved")))
        assert response.status_code == 404 and stored(transfer_id).status == "pending"

    def test_a_500_then_approval_on_the_retry(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: (500, {"error": "down"}) if n == 0 else reply(request, "approved"))
        transfer_id = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, make_vasp(client, other.url))).json()[
            "transfer_id"]
        transfer = stored(transfer_id)
        assert transfer.status == "pending" and transfer.vasp_attempts == 1 and transfer.vasp_last_error.startswith("HTTP 500")
        assert transfer.vasp_next_attempt_at > timezone.now()
        tasks.process_transfer(transfer_id)  # not due yet: nothing sent
        assert len(other.requests) == 1
        TravelRuleTransfer.objects.filter(pk=transfer_id).update(vasp_next_attempt_at=timezone.now() - timedelta(seconds=1))
        tasks.process_transfer(transfer_id)
        transfer = stored(transfer_id)
        assert transfer.status == "acknowledged" and transfer.vasp_attempts == 2 and transfer.vasp_last_error == ""
        assert len(other.requests) == 2

    def test_a_malformed_answer_is_a_failed_attempt(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: (200, {"decision": "maybe"}))
        transfer_id = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, make_vasp(client, other.url))).json()[
            "transfer_id"]
        transfer = stored(transfer_id)
        assert transfer.status == "pending" and "not a valid transfer reply" in transfer.vasp_last_error

    def test_a_deeply_nested_answer_is_a_failed_attempt_not_a_crash(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: (200, b"[" * 60000))  # within the 64 KiB read, far past the decoder's depth
        transfer_id = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, make_vasp(client, other.url))).json()[
            "transfer_id"]
        transfer = stored(transfer_id)
        assert transfer.status == "pending" and "not a JSON transfer reply" in transfer.vasp_last_error and transfer.vasp_attempts == 1

    def test_no_answer_times_out_and_the_deadline_expires_it(self, client, alice, server, django_capture_on_commit_callbacks):
        other = server(lambda n, request: HANG)
        transfer_id = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, make_vasp(client, other.url))).json()[
            "transfer_id"]
        transfer = stored(transfer_id)
        assert transfer.status == "pending" and transfer.vasp_last_error.startswith("timed out")
        TravelRuleTransfer.objects.filter(pk=transfer_id).update(expires_at=timezone.now() - timedelta(seconds=1))
        services.transfers_sweep()
        transfer = stored(transfer_id)
        assert transfer.status == "expired" and "did not answer" in transfer.status_reason
        assert AuditLogEntry.objects.filter(object_id=transfer_id, action="travel_rule_transfer.expired").exists()

    def test_a_vasp_disabled_before_the_inquiry_rejects_it_unsent(self, client, alice, server):
        other = server(lambda n, request: reply(request, "approved"))
        vasp = make_vasp(client, other.url)
        transfer_id = client.post(INITIATE, vasp_body(alice, vasp), format="json").json()["transfer_id"]
        client.post(f"{VASPS}/{vasp['id']}/disable")
        tasks.process_transfer(transfer_id)
        transfer = stored(transfer_id)
        assert transfer.status == "rejected" and "was disabled" in transfer.status_reason and other.requests == []

    def test_an_originator_suspended_before_the_inquiry_is_rejected_unsent(self, client, alice, server):
        other = server(lambda n, request: reply(request, "approved"))
        transfer_id = client.post(INITIATE, vasp_body(alice, make_vasp(client, other.url)), format="json").json()["transfer_id"]
        Entity.objects.filter(pk=alice["id"]).update(status="suspended")
        tasks.process_transfer(transfer_id)
        assert stored(transfer_id).status == "rejected" and other.requests == []


class TestInitiateValidation:
    @pytest.fixture
    def vasp(self, client, server):
        return make_vasp(client, server(lambda n, request: reply(request, "approved")).url)

    def refused(self, response, field):
        assert response.status_code == 422, response.json()
        assert field in {detail["field"] for detail in response.json()["error"]["details"]}
        assert not TravelRuleTransfer.objects.exists()

    def test_exactly_one_beneficiary(self, client, alice, vasp):
        self.refused(client.post(INITIATE, vasp_body(alice, vasp, beneficiary_entity_id=alice["id"]), format="json"),
                     "beneficiary_entity_id")
        self.refused(client.post(INITIATE, vasp_body(alice, vasp, beneficiary_vasp_id=...), format="json"), "beneficiary_entity_id")

    def test_the_beneficiary_data_is_always_required(self, client, alice, vasp):
        self.refused(client.post(INITIATE, vasp_body(alice, vasp, amount="5", beneficiary=None), format="json"), "beneficiary")

    def test_another_organizations_or_a_disabled_vasp_is_422(self, client, api, key, other_org, alice, vasp, server):
        foreign = make_vasp(api(key(other_org)), server(lambda n, r: (200, {})).url)
        self.refused(client.post(INITIATE, vasp_body(alice, foreign), format="json"), "beneficiary_vasp_id")
        self.refused(client.post(INITIATE, vasp_body(alice, {"id": str(uuid.uuid4())}), format="json"), "beneficiary_vasp_id")
        client.post(f"{VASPS}/{vasp['id']}/disable")
        self.refused(client.post(INITIATE, vasp_body(alice, vasp), format="json"), "beneficiary_vasp_id")

    def test_the_originator_checks_stay(self, client, alice, vasp):
        self.refused(client.post(INITIATE, vasp_body(alice, vasp, from_address=CAROL, originator=originator(CAROL)), format="json"),
                     "from_address")
        Entity.objects.filter(pk=alice["id"]).update(sanctioned=True)
        response = client.post(INITIATE, vasp_body(alice, vasp), format="json")
        assert response.status_code == 409 and response.json()["error"]["code"] == "NOT_COMPLIANT"
        assert not TravelRuleTransfer.objects.exists()

    def test_a_viewer_cannot_initiate(self, api, key, org, alice, vasp):
        assert api(key(org, role=Role.VIEWER)).post(INITIATE, vasp_body(alice, vasp), format="json").status_code == 403
        assert not TravelRuleTransfer.objects.exists()

    def test_the_reference_makes_it_idempotent(self, client, alice, vasp, django_capture_on_commit_callbacks):
        body = vasp_body(alice, vasp, reference="out-1")
        first = initiate(client, django_capture_on_commit_callbacks, body).json()
        again = initiate(client, django_capture_on_commit_callbacks, body).json()
        assert again["transfer_id"] == first["transfer_id"] and again["duplicate"] is True
        other = client.post(INITIATE, {**body, "amount": "2600"}, format="json")
        assert other.status_code == 409 and TravelRuleTransfer.objects.count() == 1


class TestInbound:
    """We are the beneficiary's VASP: Blue Harbor (wallet BOB) is our customer."""

    @pytest.fixture
    def harbor(self, client):
        return customers(client)[1]

    @pytest.fixture
    def sender(self, client, server):
        return make_vasp(client, server(lambda n, r: (200, {})).url, name="Originating VASP", shared_secret="z" * 40)

    def inquiry(self, **overrides) -> dict:
        transfer_id, salt = str(uuid.uuid4()), "0x" + "ab" * 32
        message = {"version": "1", "type": "transfer_inquiry", "transfer_id": transfer_id, "chain_id": CHAIN, "asset": "USDC",
                   "amount": "2500", "from_address": DAVE, "to_address": BOB, "originator": originator(DAVE),
                   "beneficiary": beneficiary(BOB), "originating_vasp": None, "salt": salt,
                   "commitment": commitment_of(uuid.UUID(transfer_id), salt, originator(DAVE), beneficiary(BOB)),
                   "callback_url": "https://other.example/reply"}
        message.update(overrides)
        return message

    def post(self, api, sender, message, **kwargs):
        return api().generic("POST", f"/v1/travel-rule/vasps/{sender['id']}/inquiry", **signed("z" * 40, message, **kwargs))

    def test_our_compliant_customer_is_approved_and_recorded(self, api, client, harbor, sender):
        message = self.inquiry()
        response = self.post(api, sender, message)
        assert response.status_code == 200, response.json()
        assert response.json() == {"version": "1", "type": "transfer_reply", "transfer_id": message["transfer_id"],
                                   "decision": "approved", "reason": ""}
        record = InboundTravelRuleTransfer.objects.get()
        assert record.decision == "approved" and str(record.beneficiary_entity_id) == harbor["id"]
        assert record.originator == originator(DAVE) and record.commitment == message["commitment"]
        for reference in (message["commitment"], message["transfer_id"]):
            seen = client.get(f"/v1/onboarding/entities/{harbor['id']}/transfers/{reference}/travel-rule")
            assert seen.status_code == 200, seen.json()
            body = seen.json()
            assert body["direction"] == "incoming" and body["status"] == "acknowledged" and body["originator_entity_id"] is None
            assert body["counterparty_vasp"] == {"id": sender["id"], "name": "Originating VASP", "lei": None}
            assert body["originator"] == originator(DAVE)
        again = self.post(api, sender, message)
        assert again.status_code == 200 and again.json()["decision"] == "approved"
        assert InboundTravelRuleTransfer.objects.count() == 1
        changed = self.post(api, sender, {**message, "amount": "9"})
        assert changed.status_code == 409 and InboundTravelRuleTransfer.objects.count() == 1

    def test_an_inquiry_without_originator_data_is_taken(self, api, harbor, sender):
        response = self.post(api, sender, self.inquiry(originator=None, salt="", commitment=""))
        assert response.status_code == 200 and response.json()["decision"] == "approved"
        assert InboundTravelRuleTransfer.objects.get().originator is None

    def test_an_address_not_of_our_customers_is_rejected_with_the_reason(self, api, harbor, sender):
        response = self.post(api, sender, self.inquiry(to_address=CAROL, beneficiary=beneficiary(CAROL), commitment=""))
        assert response.status_code == 200 and response.json()["decision"] == "rejected"
        assert "not a wallet of one of our customers" in response.json()["reason"]
        assert InboundTravelRuleTransfer.objects.get().decision == "rejected"

    def test_a_non_compliant_customer_is_rejected(self, api, harbor, sender):
        Entity.objects.filter(pk=harbor["id"]).update(status="suspended")
        response = self.post(api, sender, self.inquiry())
        assert response.json()["decision"] == "rejected" and "suspended" in response.json()["reason"]

    def test_refused_messages_store_nothing(self, api, client, harbor, sender):
        message = self.inquiry()
        cases = [
            (self.post(api, sender, message, signature="0" * 64), 401),
            (self.post(api, sender, message, timestamp=1_600_000_000), 401),
            (self.post(api, {"id": str(uuid.uuid4())}, message), 401),
            (api().post(f"/v1/travel-rule/vasps/{sender['id']}/inquiry", message, format="json"), 401),
            (self.post(api, sender, {**message, "amount": 2500}), 422),
            (self.post(api, sender, {**message, "beneficiary": None}), 422),
            (self.post(api, sender, {**message, "commitment": "0x" + "00" * 32}), 422),
            (self.post(api, sender, {**message, "surprise": True}), 422),
        ]
        for response, expected in cases:
            assert response.status_code == expected, response.json()
            assert "error" in response.json()
        client.post(f"{VASPS}/{sender['id']}/disable")
        disabled = self.post(api, sender, message)
        assert disabled.status_code == 403 and disabled.json()["error"]["code"] == "FORBIDDEN"
        assert not InboundTravelRuleTransfer.objects.exists()
        assert not AuditLogEntry.objects.filter(object_type="inboundtravelruletransfer").exists()

    def test_another_entity_cannot_read_the_record(self, api, client, harbor, sender):
        message = self.inquiry()
        self.post(api, sender, message)
        alice = Entity.objects.exclude(pk=harbor["id"]).get()
        assert client.get(f"/v1/onboarding/entities/{alice.pk}/transfers/{message['transfer_id']}/travel-rule").status_code == 404


@pytest.mark.parametrize("raw", [b"[]", b"null", b"{", b"\xff\xfe", b'{"version": "1"}', b'{"version": 1, "type": []}',
                                 json.dumps({"transfer_id": "a\x00b", "version": "1", "type": "transfer_reply",
                                             "decision": "approved"}).encode()])
def test_junk_messages_are_4xx_never_500(api, client, server, raw):
    vasp = make_vasp(client, server(lambda n, r: (200, {})).url, shared_secret="j" * 40)
    stamp = str(int(timezone.now().timestamp()))
    headers = {"HTTP_X_TRAVEL_RULE_TIMESTAMP": stamp, "HTTP_X_TRAVEL_RULE_SIGNATURE": signing.signature("j" * 40, stamp, raw)}
    for kind in ("inquiry", "reply"):
        response = api().generic("POST", f"/v1/travel-rule/vasps/{vasp['id']}/{kind}", raw, content_type="application/json",
                                 **headers)
        assert 400 <= response.status_code < 500 and "error" in response.json(), (kind, response.status_code)
    assert not InboundTravelRuleTransfer.objects.exists()


@pytest.mark.parametrize("body", [[], {"name": ["x"], "inquiry_url": 5}, {"name": "x" * 201, "inquiry_url": "https://127.0.0.1/"},
                                  {"name": "X", "inquiry_url": "https://127.0.0.1/", "lei": None},
                                  {"name": "X", "inquiry_url": "https://127.0.0.1/", "shared_secret": "has spaces " * 4}])
def test_junk_directory_bodies_are_4xx(client, body):
    response = client.post(VASPS, body, format="json")
    assert response.status_code in (400, 422) and "error" in response.json() and not CounterpartyVasp.objects.exists()


def test_the_sweep_hands_out_only_inquiries_that_are_due(client, alice, server, django_capture_on_commit_callbacks):
    """Transfers awaiting another VASP's callback, or whose retry is not due, are not re-enqueued (500 of
    them would otherwise fill every sweep and starve the transfers left pending by a lost message)."""
    other = server(lambda n, request: reply(request, "pending") if n == 0 else (500, {}))
    vasp = make_vasp(client, other.url)
    awaiting = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, vasp)).json()["transfer_id"]
    retrying = initiate(client, django_capture_on_commit_callbacks, vasp_body(alice, vasp)).json()["transfer_id"]
    lost = client.post(INITIATE, vasp_body(alice, vasp), format="json").json()["transfer_id"]  # its message never sent
    TravelRuleTransfer.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    assert stored(awaiting).vasp_delivered_at and stored(retrying).vasp_next_attempt_at > timezone.now()
    pending, expired = services.transfers_sweep()
    assert pending == [lost] and expired == 0
    TravelRuleTransfer.objects.filter(pk=retrying).update(vasp_next_attempt_at=timezone.now() - timedelta(seconds=1))
    assert sorted(services.transfers_sweep()[0]) == sorted([lost, retrying])
