"""The travel-rule message exchange with another VASP (docs/travel-rule.md, "Beneficiaries at another
VASP"): the messages' shapes, and their HMAC-SHA256 signatures over `{timestamp}.{raw body}` with the
shared secret of the pair (the scheme of our webhooks: webhooks.signing).

    originating VASP                                   beneficiary VASP
    POST {inquiry_url}        transfer_inquiry   →     answers transfer_reply (approved, rejected)
                                                 ←     or "pending", then later
    POST {callback_url}       ← transfer_reply          (signed the same way)
"""

import json
import logging

from django.conf import settings
from django.urls import reverse
from rest_framework import serializers
from rest_framework.fields import empty

from common.api.fields import MultiLineTextField
from common.api.serializers import StrictSerializer
from common.chain import MAX_CHAIN_ID, normalize_transfer_addresses
from common.context import current_request
from common.errors import Forbidden, Unauthenticated
from compliance.api.transfer_serializers import BeneficiaryField, DecimalStringField, Ivms101Field, OriginatorField
from compliance.lei import lei_problem
from compliance.models import CounterpartyVasp, VaspStatus
from webhooks import clock, signing

security_log = logging.getLogger("security")

VERSION = "1"
INQUIRY = "transfer_inquiry"
REPLY = "transfer_reply"
SIGNATURE_HEADER = "x-travel-rule-signature"
TIMESTAMP_HEADER = "x-travel-rule-timestamp"
MAX_MESSAGE_BYTES = 256 * 1024
ANSWER_LIMIT = 64 * 1024  # what is read of a VASP's synchronous answer
DECISIONS = ("approved", "rejected")


