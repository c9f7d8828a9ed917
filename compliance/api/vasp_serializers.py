"""The counterparty VASP directory (/v1/compliance/vasps) and the messages other VASPs send us."""

from types import SimpleNamespace

from rest_framework import serializers

from common.api.serializers import StrictSerializer
from compliance.models import CounterpartyVasp, VaspStatus
from compliance.travel_rule import selectors, vasp_protocol, vasp_selectors


class VaspCreateRequest(StrictSerializer):
    name = serializers.CharField(max_length=200)
    lei = serializers.CharField(max_length=20, required=False, allow_blank=True, default="",
                                help_text="ISO 17442 LEI (20 characters, its check digits verified).")
    inquiry_url = serializers.CharField(max_length=2000, help_text="The VASP's https:// endpoint for your transfer inquiries "
                                                                   "(its host must resolve to public addresses).")
    shared_secret = serializers.CharField(max_length=200, required=False, allow_blank=True, default="", trim_whitespace=False,
                                          help_text="The secret the other VASP made for the pair, if it made one first; else "
                                                    "leave out and give it the one answered.")
    status = serializers.ChoiceField(choices=VaspStatus.choices, required=False, default=VaspStatus.ACTIVE)


class VaspUpdateRequest(StrictSerializer):
    name = serializers.CharField(max_length=200, required=False)
    lei = serializers.CharField(max_length=20, required=False, allow_blank=True)
    inquiry_url = serializers.CharField(max_length=2000, required=False)
    status = serializers.ChoiceField(choices=VaspStatus.choices, required=False)


class VaspResponse(serializers.ModelSerializer):
    lei = serializers.SerializerMethodField()
    our_inquiry_url = serializers.SerializerMethodField(help_text="Give it to the VASP: where it sends its inquiries to you.")
    our_reply_url = serializers.SerializerMethodField(help_text="Where it sends its later replies (also in each inquiry).")

    class Meta:
        model = CounterpartyVasp
        fields = ["id", "name", "lei", "inquiry_url", "status", "mode", "our_inquiry_url", "our_reply_url", "created_at",
                  "updated_at"]
        read_only_fields = fields

    def get_lei(self, vasp) -> str | None:
        return vasp.lei or None

    def get_our_inquiry_url(self, vasp) -> str:
        return vasp_protocol.inbound_url(vasp, "inquiry")

    def get_our_reply_url(self, vasp) -> str:
        return vasp_protocol.inbound_url(vasp, "reply")


class VaspWithSecretResponse(VaspResponse):
    shared_secret = serializers.CharField(help_text="Signs the messages both ways. Shown once: store it and give it to the VASP.")

    class Meta(VaspResponse.Meta):
        fields = [*VaspResponse.Meta.fields, "shared_secret"]
        read_only_fields = fields


class InboundAccepted(serializers.Serializer):
    transfer_id = serializers.UUIDField()
    status = serializers.CharField()


def inbound_record(principal, entity_id, reference: str):
    """A transfer another VASP announced to our customer `entity_id`, in the shape of the customer's
    travel-rule record (CustomerTravelRuleResponse), or None."""
    record = vasp_selectors.inbound_of_transaction(organization=principal.organization, mode=principal.mode, entity_id=entity_id,
                                                   reference=reference)
    if record is None:
        return None
    approved = record.decision == "approved"
    policy = selectors.travel_rule_policy(organization=principal.organization)
    return SimpleNamespace(
        pk=record.pk, status="acknowledged" if approved else "rejected", status_reason=record.reason, originator_entity_id=None,
        beneficiary_entity_id=record.beneficiary_entity_id, beneficiary_vasp_id=None, beneficiary_vasp=None,
        originator_vasp=record.originator_vasp, vasp_attempts=0, vasp_last_error="", vasp_delivered_at=None,
        chain_id=record.chain_id, asset=record.asset, amount=record.amount, usd_value=None, from_address=record.from_address,
        to_address=record.to_address, travel_rule_required=True, threshold_usd=policy.threshold_usd, salt=record.salt,
        commitment=record.commitment, reference=record.external_transfer_id, tx_hash=record.tx_hash, block_number=None,
        created_at=record.created_at, acknowledged_at=record.created_at if approved else None, expires_at=None,
        rejected_at=None if approved else record.created_at, expired_at=None, completed_at=None, updated_at=record.updated_at,
        originator=record.originator, beneficiary=record.beneficiary)
