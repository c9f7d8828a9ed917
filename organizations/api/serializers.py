from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from accounts.api.serializers import UserResponse
from common.api.fields import ChoiceField, CountryField, StrictBooleanField
from common.api.serializers import StrictSerializer
from organizations.choices import Mode, Role, Tier, TinType
from organizations.models import ApiKey, Invitation, Membership, Organization


class FilerAddressSerializer(StrictSerializer):
    line1 = serializers.CharField(max_length=200)
    city = serializers.CharField(max_length=100)
    state = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    postal_code = serializers.CharField(max_length=20, required=False, allow_blank=True, default="")
    country = CountryField()


class FilerProfileSerializer(StrictSerializer):
    """Who files: the institution's identity on a SAR or CTR (FinCEN "Filing Institution")."""

    legal_name = serializers.CharField(max_length=150, required=False)
    tin = serializers.RegexField(r"^[0-9A-Za-z-]{4,25}$", required=False,
                                 error_messages={"invalid": "The TIN must be 4–25 letters, digits or dashes."})
    tin_type = ChoiceField(choices=TinType.choices, required=False)
    address = FilerAddressSerializer(required=False)
    primary_regulator = serializers.CharField(max_length=100, required=False)
    contact_office = serializers.CharField(max_length=100, required=False)
    contact_phone = serializers.RegexField(r"^\+?[0-9 ()-]{6,20}$", required=False,
                                           error_messages={"invalid": "Use digits, spaces, +, (, ) and -."})
    # What the regulators' reports need beyond the above (docs/filings.md, docs/cases.md).
    dba_name = serializers.CharField(max_length=150, required=False)
    institution_type = ChoiceField(choices=[
        "virtual_asset_service_provider", "money_services_business", "depository_institution", "securities_futures", "casino",
        "insurance", "loan_finance", "other"], required=False)
    institution_type_other = serializers.CharField(max_length=50, required=False)
    transmitter_control_code = serializers.RegexField(
        r"^[A-Za-z0-9]{8}$", required=False, help_text="FinCEN BSA E-Filing Transmitter Control Code (8 characters).",
        error_messages={"invalid": "A FinCEN TCC is 8 letters or digits."})
    reporting_entity_number = serializers.RegexField(
        r"^[0-9]{1,7}$", required=False, help_text="FINTRAC (7 digits) or AUSTRAC reporting entity number.",
        error_messages={"invalid": "A reporting entity number is up to 7 digits (FINTRAC: exactly 7)."})
    regulator_contact_id = serializers.IntegerField(min_value=0, required=False, help_text="FINTRAC: the contact's id.")
    reporting_entity_location_id = serializers.CharField(max_length=30, required=False,
                                                         help_text="FINTRAC: the location where the transactions happen.")


@extend_schema_serializer(component_name="CreateOrgRequest")  # the published component name
class OrganizationCreateRequest(StrictSerializer):
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=60, required=False)
    filer_profile = FilerProfileSerializer(required=False)


class OrganizationUpdateRequest(StrictSerializer):
    name = serializers.CharField(max_length=200, required=False)
    filer_profile = FilerProfileSerializer(required=False)
    four_eyes_filing = StrictBooleanField(
        required=False, allow_null=True,
        help_text="Four-eyes filing: true on in both modes, false off in both (audited), null the default (on in live mode, off in test).")


class FourEyesResponse(serializers.Serializer):
    setting = serializers.ChoiceField(choices=["default", "on", "off"])
    live = serializers.BooleanField(help_text="Whether live-mode filings need a filer other than the preparer.")
    test = serializers.BooleanField(help_text="Whether test-mode filings need a filer other than the preparer.")


