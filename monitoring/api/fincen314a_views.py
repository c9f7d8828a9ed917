"""FinCEN 314(a): upload a subject list, list the files and their matches, review a match."""

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from common.api.pagination import page_parameters
from common.api.serializers import validated, validated_query
from common.api.views import V1APIView
from common.errors import NotFound, PayloadTooLarge, ValidationFailed
from monitoring.api import fincen314a_serializers as s
from monitoring.fincen314a import selectors, services
from monitoring.models.fincen314a import ReviewStatus

TAGS = ["monitoring: 314(a)"]
LIMITS = ("Limits: at most FINCEN_314A_MAX_BYTES (default 5 MiB, else 413) and FINCEN_314A_MAX_SUBJECTS subjects "
          "(default 20,000, else 422).")


def _page(rows, total: int, query: dict) -> dict:
    return {"total": total, "limit": query["limit"], "offset": query["offset"], "has_more": query["offset"] + len(rows) < total}


class Upload314aView(V1APIView):
    parser_classes = [MultiPartParser]
    minimum_role = services.UPLOAD_ROLE

    @extend_schema(operation_id="fincen_314a_upload", tags=TAGS, request={"multipart/form-data": s.Upload314aRequest},
                   responses={200: s.Upload314aResponse},
                   description="Upload a 314(a) subject list (multipart form, field `file`, CSV with a header row: Name required; "
                               "SSN_ITIN, DOB, Address, City, State, Zip, Phone, Email, Type, EIN, Tracking_Number, Alt_Names optional). "
                               "Every problem is a 422 naming the line and column, and nothing is stored. Matching against all the "
                               f"entities runs in a worker: the file is `processing`, then `completed`. {LIMITS}")
    def post(self, request):
        # A request without a body has no form at all: DRF gives a plain dict, which the serializer refuses (file required).
        if len(getattr(request.data, "getlist", lambda name: [])("file")) > 1:
            raise ValidationFailed.for_field("file", "Upload one file at a time.")
        upload = request.data.get("file")
        if hasattr(upload, "size") and upload.size > settings.FINCEN_314A_MAX_BYTES:
            raise PayloadTooLarge(f"A 314(a) file may be at most {settings.FINCEN_314A_MAX_BYTES} bytes; this one has "
                                  f"{upload.size}. Split the list.")
        form = validated(s.Upload314aRequest, request.data)
        file = services.file_upload(principal=request.auth, filename=form["file"].name, content=form["file"].read(),
                                    period=form.get("period"))
        return Response(s.Upload314aResponse(file).data)


class Files314aView(V1APIView):
    minimum_role = services.READ_ROLE

    @extend_schema(operation_id="fincen_314a_files_list", tags=TAGS, responses={200: s.File314aListResponse},
                   parameters=page_parameters(*s.FILES_PAGE), description="The uploaded 314(a) files, newest first, with their counts.")
    def get(self, request):
        query = validated_query(s.page_query(*s.FILES_PAGE), request)
        files = selectors.files_of(organization=request.auth.organization, mode=request.auth.mode)
        total = files.count()
        rows = list(files[query["offset"]:query["offset"] + query["limit"]])
        return Response({"files": s.File314aResponse(rows, many=True).data, **_page(rows, total, query)})


class Matches314aView(V1APIView):
    minimum_role = services.READ_ROLE

    @extend_schema(operation_id="fincen_314a_matches_list", tags=TAGS, responses={200: s.Match314aListResponse},
                   parameters=[OpenApiParameter("review_status", str, enum=ReviewStatus.values), *page_parameters(*s.MATCHES_PAGE)],
                   description="The matches of one file, strongest first.")
    def get(self, request, file_id):
        query = validated_query(s.page_query(*s.MATCHES_PAGE, review_status=s.ChoiceField(choices=ReviewStatus.choices, required=False)),
                                request)
        file = selectors.file_of(organization=request.auth.organization, mode=request.auth.mode, file_id=file_id)
        if file is None:
            raise NotFound("No 314(a) file of yours has this id.")
        matches = selectors.matches_of_file(file=file, review_status=query.get("review_status"))
        total = matches.count()
        rows = list(matches[query["offset"]:query["offset"] + query["limit"]])
        return Response({"file_id": str(file.pk), "file_status": file.status, "matches": s.Match314aResponse(rows, many=True).data,
                         **_page(rows, total, query)})


class Review314aView(V1APIView):
    minimum_role = services.REVIEW_ROLE

    @extend_schema(operation_id="fincen_314a_matches_review", tags=TAGS, request=s.Review314aRequest,
                   responses={200: s.Review314aResponse},
                   description="Record the review of a match, once (a second review is a 409): `positive` (the subject is the "
                               "customer; report it to FinCEN) or `negative`, with notes saying why.")
    def post(self, request, match_id):
        body = validated(s.Review314aRequest, request.data)
        found = services.match_review(principal=request.auth, match_id=match_id, **body)
        return Response(s.Review314aResponse(found).data)
