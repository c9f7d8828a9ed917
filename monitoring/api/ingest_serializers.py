from datetime import timedelta
from decimal import Decimal

import pycountry
from django.utils import timezone
from rest_framework import serializers

from common.api.fields import ChoiceField, CountryField, StrictBooleanField
from common.api.serializers import StrictSerializer
from common.chain import MAX_CHAIN_ID, AddressError, normalized_address
from monitoring.amounts import AmountError, canonical_amount
from monitoring.choices import CARD_EVENTS, EARLIEST_EVENT, CardType, CheckType, DepositMethod, FiatEventType

MAX_BATCH = 1000
FUTURE_TOLERANCE = timedelta(days=1)  # clock skew and time zones mistaken for UTC, not a typo in the year


class AmountField(serializers.CharField):
    """A decimal string up to uint256, kept canonical and exact (a JSON integer is taken too)."""

    accepts_numbers = True

    def to_internal_value(self, data):
        # A JSON float is refused: 100000.0 or 1e5 may already have lost digits in the client's encoder.
        if isinstance(data, bool) or not isinstance(data, (str, int)):
            raise serializers.ValidationError("An amount is a decimal string such as \"1500.25\".")
        try:
            return canonical_amount(str(data))
        except AmountError as exc:
            raise serializers.ValidationError(str(exc)) from None


class FiatAmountField(AmountField):
    """A fiat amount: the transfer amounts' grammar (ASCII digits, no sign, exponent or separators; a
    string or a JSON integer), within what the column holds (20 digits before the point, 4 after)."""

    WHOLE_DIGITS, DECIMAL_PLACES = 20, 4

    def to_internal_value(self, data):
        whole, _, fraction = super().to_internal_value(data).partition(".")
        if len(fraction) > self.DECIMAL_PLACES:
            raise serializers.ValidationError(f"A fiat amount has at most {self.DECIMAL_PLACES} decimal places.")
        if len(whole) > self.WHOLE_DIGITS:
            raise serializers.ValidationError(f"A fiat amount has at most {self.WHOLE_DIGITS} digits before the decimal point.")
        return Decimal(f"{whole}.{fraction}" if fraction else whole)


class EventTimestampField(serializers.DateTimeField):
    """When the event happened: not more than a day ahead of the server's clock (a far-future event
    would sit at the end of every window and make each later event look like history), and not
    before 1970."""

    def to_internal_value(self, value):
        moment = super().to_internal_value(value)
        if moment < EARLIEST_EVENT:
            raise serializers.ValidationError("The time is before 1970-01-01T00:00:00Z; send when the event happened.")
        if moment > timezone.now() + FUTURE_TOLERANCE:
            raise serializers.ValidationError("The time is in the future (more than 1 day ahead of the server's clock).")
        return moment


class IngestedTransactionRequest(StrictSerializer):
    from_address = serializers.CharField(max_length=200)
    to_address = serializers.CharField(max_length=200)
    amount = AmountField(max_length=120)
    timestamp = EventTimestampField()
    chain_id = serializers.IntegerField(min_value=0, max_value=MAX_CHAIN_ID, required=False, default=0)
    tx_hash = serializers.CharField(max_length=100, required=False, allow_blank=True)
    log_index = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, default=0,
                                         help_text="Position of the transfer in its transaction (token transfers).")
    entity_id = serializers.UUIDField(required=False, allow_null=True)
    asset = serializers.CharField(max_length=20, required=False, allow_blank=True, default="")
    reference = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    run_monitoring = StrictBooleanField(required=False, default=True)

    def to_internal_value(self, data):
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as exc:
            # validate() (the addresses, which need chain_id) runs only once every field passed: add
            # what it would say, so that one answer names every mistake.
            extra = self._address_errors(data, exc.detail) if isinstance(exc.detail, dict) and isinstance(data, dict) else {}
            if not extra:
                raise
            raise serializers.ValidationError({**exc.detail, **extra}) from None

    @staticmethod
    def _address_errors(data: dict, found: dict) -> dict:
        chain_id = data.get("chain_id", 0)
        if "chain_id" in found or isinstance(chain_id, bool) or not isinstance(chain_id, int):
            return {}  # which address form applies is unknown
        errors = {}
        for side in ("from_address", "to_address"):
            if side not in found and isinstance(data.get(side), str):
                try:
                    normalized_address(chain_id, data[side])
                except AddressError as exc:
                    errors[side] = [str(exc)]
        return errors

    def validate(self, attrs):
        errors = {}
        for side in ("from_address", "to_address"):
            try:
                attrs[side] = normalized_address(attrs["chain_id"], attrs[side])
            except AddressError as exc:
                errors[side] = [str(exc)]
        if attrs.get("tx_hash"):
            attrs["tx_hash"] = attrs["tx_hash"].strip()
            if attrs["chain_id"] and attrs["tx_hash"].startswith("0x"):
                attrs["tx_hash"] = attrs["tx_hash"].lower()
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class BatchItem(IngestedTransactionRequest):
    run_monitoring = None  # the batch's flag decides