class OrganizationResponse(serializers.ModelSerializer):
    filer_profile = FilerProfileSerializer()
    role = serializers.SerializerMethodField(help_text="The caller's role in this organization.")
    four_eyes_filing = serializers.BooleanField(allow_null=True, help_text=(
        "Four-eyes filing: true on in both modes, false off in both, null the default (on in live mode, off in test)."))
    four_eyes = serializers.SerializerMethodField(help_text="Where four-eyes filing applies, from `four_eyes_filing`.")

    class Meta:
        model = Organization
        fields = ["id", "name", "slug", "filer_profile", "four_eyes_filing", "four_eyes", "role", "created_at", "updated_at"]
        read_only_fields = fields

    def get_role(self, org) -> str | None:
        return self.context.get("role")

    @extend_schema_field(FourEyesResponse)
    def get_four_eyes(self, org) -> dict:
        return {"setting": org.four_eyes_setting, "live": org.four_eyes_in(Mode.LIVE), "test": org.four_eyes_in(Mode.TEST)}


class InviteRequest(StrictSerializer):
    email = serializers.EmailField(max_length=254)
    role = ChoiceField(choices=Role.choices, default=Role.VIEWER)


class InvitationResponse(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True)
    invited_by = serializers.EmailField(source="invited_by.email", allow_null=True, default=None)

    class Meta:
        model = Invitation
        fields = ["id", "email", "role", "status", "invited_by", "created_at", "expires_at", "accepted_at", "revoked_at"]
        read_only_fields = fields


class InvitationCreatedResponse(InvitationResponse):
    """The token is the link's; it is returned to the admin as well, to share another way."""

    token = serializers.CharField(read_only=True)
    accept_url = serializers.CharField(read_only=True)

    class Meta(InvitationResponse.Meta):
        fields = [*InvitationResponse.Meta.fields, "token", "accept_url"]
        read_only_fields = fields


class InvitationPreviewResponse(serializers.Serializer):
    id = serializers.UUIDField()
    organization_name = serializers.CharField(source="organization.name")
    email = serializers.EmailField()
    role = serializers.CharField()
    status = serializers.CharField()
    invited_by = serializers.EmailField(source="invited_by.email", allow_null=True, default=None)
    expires_at = serializers.DateTimeField()


class TokenQuery(StrictSerializer):
    token = serializers.CharField(max_length=500)


class UpdateRoleRequest(StrictSerializer):
    role = ChoiceField(choices=Role.choices)


class MemberResponse(serializers.ModelSerializer):
    user = UserResponse()
    user_id = serializers.UUIDField()
    joined_at = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Membership
        fields = ["user_id", "user", "role", "joined_at"]
        read_only_fields = fields


class ApiKeyCreateRequest(StrictSerializer):
    name = serializers.CharField(max_length=100)
    mode = ChoiceField(choices=Mode.choices)
    tier = ChoiceField(choices=Tier.choices, default=Tier.STANDARD)
    role = ChoiceField(choices=Role.choices, default=Role.L3_OFFICER)


class ApiKeyResponse(serializers.ModelSerializer):
    created_by = serializers.EmailField(source="created_by.email", allow_null=True, default=None)
    is_active = serializers.BooleanField()

    class Meta:
        model = ApiKey
        fields = ["id", "name", "mode", "tier", "role", "prefix", "is_active", "created_by", "created_at",
                  "last_used_at", "revoked_at"]
        read_only_fields = fields


class ApiKeyCreatedResponse(ApiKeyResponse):
    key = serializers.CharField(help_text="The secret. Shown once: store it now.")

    class Meta(ApiKeyResponse.Meta):
        fields = [*ApiKeyResponse.Meta.fields, "key"]
        read_only_fields = fields


class WhoAmIResponse(serializers.Serializer):
    # Plain CharFields (enums in help_text): this response is on integrators' hot path, and DRF's
    # ChoiceField costs more to build than the rest of the serializer.
    credential = serializers.CharField(help_text="api_key | session")
    organization_id = serializers.UUIDField(source="organization.id")
    organization_slug = serializers.CharField(source="organization.slug")
    mode = serializers.CharField(help_text="test | live")
    role = serializers.CharField(help_text="viewer | l1_analyst | l2_investigator | l3_officer | admin")
    tier = serializers.CharField(source="api_key.tier", allow_null=True, default=None)
    api_key_id = serializers.UUIDField(source="api_key.id", allow_null=True, default=None)
    user_email = serializers.EmailField(source="user.email", allow_null=True, default=None)
