from rest_framework import serializers

from common.api.fields import ChoiceField, MultiLineTextField
from common.api.pagination import MAX_OFFSET
from common.api.serializers import StrictSerializer
from monitoring.fincen314a.services import NOTES_MAX_CHARS, NOTES_REQUIRED
from monitoring.models import Fincen314aFile, Fincen314aMatch
from monitoring.models.fincen314a import FileStatus, ReviewStatus

FILES_PAGE = (20, 100)
MATCHES_PAGE = (50, 500)


class BlankAsNull(serializers.CharField):
    """A text stored as '' until it is set, answered as null."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value):
        return value or None


def page_query(default: int, maximum: int, **fields) -> type[StrictSerializer]:
    return type("PageQuery", (StrictSerializer,), {
        "limit": serializers.IntegerField(required=False, default=default, min_value=1, max_value=maximum),
        "offset": serializers.IntegerField(required=False, default=0, min_value=0, max_value=MAX_OFFSET),
        **fields,
    })


class Upload314aRequest(StrictSerializer):
    file = serializers.FileField(help_text="The 314(a) subject list: CSV (UTF-8) with a header row.")
    period = serializers.DateField(required=False, input_formats=["%Y-%m-%d"],
                                   help_text="The date of the list; default: a date in the file name, else the upload date.")


class Upload314aResponse(serializers.ModelSerializer):
    file_id = serializers.UUIDField(source="pk")
    uploaded_at = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Fincen314aFile
        fields = ["file_id", "filename", "period", "subjects_count", "status", "uploaded_at", "estimated_completion", "response_deadline"]
        read_only_fields = fields


class File314aResponse(Upload314aResponse):
    status = ChoiceField(choices=FileStatus.choices, read_only=True)
    matches_count = serializers.IntegerField()
    positive_matches = serializers.IntegerField()
    negative_matches = serializers.IntegerField()
    pending_review = serializers.IntegerField()
    uploaded_by = BlankAsNull(source="uploaded_by_label")
    entities_searched = serializers.IntegerField(allow_null=True, help_text="How many entities the list was matched against.")

    class Meta(Upload314aResponse.Meta):
        fields = ["file_id", "filename", "period", "subjects_count", "status", "matches_count", "positive_matches", "negative_matches",
                  "pending_review", "uploaded_at", "uploaded_by", "estimated_completion", "completed_at", "response_deadline",
                  "entities_searched"]
        read_only_fields = fields


class File314aListResponse(serializers.Serializer):
    files = File314aResponse(many=True)
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    has_more = serializers.BooleanField()


class MatchSubjectResponse(serializers.Serializer):
    name = serializers.CharField()
    alt_names = serializers.ListField(child=serializers.CharField())
    address = serializers.CharField(source="full_address")
    id_number = serializers.CharField(source="id_number_masked", allow_null=True,
                                      help_text="The SSN/ITIN or EIN, masked to its last four digits.")
    tracking_number = serializers.CharField()
    type = BlankAsNull(source="subject_type", help_text="Individual or Business; null when the list did not say.")
    date_of_birth = serializers.DateField(allow_null=True)


class MatchedEntityResponse(serializers.Serializer):
    entity_id = serializers.UUIDField(source="entity.pk")
    legal_name = serializers.CharField(source="entity.legal_name")
    jurisdiction = serializers.CharField(source="entity.jurisdiction")
    match_score = serializers.FloatField(source="score", help_text=(
        "1.0 for an identification number that agrees; else by name: exact 0.90-0.99, reordered 0.80-0.89, partial 0.70-0.79, "
        "fuzzy 0.50-0.69, the fields that agree adding within the band (docs/information-sharing.md)."))
    match_fields = serializers.ListField(child=serializers.CharField())


class Match314aResponse(serializers.ModelSerializer):
    match_id = serializers.UUIDField(source="pk")
    file_id = serializers.UUIDField()
    subject = MatchSubjectResponse()
    matched_entity = MatchedEntityResponse(source="*")
    review_status = ChoiceField(choices=ReviewStatus.choices, read_only=True)
    reviewer = BlankAsNull()
    notes = BlankAsNull()

    class Meta:
        model = Fincen314aMatch
        fields = ["match_id", "file_id", "subject", "matched_entity", "review_status", "reviewed_at", "reviewer", "notes", "created_at"]
        read_only_fields = fields


class Match314aListResponse(serializers.Serializer):
    file_id = serializers.UUIDField()
    file_status = ChoiceField(choices=FileStatus.choices, read_only=True, help_text="Matches appear when the file is completed.")
    matches = Match314aResponse(many=True)
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    has_more = serializers.BooleanField()


class Review314aRequest(StrictSerializer):
    result = ChoiceField(choices=[ReviewStatus.POSITIVE, ReviewStatus.NEGATIVE])
    notes = MultiLineTextField(max_length=NOTES_MAX_CHARS, error_messages={"blank": NOTES_REQUIRED, "required": NOTES_REQUIRED})


class Review314aResponse(serializers.ModelSerializer):
    match_id = serializers.UUIDField(source="pk")
    review_status = ChoiceField(choices=ReviewStatus.choices, read_only=True)

    class Meta:
        model = Fincen314aMatch
        fields = ["match_id", "review_status", "notes", "reviewed_at", "reviewer"]
        read_only_fields = fields
