"""The three providers that call us: their headers, their secret's setting, and their payload format.

Every provider signs `{timestamp}.{raw body}` with HMAC-SHA256 and its own shared secret (hex
digest), the timestamp being Unix seconds. The payload formats are documented in docs/webhooks.md;
`event_id` is the provider's own id of the event, so a re-sent event is not processed twice.
"""

from dataclasses import dataclass

from rest_framework import serializers

from common.api.fields import ChoiceField


class KybResult(serializers.Serializer):
    """A KYB (business verification) provider's finished check of one entity."""

    event_id = serializers.CharField(max_length=200)
    entity_id = serializers.UUIDField()
    check_type = ChoiceField(choices=["kyb", "ubo"])
    result = ChoiceField(choices=["pass", "fail", "review", "error"])
    score = serializers.FloatField(min_value=0.0, max_value=1.0, required=False, allow_null=True)
    provider_reference = serializers.CharField(max_length=200, required=False, allow_blank=True)
    details = serializers.DictField(required=False)
    completed_at = serializers.DateTimeField()


class IdentityResult(serializers.Serializer):
    """An identity-verification provider's decision on a person (an individual entity or a UBO)."""

    event_id = serializers.CharField(max_length=200)
    entity_id = serializers.UUIDField()
    verification_id = serializers.CharField(max_length=200)
    status = ChoiceField(choices=["approved", "declined", "review", "error"])
    document_type = serializers.CharField(max_length=50, required=False, allow_blank=True)
    details = serializers.DictField(required=False)
    completed_at = serializers.DateTimeField()


class ChainConfirmation(serializers.Serializer):
    """The chain service's confirmation (or failure) of a transaction we submitted or track."""

    event_id = serializers.CharField(max_length=200)
    chain_id = serializers.IntegerField(min_value=1)
    tx_hash = serializers.RegexField(r"^0x[0-9a-fA-F]{64}$")
    status = ChoiceField(choices=["confirmed", "failed", "reverted"])
    block_number = serializers.IntegerField(min_value=0, required=False, allow_null=True)
    confirmations = serializers.IntegerField(min_value=0, required=False, default=0)
    status_update_id = serializers.UUIDField(required=False, allow_null=True)
    transfer_id = serializers.CharField(max_length=100, required=False, allow_null=True)
    confirmed_at = serializers.DateTimeField()


@dataclass(frozen=True)
class Provider:
    name: str
    signature_header: str
    timestamp_header: str
    secret_setting: str
    payload: type[serializers.Serializer]
    handled_by: str  # what turns a payload into domain records, for the "unhandled" reason


PROVIDERS = {p.name: p for p in [
    Provider("kyb-provider", "x-kyb-signature", "x-kyb-timestamp", "KYB_WEBHOOK_SECRET", KybResult,
             "a compliance check of the referenced entity (onboarding)"),
    Provider("identity-provider", "x-payload-digest", "x-payload-digest-timestamp", "IDENTITY_WEBHOOK_SECRET",
             IdentityResult, "a compliance check of the referenced entity (onboarding)"),
    Provider("chain-confirmation", "x-webhook-signature", "x-webhook-timestamp", "CHAIN_WEBHOOK_SECRET",
             ChainConfirmation, "on-chain status-update and travel-rule records (compliance)"),
]}
