from rest_framework import serializers

from common.api.serializers import StrictSerializer

MAX_BATCH_ITEMS = 1000


class WalletStatus(serializers.Serializer):
    chain_id = serializers.IntegerField()
    address = serializers.CharField()
    flagged = serializers.BooleanField()
    status = serializers.CharField()


class Flags(serializers.Serializer):
    sanctioned = serializers.BooleanField()
    pep = serializers.BooleanField()
    adverse_media = serializers.BooleanField()
    high_risk = serializers.BooleanField()
    suspended = serializers.BooleanField()


class ComplianceStatusResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    status = serializers.CharField()
    compliant = serializers.BooleanField()
    flags = Flags()
    risk_tier = serializers.CharField(allow_null=True)
    wallets = WalletStatus(many=True)
    updated_at = serializers.DateTimeField()


class WalletKey(StrictSerializer):
    chain_id = serializers.IntegerField(min_value=0)
    address = serializers.CharField(max_length=200, trim_whitespace=True)


class BatchStatusRequest(StrictSerializer):
    wallets = WalletKey(many=True, required=False, default=list)
    entity_ids = serializers.ListField(child=serializers.UUIDField(), required=False, default=list)

    def validate(self, attrs):
        count = len(attrs["wallets"]) + len(attrs["entity_ids"])
        if count == 0:
            raise serializers.ValidationError({"wallets": "Ask for at least one wallet or entity."})
        if count > MAX_BATCH_ITEMS:
            raise serializers.ValidationError(
                {"wallets": f"At most {MAX_BATCH_ITEMS} items (wallets and entity_ids together); got {count}."})
        return attrs


class BatchQuery(serializers.Serializer):
    chain_id = serializers.IntegerField(required=False)
    address = serializers.CharField(required=False)
    entity_id = serializers.UUIDField(required=False)


class BatchStatusItem(serializers.Serializer):
    query = BatchQuery(help_text="The item asked, as given.")
    found = serializers.BooleanField()
    error = serializers.CharField(required=False, help_text="Why the item was not found.")
    entity_id = serializers.UUIDField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    compliant = serializers.BooleanField(allow_null=True)
    flags = Flags(allow_null=True)
    risk_tier = serializers.CharField(allow_null=True)
    wallets = WalletStatus(many=True)
    updated_at = serializers.DateTimeField(allow_null=True)