class BatchRequest(StrictSerializer):
    transactions = BatchItem(many=True, allow_empty=False, max_length=MAX_BATCH,
                             error_messages={"max_length": f"At most {MAX_BATCH} transactions per batch."})
    run_monitoring = StrictBooleanField(required=False, default=True)


class IngestResponse(serializers.Serializer):
    id = serializers.UUIDField()
    tx_hash = serializers.CharField()
    monitored = serializers.BooleanField()
    alerts_triggered = serializers.IntegerField()
    duplicate = serializers.BooleanField(help_text="true when this (chain_id, tx_hash, log_index) was stored before")


class BatchResponse(serializers.Serializer):
    ingested = serializers.IntegerField()
    skipped = serializers.IntegerField()
    alerts_triggered = serializers.IntegerField()


class CurrencyField(serializers.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 3)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data).upper()
        if pycountry.currencies.get(alpha_3=value) is None:
            raise serializers.ValidationError(f"{value!r} is not an ISO 4217 currency code.")
        return value


class FiatEventRequest(StrictSerializer):
    entity_id = serializers.UUIDField()
    event_type = ChoiceField(choices=FiatEventType.choices)
    amount = FiatAmountField(help_text='Decimal string such as "15000.00": at most 20 digits before the point and 4 after.')
    currency = CurrencyField(required=False, default="USD")
    counterparty_name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    counterparty_bank = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    reference = serializers.CharField(max_length=200, required=False, allow_blank=True, default="",
                                      help_text="Your reference; repeating it (for the same event type) returns the stored event.")
    event_timestamp = EventTimestampField()
    card_type = ChoiceField(choices=CardType.choices, required=False, allow_null=True)
    merchant_category_code = serializers.RegexField(r"^\d{4}$", required=False, allow_null=True,
                                                    error_messages={"invalid": "A merchant category code is 4 digits."})
    merchant_country = CountryField(required=False, allow_null=True)
    check_type = ChoiceField(choices=CheckType.choices, required=False, allow_null=True)
    check_number = serializers.CharField(max_length=40, required=False, allow_null=True, allow_blank=True)
    deposit_method = ChoiceField(choices=DepositMethod.choices, required=False, allow_null=True)
    run_monitoring = StrictBooleanField(required=False, default=True)

    def validate(self, attrs):
        event_type, errors = attrs["event_type"], {}
        if attrs.get("card_type") and event_type not in CARD_EVENTS:
            errors["card_type"] = ["Only card events carry a card_type."]
        if attrs.get("check_type") and not event_type.startswith("check_"):
            errors["check_type"] = ["Only check events carry a check_type."]
        if attrs.get("deposit_method") and event_type != FiatEventType.CHECK_DEPOSIT:
            errors["deposit_method"] = ["Only check deposits carry a deposit_method."]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class FiatEventResponse(serializers.Serializer):
    id = serializers.UUIDField()
    entity_id = serializers.UUIDField()
    event_type = serializers.CharField()
    monitored = serializers.BooleanField()
    alerts_triggered = serializers.IntegerField()
    duplicate = serializers.BooleanField()
