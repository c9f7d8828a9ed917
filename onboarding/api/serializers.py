from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import BirthDateField, ChoiceField, CountryField, MultiLineTextField
from common.api.serializers import StrictSerializer
from common.chain import EVM_ADDRESS, MAX_CHAIN_ID
from compliance.status import flags_of
from onboarding import selectors
from onboarding.choices import EntityStatus, EntityType, RiskTier
from onboarding.kyb import kyb_view
from onboarding.models import BeneficialOwner, Entity, Wallet


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def without_nul(value):
    """JSON objects are stored as jsonb on PostgreSQL, which refuses the NUL character: a 422, not a 500."""
    if _has_nul(value):
        raise serializers.ValidationError("Text may not contain the NUL character (\\u0000).")
    return value


class AddressSerializer(StrictSerializer):
    line1 = serializers.CharField(max_length=200)
    line2 = serializers.CharField(max_length=200, required=False, allow_blank=True)
    city = serializers.CharField(max_length=100)
    state = serializers.CharField(max_length=100, required=False, allow_blank=True)
    postal_code = serializers.CharField(max_length=20, required=False, allow_blank=True)
    country = CountryField()


class WalletRegistration(StrictSerializer):
    chain_id = serializers.IntegerField(min_value=0, max_value=MAX_CHAIN_ID, required=False,
                                        help_text="0 = off-chain (the default for an off-chain identifier); required for an EVM address")
    address = serializers.CharField(max_length=200)
    label = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")

    def validate(self, attrs):
        """chain_id defaults to 0 (off-chain) only for what cannot be an EVM address: an EVM address
        registered without one would sit on chain 0, where no on-chain transfer or look-up finds it."""
        if "chain_id" not in attrs:
            if EVM_ADDRESS.match(attrs["address"].strip()):
                raise serializers.ValidationError({"chain_id": "An EVM address needs its chain_id (1 Ethereum, 137 Polygon, "
                                                                "...); 0 is for off-chain identifiers."})
            attrs["chain_id"] = 0
        return attrs


class UboRequest(StrictSerializer):
    name = serializers.CharField(max_length=300)
    date_of_birth = BirthDateField(required=False, allow_null=True)
    nationality = CountryField(required=False, allow_blank=True)
    ownership_pct = serializers.DecimalField(max_digits=6, decimal_places=3, min_value=0, max_value=100, required=False,
                                             allow_null=True)
    tax_id = serializers.CharField(max_length=40, required=False, allow_blank=True)


class OnboardEntityRequest(StrictSerializer):
    legal_name = serializers.CharField(max_length=300)
    entity_type = ChoiceField(choices=EntityType.choices)
    jurisdiction = CountryField()
    external_id = serializers.CharField(max_length=120, required=False, allow_blank=True)
    registration_number = serializers.CharField(max_length=100, required=False, allow_blank=True)
    tax_id = serializers.CharField(max_length=40, required=False, allow_blank=True,
                                   help_text="SSN/EIN/ITIN: encrypted at rest, returned masked")
    date_of_birth = BirthDateField(required=False, allow_null=True)
    address = AddressSerializer(required=False)
    industry = serializers.CharField(max_length=100, required=False, allow_blank=True)
    website = serializers.URLField(max_length=300, required=False, allow_blank=True)
    email = serializers.EmailField(required=False, allow_blank=True)
    phone = serializers.RegexField(r"^\+?[0-9 ()-]{6,20}$", required=False, allow_blank=True)
    expected_monthly_volume_usd = serializers.DecimalField(max_digits=20, decimal_places=2, min_value=0, required=False,
                                                           allow_null=True)
    ubos = UboRequest(many=True, required=False)
    wallets = WalletRegistration(many=True, required=False)
    metadata = serializers.DictField(required=False, validators=[without_nul])

    def validate_wallets(self, wallets):
        if len(wallets) > 100:
            raise serializers.ValidationError("At most 100 wallets at onboarding; add more afterwards.")
        return wallets


class EntityBatchRequest(StrictSerializer):
    entities = OnboardEntityRequest(many=True, min_length=1, max_length=1000,
                                    help_text="1 to 1,000 entities, each as POST /v1/onboarding/entities takes one.")


