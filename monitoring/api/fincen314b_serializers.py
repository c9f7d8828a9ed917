from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import ChoiceField, MultiLineTextField, StrictBooleanField
from common.api.pagination import MAX_OFFSET
from common.api.serializers import StrictSerializer
from common.errors import ValidationFailed
from monitoring.api.fincen314a_serializers import BlankAsNull
from monitoring.fincen314b.ein import ein_normalized
from monitoring.fincen314b.services import DETAILS_MAX_CHARS, TEXT_MAX_CHARS, WALLET_MAX_CHARS, WALLETS_MAX
from monitoring.models import Fincen314bPartner, Fincen314bRequest
from monitoring.models.fincen314b import PartnerStatus, RequestDirection, RequestStatus

PHONE = r"^(\+?[0-9 ().\-]{7,25})?$"  # or blank


class EinField(serializers.CharField):
    """9 digits, 12-3456789 or 123456789; answered as 12-3456789."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not value:
            return value
        try:
            return ein_normalized(value)
        except ValidationFailed as exc:
            raise serializers.ValidationError(exc.message) from None


class Partner314bCreate(StrictSerializer):
    institution_name = serializers.CharField(max_length=200)
    ein = EinField(max_length=10)
    contact_name = serializers.CharField(max_length=200)
    contact_email = serializers.EmailField(max_length=254)
    contact_phone = serializers.RegexField(PHONE, required=False, allow_blank=True, default="",
                                           error_messages={"invalid": "Not a telephone number."})
    certification_date = serializers.DateField(input_formats=["%Y-%m-%d"], help_text="When the partner's 314(b) notice took effect.")
    certification_expiry = serializers.DateField(input_formats=["%Y-%m-%d"], help_text="When it lapses (a notice lasts one year).")

    def validate(self, attrs):
        if attrs["certification_expiry"] <= attrs["certification_date"]:
            raise serializers.ValidationError({"certification_expiry": "The expiry must be after the certification date."})
        return attrs


class Partner314bResponse(serializers.ModelSerializer):
    partner_id = serializers.UUIDField(source="pk")
    status = ChoiceField(choices=PartnerStatus.choices, read_only=True)
    verified_by = BlankAsNull()
    verification_method = BlankAsNull()
    certification_expired = serializers.SerializerMethodField(help_text="Past its expiry: no sharing until renewed and verified.")

    class Meta:
        model = Fincen314bPartner
        fields = ["partner_id", "institution_name", "ein", "status", "contact_name", "contact_email", "contact_phone",
                  "certification_date", "certification_expiry", "certification_expired", "created_at", "verified_at", "verified_by",
                  "verification_method"]
        read_only_fields = fields

    def get_certification_expired(self, partner) -> bool:
        return partner.certification_expired(timezone.now().date())


class Partner314bListQuery(StrictSerializer):
    status = ChoiceField(choices=PartnerStatus.choices, required=False)


class Partner314bListResponse(serializers.Serializer):
    partners = Partner314bResponse(many=True)
    total = serializers.IntegerField()


class Partner314bVerify(StrictSerializer):
    verification_method = serializers.CharField(max_length=100, help_text="How it was checked, for example fincen_lookup.")
    verified = StrictBooleanField(help_text="true: verified, sharing enabled; false: the check failed, sharing stops.")
    notes = MultiLineTextField(max_length=TEXT_MAX_CHARS, required=False, allow_blank=True, default="")


class Partner314bVerifyResponse(serializers.ModelSerializer):
    partner_id = serializers.UUIDField(source="pk")
    status = ChoiceField(choices=PartnerStatus.choices, read_only=True)
    verified_by = BlankAsNull()
    verification_method = BlankAsNull()

    class Meta:
        model = Fincen314bPartner
        fields = ["partner_id", "status", "verified_at", "verified_by", "verification_method"]
        read_only_fields = fields


class ShareSubject(StrictSerializer):
    name = serializers.CharField(max_length=300)
    ein = EinField(max_length=10, required=False, allow_blank=True, default="")
    address = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    wallet_addresses = serializers.ListField(child=serializers.CharField(max_length=WALLET_MAX_CHARS), required=False, default=list,
                                             max_length=WALLETS_MAX)


class Request314bCreate(StrictSerializer):
    partner_id = serializers.UUIDField()
    subject = ShareSubject()
    reason = MultiLineTextField(max_length=TEXT_MAX_CHARS,
                                help_text="Why: the activity that may involve money laundering or terrorist financing.")
    case_id = serializers.UUIDField(required=False, allow_null=True, default=None, help_text="A case of yours this request serves.")


class SubjectResponse(serializers.Serializer):
    name = serializers.CharField(source="subject_name")
    ein = BlankAsNull(source="subject_ein")
    address = serializers.CharField(source="subject_address")
    wallet_addresses = serializers.ListField(child=serializers.CharField(), source="subject_wallet_addresses")


class ShareResponse(serializers.Serializer):
    has_match = serializers.BooleanField()
    details = serializers.CharField(source="response_details")
    share_sar_reference = serializers.BooleanField()
    sar_bsa_id = BlankAsNull()
    responded_at = serializers.DateTimeField()
    responded_by = serializers.CharField()


class Request314bResponse(serializers.ModelSerializer):
    request_id = serializers.UUIDField(source="pk")
    partner_id = serializers.UUIDField()
    partner_name = serializers.CharField(source="partner.institution_name")
    direction = ChoiceField(choices=RequestDirection.choices, read_only=True)
    status = ChoiceField(choices=RequestStatus.choices, read_only=True)
    subject = SubjectResponse(source="*")
    response = serializers.SerializerMethodField(help_text="null until the request is answered.")
    delivered_on_service = serializers.SerializerMethodField(
        help_text="The partner uses this service too: the request reached it there (or came from it), and so does the answer.")

    class Meta:
        model = Fincen314bRequest
        fields = ["request_id", "partner_id", "partner_name", "direction", "status", "subject", "subject_name", "reason", "case_id",
                  "created_at", "response_deadline", "response", "delivered_on_service"]
        read_only_fields = fields

    @extend_schema_field(ShareResponse(allow_null=True))
    def get_response(self, request):
        return ShareResponse(request).data if request.responded_at else None

    def get_delivered_on_service(self, request) -> bool:
        return request.counterpart_id is not None


class Request314bListQuery(StrictSerializer):
    status = ChoiceField(choices=RequestStatus.choices, required=False)
    partner_id = serializers.UUIDField(required=False)
    direction = ChoiceField(choices=RequestDirection.choices, required=False)
    limit = serializers.IntegerField(required=False, default=20, min_value=1, max_value=100)
    offset = serializers.IntegerField(required=False, default=0, min_value=0, max_value=MAX_OFFSET)


class Request314bListResponse(serializers.Serializer):
    requests = Request314bResponse(many=True)
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    has_more = serializers.BooleanField()


class Request314bRespond(StrictSerializer):
    has_match = StrictBooleanField()
    details = MultiLineTextField(max_length=DETAILS_MAX_CHARS, required=False, allow_blank=True, default="")
    share_sar_reference = StrictBooleanField(required=False, default=False)
    sar_bsa_id = serializers.RegexField(r"^([0-9]{14})?$", required=False, allow_blank=True, default="",
                                        error_messages={"invalid": "A BSA ID is 14 digits."})


class Request314bRespondResponse(serializers.ModelSerializer):
    request_id = serializers.UUIDField(source="pk")
    status = ChoiceField(choices=RequestStatus.choices, read_only=True)
    response = serializers.SerializerMethodField()

    class Meta:
        model = Fincen314bRequest
        fields = ["request_id", "status", "response"]
        read_only_fields = fields

    @extend_schema_field(ShareResponse())
    def get_response(self, request):
        return ShareResponse(request).data
