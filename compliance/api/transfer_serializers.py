"""Travel-rule transfers: the request of POST /v1/compliance/transfer/initiate and the three answers
(docs/travel-rule.md)."""

from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from common.api.serializers import StrictSerializer
from common.chain import MAX_CHAIN_ID, normalize_transfer_addresses
from compliance.ivms101.schema import json_schema
from compliance.ivms101.validation import validate
from compliance.models import TravelRuleStatus
from monitoring.amounts import AmountError, canonical_amount

MAX_IVMS101_ERRORS = 50


class Ivms101Field(serializers.Field):
    """An IVMS101 message in its JSON form (camelCase names, four-letter codes), checked against the
    reference model; null or absent when the transfer needs no travel-rule data."""

    def __init__(self, message: str, **kwargs):
        self.message = message
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("default", None)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        errors = validate(data, self.message, self.field_name)
        if errors:
            by_path: dict[str, list[str]] = {}
            for error in errors[:MAX_IVMS101_ERRORS]:
                path = error["field"].removeprefix(f"{self.field_name}.") if error["field"] != self.field_name else "non_field_errors"
                by_path.setdefault(path, []).append(error["message"])
            raise serializers.ValidationError(by_path)
        return data

    def to_representation(self, value):
        return value


@extend_schema_field(json_schema("Originator"))
class OriginatorField(Ivms101Field):
    def __init__(self, **kwargs):
        super().__init__("Originator", **kwargs)


@extend_schema_field(json_schema("Beneficiary"))
class BeneficiaryField(Ivms101Field):
    def __init__(self, **kwargs):
        super().__init__("Beneficiary", **kwargs)