class EntityBatchItem(serializers.ModelSerializer):
    wallets = serializers.SerializerMethodField()

    class Meta:
        model = Entity
        fields = ["id", "external_id", "legal_name", "status", "risk_score", "risk_tier", "wallets"]
        read_only_fields = fields

    def get_wallets(self, entity) -> list[dict]:
        return [{"id": str(wallet.pk), "chain_id": wallet.chain_id, "address": wallet.address} for wallet in entity.wallets.all()]


class EntityBatchResponse(serializers.Serializer):
    created = serializers.IntegerField()
    data = EntityBatchItem(many=True, help_text="The entities in the order sent.")


class EntityReviewRequest(StrictSerializer):
    reason = MultiLineTextField(max_length=500, required=False, allow_blank=True, default="")
    notes = MultiLineTextField(max_length=5000, required=False, allow_blank=True, default="")


class EntityListQuery(serializers.Serializer):
    status = ChoiceField(choices=EntityStatus.choices, required=False)
    risk_tier = ChoiceField(choices=RiskTier.choices, required=False)
    search = serializers.CharField(max_length=200, required=False)


class WalletResponse(serializers.ModelSerializer):
    entity_id = serializers.UUIDField()

    class Meta:
        model = Wallet
        fields = ["id", "entity_id", "chain_id", "address", "label", "status", "flagged", "flag_reason", "flagged_at",
                  "created_at"]
        read_only_fields = fields


class UboResponse(serializers.ModelSerializer):
    tax_id = serializers.CharField(source="tax_id_masked", allow_null=True)

    class Meta:
        model = BeneficialOwner
        fields = ["id", "name", "date_of_birth", "nationality", "ownership_pct", "tax_id"]
        read_only_fields = fields


class ComplianceFlags(serializers.Serializer):
    sanctioned = serializers.BooleanField()
    pep = serializers.BooleanField()
    adverse_media = serializers.BooleanField()
    high_risk = serializers.BooleanField()
    suspended = serializers.BooleanField()


class RiskFactorResponse(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    weight = serializers.FloatField()
    severity = serializers.FloatField()
    contribution = serializers.FloatField(help_text="Points this factor adds to the score (weight × severity).")
    detail = serializers.CharField()
    floor = serializers.IntegerField(required=False, help_text="Minimum score this finding imposes, when it does.")


class KybResponse(serializers.Serializer):
    verified_at = serializers.DateTimeField(help_text="When the latest passing KYB check was recorded.")
    check_id = serializers.UUIDField(allow_null=True, help_text="That check.")
    expires_at = serializers.DateTimeField(help_text="When it falls due under your KYB review policy for the entity's risk tier.")
    expired = serializers.BooleanField(help_text="The verification fell due and account.kyb_expired was sent; a new passing KYB "
                                                 "result renews it.")


class EntityResponse(serializers.ModelSerializer):
    tax_id = serializers.CharField(source="tax_id_masked", allow_null=True)
    risk_tier = serializers.CharField(allow_null=True)
    risk_factors = RiskFactorResponse(many=True)
    flags = serializers.SerializerMethodField()
    kyb = serializers.SerializerMethodField()
    ubos = UboResponse(many=True)
    wallets = WalletResponse(many=True)
    # '' when not given, so no "email"/"uri" format in the schema (an empty string has neither).
    email = serializers.CharField(help_text="An e-mail address, or '' when none was given.")
    website = serializers.CharField(help_text="A URL, or '' when none was given.")

    class Meta:
        model = Entity
        fields = ["id", "external_id", "legal_name", "entity_type", "jurisdiction", "status", "status_reason",
                  "status_changed_at", "risk_score", "risk_tier", "risk_factors", "flags", "kyb", "registration_number", "tax_id",
                  "date_of_birth", "address", "industry", "website", "email", "phone", "expected_monthly_volume_usd", "metadata",
                  "ubos", "wallets", "created_at", "updated_at"]
        read_only_fields = fields

    @extend_schema_field(ComplianceFlags)
    def get_flags(self, entity) -> dict:
        return flags_of(entity)

    @extend_schema_field(KybResponse(allow_null=True))
    def get_kyb(self, entity) -> dict | None:
        """null until a passing KYB check is recorded."""
        if entity.kyb_verified_at is None:
            return None
        policies = self.context.setdefault("kyb_policies", {})  # one read per organization, also for a list
        if entity.organization_id not in policies:
            policies[entity.organization_id] = selectors.kyb_policy(organization_id=entity.organization_id)
        return KybResponse(kyb_view(entity, policies[entity.organization_id])).data

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["risk_tier"] = data["risk_tier"] or None
        return data