def encode(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def signed_headers(secret: str, body: bytes) -> dict[str, str]:
    timestamp = str(int(clock.now().timestamp()))
    return {TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: signing.signature(secret, timestamp, body)}


def inbound_url(vasp: CounterpartyVasp, kind: str) -> str:
    """Our URL where `vasp` sends its inquiries (kind "inquiry") or its later replies (kind "reply")."""
    return settings.PUBLIC_URL + reverse(f"travel-rule-vasp-{kind}", kwargs={"vasp_id": vasp.pk})


def _refuse(vasp_id, reason: str, message: str = "The travel-rule message's signature could not be verified."):
    request = current_request()
    security_log.warning("travel-rule message refused: vasp=%s reason=%s ip=%s request_id=%s", vasp_id, reason,
                         request.ip, request.request_id)
    raise Unauthenticated(message)


def verified_sender(vasp_id, headers, body: bytes) -> CounterpartyVasp:
    """The registered, active VASP whose shared secret signed `body`; 401 (unknown VASP, missing or
    malformed headers, a timestamp more than 300 s from our clock, a bad signature) or 403 (disabled)."""
    vasp = CounterpartyVasp.objects.select_related("organization").filter(pk=vasp_id).first()
    if vasp is None:
        _refuse(vasp_id, "unknown VASP")
    presented, timestamp = headers.get(SIGNATURE_HEADER), headers.get(TIMESTAMP_HEADER)
    if not presented or not timestamp:
        _refuse(vasp_id, "signature or timestamp header missing")
    if not timestamp.isascii() or not timestamp.isdigit() or len(timestamp) > 12:
        _refuse(vasp_id, "malformed timestamp")
    if abs(clock.now().timestamp() - int(timestamp)) > signing.TOLERANCE_SECONDS:
        _refuse(vasp_id, "timestamp outside the tolerance", f"The timestamp is more than {signing.TOLERANCE_SECONDS} seconds "
                                                             "from our clock.")
    if not signing.signature_matches(vasp.shared_secret, timestamp, body, presented):
        _refuse(vasp_id, "signature mismatch")
    if vasp.status != VaspStatus.ACTIVE:
        raise Forbidden("This VASP is disabled here: no travel-rule messages are taken from it.")
    return vasp


class OriginatingVaspField(Ivms101Field):
    def __init__(self, **kwargs):
        super().__init__("OriginatingVasp", **kwargs)


def originating_vasp(organization) -> dict:
    """IVMS101 OriginatingVasp of `organization`: the legal name (and LEI) of its filer profile, else its name."""
    profile = organization.filer_profile or {}
    name = str(profile.get("legal_name") or organization.name)[:100]
    person = {"name": {"nameIdentifier": [{"legalPersonName": name, "legalPersonNameIdentifierType": "LEGL"}]}}
    lei = str(profile.get("lei") or "").strip().upper()
    if lei and lei_problem(lei) is None:  # a malformed one would make the other VASP refuse the inquiry
        person["nationalIdentification"] = {"nationalIdentifier": lei, "nationalIdentifierType": "LEIX"}
    return {"originatingVasp": {"legalPerson": person}}  # the reference's JSON name (identity.proto)


def inquiry(transfer, vasp: CounterpartyVasp) -> dict:
    return {"version": VERSION, "type": INQUIRY, "transfer_id": str(transfer.pk), "chain_id": transfer.chain_id,
            "asset": transfer.asset, "amount": transfer.amount, "from_address": transfer.from_address,
            "to_address": transfer.to_address, "originator": transfer.originator, "beneficiary": transfer.beneficiary,
            "originating_vasp": originating_vasp(transfer.organization), "salt": transfer.salt,
            "commitment": transfer.commitment, "callback_url": inbound_url(vasp, "reply")}


def reply(transfer_id: str, decision: str, reason: str = "") -> dict:
    return {"version": VERSION, "type": REPLY, "transfer_id": transfer_id, "decision": decision, "reason": reason}


class _Message(StrictSerializer):
    version = serializers.ChoiceField(choices=[VERSION])
    transfer_id = serializers.CharField(max_length=100, help_text="The originating VASP's id of the transfer.")

    def validate_transfer_id(self, value):
        if any(ord(char) < 0x20 for char in value):
            raise serializers.ValidationError("A transfer id has no control characters.")
        return value


class TransferInquiry(_Message):
    type = serializers.ChoiceField(choices=[INQUIRY])
    chain_id = serializers.IntegerField(min_value=1, max_value=MAX_CHAIN_ID)
    asset = serializers.CharField(max_length=20)
    amount = DecimalStringField(max_length=120)
    from_address = serializers.CharField(max_length=200)
    to_address = serializers.CharField(max_length=200, help_text="The beneficiary's wallet: one of the receiving VASP's customers.")
    originator = OriginatorField(help_text="IVMS101 Originator: null only below the sender's travel-rule threshold.")
    beneficiary = BeneficiaryField(required=True, allow_null=False, default=empty)
    originating_vasp = OriginatingVaspField(help_text="IVMS101 OriginatingVasp.")
    salt = serializers.RegexField(r"^0x[0-9a-f]{64}$", required=False, allow_blank=True, default="")
    commitment = serializers.RegexField(r"^0x[0-9a-f]{64}$", required=False, allow_blank=True, default="")
    callback_url = serializers.URLField(max_length=2000, required=False, default="",
                                        help_text="Where a reply decided later is POSTed (signed the same way).")

    def validate_asset(self, value):
        if any(ord(char) < 0x20 for char in value):
            raise serializers.ValidationError("The asset has no control characters.")
        return value

    def validate(self, attrs):
        errors = {}
        errors.update(normalize_transfer_addresses(attrs))
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class TransferReply(_Message):
    type = serializers.ChoiceField(choices=[REPLY])
    decision = serializers.ChoiceField(choices=[*DECISIONS, "pending"],
                                       help_text="pending: only in the inquiry's answer, the decision comes later to callback_url.")
    reason = MultiLineTextField(max_length=500, required=False, allow_blank=True, default="",
                                help_text="Why it was rejected (required then).")

    def validate(self, attrs):
        if attrs["decision"] == "rejected" and not attrs["reason"].strip():
            raise serializers.ValidationError({"reason": ["A rejection says why."]})
        return attrs