class DecimalStringField(serializers.CharField):
    """An on-chain amount: a decimal string up to uint256 (docs/architecture.md §5), kept as its canonical string."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError('Give the amount as a decimal string, such as "1500.25" (a JSON number may lose digits).')
        try:
            amount = canonical_amount(data)
        except AmountError as exc:
            raise serializers.ValidationError(str(exc)) from None
        if amount == "0":
            raise serializers.ValidationError("The amount must be more than 0.")
        return amount


class InitiateTransferRequest(StrictSerializer):
    originator_entity_id = serializers.UUIDField(help_text="The customer sending: an entity of yours, active and not sanctioned.")
    beneficiary_entity_id = serializers.UUIDField(required=False, help_text="The customer receiving: an entity of yours, active and not "
                                                                            "sanctioned. Or beneficiary_vasp_id.")
    beneficiary_vasp_id = serializers.UUIDField(required=False, help_text="The beneficiary's VASP, when the beneficiary is not your "
                                                                          "customer: a counterparty VASP of yours (/v1/compliance/vasps). "
                                                                          "Exactly one of this and beneficiary_entity_id.")
    chain_id = serializers.IntegerField(min_value=1, max_value=MAX_CHAIN_ID, help_text="The EVM chain the transfer will run on.")
    asset = serializers.CharField(max_length=20, help_text="Asset label, as in your asset price table (USDC, ETH).")
    amount = DecimalStringField(max_length=120, help_text="Decimal string up to uint256, in the units your price table says.")
    from_address = serializers.CharField(max_length=200, help_text="A wallet of the originator on chain_id.")
    to_address = serializers.CharField(max_length=200, help_text="A wallet of the beneficiary on chain_id (any address when the "
                                                                 "beneficiary is at another VASP).")
    originator = OriginatorField(help_text="IVMS101 Originator: required at or above your travel-rule threshold.")
    beneficiary = BeneficiaryField(help_text="IVMS101 Beneficiary: required at or above your travel-rule threshold.")
    reference = serializers.CharField(max_length=200, required=False, default="", allow_blank=True,
                                      help_text="Your own reference: sending the same body again with it returns the same transfer.")

    def validate_asset(self, value):
        if "\x00" in value:
            raise serializers.ValidationError("The asset may not contain the NUL character.")
        return value

    def validate_reference(self, value):
        if "\x00" in value:
            raise serializers.ValidationError("The reference may not contain the NUL character.")
        return value

    def validate(self, attrs):
        errors = {}
        if ("beneficiary_entity_id" in attrs) == ("beneficiary_vasp_id" in attrs):
            message = "Give exactly one of beneficiary_entity_id (your customer) and beneficiary_vasp_id (a customer of another VASP)."
            raise serializers.ValidationError({"beneficiary_entity_id": [message]})
        errors.update(normalize_transfer_addresses(attrs))
        if errors:
            raise serializers.ValidationError(errors)
        for side, address in (("originator", attrs["from_address"]), ("beneficiary", attrs["to_address"])):
            accounts = (attrs.get(side) or {}).get("accountNumber") or []
            if accounts and address not in {account.strip().lower() for account in accounts}:
                errors[f"{side}.accountNumber"] = [f"Names accounts other than the transfer's {address}; give that address or leave "
                                                   "accountNumber out."]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class TransferIdResponse(serializers.Serializer):
    transfer_id = serializers.UUIDField(source="pk")
    salt = serializers.CharField(help_text="32 random bytes (hex), per transfer: see commitment.")
    status = serializers.ChoiceField(choices=TravelRuleStatus.choices)
    commitment = serializers.CharField(help_text="keccak256(transfer_id || salt || sha256(travel-rule data)): what the on-chain "
                                                 "transfer carries to refer to this record (docs/travel-rule.md).")
    travel_rule_required = serializers.BooleanField()
    duplicate = serializers.BooleanField(help_text="True when `reference` named a transfer already initiated with this body.")


class TravelRuleStatusResponse(serializers.Serializer):
    transfer_id = serializers.UUIDField(source="pk")
    status = serializers.ChoiceField(choices=TravelRuleStatus.choices)
    status_reason = serializers.CharField(allow_null=True, help_text="Why it was rejected or expired, or what the chain reported.")
    originator_entity_id = serializers.UUIDField(allow_null=True, help_text="Null on a record of a transfer another VASP sent us.")
    beneficiary_entity_id = serializers.UUIDField(allow_null=True, help_text="Null when the beneficiary is at another VASP.")
    beneficiary_vasp_id = serializers.UUIDField(allow_null=True, help_text="The beneficiary's VASP, if not you.")
    vasp_attempts = serializers.IntegerField(help_text="Inquiries sent to the beneficiary VASP (0 otherwise).")
    vasp_last_error = serializers.CharField(allow_null=True,
                                            help_text="Why the last inquiry to the beneficiary VASP failed (it is retried).")
    vasp_delivered_at = serializers.DateTimeField(allow_null=True,
                                                  help_text="When the beneficiary VASP took the inquiry (its answer may come later).")
    chain_id = serializers.IntegerField()
    asset = serializers.CharField()
    amount = serializers.CharField()
    usd_value = serializers.DecimalField(max_digits=30, decimal_places=2, allow_null=True)
    from_address = serializers.CharField()
    to_address = serializers.CharField()
    travel_rule_required = serializers.BooleanField()
    threshold_usd = serializers.DecimalField(max_digits=20, decimal_places=2)
    salt = serializers.CharField()
    commitment = serializers.CharField()
    reference = serializers.CharField(allow_null=True)
    tx_hash = serializers.CharField(allow_null=True)
    block_number = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    acknowledged_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True, help_text="Execute on chain before this time.")
    rejected_at = serializers.DateTimeField(allow_null=True)
    expired_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField()

    def to_representation(self, instance):
        body = super().to_representation(instance)
        for name in ("status_reason", "reference", "tx_hash", "vasp_last_error"):
            body[name] = body.get(name) or None
        return body


class CustomerTravelRuleResponse(TravelRuleStatusResponse):
    direction = serializers.SerializerMethodField(help_text="As seen from the entity of the path.")
    originator = OriginatorField(read_only=True)
    beneficiary = BeneficiaryField(read_only=True)

    counterparty_vasp = serializers.SerializerMethodField(help_text="The other VASP of the transfer (the beneficiary's on an "
                                                                    "outgoing one, the originator's on an incoming one), if any.")

    @extend_schema_field(inline_serializer("CounterpartyVaspRef", {
        "id": serializers.UUIDField(), "name": serializers.CharField(), "lei": serializers.CharField(allow_null=True)},
        allow_null=True))
    def get_counterparty_vasp(self, instance) -> dict | None:
        vasp = getattr(instance, "originator_vasp", None) or instance.beneficiary_vasp
        return None if vasp is None else {"id": str(vasp.pk), "name": vasp.name, "lei": vasp.lei or None}

    @extend_schema_field(serializers.ChoiceField(choices=["outgoing", "incoming"]))
    def get_direction(self, instance) -> str:
        return "outgoing" if str(instance.originator_entity_id) == str(self.context["entity_id"]) else "incoming"
