"""Labels for backtests (/v1/monitoring/labels): upload (a CSV or JSON file, or a JSON body) and list."""

import json

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response

from common.api.pagination import page_parameters, paged
from common.api.serializers import PAGE_PARAMETERS, validated_query
from common.api.views import V1APIView
from common.errors import PayloadTooLarge, ValidationFailed
from monitoring.labels import parsing
from monitoring.labels.selectors import labels_of
from monitoring.labels.services import LABEL_ROLE, MAX_ROWS, labels_upload
from monitoring.models import EntityLabel

TAGS = ["monitoring: rules"]
MAX_BYTES = 10 * 1024 * 1024


class LabelItem(serializers.Serializer):
    entity_id = serializers.UUIDField(required=False)
    external_id = serializers.CharField(required=False)
    label = serializers.ChoiceField(choices=["positive", "negative", "true_positive", "false_positive"])
    typology = serializers.CharField(required=False, max_length=60)


class LabelUploadJSON(serializers.Serializer):
    labels = LabelItem(many=True)


class LabelUploadFile(serializers.Serializer):
    file = serializers.FileField(help_text="CSV with a header (label, entity_id or external_id, optional typology) or a JSON list.")


class LabelUploadResponse(serializers.Serializer):
    stored = serializers.IntegerField()
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    errors = serializers.ListField(child=serializers.DictField(), help_text="Per bad row: its line (CSV) or item (JSON) and why.")


class LabelResponse(serializers.ModelSerializer):
    external_id = serializers.CharField(source="entity.external_id")

    class Meta:
        model = EntityLabel
        fields = ["entity_id", "external_id", "label", "typology", "updated_at"]
        read_only_fields = fields


class LabelsView(V1APIView):
    parser_classes = [JSONParser, MultiPartParser]

    action_roles = {"post": LABEL_ROLE}

    @extend_schema(operation_id="labels_upload", tags=TAGS, request={"application/json": LabelUploadJSON,
                                                                  "multipart/form-data": LabelUploadFile},
                   responses={200: LabelUploadResponse}, description=(
                       "Label entities for backtests (positive: laundering, negative: not; true_positive and false_positive are "
                       "taken as those). Each row names an entity by entity_id or external_id, optionally with a typology; a "
                       "label replaces the entity's earlier one. Bad rows are listed with their line (CSV, header = line 1) or "
                       f"item (JSON, from 1) and left out; the others are stored. At most {MAX_ROWS} rows."))
    def post(self, request):
        rows, position = self._rows(request)
        return Response(LabelUploadResponse(labels_upload(principal=request.auth, rows=rows, position=position)).data)

    @staticmethod
    def _rows(request) -> tuple[list, str]:
        upload = request.data.get("file") if hasattr(request.data, "getlist") else None
        if upload is None:
            if not isinstance(request.data, dict) or "labels" not in request.data:
                raise ValidationFailed.for_field("labels", "Send {\"labels\": [...]} as JSON, or a file as a multipart form.")
            return parsing.json_rows(request.data["labels"]), "item"
        if upload.size > MAX_BYTES:
            raise PayloadTooLarge(f"A label file may be at most {MAX_BYTES} bytes.")
        content = upload.read()
        if upload.name.lower().endswith(".json"):
            try:
                return parsing.json_rows(json.loads(content)), "item"
            except ValueError:
                raise ValidationFailed.for_field("file", "The file is not valid JSON.") from None
        return parsing.csv_rows(content), "line"

    @extend_schema(operation_id="labels_list", tags=TAGS, responses={200: paged(LabelResponse)}, parameters=[*page_parameters()])
    def get(self, request):
        validated_query(serializers.Serializer, request, also=PAGE_PARAMETERS)
        return self.page(labels_of(organization=request.auth.organization, mode=request.auth.mode), LabelResponse)
